"""Study 4's trend rows: H1's "grows with sparsity" claims as rank correlations over the levels.

Spearman's rank correlation of a per-level statistic with the pruning level, with a bootstrap over
the members of every population (each resampled on its own, the dense one shared by all levels),
and the interval shared with the PIE rows (:func:`normal_interval`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from scipy import stats

from pruneaudit import audit
from pruneaudit.audit import exemplars
from pruneaudit.studies.compression_impact.claims import claims

Z = float(stats.norm.ppf(0.975))
TREND_BASIS = (
    "Spearman rank correlation of the statistic with the pruning level over {levels}; 95% "
    "interval = estimate +/- 1.96 standard errors (variance x K/(K-1)) of {n_boot} bootstrap "
    "resamples of every population's members (clipped to [-1, 1])"
)


def normal_interval(observed: float, draws: np.ndarray, members: int,
                    clip: tuple[float, float] | None = None):
    """``observed`` +/- 1.96 bootstrap standard errors, the variance scaled by K / (K - 1) for
    the smallest population of ``members`` (the bootstrap variance of a mean of K units is
    (K - 1) / K of the unbiased one)."""
    values = np.asarray(draws, dtype=float)
    values = values[np.isfinite(values)]
    if not np.isfinite(observed) or values.size < 2 or members < 2:
        return float(observed), float("nan"), float("nan")
    half = Z * float(values.std(ddof=1)) * float(np.sqrt(members / (members - 1)))
    lo, hi = observed - half, observed + half
    if clip is not None:
        lo, hi = max(lo, clip[0]), min(hi, clip[1])
    return float(observed), float(lo), float(hi)


def _onehots(preds: np.ndarray, num_classes: int) -> np.ndarray:
    flat = np.zeros((len(preds), preds.shape[1] * num_classes), dtype=np.float32)
    flat[np.arange(len(preds))[:, None], np.arange(preds.shape[1]) * num_classes + preds] = 1
    return flat


def _welch_share(b_shift: np.ndarray, v_shift: np.ndarray, alpha: float) -> float:
    """Share of classes (columns) whose two-sided Welch p <= alpha: ``scipy.stats.ttest_ind``'s
    test written out so that one resample costs a few array operations; a class whose samples
    are both constant counts as not significant (p = NaN, as in
    :func:`pruneaudit.audit.class_recall_ttest`)."""
    na, nb = len(v_shift), len(b_shift)
    va, vb = v_shift.var(axis=0, ddof=1) / na, b_shift.var(axis=0, ddof=1) / nb
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (v_shift.mean(axis=0) - b_shift.mean(axis=0)) / np.sqrt(va + vb)
        df = (va + vb) ** 2 / (va**2 / (na - 1) + vb**2 / (nb - 1))
        p = 2 * stats.t.sf(np.abs(t), df)
    return float(np.mean(np.nan_to_num(p, nan=1.0) <= alpha))


def _spearman(levels: np.ndarray, values: np.ndarray) -> float:
    """Spearman's rank correlation (average ranks for ties); NaN for a constant statistic."""
    if np.ptp(values) == 0 or not np.isfinite(values).all():
        return float("nan")
    return float(np.corrcoef(stats.rankdata(levels), stats.rankdata(values))[0, 1])


def trend_findings(
    labels: np.ndarray,
    baseline_preds: np.ndarray,
    pruned: Mapping[float, np.ndarray],
    num_classes: int,
    alpha: float = 0.05,
    *,
    n_boot: int = 199,
    seed: int = 0,
) -> list[audit.Finding]:
    """H1's "grows with sparsity" claims as trend tests over our pruning levels ``pruned``
    (``{level: preds}``): Spearman's rank correlation with the level of the share of classes
    significantly impacted (D4.1), of the PIE share (D4.3) and of the dense non-PIE lift (D4.6,
    "more so at higher t"); direction-only (+1) with the smallest effect of interest
    :data:`~.claims.SMALLEST_RHO` (H1's printed ImageNet values give 1 for D4.1 and D4.3, 0.9
    for D4.6: its non-PIE top-1 dips from t = 10% to 30%)."""
    y = np.asarray(labels)
    levels = np.array(sorted(pruned), dtype=float)
    table = claims()
    ids = ("D4.1 trend", "D4.3 trend", "D4.6 trend")
    if len(levels) < 3:
        return [audit.untested(table[c], why="needs at least three pruning levels") for c in ids]
    pops = [np.asarray(baseline_preds)] + [np.asarray(pruned[t]) for t in levels]
    hots = [_onehots(p, num_classes) for p in pops]
    recalls = []
    for p in pops:
        r, acc = audit.population_recalls(y, p, num_classes)
        recalls.append(r - acc[:, None])
    rows_n = np.arange(y.size)
    n, c = y.size, num_classes

    def per_level(weights: list[np.ndarray], picks: list[np.ndarray]) -> np.ndarray:
        votes = [(w @ h).reshape(n, c) for w, h in zip(weights, hots, strict=True)]
        dense_modal = exemplars.modal_from_votes(votes[0])
        rb = votes[0][rows_n, y] / votes[0][0].sum()
        out = []
        for i in range(1, len(pops)):
            pie = dense_modal != exemplars.modal_from_votes(votes[i])
            sig = _welch_share(recalls[0][picks[0]], recalls[i][picks[i]], alpha)
            lift = rb[~pie].mean() - rb.mean() if (~pie).any() else np.nan
            out.append((sig, pie.mean(), lift))
        return np.asarray(out).T  # (3 statistics, levels)

    def trends(values: np.ndarray) -> np.ndarray:
        return np.array([_spearman(levels, v) for v in values])

    ks = [len(p) for p in pops]
    observed = trends(per_level([np.ones(k) for k in ks], [np.arange(k) for k in ks]))
    rng = np.random.default_rng(seed)
    draws = np.empty((n_boot, 3))
    for i in range(n_boot):
        picks = [rng.integers(0, k, k) for k in ks]
        weights = [np.bincount(p, minlength=k).astype(np.float32) for p, k in
                   zip(picks, ks, strict=True)]
        draws[i] = trends(per_level(weights, picks))
    basis = TREND_BASIS.format(levels=", ".join(f"{t:g}" for t in levels), n_boot=n_boot)
    out = []
    for j, claim in enumerate(ids):
        ours, lo, hi = normal_interval(observed[j], draws[:, j], min(ks), clip=(-1.0, 1.0))
        out.append(audit.judge(table[claim], audit.Estimate(ours, lo, hi, basis)))
    return out
