"""Study 5's findings (D5.1-D5.4): H1's ImageNet-A and ImageNet-C claims (:mod:`~.claims`)
carried to our corrupted digits, each row built by its claim's id.

H1's metric is the relative top-1 change of the pruned model against the dense one on the same
inputs, averaged over the severities (App. Tables 3 and 8). Ours is computed per member: each
member's top-1 divided by the dense population's mean, so that a difference of population means
is the relative change (a ratio of pooled means), with a Welch interval over the members
(Welch-Satterthwaite df), carried to the log-ratio scale so that it stays above -100%
(:func:`pruneaudit.audit.bounded_interval`). The shares of corruptions ("every listed
corruption") and the trend over sparsity use a percentile bootstrap over the members of every
population. Every row is an ``analogue`` (direction only, H1's value beside it, no band and no
size: :mod:`~.claims`). Values are fractions (unit ``percent``: shown in %; ``points``: a
difference of two such changes).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats

from pruneaudit import audit
from pruneaudit.errors import PruneAuditError
from pruneaudit.runs.populations import level_name
from pruneaudit.studies.robustness.claims import H1_CORRUPTIONS, NOISE, claims, h1_relative
from pruneaudit.studies.robustness.frames import (
    CLEAN,
    NATURAL,
    RobustnessRuns,
    natural_member_rows,
)
from pruneaudit.studies.robustness.run import Result

__all__ = ["H1_CORRUPTIONS", "NOISE", "findings", "findings_from_accuracy",
           "h1_relative", "headline_level", "member_scores", "numbers", "runs_findings",
           "welch_df"]

#: H1 prints its headline numbers at t = 90%: the findings use our pruning level nearest to it.
HEADLINE_LEVEL = 0.9
#: H1's lower level in its ImageNet-C table (App. Table 3): D5.4 is 90% minus 70%.
LOWER_LEVEL = 0.7
BASIS = ("Welch interval over the members ({k} pruned and {kd} dense models, df {df:.1f}) of "
         "each member's top-1 divided by the dense population's mean")
BOOT_BASIS = ("percentile interval of {n_boot} bootstrap resamples of every population's members "
              "(drawn with replacement per level)")
SEVENTY = "needs a 70% population below the headline level"


def member_scores(accuracy: pd.DataFrame, corruptions: Sequence[str] | None = None) -> pd.Series:
    """Each member's top-1 averaged over ``corruptions`` (None: every corruption that is not
    clean nor natural-adversarial) and their severities: a Series indexed by (level, seed)."""
    if corruptions is None:
        rows = ~accuracy["corruption"].isin([CLEAN, NATURAL])
    else:
        rows = accuracy["corruption"].isin(list(corruptions))
    return accuracy[rows].groupby(["level", "seed"])["accuracy"].mean()


def _relative(scores: pd.Series, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Members' scores at ``level`` and at the dense level, each divided by the dense mean (so
    that a difference of means is H1's relative change, as a fraction)."""
    dense = scores.loc[0.0].to_numpy(dtype=float)
    return scores.loc[level].to_numpy(dtype=float) / dense.mean(), dense / dense.mean()


def welch_df(a: np.ndarray, b: np.ndarray) -> float:
    """Welch-Satterthwaite degrees of freedom of two samples (NaN when both are constant)."""
    va, vb = np.var(a, ddof=1) / len(a), np.var(b, ddof=1) / len(b)
    if va + vb == 0:
        return float("nan")
    return float((va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1)))


def welch_estimate(a, b, *, relative: bool = False, basis: str = "") -> audit.Estimate:
    """The Welch estimate of ``mean(a) - mean(b)`` over the members; ``relative``: a relative
    change (above -1), its interval on the log-ratio scale
    (:func:`pruneaudit.audit.bounded_interval`); ``basis`` is added to the interval's own."""
    diff, lo, hi = audit.welch_interval(a, b)
    if relative:
        diff, lo, hi = audit.bounded_interval(diff, lo, hi, "relative")
    df = welch_df(np.asarray(a), np.asarray(b))
    said = BASIS.format(k=len(a), kd=len(b), df=df) + (", on the log-ratio scale" if relative
                                                       else "")
    return audit.Estimate(diff, lo, hi, said + basis, df=df if np.isfinite(df) else None)


