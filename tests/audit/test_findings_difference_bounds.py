"""Intervals of a difference of two accuracies stay inside ±100 points: the share scale of
``(d + 1) / 2`` (its logit is ``2 atanh d``), by hand and on Study 2's and Study 3's rows."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pruneaudit import audit
from pruneaudit.audit.bounded import difference_interval


def test_a_difference_interval_by_hand() -> None:
    # d = -0.5, raw half-width 0.7: on the atanh scale the slope is 1 / (1 - d^2) = 4/3, so the
    # ends are tanh(atanh(-0.5) -/+ 0.7 * 4/3)
    m, lo, hi = difference_interval(-0.5, -1.2, 0.2)
    z, h = math.atanh(-0.5), 0.7 * 4 / 3
    assert m == pytest.approx(-0.5)
    assert (lo, hi) == (pytest.approx(math.tanh(z - h)), pytest.approx(math.tanh(z + h)))
    assert -1 < lo < m < hi < 1


def test_a_narrow_interval_near_zero_barely_moves_and_bounds_clip() -> None:
    m, lo, hi = difference_interval(0.1, 0.05, 0.15)
    assert (lo, hi) == (pytest.approx(0.05, abs=5e-4), pytest.approx(0.15, abs=5e-4))
    assert difference_interval(1.0, 0.9, 1.2) == pytest.approx((1.0, 0.9, 1.0))
    nan = difference_interval(0.2, math.nan, math.nan)
    assert nan[0] == pytest.approx(0.2) and math.isnan(nan[1]) and math.isnan(nan[2])


def test_study_2_class_rows_stay_inside_a_hundred_points() -> None:
    from pruneaudit.studies.qmnist_writers.findings import class_findings

    dense = np.full((3, 10), 0.9)
    pruned = np.full((3, 10), 0.8)
    pruned[:, 1] = [0.0, 0.5, 0.05]  # digit 1 collapses in two seeds: a raw t interval < -1
    raw = audit.mean_interval(pruned[:, 1] - 0.8)
    assert raw[1] < -1
    for row in class_findings(dense, pruned):
        assert -1 <= row.ci_low <= row.ours <= row.ci_high <= 1, row
        assert "±100 points" in row.basis
