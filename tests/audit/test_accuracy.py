"""Class-level accuracy, unfairness and accuracy-vs-sparsity tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from pruneaudit import audit
from pruneaudit.errors import PruneAuditError


def test_class_accuracy_hand_computed():
    y = [0, 0, 1, 1, 1, 2]
    p = [0, 1, 1, 1, 0, 1]
    # class 0: 2 examples, 1 right -> 1/2; class 1: 3 examples, 2 right -> 2/3;
    # class 2: 1 example, 0 right -> 0; class 3: no example -> NaN.
    acc = audit.class_accuracy(y, p, 4)
    np.testing.assert_allclose(acc[:3], [0.5, 2 / 3, 0.0])
    assert np.isnan(acc[3])
    # overall: 3 right out of 6.
    assert audit.overall_accuracy(y, p) == pytest.approx(0.5)


def test_population_class_accuracy_matches_members():
    y = np.array([0, 1, 1, 2])
    preds = np.array([[0, 1, 1, 2], [1, 1, 0, 0]])
    # member 0 is perfect: [1, 1, 1]; member 1: class 0 -> 0/1, class 1 -> 1/2, class 2 -> 0/1.
    np.testing.assert_allclose(
        audit.population_class_accuracy(y, preds, 3), [[1, 1, 1], [0, 0.5, 0]]
    )


def test_class_accuracy_frame():
    f = audit.class_accuracy_frame([0, 0, 1], [0, 1, 1], 3)
    assert list(f.columns) == ["class", "accuracy", "n"]
    # class 0: 1/2, class 1: 1/1, class 2: no example.
    np.testing.assert_allclose(f["accuracy"][:2], [0.5, 1.0])
    assert np.isnan(f["accuracy"][2])
    assert f["n"].tolist() == [2, 1, 0]


def test_unfairness_hand_computed():
    # max - min = 0.9 - 0.3 = 0.6; mean - min = (0.9+0.6+0.3)/3 - 0.3 = 0.6 - 0.3 = 0.3.
    assert audit.unfairness([0.9, 0.6, 0.3]) == pytest.approx(0.6)
    assert audit.unfairness([0.9, 0.6, 0.3], "mean_min") == pytest.approx(0.3)
    # NaN classes are ignored: [1.0, 0.5] -> 0.5 and 0.75 - 0.5 = 0.25.
    assert audit.unfairness([1.0, np.nan, 0.5]) == pytest.approx(0.5)
    assert audit.unfairness([1.0, np.nan, 0.5], "mean_min") == pytest.approx(0.25)
    np.testing.assert_allclose(audit.unfairness([[1.0, 0.5], [0.2, 0.2]]), [0.5, 0.0])


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: audit.class_accuracy([0, 1], [0, 1, 1], 2), "2 examples.*3"),
        (lambda: audit.class_accuracy([0, 3], [0, 1], 3), "label 3.*0..2"),
        (lambda: audit.class_accuracy([0, -1], [0, 1], 3), "label -1"),
        (lambda: audit.class_accuracy([], [], 3), "empty"),
        (lambda: audit.class_accuracy([0.0, 1.0], [0, 1], 3), "integer"),
        (lambda: audit.class_accuracy([0, 1], [[0, 1]], 3), "1-D"),
        (lambda: audit.class_accuracy([0, 1], [0, 1], 0), "num_classes"),
        (lambda: audit.population_class_accuracy([0], np.zeros((0, 1), int), 2), "K = 0"),
        (lambda: audit.unfairness([np.nan, np.nan]), "NaN"),
        (lambda: audit.unfairness([1.5, 0.2]), r"\[0, 1\]"),
        (lambda: audit.unfairness([1.0, 0.2], "range"), "unfairness kind"),
    ],
)
def test_bad_input_raises(call, match):
    with pytest.raises(PruneAuditError, match=match):
        call()


@settings(max_examples=50, deadline=None)
@given(
    st.integers(1, 6).flatmap(
        lambda c: st.tuples(
            st.just(c),
            st.lists(st.tuples(st.integers(0, c - 1), st.integers(0, c - 1)), min_size=1),
        )
    )
)
def test_accuracies_in_unit_interval_and_unfairness_nonnegative(case):
    c, pairs = case
    y, p = np.array(pairs).T
    acc = audit.class_accuracy(y, p, c)
    present = np.bincount(y, minlength=c) > 0
    assert np.all(np.isnan(acc) == ~present)
    assert np.all((acc[present] >= 0) & (acc[present] <= 1))
    assert 0 <= audit.overall_accuracy(y, p) <= 1
    assert audit.unfairness(acc) >= 0
    assert 0 <= audit.unfairness(acc, "mean_min") <= audit.unfairness(acc)


@settings(max_examples=30, deadline=None)
@given(arrays(np.float64, (3, 4), elements=st.floats(0, 1)))
def test_unfairness_rows_match_one_by_one(a):
    rows = audit.unfairness(a)
    assert rows.shape == (3,)
    for i in range(3):
        assert rows[i] == pytest.approx(a[i].max() - a[i].min())


def _series_frame() -> pd.DataFrame:
    # Two seeds of one technique, two iterations, two classes; class accuracies by hand.
    acc = {
        (0, 0): [0.9, 0.7],  # seed 0, iteration 0
        (0, 1): [0.8, 0.4],
        (1, 0): [0.9, 0.9],
        (1, 1): [1.0, 0.6],
    }
    rows = []
    for (seed, it), values in acc.items():
        for c, a in enumerate(values):
            rows.append(
                {
                    "dataset": "mnist",
                    "model": "lenet",
                    "technique": "magnitude",
                    "treatment": "finetune",
                    "seed": seed,
                    "iteration": it,
                    "sparsity": 0.2 * it,
                    "class": c,
                    "accuracy": a,
                    "n": [10, 30][c],
                }
            )
    return pd.DataFrame(rows)


def test_accuracy_vs_sparsity_hand_computed():
    tables = audit.accuracy_vs_sparsity(_series_frame())
    pc = tables.per_class
    assert pc.index.names == [*audit.SERIES_KEYS, "sparsity"]
    # iteration 0: class 0 (0.9+0.9)/2 = 0.9, class 1 (0.7+0.9)/2 = 0.8
    # iteration 1: class 0 (0.8+1.0)/2 = 0.9, class 1 (0.4+0.6)/2 = 0.5
    np.testing.assert_allclose(pc.to_numpy(), [[0.9, 0.8], [0.9, 0.5]])
    assert pc.index.get_level_values("sparsity").tolist() == [0.0, 0.2]
    u = tables.unfairness
    # per run max-min: s0i0 0.2, s1i0 0.0, s0i1 0.4, s1i1 0.4 -> means 0.1 and 0.4
    np.testing.assert_allclose(u["unfairness_max_min"], [0.1, 0.4])
    # mean-min is half of max-min with two classes -> 0.05 and 0.2
    np.testing.assert_allclose(u["unfairness_mean_min"], [0.05, 0.2])
    # n-weighted accuracy: s0i0 (9+21)/40 = 0.75, s1i0 (9+27)/40 = 0.9 -> 0.825
    #                      s0i1 (8+12)/40 = 0.5,  s1i1 (10+18)/40 = 0.7 -> 0.6
    np.testing.assert_allclose(u["accuracy"], [0.825, 0.6])
    # std over seeds of max-min at iteration 0: values 0.2, 0.0 -> sqrt(0.02) ~= 0.1414
    assert u["unfairness_max_min_std"][0] == pytest.approx(np.sqrt(0.02))
    assert u["n_seeds"].tolist() == [2, 2]


def test_accuracy_vs_sparsity_without_n_uses_mean_class_accuracy():
    u = audit.unfairness_vs_sparsity(_series_frame().drop(columns="n"))
    # s0i0 0.8, s1i0 0.9 -> 0.85; s0i1 0.6, s1i1 0.8 -> 0.7
    np.testing.assert_allclose(u["accuracy"], [0.85, 0.7])


def test_accuracy_vs_sparsity_rejects_bad_frames():
    f = _series_frame()
    with pytest.raises(PruneAuditError, match=r"lacks column\(s\).*sparsity"):
        audit.accuracy_vs_sparsity(f.drop(columns="sparsity"))
    with pytest.raises(PruneAuditError, match="duplicated"):
        audit.accuracy_vs_sparsity(pd.concat([f, f.iloc[:1]]))
    g = f.copy()
    g.loc[0, "sparsity"] = 0.5
    with pytest.raises(PruneAuditError, match="more than one sparsity"):
        audit.accuracy_vs_sparsity(g)
    with pytest.raises(PruneAuditError, match="run-series frame has no rows"):
        audit.accuracy_vs_sparsity(f.iloc[:0])


def test_check_group_frame():
    s = pd.Series(["a", "b"], index=[5, 7], name="series")
    f = audit.check_group_frame("groups", s, n=2)
    assert list(f.columns) == ["series"] and f.index.tolist() == [0, 1]
    with pytest.raises(PruneAuditError, match="3 rows but there are 2"):
        audit.check_group_frame("groups", pd.DataFrame({"g": [1, 2, 3]}), n=2)
    with pytest.raises(PruneAuditError, match="'g' has missing"):
        audit.check_group_frame("groups", pd.DataFrame({"g": [1, None]}))
    with pytest.raises(PruneAuditError, match="DataFrame"):
        audit.check_group_frame("groups", [1, 2])
