"""Bounded intervals: hand-computed delta-method cases, bounds kept, estimate inside."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pruneaudit import audit
from pruneaudit.errors import PruneAuditError


def test_relative_drop_below_minus_one_is_carried_to_the_log_ratio():
    # -78% [-113, -43]: log(0.22) -/+ 0.35 / 0.22 on the log-ratio scale, back-transformed
    est, low, high = audit.bounded_interval(-0.78, -1.13, -0.43, "relative")
    assert est == -0.78
    assert low == pytest.approx(0.22 * math.exp(-0.35 / 0.22) - 1)
    assert high == pytest.approx(0.22 * math.exp(0.35 / 0.22) - 1)
    assert low > -1


def test_share_goes_through_the_logit():
    est, low, high = audit.bounded_interval(0.1, -0.05, 0.25, "share")
    centre, slope = math.log(0.1 / 0.9), 1 / (0.1 * 0.9)
    assert low == pytest.approx(1 / (1 + math.exp(-(centre - 0.15 * slope))))
    assert high == pytest.approx(1 / (1 + math.exp(-(centre + 0.15 * slope))))
    assert 0 < low < 0.1 < high < 1


def test_positive_ratio_on_the_log_scale_and_estimate_on_a_bound():
    assert audit.bounded_interval(0.4, 0.3, 0.5, "positive")[1:] == pytest.approx(
        (0.4 * math.exp(-0.25), 0.4 * math.exp(0.25)))
    assert audit.bounded_interval(0.0, -0.05, 0.05, "share") == (0.0, 0.0, 0.05)
    nan = audit.bounded_interval(0.2, math.nan, math.nan, "share")
    assert math.isnan(nan[1]) and math.isnan(nan[2])
    with pytest.raises(PruneAuditError, match="scale"):
        audit.bounded_interval(0.2, 0.1, 0.3, "odds")


@given(st.floats(0.001, 0.999), st.floats(0, 2), st.floats(0, 2),
       st.sampled_from(sorted(audit.SCALES)))
def test_ends_respect_the_bounds_and_hold_the_estimate(p, below, above, scale):
    est = p if scale == "share" else (p * 3 - 0.99 if scale == "relative" else p * 3)
    _, low, high = audit.bounded_interval(est, est - below, est + above, scale)
    lo_bound, hi_bound = audit.SCALES[scale]
    assert lo_bound <= low <= est <= high <= hi_bound
