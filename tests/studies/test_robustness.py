"""Study 5 pipeline: relative robustness and the reference-error subset on hand-made numbers,
and one tiny run through the store."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pruneaudit import audit, data, training
from pruneaudit import runs as runs_module
from pruneaudit.errors import PruneAuditError
from pruneaudit.runs import ResultsStore, RunSpec, populations
from pruneaudit.studies import robustness as rb

Y = np.array([0, 1, 2, 0, 1])


def _rows(level, corruption, severity, accs):
    return [
        {"level": level, "seed": k, "sparsity": level, "corruption": corruption,
         "severity": severity, "accuracy": a}
        for k, a in enumerate(accs)
    ]


def _spec(**kwargs) -> RunSpec:
    fields = {"epochs": 1, "lr": 0.01, "batch_size": 32, "augment": True, **kwargs}
    return RunSpec("qmnist", "lenet", **fields)


def _population(preds, level=0.0, seeds=None):
    base = _spec(train_size=100, test_size=5)
    seeds = range(len(preds)) if seeds is None else seeds
    specs = tuple(populations.member_specs(base, seeds, level))
    return populations.Population(specs, np.asarray(preds), Y, pd.DataFrame(),
                                  np.full(len(preds), level))


@pytest.fixture()
def runs() -> rb.RobustnessRuns:
    rows = (
        _rows(0.0, rb.CLEAN, 0, [0.9, 1.0])
        + _rows(0.5, rb.CLEAN, 0, [0.95, 0.95])
        + _rows(0.9, rb.CLEAN, 0, [0.9, 0.8])
        # dense: 0.8 and 0.5 at severities 1, 2
        + _rows(0.0, "fog", 1, [0.7, 0.9]) + _rows(0.0, "fog", 2, [0.5, 0.5])
        + _rows(0.5, "fog", 1, [0.8, 0.8]) + _rows(0.5, "fog", 2, [0.5, 0.5])
        + _rows(0.9, "fog", 1, [0.4, 0.4]) + _rows(0.9, "fog", 2, [0.5, 0.5])
        + _rows(0.0, "rotate", 1, [0.5, 0.5]) + _rows(0.0, "rotate", 2, [0.4, 0.4])
        + _rows(0.5, "rotate", 1, [0.5, 0.5]) + _rows(0.5, "rotate", 2, [0.2, 0.2])
        + _rows(0.9, "rotate", 1, [0.25, 0.25]) + _rows(0.9, "rotate", 2, [0.2, 0.2])
    )
    # reference (3 members) modal labels [0, 2, 2, 1, 1]: wrong on examples 1 and 3
    reference = _population([[0, 2, 2, 1, 1], [0, 2, 2, 1, 0], [1, 1, 2, 1, 1]], seeds=[7, 8, 9])
    pops = {
        0.0: _population([[0, 1, 2, 0, 1], [0, 1, 2, 1, 1]]),  # ref-wrong {1,3}: 3 of 4 right
        0.5: _population([[0, 1, 2, 1, 1], [0, 1, 2, 1, 1]], 0.5),  # 2 of 4
        0.9: _population([[0, 2, 2, 1, 1], [0, 2, 2, 1, 1]], 0.9),  # 0 of 4
    }
    return rb.RobustnessRuns(pops, pd.DataFrame(rows), reference)


def test_relative_robustness_hand_computed(runs):
    table = rb.relative_robustness(runs).set_index(["level", "corruption"])
    # fog at 0.9: ratios 0.4/0.8 = 0.5 and 0.5/0.5 = 1 -> mean 0.75 -> -25 %
    assert table.loc[(0.9, "fog"), "mean_ratio"] == pytest.approx(0.75)
    assert table.loc[(0.9, "fog"), "relative_change_pct"] == pytest.approx(-25.0)
    # rotate at 0.5: 1 and 0.5 -> -25 %; at 0.9: 0.5 and 0.5 -> -50 %
    assert table.loc[(0.5, "rotate"), "relative_change_pct"] == pytest.approx(-25.0)
    assert table.loc[(0.9, "rotate"), "relative_change_pct"] == pytest.approx(-50.0)
    # clean: dense 0.95, 0.5 -> 0.95 (0 %), 0.9 -> 0.85
    assert table.loc[(0.9, "fog"), "clean_change_pct"] == pytest.approx(100 * (0.85 / 0.95 - 1))
    assert table.loc[(0.5, "fog"), "clean_change_pct"] == pytest.approx(0.0)


def test_most_hurt_ranks_most_negative_first(runs):
    ranked = rb.most_hurt(rb.relative_robustness(runs), top=1)
    assert list(ranked["corruption"]) == ["rotate", "rotate"]
    assert list(ranked["rank"]) == [1, 1]


def test_mean_accuracy_averages_members(runs):
    means = rb.mean_accuracy(runs).set_index(["level", "corruption", "severity"])
    assert means.loc[(0.0, "fog", 1), "accuracy"] == pytest.approx(0.8)
    assert means.loc[(0.0, "fog", 1), "members"] == 2
    assert means.loc[(0.9, rb.CLEAN, 0), "level_name"] == "pruned 90%"


def test_accuracy_by_severity_averages_corruptions(runs):
    table = rb.accuracy_by_severity(runs).set_index(["level", "severity"])
    assert table.loc[(0.0, 1), "accuracy"] == pytest.approx((0.8 + 0.5) / 2)
    assert table.loc[(0.9, 0), "accuracy"] == pytest.approx(0.85)


def test_corruption_examples(data_root):
    test = data.load("qmnist", "test", root=str(data_root)).subset(np.arange(3))
    frame = rb.corruption_examples(test, 1, ["fog", "rotate"], [1, 5])
    assert len(frame) == 1 + 2 * 2
    assert frame["image"].str.startswith("data:image/png;base64,").all()
    assert frame.iloc[0]["caption"] == "clean"
    with pytest.raises(PruneAuditError, match="index must be in 0..2"):
        rb.corruption_examples(test, 3, ["fog"], [1])


def test_natural_adversarial_subset(runs):
    np.testing.assert_array_equal(rb.reference_wrong(runs), [False, True, False, True, False])
    table = rb.natural_adversarial(runs).set_index(["subset", "level"])
    assert table.loc[("reference_wrong", 0.0), "n"] == 2
    assert table.loc[("reference_wrong", 0.0), "mean_member_accuracy"] == pytest.approx(0.75)
    assert table.loc[("reference_wrong", 0.5), "mean_member_accuracy"] == pytest.approx(0.5)
    assert table.loc[("reference_wrong", 0.9), "relative_change_pct"] == pytest.approx(-100.0)
    assert table.loc[("reference_wrong", 0.0), "relative_change_pct"] == 0.0


def test_findings_hand_computed(runs):
    rows = {r.finding.split(" ")[0] + ("b" if "beyond" in r.finding else ""): r
            for r in rb.findings(runs)}
    assert set(rows) == {"D5.1", "D5.2", "D5.2b", "D5.3", "D5.4"}
    # D5.1: reference-wrong top-1 per member, dense [1, 0.5] (mean 0.75), pruned 90% [0, 0]
    assert rows["D5.1"].ours == pytest.approx(-100.0)
    assert rows["D5.1"].paper == pytest.approx(-59.8)
    # D5.2: member means over fog/rotate and severities: dense [0.525, 0.575] (mean 0.55),
    # pruned 90% [0.3375, 0.3375]: 100 * (0.3375 / 0.55 - 1)
    assert rows["D5.2"].ours == pytest.approx(100 * (0.3375 / 0.55 - 1))
    assert rows["D5.2"].ci_low < rows["D5.2"].ours < rows["D5.2"].ci_high
    # no noise corruption here: D5.3 cannot be tested
    assert rows["D5.3"].verdict == audit.NOT_TESTABLE
    # D5.4: pruned 90% minus pruned 50% ([0.5, 0.5] member means), over the dense mean
    assert rows["D5.4"].ours == pytest.approx(100 * (0.3375 - 0.5) / 0.55)


def test_bad_inputs(runs):
    with pytest.raises(PruneAuditError, match="unknown corruption"):
        rb._check_grid(["fogg"], [1])
    with pytest.raises(PruneAuditError, match="severities among 1..5"):
        rb._check_grid(["fog"], [6])
    no_ref = rb.RobustnessRuns(runs.populations, runs.accuracy, None)
    with pytest.raises(PruneAuditError, match="reference_seeds"):
        rb.natural_adversarial(no_ref)


def test_tiny_run_reuses_study4_populations(data_root, tmp_path, monkeypatch):
    base = _spec(train_size=320, test_size=120)
    store = ResultsStore(tmp_path)
    runs_module.run_levels(base, [0, 1], [0.5], store, str(data_root), progress=False)
    trained = []
    real = training.train_population

    def counting(models, *args, **kwargs):
        trained.append(len(models))
        return real(models, *args, **kwargs)

    monkeypatch.setattr(training, "train_population", counting)
    with pytest.raises(PruneAuditError, match="other seeds"):
        rb.run(base, [0, 1], [0.5], store, str(data_root), names=["fog"], severities=[1],
               reference_seeds=[1, 2], progress=False)
    runs = rb.run(base, [0, 1], [0.5], store, str(data_root), names=["fog", "rotate"],
                  severities=[1, 5], reference_seeds=[5, 6], progress=False)
    assert trained == [2]  # only the reference population was trained
    assert len(runs.test) == 120
    frame = rb.accuracy_frame(runs)
    assert len(frame) == 2 * 2 * (1 + 2 * 2)
    assert frame["accuracy"].between(0, 1).all()
    table = rb.relative_robustness(runs)
    assert set(table["corruption"]) == {"fog", "rotate"}
    assert list(table["severities"].unique()) == [2]


def test_validate_and_page_helpers(runs):
    rb.validate({"seeds": [0, 1], "levels": [0.5], "reference_seeds": [5, 6],
                 "corruption_names": ["fog"], "severities": [1]})
    with pytest.raises(PruneAuditError) as err:
        rb.validate({"seeds": [0, 1], "levels": [0.5], "reference_seeds": [1, 2],
                     "corruption_names": ["fogg"], "severities": [1]})
    assert "overlap" in str(err.value) and "fogg" in str(err.value)
    spec = rb.corruption_explorer(runs).to_dict()
    assert {"corruption_shown", "severity_shown"} <= {p["name"] for p in spec["params"]}
    table = rb.h1_corruption_table(rb.relative_robustness(runs)).set_index("corruption")
    assert table.loc["fog", "H1 ImageNet-C t = 0.9"] == pytest.approx(-10.41)
    assert np.isnan(table.loc["rotate", "H1 ImageNet-C t = 0.9"])  # not in ImageNet-C
    rb.key_figure(rb.relative_robustness(runs)).to_dict()
