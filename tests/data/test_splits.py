"""Long-tailed subsampling of a training pool (data.splits)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pruneaudit import data
from pruneaudit.errors import PruneAuditError


def test_counts_hand_computed():
    # ranks by the seeded permutation; n_k = floor(100 * 100 ** (-k / 2)) = 100, 10, 1
    counts = data.long_tail_counts(3, 100, 100, seed=0)
    assert sorted(counts) == [1, 10, 100]
    rank = np.empty(3, dtype=int)
    rank[np.random.default_rng(0).permutation(3)] = np.arange(3)
    assert list(counts) == [[100, 10, 1][r] for r in rank]


@given(
    factor=st.floats(1, 200),
    classes=st.integers(2, 12),
    seed=st.integers(0, 50),
)
def test_profile_properties(factor, classes, seed):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, classes, 4000)
    labels[:classes] = np.arange(classes)
    n_min = np.bincount(labels, minlength=classes).min()
    if n_min / factor < 1:
        with pytest.raises(PruneAuditError, match="without examples"):
            data.long_tail_indices(labels, classes, factor, seed)
        return
    keep = data.long_tail_indices(labels, classes, factor, seed)
    assert np.all(np.diff(keep) > 0)  # sorted, distinct
    got = np.bincount(labels[keep], minlength=classes)
    assert got.max() == (n_min if factor > 1 else np.bincount(labels).max())
    if factor > 1:
        assert got.max() / got.min() == pytest.approx(factor, rel=0.02 + 1 / got.min())
    again = data.long_tail_indices(labels, classes, factor, seed)
    assert np.array_equal(keep, again)


def test_factor_one_keeps_everything_and_bad_factor():
    labels = np.array([0, 1, 1, 2])
    assert list(data.long_tail_indices(labels, 3, 1)) == [0, 1, 2, 3]
    with pytest.raises(PruneAuditError, match=">= 1"):
        data.long_tail_indices(labels, 3, 0.5)
    with pytest.raises(PruneAuditError, match=">= 1"):
        data.long_tail_indices(labels, 3, True)
