"""Study 5's findings (D5.1-D5.4): H1's ImageNet-A and ImageNet-C numbers beside ours.

H1's metric is the relative top-1 change of the pruned model against the dense one on the same
inputs, averaged over the severities (App. Tables 3 and 8). Ours is computed per member: each
member's top-1 divided by the dense population's mean, so that a difference of population means
is the relative change, with a Welch interval over the members (Welch-Satterthwaite df), carried
to the log-ratio scale so that it stays above -100% (:func:`pruneaudit.audit.bounded_interval`). The
shares of corruptions ("every listed corruption") and the trend over sparsity use a percentile
bootstrap over the members of every population. Values are fractions (unit ``percent``: shown in
%; ``points``: a difference of two such changes).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats

from pruneaudit import audit
from pruneaudit.errors import PruneAuditError
from pruneaudit.runs.populations import level_name
from pruneaudit.studies.robustness.frames import (
    CLEAN,
    NATURAL,
    RobustnessRuns,
    natural_member_rows,
)
from pruneaudit.studies.robustness.run import Result

STUDY = "S5_robustness"
#: H1 prints its headline numbers at t = 90%: the findings use our pruning level nearest to it.
HEADLINE_LEVEL = 0.9
#: H1's lower level in its ImageNet-C table (App. Table 3): D5.4 is 90% minus 70%.
LOWER_LEVEL = 0.7
#: Our noise corruptions (H1: noise is worst at 90%).
NOISE = ("gaussian_noise", "shot_noise", "impulse_noise")
#: H1's ImageNet-C corruptions (App. Table 3 rows).
H1_CORRUPTIONS = ("brightness", "contrast", "defocus_blur", "elastic", "fog",
                  "frosted_glass_blur", "gaussian_noise", "impulse_noise", "jpeg_compression",
                  "pixelate", "shot_noise", "zoom_blur")
H1_RELATIVE = "ImageNet-C top-1 normalized vs non-pruned (%)"
BASIS = ("Welch interval over the members ({k} pruned and {kd} dense models, df {df:.1f}) of "
         "each member's top-1 divided by the dense population's mean")
BOOT_BASIS = ("percentile interval of {n_boot} bootstrap resamples of every population's members "
              "(drawn with replacement per level)")
#: Smallest rank correlation of interest for the direction-only trend row.
SMALLEST_RHO = 0.5
#: Smallest relative loss of interest of D5.1 (direction only): a tenth of the dense top-1.
SMALLEST_NATURAL = 0.1
#: Why D5.1 compares in direction only.
NATURAL_CAVEAT = (
    "; direction only: ImageNet-A's images were kept because models of the very architecture H1 "
    "prunes (ResNet-50) get them wrong, so its dense top-1 is under 1% and H1's relative change "
    "is of that near-zero base; our digits are those a separately trained dense population gets "
    "wrong, a base the sizes do not share"
)


@functools.cache
def _lookup(metric: str, **columns: str) -> audit.Published:
    return audit.lookup(STUDY, metric, **columns)


def h1_relative(corruption: str, level: float) -> float:
    """H1's relative top-1 change on one ImageNet-C corruption at ``level`` (0.7 or 0.9), as
    a fraction."""
    return _lookup(H1_RELATIVE, dataset=f"ImageNet-C {corruption}",
                   setting=f"t={level}").number / 100


def _h1_mean(level: float, names: Sequence[str] = H1_CORRUPTIONS) -> float:
    return float(np.mean([h1_relative(c, level) for c in names]))


def _h1_source() -> str:
    return _lookup(H1_RELATIVE, dataset="ImageNet-C brightness", setting="t=0.9").source


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


def _welch(a, b, name: str, paper: float | None, source: str, unit: str, definition: str,
           *, relative: bool = False, basis: str = "", **kw):
    """The Welch row of ``a - b``; ``relative``: a relative change (above -1), its interval on
    the log-ratio scale (:func:`pruneaudit.audit.bounded_interval`)."""
    diff, lo, hi = audit.welch_interval(a, b)
    if relative:
        diff, lo, hi = audit.bounded_interval(diff, lo, hi, "relative")
    df = welch_df(np.asarray(a), np.asarray(b))
    said = BASIS.format(k=len(a), kd=len(b), df=df) + (", on the log-ratio scale" if relative
                                                       else "")
    return audit.finding(name, diff, lo, hi, paper, source=source, unit=unit, basis=said + basis,
                         df=df if np.isfinite(df) else None, definition=definition, **kw)


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


def _interval(observed: float, draws: np.ndarray) -> tuple[float, float, float]:
    values = draws[np.isfinite(draws)]
    if not np.isfinite(observed) or values.size == 0:
        return float(observed), float("nan"), float("nan")
    lo, hi = np.quantile(values, [0.025, 0.975])
    return float(observed), float(lo), float(hi)


def findings_from_accuracy(
    accuracy: pd.DataFrame, headline: float | None = None, *, n_boot: int = 999, seed: int = 0
) -> list[audit.Finding]:
    """D5.1-D5.4 from the tidy member accuracies (:func:`accuracy_frame`, plus rows with
    ``corruption = "natural_adversarial"`` for the reference-wrong test examples).

    D5.1: relative top-1 on the natural-adversarial examples at the headline level (direction
    only, :data:`NATURAL_CAVEAT`), and its trend over the levels (Spearman, dense included at
    change 0: H1 falls monotonically).
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
    present = set(accuracy["corruption"])
    shifted = sorted(present - {CLEAN, NATURAL})
    if not shifted:
        raise PruneAuditError("the accuracy frame holds no corrupted test set")
    low = LOWER_LEVEL if LOWER_LEVEL in levels and top > LOWER_LEVEL else None
    at = level_name(top)
    source = _h1_source()
    observed, draws = _bootstrap_rows(accuracy, top, low, shifted, n_boot, seed)
    boot = BOOT_BASIS.format(n_boot=n_boot)
    rows = _natural_rows(accuracy, top, levels, observed, draws, boot)
    scores = member_scores(accuracy)
    a, b = _relative(scores, top)
    rows.append(_welch(a, b, f"D5.2 relative top-1 under corruption at {at}", _h1_mean(0.9),
                       source, "percent", f"pruned / dense mean top-1 - 1, averaged over our "
                       f"{len(shifted)} corruptions and their severities; H1: mean of its 12 "
                       "ImageNet-C corruptions at t = 90%", relative=True))
    ours, lo, hi = _interval(observed[0], draws[:, 0])
    rows.append(audit.finding(
        f"D5.2 share of corruptions that lose top-1 at {at}", ours, lo, hi, 1.0, null=0.5,
        source=source, unit="percent", basis=f"over our {len(shifted)} corruptions; {boot}; "
        "null 0.5 (each corruption as likely to gain as to lose)",
        definition="corruptions where the pruned population-mean top-1 (mean over severities) "
        "is below the dense one / all; H1: 12 of 12"))
    name = f"D5.2 share of corruptions that lose more at {at} than at 70%"
    if low is not None:
        ours, lo, hi = _interval(observed[1], draws[:, 1])
        rows.append(audit.finding(
            name, ours, lo, hi, 1.0, null=0.5, source=source, unit="percent",
            basis=f"over our {len(shifted)} corruptions; {boot}; null 0.5",
            definition="corruptions where the headline level's population-mean top-1 is below "
            "the 70% one's / all; H1: 12 of 12"))
    else:
        rows.append(audit.not_testable(name, 1.0, source=source, unit="percent",
                                       why="needs a 70% population below the headline level"))
    clean = member_scores(accuracy, [CLEAN])
    ca, cb = _relative(clean, top)
    h1_clean = (_lookup_s4("t=90%") / _lookup_s4("t=0%") - 1)
    rows.append(_welch(a - ca, b - cb, "D5.2 relative top-1 lost under corruption beyond the "
                       f"clean loss at {at}", _h1_mean(0.9) - h1_clean,
                       f"{source} minus H1; Table 2", "points",
                       "per member, relative top-1 under corruption minus on the clean test set; "
                       "H1: mean ImageNet-C change minus the clean change at t = 90%"))
    rows += _noise_and_step_rows(accuracy, scores, top, low, shifted, source)
    return rows