def _bootstrap_rows(accuracy, top, low, shifted, n_boot, seed):
    """Observed and bootstrap values of: the share of corruptions where the headline level's
    population-mean top-1 is below the dense one; the share where it falls below the lower
    level's; the Spearman correlation of the natural-adversarial top-1 with the level (dense
    included). Each resample draws every level's members with replacement."""
    table = accuracy.groupby(["level", "seed", "corruption"])["accuracy"].mean().unstack()
    levels = sorted(table.index.get_level_values(0).unique())
    columns = list(table.columns)
    per_level = {t: table.loc[t].to_numpy(dtype=float) for t in levels}  # members x test sets
    cols = [columns.index(c) for c in shifted]
    nat = columns.index(NATURAL) if NATURAL in columns else None

    def values(means: dict[float, np.ndarray]) -> list[float]:
        worse = float(np.mean(means[top][cols] < means[0.0][cols]))
        more = float(np.mean(means[top][cols] < means[low][cols])) if low is not None else np.nan
        rho = np.nan
        if nat is not None and len(levels) >= 3:
            series = np.array([means[t][nat] for t in levels])
            if np.ptp(series) > 0:
                rho = float(np.corrcoef(stats.rankdata(levels), stats.rankdata(series))[0, 1])
        return [worse, more, rho]

    observed = values({t: m.mean(axis=0) for t, m in per_level.items()})
    rng = np.random.default_rng(seed)
    draws = np.array([
        values({t: m[rng.integers(0, len(m), len(m))].mean(axis=0)
                for t, m in per_level.items()})
        for _ in range(n_boot)
    ])
    return observed, draws


def headline_level(levels: Sequence[float]) -> float:
    """The pruned level nearest :data:`HEADLINE_LEVEL` among ``levels`` (ties: the higher)."""
    pruned = [t for t in levels if t > 0]
    if not pruned:
        raise PruneAuditError(f"no pruned level among the levels {list(levels)}")
    return min(pruned, key=lambda t: (abs(t - HEADLINE_LEVEL), -t))


def _interval(observed: float, draws: np.ndarray, basis: str) -> audit.Estimate:
    """The observed statistic with the percentile interval of its finite bootstrap draws."""
    values = draws[np.isfinite(draws)]
    if not np.isfinite(observed) or values.size == 0:
        return audit.Estimate(float(observed), float("nan"), float("nan"), basis)
    lo, hi = np.quantile(values, [0.025, 0.975])
    return audit.Estimate(float(observed), float(lo), float(hi), basis)


def findings_from_accuracy(
    accuracy: pd.DataFrame, headline: float | None = None, *, n_boot: int = 999, seed: int = 0
) -> list[audit.Finding]:
    """D5.1-D5.4 (:func:`~.claims.claims`) from the tidy member accuracies
    (:attr:`~.frames.RobustnessRuns.accuracy`, plus rows with
    ``corruption = "natural_adversarial"`` for the reference-wrong test examples), in the
    claims' order.

    D5.1: relative top-1 on the natural-adversarial examples at the headline level, and its
    trend over the levels (Spearman, dense included at change 0: H1 falls monotonically).
    D5.2: the relative change averaged over the corruptions (H1: its 12 ImageNet-C ones at 90%),
    the share of corruptions where the headline level is below the dense population and the
    share where it is below the 70% one (H1: all 12), and the change beyond the clean one.
    D5.3: noise corruptions minus the others. D5.4: the headline level minus 70% (H1: 90% minus
    70%; not testable without a 70% population).
    """
    levels = sorted(t for t in accuracy["level"].unique() if t > 0)
    if 0.0 not in set(accuracy["level"]) or not levels:
        raise PruneAuditError("the accuracy frame needs the dense level 0 and a pruned level")
    top = headline if headline is not None else headline_level(levels)
    shifted = sorted(set(accuracy["corruption"]) - {CLEAN, NATURAL})
    if not shifted:
        raise PruneAuditError("the accuracy frame holds no corrupted test set")
    low = LOWER_LEVEL if LOWER_LEVEL in levels and top > LOWER_LEVEL else None
    observed, draws = _bootstrap_rows(accuracy, top, low, shifted, n_boot, seed)
    boot = BOOT_BASIS.format(n_boot=n_boot)
    rows = _natural_rows(accuracy, top, levels, observed[2], draws[:, 2], boot)
    rows += _corruption_rows(accuracy, top, low, shifted, observed[:2], draws[:, :2], boot)
    return rows + _noise_and_step_rows(accuracy, top, low, shifted)


def _corruption_rows(accuracy, top, low, shifted, observed, draws, boot) -> list[audit.Finding]:
    """D5.2: the mean relative change under corruption, the two shares of corruptions (observed
    statistic with its bootstrap draws) and the change beyond the clean one."""
    at, table = level_name(top), claims()
    over = f"over our {len(shifted)} corruptions"
    a, b = _relative(member_scores(accuracy), top)
    rows = [audit.judge(table["D5.2"], welch_estimate(a, b, relative=True, basis=f"; {over}"),
                        name=f"D5.2 relative top-1 under corruption at {at}")]
    rows.append(audit.judge(
        table["D5.2 share"],
        _interval(observed[0], draws[:, 0], f"{over}; {boot}; null 0.5 (each corruption as "
                  "likely to gain as to lose)"),
        name=f"D5.2 share of corruptions that lose top-1 at {at}"))
    name = f"D5.2 share of corruptions that lose more at {at} than at 70%"
    if low is not None:
        rows.append(audit.judge(table["D5.2 share more"],
                                _interval(observed[1], draws[:, 1], f"{over}; {boot}; null 0.5"),
                                name=name))
    else:
        rows.append(audit.untested(table["D5.2 share more"], name=name, why=SEVENTY))
    ca, cb = _relative(member_scores(accuracy, [CLEAN]), top)
    rows.append(audit.judge(table["D5.2 beyond clean"], welch_estimate(a - ca, b - cb),
                            name="D5.2 relative top-1 lost under corruption beyond the clean "
                            f"loss at {at}"))
    return rows


