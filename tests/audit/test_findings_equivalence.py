"""The additive parts of audit.findings used by Study 2: the equivalence finding and the
vectorized bootstrap."""

from __future__ import annotations

import numpy as np
import pytest

from pruneaudit import audit
from pruneaudit.errors import PruneAuditError


def test_similar_needs_the_interval_inside_the_margin():
    kw = {"source": "s", "basis": "b"}
    assert audit.similar("x", 0.1, -0.2, 0.3, 0.5, **kw).verdict == audit.REPRODUCED
    assert audit.similar("x", 0.1, -0.2, 0.6, 0.5, **kw).verdict == audit.INCONCLUSIVE
    assert audit.similar("x", 0.1, -0.5, 0.3, 0.5, **kw).verdict == audit.INCONCLUSIVE
    assert audit.similar("x", 0.8, 0.6, 0.9, 0.5, **kw).verdict == audit.NOT_REPRODUCED
    assert audit.similar("x", 2.1, 1.8, 2.2, 0.5, null=2, **kw).verdict == audit.REPRODUCED
    assert audit.similar("x", 0, np.nan, 0.1, 0.5, **kw).verdict == audit.INCONCLUSIVE
    with pytest.raises(PruneAuditError, match="margin must be > 0"):
        audit.similar("x", 0, 0, 0, 0, **kw)


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