def _natural_rows(accuracy, top, levels, observed, draws, boot) -> list[audit.Finding]:
    """D5.1 at the headline level (direction only) and its trend over the levels."""
    at, rows = level_name(top), []
    nat = _lookup("ImageNet-A top-1 normalized vs non-pruned (%)",
                  dataset="ImageNet-A (7,500 images)", setting="t=90.0%")
    name = f"D5.1 natural-adversarial relative top-1 at {at}"
    trend = "D5.1 trend: natural-adversarial top-1 falls with sparsity"
    if NATURAL in set(accuracy["corruption"]):
        a, b = _relative(member_scores(accuracy, [NATURAL]), top)
        rows.append(_welch(a, b, name, None, nat.source, "percent",
                           "pruned / dense mean top-1 - 1 on the digits a dense reference "
                           "population gets wrong; H1: -59.80% on ImageNet-A at t = 90%",
                           relative=True, basis=NATURAL_CAVEAT, direction=-1,
                           smallest=SMALLEST_NATURAL))
        if len(levels) >= 2:
            ours, lo, hi = _interval(observed[2], draws[:, 2])
            rows.append(audit.finding(
                trend, ours, lo, hi, None, source=nat.source, direction=-1,
                smallest=SMALLEST_RHO, unit="ratio",
                basis=f"Spearman over levels 0, {', '.join(f'{t:g}' for t in levels)}; {boot}",
                definition="Spearman rho of the natural-adversarial population-mean top-1 with "
                "t (dense included); H1's -4.04 ... -59.80 give rho = -1"))
        else:
            rows.append(audit.not_testable(trend, None, source=nat.source,
                                           why="needs two pruned levels besides the dense one"))
    else:
        why = "no reference population (reference_seeds empty)"
        rows += [audit.not_testable(name, nat.number / 100, source=nat.source, why=why,
                                    unit="percent"),
                 audit.not_testable(trend, None, source=nat.source, why=why)]

    return rows


