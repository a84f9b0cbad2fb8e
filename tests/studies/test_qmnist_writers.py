"""Study 2 pipeline: hand-computed writer tables on synthetic digits, and a tiny real run."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from pruneaudit import audit, data
from pruneaudit.errors import PruneAuditError
from pruneaudit.runs import ResultsStore
from pruneaudit.studies import qmnist_writers as qw


def _digits(labels, writers, series) -> data.ImageData:
    """Synthetic QMNIST-like digits: a vertical bar, shifted per label (upright, tilt 0)."""
    n = len(labels)
    images = torch.zeros(n, 1, 28, 28, dtype=torch.uint8)
    for i, y in enumerate(labels):
        images[i, 0, 4:24, 4 + 2 * y] = 255
    meta = pd.DataFrame({"series": series, "writer": writers})
    spec = data.DATASETS["qmnist"]
    return data.ImageData(
        "qmnist", images, torch.tensor(labels, dtype=torch.int64),
        tuple(str(c) for c in range(10)), spec, meta,
    )


@pytest.fixture
def toy():
    # writer 1 (hsf0): 2 digits, writer 2 (hsf4): 2 digits
    test = _digits([0, 1, 2, 3], [1, 1, 2, 2], ["hsf0", "hsf0", "hsf4", "hsf4"])
    pool = _digits([0, 1, 2, 3, 0], [9] * 5, ["hsf0"] * 5)
    dense = np.array([[0, 1, 2, 3], [0, 1, 2, 0]])  # seed 0 all right, seed 1 misses digit 3
    pruned = np.array([[0, 1, 5, 5], [0, 7, 5, 5]])
    return test, pool, dense, pruned


def test_digit_frame_averages_correctness_over_seeds(toy):
    test, pool, dense, pruned = toy
    d = qw.digit_frame(test, pool, dense, pruned)
    assert d["correct_unpruned"].tolist() == [1.0, 1.0, 1.0, 0.5]
    assert d["correct_pruned"].tolist() == [1.0, 0.5, 0.0, 0.0]
    assert d["prediction_pruned"].tolist()[2:] == [5, 5]
    # upright bars: tilt 0; identical to their class mean except class 0 (mean of two equal
    # images is the image itself): distance 0 everywhere
    assert np.allclose(d["tilt"], 0) and np.allclose(d["distance_to_class_mean"], 0)
    assert np.allclose(d["mean_activation"], 20 * 255 / 784)


def test_writer_frame_and_summaries(toy):
    w = qw.writer_frame(qw.digit_frame(*toy))
    assert w["writer"].tolist() == [1, 2]
    assert w["accuracy_unpruned"].tolist() == [1.0, 0.75]
    assert w["accuracy_pruned"].tolist() == [0.75, 0.0]
    assert w["accuracy_change"].tolist() == [-0.25, -0.75]
    s = qw.series_summary(w).set_index("series")
    assert s.loc["all", "mean_change"] == pytest.approx(-0.5)
    assert s.loc["hsf4", "digits"] == 2 and s.loc["all", "share_losing"] == 1.0
    hurt = qw.most_hurt(w, n=1)
    assert hurt["writer"].tolist() == [2] and not hurt["collapse"].any()
    assert qw.collapses(w)["writer"].tolist() == []
    long = qw.tilt_long(w)
    assert len(long) == 4 and set(long["stage"]) == {"unpruned", "pruned"}


def test_collapse_flag_and_tie_order():
    w = pd.DataFrame(
        {
            "writer": [3, 4, 5],
            "series": ["hsf0", "hsf4", "hsf4"],
            "accuracy_unpruned": [1.0, 0.9, 1.0],
            "accuracy_pruned": [0.4, 0.3, 0.6],
        }
    ).assign(accuracy_change=lambda f: f.accuracy_pruned - f.accuracy_unpruned)
    hurt = qw.most_hurt(w, n=3)
    # changes -0.6, -0.6, -0.4: the tie goes to the writer who was at 100%
    assert hurt["writer"].tolist() == [3, 4, 5]
    assert hurt["collapse"].tolist() == [True, False, False]
    assert qw.collapses(w)["writer"].tolist() == [3]
    with pytest.raises(PruneAuditError, match="n must be"):
        qw.most_hurt(w, n=0)


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.floats(-1, 1, allow_nan=False), min_size=3, max_size=12),
    st.lists(st.floats(-1, 1, allow_nan=False), min_size=3, max_size=12),
)
def test_series_change_test_matches_welch(a, b):
    w = pd.DataFrame(
        {"series": ["hsf4"] * len(a) + ["hsf0"] * len(b), "accuracy_change": a + b}
    )
    va, vb = np.var(a, ddof=1) / len(a), np.var(b, ddof=1) / len(b)
    assume(va + vb > 1e-12)  # the t statistic needs some spread
    out = qw.series_change_test(w)
    assert out["difference"] == pytest.approx(np.mean(a) - np.mean(b))
    assert out["t"] == pytest.approx((np.mean(a) - np.mean(b)) / np.sqrt(va + vb), rel=1e-6)


def test_series_change_test_needs_two_writers():
    w = pd.DataFrame({"series": ["hsf4", "hsf0", "hsf0"], "accuracy_change": [0.0, 0.1, 0.2]})
    with pytest.raises(PruneAuditError, match="'hsf4' has 1 writers"):
        qw.series_change_test(w)


def test_tilt_fits_recover_exact_lines():
    rng = np.random.default_rng(0)
    rows = []
    for s, (a, b) in {"hsf0": (1.0, -0.5), "hsf4": (0.9, -1.0)}.items():
        x = rng.uniform(0, 0.5, 20)
        rows.append(
            pd.DataFrame(
                {"writer": range(len(rows) * 20, len(rows) * 20 + 20), "series": s,
                 "abs_tilt": x, "accuracy_unpruned": a + b * x, "accuracy_pruned": a + 2 * b * x}
            )
        )
    fits = qw.tilt_fits(pd.concat(rows, ignore_index=True)).set_index(["stage", "series"])
    assert fits.loc[("unpruned", "hsf4"), "slope"] == pytest.approx(-1.0)
    assert fits.loc[("pruned", "hsf0"), "slope"] == pytest.approx(-1.0)
    assert fits.loc[("pruned", "hsf0"), "intercept"] == pytest.approx(1.0)
    assert ("unpruned", "all") in fits.index


def test_gallery_and_histogram(toy):
    test, pool, dense, pruned = toy
    d = qw.digit_frame(test, pool, dense, pruned)
    g = qw.gallery_frame(test, d, [2])
    assert len(g) == 2 and g["caption"].iloc[0] == "true 2\nunpruned 2\npruned 5"
    assert g["image"].str.startswith("data:image/png;base64,").all()
    with pytest.raises(PruneAuditError, match=r"writer\(s\) \[7\]"):
        qw.gallery_frame(test, d, [7])
    h = qw.train_class_histogram(test, np.array([0, 1, 2]))
    assert h["n"].sum() == 3 and np.allclose(h["share_of_class"], 1.0)


def test_bad_inputs(toy):
    test, pool, dense, pruned = toy
    with pytest.raises(PruneAuditError, match="at least one seed"):
        qw.base_specs([])
    with pytest.raises(PruneAuditError, match="distinct"):
        qw.base_specs([0, 0])
    with pytest.raises(PruneAuditError, match="has 3 examples but test has 4"):
        qw.digit_frame(test, pool, dense[:, :3], pruned)
    no_meta = data.ImageData(test.name, test.images, test.labels, test.classes, test.spec)
    with pytest.raises(PruneAuditError, match="writer/series"):
        qw.digit_frame(no_meta, pool, dense, pruned)


def test_tiny_real_study(data_root, tmp_path):
    bases = qw.base_specs([0, 1], epochs=1, lr=0.05, train_size=1000)
    store = ResultsStore(tmp_path)
    s = qw.study(bases, 2, store, str(data_root), progress=False)
    assert len(s.digits) == 10_000 and s.writers["writer"].nunique() == 297
    assert set(s.writers["series"]) == {"hsf0", "hsf4"}
    assert s.writers["n"].sum() == 10_000
    assert np.allclose(s.sparsity, 1 - 0.8**2, atol=1e-3)
    curves = qw.class_curves(s.classes)
    assert sorted(curves["iteration"].unique()) == [0, 1, 2] and len(curves) == 30
    dense = curves[curves["iteration"] == 0]
    assert np.allclose(dense["accuracy"], dense["unpruned_accuracy"])
    # writer accuracy = mean over seeds of each seed's accuracy on the writer
    pop = qw.predictions(bases, 2, 2, store)
    w0 = s.writers.iloc[0]
    idx = s.digits.index[s.digits["writer"] == w0["writer"]]
    per_seed = (pop.preds[:, idx] == pop.labels[idx]).mean(axis=1)
    assert w0["accuracy_pruned"] == pytest.approx(per_seed.mean())
    # a second call trains nothing: the store answers
    before = sorted(p.name for p in (tmp_path / "runs").rglob("DONE"))
    again = qw.study(bases, 2, store, str(data_root), progress=False)
    assert sorted(p.name for p in (tmp_path / "runs").rglob("DONE")) == before
    pd.testing.assert_frame_equal(again.writers, s.writers)


def _writers(changes_hsf0, changes_hsf4, start=1.0):
    rows = []
    for s, changes in (("hsf0", changes_hsf0), ("hsf4", changes_hsf4)):
        for c in changes:
            rows.append({"writer": len(rows), "series": s, "accuracy_unpruned": start,
                         "accuracy_pruned": start + c, "accuracy_change": c})
    return pd.DataFrame(rows)


def test_comparison_directions():
    w = _writers([0.0, -0.1, 0.0], [-0.6, -0.2, -0.3])
    w["accuracy_unpruned"] = [1.0, 1.0, 1.0, 1.0, 0.9, 0.9]
    w["accuracy_pruned"] = w["accuracy_unpruned"] + w["accuracy_change"]
    w["distance_to_class_mean"] = [1.0, 2.0, 1.5, 5.0, 3.0, 4.0]
    effects = audit.property_effects(
        w, ["distance_to_class_mean"], "accuracy_unpruned", "accuracy_pruned"
    )
    c = qw.comparison(w, effects)
    # hsf4 mean unpruned 0.933 < 1.0; hsf4 loses more; distance slope negative; writer 3: 1 -> 0.4
    assert c["agrees"].tolist() == [True, True, True, True]
    assert "1 writer(s)" in c["ours"].iloc[3]
    flipped = w.assign(series=w["series"].map({"hsf0": "hsf4", "hsf4": "hsf0"}))
    assert qw.comparison(flipped, effects)["agrees"].tolist()[:2] == [False, False]
    with pytest.raises(PruneAuditError, match="'hsf4'"):
        qw.comparison(w[w["series"] == "hsf0"], effects)


def test_protocol_cost_and_weights():
    cost = qw.protocol_cost(6, 20, 30, 48_000, 0.5)
    assert cost["model_epochs"] == 6 * 21 * 30
    assert cost["hours"] == pytest.approx(3780 * 4.8 * 0.5 / 3600)
    # LeNet: 6*1*9 + 16*6*9 + 400*120 + 120*84 + 84*10
    assert qw.prunable_weights() == 54 + 864 + 48_000 + 10_080 + 840


def test_protocol_table_states_what_ran(toy):
    test, pool, dense, pruned = toy
    digits = qw.digit_frame(test, pool, dense, pruned)
    result = qw.WriterStudy(
        classes=pd.DataFrame(), digits=digits, writers=qw.writer_frame(digits),
        sparsity=np.array([0.5]), pruned_iteration=3, test=test, pool=pool,
        train_idx=np.arange(3),
    )
    bases = qw.base_specs([4, 7], epochs=2, lr=0.1, augment=False)
    t = qw.protocol_table(bases, 3, result)["this page"]
    assert t["seeds (replicates)"] == "2 [4, 7]" and t["iterations"] == "3"
    assert t["model-epochs"] == "16" and t["augmentation"] == "none"
    assert t["test digits / writers / series"] == "4 / 2 / hsf0, hsf4"
    assert qw.protocol_table(bases, 3, result)["published (P)"]["model-epochs"] == "3,780"
