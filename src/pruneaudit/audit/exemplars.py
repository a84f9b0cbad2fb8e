"""Compression-identified exemplars: modal labels, PIE flags, Taxicab and Jaccard scores.

A population is an int array ``(K, N)``: the predictions of K models on N examples.

Votes: ``b[x, i]`` = baseline models predicting class ``i`` for example ``x``; ``v`` likewise.

Modal label tie rule: among the most frequent labels, the **largest** label wins, as in H1's
released code (``pruning_identified_exemplars/pie_dataset_gen/aggregate_predictions.py`` takes
pandas' ``mode().max()``); :func:`tied_modes` counts the examples where the rule decides.

Taxicab score ``d_T(x) = sum_i |b[x,i] - v[x,i]|``; Jaccard score
``d_J(x) = 1 - sum_i min(b,v) / sum_i max(b,v)``. Both need populations of equal size K.

Why Jaccard orders examples exactly as Taxicab does when both populations have K models: for
each class ``max(b,v) + min(b,v) = b + v`` and ``max(b,v) - min(b,v) = |b - v|``. Summing over
classes with ``sum_i b = sum_i v = K`` gives ``S_max + S_min = 2K`` and ``S_max - S_min = d_T``,
so ``S_max = K + d_T/2`` and ``S_min = K - d_T/2``. Hence
``d_J = 1 - (K - d_T/2)/(K + d_T/2) = d_T / (K + d_T/2) = 2 d_T / (2K + d_T)``, a strictly
increasing function of ``d_T`` on ``d_T >= 0`` (derivative ``4K / (2K + d_T)^2 > 0``).

Formulas: the book's ``book/methods_audit.md``, section *PIE and CIE*.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pruneaudit.audit.accuracy import (
    check_group_frame,
    check_labels,
    check_num_classes,
    check_population,
    check_same_length,
)
from pruneaudit.errors import PruneAuditError

PERCENTILES = (90, 95, 99)


def vote_counts(preds: object, num_classes: int) -> np.ndarray:
    """Votes per example and class: int array ``(N, C)``, ``out[x, i] = |{k : preds[k,x] = i}|``.

    Vectorized: one ``np.bincount`` over offsets ``x*C + preds[k, x]``.
    """
    num_classes = check_num_classes(num_classes)
    p = check_population("preds", preds, num_classes)
    n = p.shape[1]
    offsets = (np.arange(n)[None, :] * num_classes + p).ravel()
    return np.bincount(offsets, minlength=n * num_classes).reshape(n, num_classes)


def modal_from_votes(votes: np.ndarray) -> np.ndarray:
    """Most frequent label per row of vote counts ``(N, C)`` (or weights) -> ``(N,)``; ties go
    to the largest label (H1's ``mode().max()``)."""
    votes = np.asarray(votes)
    return votes.shape[-1] - 1 - np.argmax(votes[..., ::-1], axis=-1)


def modal_labels(preds: object, num_classes: int) -> np.ndarray:
    """Most frequent label per example of a population ``(K, N)`` -> ``(N,)``.

    Ties: the largest label among the most frequent ones (module docstring).
    """
    return modal_from_votes(vote_counts(preds, num_classes))


def tied_modes(preds: object, num_classes: int) -> np.ndarray:
    """Per example, whether two or more labels share the highest vote count -> bool ``(N,)``:
    where the tie rule, not the votes, picks the modal label."""
    votes = vote_counts(preds, num_classes)
    return (votes == votes.max(axis=1, keepdims=True)).sum(axis=1) > 1


def _pair(
    baseline_preds: object, compressed_preds: object, num_classes: int | None
) -> tuple[np.ndarray, np.ndarray, int]:
    b = check_population("baseline_preds", baseline_preds, num_classes)
    v = check_population("compressed_preds", compressed_preds, num_classes)
    check_same_length("baseline_preds", b.shape[1], "compressed_preds", v.shape[1])
    if num_classes is None:
        num_classes = int(max(b.max(), v.max())) + 1
    return b, v, check_num_classes(num_classes)


def pie_flags(
    baseline_preds: object, compressed_preds: object, num_classes: int | None = None
) -> np.ndarray:
    """PIE flag per example: the two populations' modal labels differ -> bool ``(N,)``.

    True labels are not needed. ``num_classes`` defaults to the largest predicted label + 1
    (the tie rule does not depend on it).
    """
    b, v, c = _pair(baseline_preds, compressed_preds, num_classes)
    return modal_labels(b, c) != modal_labels(v, c)


def _equal_size_votes(
    baseline_preds: object, compressed_preds: object, num_classes: int | None
) -> tuple[np.ndarray, np.ndarray]:
    b, v, c = _pair(baseline_preds, compressed_preds, num_classes)
    if b.shape[0] != v.shape[0]:
        raise PruneAuditError(
            f"Taxicab and Jaccard scores need populations of equal size; baseline has "
            f"K = {b.shape[0]} models, compressed has K = {v.shape[0]}"
        )
    return vote_counts(b, c), vote_counts(v, c)


def taxicab_scores(
    baseline_preds: object, compressed_preds: object, num_classes: int | None = None
) -> np.ndarray:
    """``d_T(x) = sum_i |b[x,i] - v[x,i]|`` per example -> int ``(N,)``, in ``[0, 2K]``."""
    b, v = _equal_size_votes(baseline_preds, compressed_preds, num_classes)
    return np.abs(b - v).sum(axis=1)


def jaccard_scores(
    baseline_preds: object, compressed_preds: object, num_classes: int | None = None
) -> np.ndarray:
    """``d_J(x) = 1 - sum_i min(b,v) / sum_i max(b,v)`` per example -> float ``(N,)`` in [0, 1].

    Equals ``d_T / (K + d_T/2)`` (module docstring), so it ranks examples as Taxicab does.
    """
    b, v = _equal_size_votes(baseline_preds, compressed_preds, num_classes)
    return 1.0 - np.minimum(b, v).sum(axis=1) / np.maximum(b, v).sum(axis=1)


def top_percentile(scores: object, q: int, seed: int) -> np.ndarray:
    """Mask of the examples above the ``q``-th percentile of ``scores``: the top ``(100-q)%``.

    Selects exactly ``m = ceil(N * (100 - q) / 100)`` examples, highest scores first; examples
    tied at the threshold are chosen uniformly at random with ``np.random.default_rng(seed)``
    (a random permutation breaks ties), so the result is deterministic by seed.
    """
    s = np.asarray(scores, dtype=float)
    if s.ndim != 1 or s.size == 0:
        raise PruneAuditError(f"scores must be a non-empty 1-D array, got shape {s.shape}")
    if np.isnan(s).any():
        raise PruneAuditError("scores contain NaN; every example needs a score")
    if isinstance(q, bool) or not isinstance(q, int | np.integer) or not 0 < q < 100:
        raise PruneAuditError(
            f"percentile q must be an integer in 1..99 (the study uses {PERCENTILES}), got {q!r}"
        )
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise PruneAuditError(f"seed must be a non-negative integer, got {seed!r}")
    n = s.size
    m = -(-n * (100 - int(q)) // 100)
    tiebreak = np.random.default_rng(seed).permutation(n)
    order = np.lexsort((tiebreak, -s))
    mask = np.zeros(n, dtype=bool)
    mask[order[:m]] = True
    return mask


def population_accuracy(
    y_true: object, preds: object, num_classes: int, mask: object = None
) -> dict[str, float | int]:
    """Accuracy of a population on the examples selected by ``mask`` (all if None).

    ``modal``: top-1 accuracy of the population's modal labels (tie rule above);
    ``mean_member``: the mean over the K members of each member's accuracy.
    An empty selection gives NaN for both (e.g. no PIE at a low compression level).
    """
    num_classes = check_num_classes(num_classes)
    y = check_labels("y_true", y_true, num_classes)
    p = check_population("preds", preds, num_classes)
    check_same_length("y_true", y.size, "preds", p.shape[1])
    sel = np.ones(y.size, dtype=bool) if mask is None else _check_mask(mask, y.size)
    if not sel.any():
        return {"modal": float("nan"), "mean_member": float("nan"), "n": 0}
    modal = modal_labels(p, num_classes)
    return {
        "modal": float(np.mean(modal[sel] == y[sel])),
        "mean_member": float(np.mean(p[:, sel] == y[None, sel])),
        "n": int(sel.sum()),
    }


def _check_mask(mask: object, n: int, name: str = "mask") -> np.ndarray:
    m = np.asarray(mask)
    if m.dtype != bool or m.shape != (n,):
        raise PruneAuditError(
            f"{name} must be a boolean array of shape ({n},), got dtype {m.dtype} shape {m.shape}"
        )
    return m


def subset_accuracy(
    y_true: object,
    populations: dict[str, object],
    subsets: dict[str, object],
    num_classes: int,
) -> pd.DataFrame:
    """Accuracy of each population on each subset of examples (tidy).

    Columns ``subset, population, n, modal_accuracy, mean_member_accuracy``; see
    :func:`population_accuracy` for the two accuracies.
    """
    if not populations or not subsets:
        raise PruneAuditError("subset_accuracy needs at least one population and one subset")
    n = check_labels("y_true", y_true).size
    rows = []
    for sname, mask in subsets.items():
        sel = _check_mask(mask, n, f"subset {sname!r}")
        for pname, preds in populations.items():
            acc = population_accuracy(y_true, preds, num_classes, sel)
            rows.append(
                {
                    "subset": sname,
                    "population": pname,
                    "n": acc["n"],
                    "modal_accuracy": acc["modal"],
                    "mean_member_accuracy": acc["mean_member"],
                }
            )
    return pd.DataFrame(rows)


def pie_accuracy(
    y_true: object, baseline_preds: object, compressed_preds: object, num_classes: int
) -> pd.DataFrame:
    """Accuracy of the baseline and the compressed population on PIE, non-PIE and all examples."""
    pie = pie_flags(baseline_preds, compressed_preds, num_classes)
    return subset_accuracy(
        y_true,
        {"baseline": baseline_preds, "compressed": compressed_preds},
        {"pie": pie, "non_pie": ~pie, "all": np.ones_like(pie)},
        num_classes,
    )


def over_indexing(train_groups: object, cie_groups: object) -> pd.DataFrame:
    """Share of each group in the training set vs in the CIE set (one attribute at a time).

    ``train_groups``: group columns of the training examples; ``cie_groups``: the same columns
    for the CIE examples (e.g. ``test_meta[cie_mask]``). Columns of the result: ``attribute,
    value, train_count, train_share, cie_count, cie_share, over_index`` with
    ``over_index = cie_share / train_share`` (> 1: the group is over-represented among CIEs;
    NaN when the group is absent from training). An empty CIE set gives NaN shares.
    For intersections, pass a column that combines attributes.
    """
    train = check_group_frame("train_groups", train_groups)
    cie = check_group_frame("cie_groups", cie_groups)
    if train.empty:
        raise PruneAuditError("train_groups has no rows")
    missing = [c for c in train.columns if c not in cie.columns]
    if missing:
        raise PruneAuditError(f"cie_groups lacks the group columns {missing} of train_groups")
    rows = []
    for col in train.columns:
        tc = train[col].value_counts()
        cc = cie[col].value_counts()
        for value in sorted(set(tc.index) | set(cc.index), key=str):
            t_n, c_n = int(tc.get(value, 0)), int(cc.get(value, 0))
            t_share = t_n / len(train)
            c_share = c_n / len(cie) if len(cie) else float("nan")
            rows.append(
                {
                    "attribute": col,
                    "value": value,
                    "train_count": t_n,
                    "train_share": t_share,
                    "cie_count": c_n,
                    "cie_share": c_share,
                    "over_index": c_share / t_share if t_n else float("nan"),
                }
            )
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- permutation null

#: Statistics of two populations' votes ``(N, C)`` each (baseline, compressed) -> ``(m,)``.
VoteStatistic = Callable[[np.ndarray, np.ndarray], object]


@dataclass(frozen=True)
class MemberVotes:
    """Two populations' predictions ``(K_b, N)`` and ``(K_c, N)`` (baseline, compressed),
    checked once and one-hot encoded ``(K, N, C)``, for the statistics of their votes: as
    observed, under a permutation null (:meth:`permutation_null`) and under the bootstrap over
    members (:meth:`bootstrap`)."""

    baseline: np.ndarray
    compressed: np.ndarray

    @classmethod
    def of(
        cls, baseline_preds: object, compressed_preds: object, num_classes: int
    ) -> MemberVotes:
        """The one-hot members of two populations of predictions over ``num_classes``."""
        b, v, c = _pair(baseline_preds, compressed_preds, check_num_classes(num_classes))
        return cls(_onehot(b, c), _onehot(v, c))

    def observed(self, statistic: VoteStatistic) -> np.ndarray:
        """``statistic`` of the two populations' votes, ``(m,)``."""
        value = statistic(self.baseline.sum(axis=0), self.compressed.sum(axis=0))
        return np.atleast_1d(np.asarray(value, dtype=float))

    def permutation_null(
        self, statistic: VoteStatistic, n_perm: int = 199, seed: int = 0
    ) -> tuple[np.ndarray, np.ndarray]:
        """``statistic`` (``m`` numbers) of the two populations' votes, ``(m,)``, and its values on
        ``n_perm`` balanced re-splits of the ``K_b + K_c`` members, ``(n_perm, m)``: the first group
        takes ``K_b // 2`` baseline members and ``K_b − K_b // 2`` compressed ones (drawn at
        random), the second group the rest.

        Under the null that both populations' members are drawn from one distribution, every fixed
        split of the members gives the statistic the same distribution as the observed split, so the
        re-split values are draws of it under that null: PIEs and CIEs exist, and are hard, even
        between two dense populations. Balanced re-splits put equal shares of each population in
        both groups, so under the alternative the effect cancels in the null. Unrestricted re-splits
        keep it in about half of them: a modal label is a threshold function, and a group holding
        more baseline than compressed members mostly votes as the baseline, which left the test of a
        modal-label statistic without power. Balanced re-splits are not a group of permutations, so
        the test is not exact (Southworth, Kim & Owen 2009, *J. Comput. Biol.* 16): its
        false-positive rate is measured in ``tests/studies/test_impact_findings_null.py``.
        """
        k_b, k_c = len(self.baseline), len(self.compressed)
        if isinstance(n_perm, bool) or not isinstance(n_perm, int | np.integer) or n_perm < 1:
            raise PruneAuditError(f"n_perm must be a positive integer, got {n_perm!r}")
        if k_c < k_b - k_b // 2:
            raise PruneAuditError(
                f"a balanced re-split needs at least {k_b - k_b // 2} compressed members "
                f"for {k_b} baseline ones, got {k_c}"
            )
        observed = self.observed(statistic)
        onehot = np.concatenate([self.baseline, self.compressed])
        total = onehot.sum(axis=0)
        rng = np.random.default_rng(seed)
        null = np.empty((n_perm, observed.size))
        from_b = k_b // 2
        for i in range(n_perm):
            pick = np.concatenate(
                [rng.permutation(k_b)[:from_b], k_b + rng.permutation(k_c)[: k_b - from_b]]
            )
            votes_b = onehot[pick].sum(axis=0)
            null[i] = np.asarray(statistic(votes_b, total - votes_b), float)
        return observed, null

    def bootstrap(
        self, statistic: VoteStatistic, n_boot: int = 199, seed: int = 0
    ) -> tuple[np.ndarray, np.ndarray]:
        """``statistic`` (``m`` numbers) of the two populations' votes, ``(m,)``, and its values on
        ``n_boot`` bootstrap resamples of the members, ``(n_boot, m)``: each resample draws the
        baseline members and the compressed members with replacement, each population on its own
        (the populations are trained independently), and gives ``statistic`` their vote counts (a
        member drawn twice votes twice), so modal labels, PIEs and CIEs are recomputed.

        The resamples are drawn as multinomial member counts ``(n_boot, K)`` with
        ``np.random.default_rng(seed)``; the votes of a resample are those counts times the members'
        one-hot predictions (one matrix product per resample).
        """
        if isinstance(n_boot, bool) or not isinstance(n_boot, int | np.integer) or n_boot < 1:
            raise PruneAuditError(f"n_boot must be a positive integer, got {n_boot!r}")
        k_b, k_c = len(self.baseline), len(self.compressed)
        observed = self.observed(statistic)
        rng = np.random.default_rng(seed)
        counts_b = rng.multinomial(k_b, np.full(k_b, 1 / k_b), size=n_boot)
        counts_v = rng.multinomial(k_c, np.full(k_c, 1 / k_c), size=n_boot)
        draws = np.empty((n_boot, observed.size))
        flat_b = self.baseline.reshape(k_b, -1)
        flat_v = self.compressed.reshape(k_c, -1)
        shape = self.baseline.shape[1:]
        for i in range(n_boot):
            votes_b = (counts_b[i] @ flat_b).reshape(shape)
            votes_v = (counts_v[i] @ flat_v).reshape(shape)
            draws[i] = np.asarray(statistic(votes_b, votes_v), dtype=float)
        return observed, draws


def _onehot(members: np.ndarray, num_classes: int) -> np.ndarray:
    out = np.zeros((*members.shape, num_classes), dtype=np.int32)
    np.put_along_axis(out, members[..., None], 1, axis=2)
    return out


def shift_interval(
    observed: float, null: object, level: float = 0.95
) -> tuple[float, float, float]:
    """Excess of ``observed`` over the permutation null, and its interval.

    ``(observed - mean(null), observed - q_hi, observed - q_lo)`` with ``q_lo, q_hi`` the
    central ``level`` quantiles of ``null`` (taken outward, numpy's ``"lower"`` / ``"higher"``
    methods, so that the test is conservative with few re-splits): the shifts ``d`` for which
    ``observed - d`` is not rejected by the two-sided permutation test (the test inverted under
    a shift model). The interval excludes 0 exactly when the test rejects the null. NaN values of
    ``null`` (a statistic undefined in a re-split) are left out; all NaN gives NaNs.
    """
    values = np.asarray(null, dtype=float)
    values = values[np.isfinite(values)]
    if not np.isfinite(observed) or values.size == 0:
        return float("nan"), float("nan"), float("nan")
    q_lo = np.quantile(values, (1 - level) / 2, method="lower")
    q_hi = np.quantile(values, (1 + level) / 2, method="higher")
    return float(observed - values.mean()), float(observed - q_hi), float(observed - q_lo)
