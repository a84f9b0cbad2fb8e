"""Study 4's PIE and CIE statistics of two vote arrays, and the tie-averaged CIE set.

:func:`exemplar_statistic` gives, from the dense and the compressed votes ``(N, C)`` (counts, or
bootstrap and re-split weights), every number the PIE and CIE findings rest on, so that one
bootstrap over the members and one dense-vs-dense re-split null serve them all.

The over-index (B4.11, our question beside D4.11) is taken over the Taxicab CIE set of H2's Fig.
2, the examples above the 80th percentile of the Taxicab score. Most examples score 0 (both
populations unanimous on one label), so the set is filled by examples tied at its boundary
score, which H2 breaks at random. Instead of one random fill, the over-index is its exact
average over all fills (:func:`tie_averaged_membership`): an example above the boundary score is
in the set, one tied at it is in with probability ``m / t`` (``m`` places left for ``t`` tied
examples), one below is out. The set's size is fixed, so the average of a group's share over the
fills is its weighted share. :func:`tie_fill_sd` is the spread one random fill would add
(hypergeometric).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from pruneaudit.audit import exemplars

#: Scores equal to this many decimals are ties (sums of vote shares differ in the last bits).
TIE_DECIMALS = 9


def set_size(n: int, q: int) -> int:
    """How many of ``n`` examples lie above the ``q``-th percentile: ``ceil(n (100 - q) / 100)``
    (as :func:`pruneaudit.audit.top_percentile`)."""
    return -(-n * (100 - q) // 100)


def tie_averaged_membership(scores: np.ndarray, size: int) -> np.ndarray:
    """Each example's probability of being among the ``size`` highest ``scores`` when the ties
    at the boundary score are broken uniformly at random: 1 above it, ``m / t`` at it (``m``
    places left for ``t`` tied examples), 0 below; the weights sum to ``size``."""
    s = np.round(np.asarray(scores, dtype=float), TIE_DECIMALS)
    boundary = np.sort(s)[::-1][size - 1]
    above, tied = s > boundary, s == boundary
    left = size - int(above.sum())
    return np.where(above, 1.0, np.where(tied, left / tied.sum(), 0.0))


def tie_fill_sd(scores: np.ndarray, flags: np.ndarray, size: int) -> float:
    """The standard deviation, over the random fills of the boundary ties, of the share of
    flagged examples among the ``size`` highest ``scores``: ``m`` draws without replacement
    from ``t`` tied examples of which ``h`` are flagged (hypergeometric), over ``size``."""
    s = np.round(np.asarray(scores, dtype=float), TIE_DECIMALS)
    f = np.asarray(flags, dtype=bool)
    boundary = np.sort(s)[::-1][size - 1]
    tied = s == boundary
    t, m = int(tied.sum()), size - int((s > boundary).sum())
    if t < 2:
        return 0.0
    h = int(f[tied].sum())
    variance = m * (h / t) * (1 - h / t) * (t - m) / (t - 1)
    return float(np.sqrt(variance) / size)


def exemplar_statistic(
    labels: np.ndarray, groups: np.ndarray | None, hard: object, over_q: int, seed: int,
) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """The vote statistics of the PIE and CIE findings as one function of two vote arrays
    ``(N, C)``: PIE share over the dense members' mean error rate (D4.3); dense mean-member
    top-1 on the PIEs minus on all (D4.5), and on the non-PIEs minus on all (D4.6); compressed
    mean-member top-1 on the Taxicab top 10% minus the dense mean-member top-1 on all (H2's
    reference, the non-compressed baseline), and compressed top-1 on the top 1% minus the top 10%
    (D4.10; ties broken at random by ``seed``, as H2); with ``groups``, the relative error rise
    of group ``hard`` minus the others' mean (B4.9), and its tie-averaged over-index minus 1 in
    the Taxicab ``over_q``-percentile set (B4.11, module doc); then the compressed mean-member
    top-1 on the PIEs minus on all (D4.12), the compressed-minus-dense top-1 on the PIEs (H2's
    Modal CIEs) minus the same on all (D4.13), and the PIE share itself."""
    y = np.asarray(labels)
    rows = np.arange(y.size)
    tiebreak = np.random.default_rng(seed).permutation(y.size)  # top_percentile's tie-break

    def top(scores: np.ndarray, q: int) -> np.ndarray:
        mask = np.zeros(y.size, dtype=bool)
        mask[np.lexsort((tiebreak, -scores))[: set_size(y.size, q)]] = True
        return mask

    if groups is not None:
        g = np.asarray(groups)
        in_hard = g == hard
        others = [g == value for value in np.unique(g[~in_hard])]

    def statistic(b: np.ndarray, v: np.ndarray) -> np.ndarray:
        pie = exemplars.modal_from_votes(b) != exemplars.modal_from_votes(v)
        kb, kv = b[0].sum(), v[0].sum()
        rb, rv = b[rows, y] / kb, v[rows, y] / kv  # mean-member top-1 per example
        taxicab = np.abs(b / kb - v / kv).sum(axis=1)
        top10, top1 = top(taxicab, 90), top(taxicab, 99)
        dense_error = 1 - rb.mean()
        out = [pie.mean() / dense_error if dense_error > 0 else np.nan,
               rb[pie].mean() - rb.mean() if pie.any() else np.nan,
               rb[~pie].mean() - rb.mean() if (~pie).any() else np.nan,
               rv[top10].mean() - rb.mean(),
               rv[top1].mean() - rv[top10].mean()]
        if groups is not None:
            def rise(mask: np.ndarray) -> float:
                base = 1 - rb[mask].mean()
                return (rb[mask].mean() - rv[mask].mean()) / base if base > 0 else np.nan

            weight = tie_averaged_membership(taxicab, set_size(y.size, over_q))
            share = (weight * in_hard).sum() / weight.sum()
            out += [rise(in_hard) - np.mean([rise(m) for m in others]),
                    share / in_hard.mean() - 1]
        on_pies = (rv[pie].mean() - rv.mean(), (rv[pie].mean() - rb[pie].mean())
                   - (rv.mean() - rb.mean())) if pie.any() else (np.nan, np.nan)
        return np.asarray([*out, *on_pies, pie.mean()], dtype=float)

    return statistic
