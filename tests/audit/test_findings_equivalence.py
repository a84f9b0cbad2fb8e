"""The additive parts of audit.findings used by Study 2: the claim of no difference (a ``same``
claim with ``equivalence=True`` and its margin) and the vectorized bootstrap."""

from __future__ import annotations

import numpy as np
import pytest

from pruneaudit import audit
from pruneaudit.audit.claims import Claim
from pruneaudit.errors import PruneAuditError


def _similar(ours: float, low: float, high: float, margin: float, *, null: float = 0.0
             ) -> audit.Finding:
    """The row of a claim of no material difference (within ``margin`` of ``null``)."""
    claim = Claim("X1", "X1 no material difference", says="the two are alike", source="test",
                  quantity="a minus b", comparability="same", equivalence=True, margin=margin,
                  margin_reason="a test margin", null=null)
    return audit.judge(claim, audit.Estimate(ours, low, high, "b"))


def test_a_claim_of_no_difference_needs_the_interval_inside_the_margin():
    assert _similar(0.1, -0.2, 0.3, 0.5).verdict == audit.REPRODUCED
    assert _similar(0.1, -0.2, 0.6, 0.5).verdict == audit.INCONCLUSIVE
    assert _similar(0.1, -0.5, 0.3, 0.5).verdict == audit.INCONCLUSIVE
    assert _similar(0.8, 0.6, 0.9, 0.5).verdict == audit.NOT_REPRODUCED
    assert _similar(2.1, 1.8, 2.2, 0.5, null=2).verdict == audit.REPRODUCED
    assert _similar(0, np.nan, 0.1, 0.5).verdict == audit.INCONCLUSIVE
    assert _similar(0.0, 0.0, 0.0, 0.5).verdict == audit.INCONCLUSIVE  # no width: every unit alike
    with pytest.raises(PruneAuditError, match="margin must be > 0"):
        _similar(0, -0.1, 0.1, 0)


def test_a_claim_of_no_difference_has_no_direction_size_or_band():
    row = _similar(0.1, -0.2, 0.3, 0.5)
    assert (row.direction, row.size, row.paper_band, row.paper) == ("", "", None, None)
    assert (row.margin, row.margin_reason, row.comparability) == (0.5, "a test margin", "same")
    assert row.stability is not None and row.direction_stability is None


def test_vectorized_bootstrap_matches_the_plain_one():
    rng = np.random.default_rng(0)
    x = rng.normal(size=80)

    def mean_axis(a, axis=-1):
        return a.mean(axis)

    plain = audit.bootstrap_interval([x], np.mean, seed=3)
    fast = audit.bootstrap_interval([x], mean_axis, seed=3, vectorized=True)
    assert fast[0] == pytest.approx(plain[0])
    # same resampling scheme, same seed: intervals agree to resampling noise
    assert fast[1] == pytest.approx(plain[1], abs=0.05)
    assert fast[2] == pytest.approx(plain[2], abs=0.05)
    assert fast[1] < x.mean() < fast[2]