def _natural_rows(accuracy, top, levels, observed, draws, boot) -> list[audit.Finding]:
    """D5.1 at the headline level (direction only) and its trend over the levels."""
    at, table = level_name(top), claims()
    name = f"D5.1 natural-adversarial relative top-1 at {at}"
    trend = table["D5.1 trend"]
    if NATURAL not in set(accuracy["corruption"]):
        why = "no reference population (reference_seeds empty)"
        return [audit.untested(table["D5.1"], name=name, why=why), audit.untested(trend, why=why)]
    a, b = _relative(member_scores(accuracy, [NATURAL]), top)
    said = welch_estimate(a, b, relative=True, basis="; " + table["D5.1"].why)
    rows = [audit.judge(table["D5.1"], said, name=name)]
    if len(levels) < 2:
        return rows + [audit.untested(trend, why="needs two pruned levels besides the dense one")]
    basis = f"Spearman over levels 0, {', '.join(f'{t:g}' for t in levels)}; {boot}"
    return rows + [audit.judge(trend, _interval(observed, draws, basis))]


def _noise_and_step_rows(accuracy, top, low, shifted) -> list[audit.Finding]:
    """D5.3 (noise minus the other corruptions) and D5.4 (the headline level minus 70%)."""
    at, table = level_name(top), claims()
    noise = [c for c in shifted if c in NOISE]
    other = [c for c in shifted if c not in NOISE]
    name = f"D5.3 noise minus other corruptions, relative top-1 at {at}"
    if noise and other:
        na, nb = _relative(member_scores(accuracy, noise), top)
        oa, ob = _relative(member_scores(accuracy, other), top)
        rows = [audit.judge(table["D5.3"], welch_estimate(na - oa, nb - ob), name=name)]
    else:
        rows = [audit.untested(table["D5.3"], name=name,
                               why="needs a noise and a non-noise corruption")]
    name = f"D5.4 relative top-1 under corruption, {at} minus 70%"
    if low is None:
        return rows + [audit.untested(table["D5.4"], name=name, why=SEVENTY)]
    scores = member_scores(accuracy)
    hi_rel, _ = _relative(scores, top)
    lo_rel, _ = _relative(scores, low)
    return rows + [audit.judge(table["D5.4"], welch_estimate(hi_rel, lo_rel), name=name)]


def runs_findings(
    runs: RobustnessRuns, *, n_boot: int = 999, seed: int = 0
) -> list[audit.Finding]:
    """D5.1-D5.4 of the study's populations (:func:`findings_from_accuracy`), the reference
    population's wrong digits as the natural-adversarial rows."""
    frame = runs.accuracy
    if runs.reference is not None:
        frame = pd.concat([frame, natural_member_rows(runs)], ignore_index=True)
    return findings_from_accuracy(frame, n_boot=n_boot, seed=seed)


def findings(result: Result) -> list[audit.Finding]:
    """The page's findings (:func:`runs_findings`) with its parameters' ``n_boot``; the headline
    rows are the claims' (D5.1 and D5.2's mean relative change under corruption)."""
    return runs_findings(result.runs, n_boot=result.params.n_boot)


def numbers(result: Result) -> dict[str, float | int | str]:
    """The numbers the page's prose cites, at the pruned level the findings use
    (:func:`headline_level`): its name, the relative top-1 change against the dense population
    under corruption (the D5.2 row's estimate, so that the prose and the answer box cite one
    number: the pruned members' top-1 averaged over the corruptions and their severities, over
    the dense population's mean, minus 1) and on the clean
    test set, the count of corruptions, and the corruption that hurts most with its change
    (fractions); and what this build evaluated: ``members`` per population and ``severities``
    per corruption."""
    table = result.relative
    top = headline_level(table["level"].unique())
    at = table[table["level"] == top].set_index("corruption")
    worst = at["relative_change_pct"].idxmin()
    return {
        "headline": level_name(top),
        "corrupted_change": float(np.mean(_relative(member_scores(result.runs.accuracy),
                                                    top)[0]) - 1),
        "clean_change": float(at["clean_change_pct"].iloc[0] / 100),
        "corruptions": int(len(at)),
        "worst_corruption": str(worst),
        "worst_change": float(at.loc[worst, "relative_change_pct"] / 100),
        "members": int(result.params.members),
        "severities": len(result.params.severities),
    }