def _noise_and_step_rows(accuracy, scores, top, low, shifted, source) -> list[audit.Finding]:
    """D5.3 (noise minus the other corruptions) and D5.4 (the headline level minus 70%)."""
    at, rows = level_name(top), []
    noise = [c for c in shifted if c in NOISE]
    other = [c for c in shifted if c not in NOISE]
    name = f"D5.3 noise minus other corruptions, relative top-1 at {at}"
    paper = _h1_mean(0.9, NOISE) - _h1_mean(0.9, [c for c in H1_CORRUPTIONS if c not in NOISE])
    definition = ("relative top-1 on the noise corruptions minus on the others (per member); "
                  "H1: its 3 noise vs 9 other ImageNet-C corruptions at t = 90%")
    if noise and other:
        na, nb = _relative(member_scores(accuracy, noise), top)
        oa, ob = _relative(member_scores(accuracy, other), top)
        rows.append(_welch(na - oa, nb - ob, name, paper, source, "points", definition))
    else:
        rows.append(audit.not_testable(name, paper, source=source, unit="points",
                                       why="needs a noise and a non-noise corruption",
                                       definition=definition))
    name = f"D5.4 relative top-1 under corruption, {at} minus 70%"
    paper = _h1_mean(0.9) - _h1_mean(0.7)
    definition = ("relative top-1 under corruption at the headline level minus at 70% (each "
                  "over the dense mean); H1: mean of 12 ImageNet-C corruptions, 90% minus 70%")
    if low is not None:
        hi_rel, _ = _relative(scores, top)
        lo_rel, _ = _relative(scores, low)
        rows.append(_welch(hi_rel, lo_rel, name, paper, source, "points", definition))
    else:
        rows.append(audit.not_testable(name, paper, source=source, unit="points",
                                       why="needs a 70% population below the headline level",
                                       definition=definition))
    return rows


def _lookup_s4(setting: str) -> float:
    return audit.lookup("S4_class_level_PIE_CIE", "top-1 (%)",
                        dataset="ImageNet test set (as printed)", setting=setting).number


def runs_findings(
    runs: RobustnessRuns, *, n_boot: int = 999, seed: int = 0
) -> list[audit.Finding]:
    """D5.1-D5.4 of the study's populations (:func:`findings_from_accuracy`), the reference
    population's wrong digits as the natural-adversarial rows."""
    frame = runs.accuracy
    if runs.reference is not None:
        frame = pd.concat([frame, natural_member_rows(runs)], ignore_index=True)
    return findings_from_accuracy(frame, n_boot=n_boot, seed=seed)


#: The rows the page states first: do pruned models lose more on natural-adversarial digits
#: (D5.1) and under corruption (D5.2) than on clean ones?
HEADLINE = ("D5.1", "D5.2")


def findings(result: Result) -> list[audit.Finding]:
    """The page's findings (:func:`runs_findings`) with its parameters' ``n_boot``; the headline
    rows (:data:`HEADLINE`) marked."""
    return audit.mark_headlines(runs_findings(result.runs, n_boot=result.params.n_boot), HEADLINE)


def numbers(result: Result) -> dict[str, float | int | str]:
    """The numbers the page's prose cites, at the pruned level the findings use
    (:func:`headline_level`): its name, the relative top-1 change against the dense population
    under corruption (mean over the corruptions of H1's per-corruption change) and on the clean
    test set, the count of corruptions, and the corruption that hurts most with its change
    (fractions); and what this build evaluated: ``members`` per population and ``severities``
    per corruption."""
    table = result.relative
    top = headline_level(table["level"].unique())
    at = table[table["level"] == top].set_index("corruption")
    worst = at["relative_change_pct"].idxmin()
    return {
        "headline": level_name(top),
        "corrupted_change": float(at["relative_change_pct"].mean() / 100),
        "clean_change": float(at["clean_change_pct"].iloc[0] / 100),
        "corruptions": int(len(at)),
        "worst_corruption": str(worst),
        "worst_change": float(at.loc[worst, "relative_change_pct"] / 100),
        "members": int(result.params.members),
        "severities": len(result.params.severities),
    }
