"""Welch t-tests on mean-shifted recall (H1) and the Benjamini-Hochberg count."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats

from pruneaudit import audit
from pruneaudit.errors import PruneAuditError

# K = 3 models per population, C = 2 classes.
# Baseline: accuracy [0.8, 0.8, 0.7]; shifts class 0 [0.1, 0.0, 0.2], class 1 [-0.1, 0.0, -0.2]
B_ACC = np.array([0.8, 0.8, 0.7])
B = np.array([[0.9, 0.7], [0.8, 0.8], [0.9, 0.5]])
# Compressed: accuracy [0.7, 0.6, 0.8]; shifts class 0 [-0.1, -0.2, -0.3], class 1 as baseline
V_ACC = np.array([0.7, 0.6, 0.8])
V = np.array([[0.6, 0.6], [0.4, 0.6], [0.5, 0.6]])


def test_ttest_hand_computed():
    table = audit.class_recall_ttest(B, B_ACC, V, V_ACC)
    # class 0: means -0.2 (compressed) and 0.1 (baseline), both sample variances 0.01, n = 3:
    # t = (-0.2 - 0.1) / sqrt(0.01/3 + 0.01/3) = -3.6742; Welch df = 4.
    t0 = -0.3 / np.sqrt(0.02 / 3)
    assert table["t"][0] == pytest.approx(t0)
    assert table["p"][0] == pytest.approx(2 * stats.t.sf(abs(t0), 4))  # ~0.0213
    # class 1: identical shifted samples -> t = 0, p = 1
    assert table["t"][1] == pytest.approx(0.0, abs=1e-12)
    assert table["p"][1] == pytest.approx(1.0)
    assert table["significant"].tolist() == [True, False]
    # BH with m = 2: p_(1) * 2 / 1 = 0.0426 <= 0.05
    assert table["p_bh"][0] == pytest.approx(2 * table["p"][0])
    assert table["significant_bh"].tolist() == [True, False]
    assert audit.significant_counts(table) == {"significant": 1, "significant_bh": 1}
    # relative (paired by index): class 0 (0.6/0.9 + 0.4/0.8 + 0.5/0.9)/3 = 0.574074
    #                             class 1 (0.6/0.7 + 0.6/0.8 + 0.6/0.5)/3 = 0.935714
    np.testing.assert_allclose(table["relative_recall_difference"], [0.574074, 0.935714], 1e-5)
    # absolute: 0.5 - 2.6/3 = -0.366667; 0.6 - 2.0/3 = -0.066667
    np.testing.assert_allclose(table["absolute_recall_difference"], [-0.366667, -0.066667], 1e-5)


def test_relative_difference_ratio_of_means():
    table = audit.class_recall_ttest(B, B_ACC, V[:2], V_ACC[:2], pairing="means")
    # class 0: mean(0.6, 0.4) / mean(0.9, 0.8, 0.9) = 0.5 / 0.866667 = 0.576923
    assert table["relative_recall_difference"][0] == pytest.approx(0.5 / (2.6 / 3))


def test_zero_baseline_recall_gives_nan_relative_difference():
    b = B.copy()
    b[0, 1] = 0.0
    table = audit.class_recall_ttest(b, B_ACC, V, V_ACC)
    assert np.isnan(table["relative_recall_difference"][1])
    assert not np.isnan(table["relative_recall_difference"][0])


def test_constant_samples_not_significant():
    # every shift 0 in both populations -> t undefined, p NaN, not significant
    b = np.full((3, 2), 0.5)
    table = audit.class_recall_ttest(b, np.full(3, 0.5), b, np.full(3, 0.5))
    assert table["p"].isna().all() and not table["significant"].any()
    assert not table["significant_bh"].any()


def test_population_recalls_by_hand():
    y = np.array([0, 0, 1, 1, 2])
    base = np.array([[0, 0, 1, 1, 2], [0, 1, 1, 1, 2], [0, 0, 1, 0, 0]])
    comp = np.array([[0, 1, 1, 0, 2], [1, 1, 1, 1, 2], [0, 0, 0, 0, 1]])
    # baseline recalls: m0 [1, 1, 1]; m1 [1/2, 1, 1]; m2 [1, 1/2, 0]; accuracies 1, 4/5, 3/5
    b, b_acc = audit.population_recalls(y, base, 3)
    np.testing.assert_allclose(b, [[1, 1, 1], [0.5, 1, 1], [1, 0.5, 0]])
    np.testing.assert_allclose(b_acc, [1, 0.8, 0.6])
    v, v_acc = audit.population_recalls(y, comp, 3)
    np.testing.assert_allclose(v, [[0.5, 0.5, 1], [0, 1, 1], [1, 0, 0]])
    np.testing.assert_allclose(v_acc, [0.6, 0.6, 0.4])


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: audit.class_recall_ttest(B[:1], B_ACC[:1], V, V_ACC), "K = 1.*at least 2"),
        (lambda: audit.class_recall_ttest(B, B_ACC, V[:2], V_ACC[:2]), "K = 3.*K = 2"),
        (lambda: audit.class_recall_ttest(B, B_ACC, V[:, :1], V_ACC), "C = 2.*C = 1"),
        (lambda: audit.class_recall_ttest(B, B_ACC[:2], V, V_ACC), r"shape \(3,\)"),
        (lambda: audit.class_recall_ttest(B + 1, B_ACC, V, V_ACC), r"\[0, 1\]"),
        (lambda: audit.class_recall_ttest(B, B_ACC, V, V_ACC, alpha=0), "alpha"),
        (lambda: audit.class_recall_ttest(B, B_ACC, V, V_ACC, pairing="x"), "pairing"),
        (
            lambda: audit.class_recall_ttest(
                *audit.population_recalls([0, 0, 1], [[0, 0, 1], [0, 1, 1]], 3),
                *audit.population_recalls([0, 0, 1], [[0, 0, 1], [0, 1, 1]], 3),
            ),
            "class 2 is NaN",
        ),
        (lambda: audit.significant_counts(B_ACC), "DataFrame"),
        (lambda: audit.significant_counts(pd.DataFrame({"p": [0.1]})), "lacks"),
    ],
)
def test_bad_input_raises(call, match):
    with pytest.raises(PruneAuditError, match=match):
        call()


@settings(max_examples=50, deadline=None)
@given(
    st.tuples(st.integers(2, 6), st.integers(2, 6), st.integers(1, 8)).flatmap(
        lambda s: st.tuples(
            arrays(np.float64, (s[0], s[2]), elements=st.floats(0, 1)),
            arrays(np.float64, (s[0],), elements=st.floats(0, 1)),
            arrays(np.float64, (s[1], s[2]), elements=st.floats(0, 1)),
            arrays(np.float64, (s[1],), elements=st.floats(0, 1)),
        )
    )
)
def test_bh_count_at_most_raw_count(case):
    table = audit.class_recall_ttest(*case, pairing="means")
    counts = audit.significant_counts(table)
    assert counts["significant_bh"] <= counts["significant"]
    finite = table["p"].notna()
    assert (table.loc[finite, "p_bh"] >= table.loc[finite, "p"] - 1e-12).all()
    assert ((table.loc[finite, "p"] >= 0) & (table.loc[finite, "p"] <= 1)).all()


def test_share_interval_is_clopper_pearson():
    share, lo, hi = audit.share_interval(0, 10)
    assert share == 0 and lo == 0 and hi == pytest.approx(1 - 0.025 ** (1 / 10))
    share, lo, hi = audit.share_interval(10, 10)
    assert lo == pytest.approx(0.025 ** (1 / 10)) and hi == 1
    with pytest.raises(PruneAuditError, match="count"):
        audit.share_interval(3, 2)


def test_welch_interval_matches_hand_computation():
    a, b = np.array([1.0, 2.0, 3.0]), np.array([0.0, 0.0, 1.0, 1.0])
    diff, lo, hi = audit.welch_interval(a, b)
    va, vb = a.var(ddof=1) / 3, b.var(ddof=1) / 4
    df = (va + vb) ** 2 / (va**2 / 2 + vb**2 / 3)
    half = stats.t.ppf(0.975, df) * np.sqrt(va + vb)
    assert diff == pytest.approx(1.5)
    assert (lo, hi) == pytest.approx((1.5 - half, 1.5 + half))
    assert audit.welch_interval([1, 1], [1, 1]) == (0.0, 0.0, 0.0)
    assert np.isnan(audit.welch_interval([1], [1, 2])[1])
