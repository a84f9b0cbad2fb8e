"""Controlled long-tailed class imbalance of a training pool (an extension beyond P).

P's imbalance term r_c (methods page, "Study 1: population regression") is identified only when
class shares differ; every offline dataset is (nearly) balanced. :func:`long_tail_indices`
subsamples a pool to an exponential profile: the class of rank ``k`` (0 = most frequent, ranks
drawn by a seeded permutation of the classes) keeps ``n_k = floor(n_min * factor ** (-k / (C-1)))``
examples, ``n_min`` being the smallest class count in the pool, so that the most frequent class
has ``factor`` times the examples of the rarest (Cui et al. 2019; Cao et al. 2019). Within a class
the first ``n_k`` examples in pool order are kept. ``factor`` 1 keeps the pool as it is (its own
class proportions).
"""

from __future__ import annotations

import numpy as np

from pruneaudit.errors import PruneAuditError


def check_factor(factor: object) -> float:
    """``factor`` as a float >= 1, or one clear error."""
    if isinstance(factor, bool) or not isinstance(factor, int | float) or not factor >= 1:
        raise PruneAuditError(
            f"imbalance factor must be a number >= 1 (1 = the pool as it is), got {factor!r}"
        )
    return float(factor)


def long_tail_counts(num_classes: int, n_min: int, factor: float, seed: int = 0) -> np.ndarray:
    """Examples kept per class (index = class) for an exponential profile of ``factor``."""
    factor = check_factor(factor)
    if num_classes < 2:
        raise PruneAuditError(f"a long tail needs at least 2 classes, got {num_classes}")
    rank = np.empty(num_classes, dtype=int)
    rank[np.random.default_rng(seed).permutation(num_classes)] = np.arange(num_classes)
    counts = np.floor(n_min * factor ** (-rank / (num_classes - 1)) + 1e-9).astype(int)
    if counts.min() < 1:
        raise PruneAuditError(
            f"factor {factor:g} leaves a class without examples (smallest class has {n_min}); "
            "use a smaller factor or a larger training pool"
        )
    return counts


def long_tail_indices(labels: np.ndarray, num_classes: int, factor: float, seed: int = 0):
    """Sorted positions of the pool examples kept for a long tail of ``factor`` (1: all)."""
    labels = np.asarray(labels)
    if check_factor(factor) == 1:
        return np.arange(len(labels))
    have = np.bincount(labels, minlength=num_classes)
    counts = long_tail_counts(num_classes, int(have.min()), factor, seed)
    keep = [np.flatnonzero(labels == c)[: counts[c]] for c in range(num_classes)]
    return np.sort(np.concatenate(keep))
