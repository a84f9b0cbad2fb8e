"""Intervals and their precision: standard errors behind an interval, the paper's standard
error from our units, Student-t and bootstrap intervals, widenings, and power.

Formulas: the book's methods page, section *Findings and verdicts*.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np
from scipy import stats

from pruneaudit.errors import PruneAuditError

#: The power a verdict should have; below it, :func:`units_for_power` says what would reach it.
TARGET_POWER = 0.8


def _quantile(df: float | None, level: float = 0.95) -> float:
    """The two-sided ``level`` quantile of a t on ``df`` (normal when None)."""
    return normal_quantile(level) if df is None else float(stats.t.ppf(0.5 + level / 2, df))


def interval_se(ci_low: float, ci_high: float, *, df: float | None = None,
                level: float = 0.95) -> float:
    """The standard error behind a ``level`` interval: its width over twice the t (``df``) or
    normal quantile; NaN without a finite interval."""
    if not (math.isfinite(ci_low) and math.isfinite(ci_high)):
        return math.nan
    return (ci_high - ci_low) / (2 * _quantile(df, level))


def paper_se_from_units(
    ci_low: float, ci_high: float, units: int | None, paper_units: int | None, *,
    df: float | None = None,
) -> float | None:
    """The paper's standard error from our per-unit spread: our standard error
    (``interval_se``) times ``sqrt(units / paper_units)``; None when either count is
    unknown or there is no interval of positive width."""
    if units is None or paper_units is None or not units > 0 or not paper_units > 0:
        return None
    se = interval_se(ci_low, ci_high, df=df)
    if not (math.isfinite(se) and se > 0):
        return None
    return se * math.sqrt(units / paper_units)


def paper_se_from_sd(unit_sd: float, paper_units: int | None) -> float | None:
    """The paper's standard error from the spread of one of our units (the standard deviation
    over seeds, say): ``unit_sd / sqrt(paper_units)``; None without the paper's unit count. For
    rows whose interval is not a plain standard error of a mean (a one-sided collapse bound,
    say), where scaling the interval would ascribe its extra width to the paper's noise."""
    if not (math.isfinite(unit_sd) and unit_sd >= 0):
        raise PruneAuditError(f"unit_sd must be a finite number >= 0, got {unit_sd!r}")
    if paper_units is None or not paper_units > 0:
        return None
    return unit_sd / math.sqrt(paper_units)



@cache
def normal_quantile(level: float) -> float:
    """The two-sided ``level`` quantile of the standard normal."""
    return float(stats.norm.ppf(0.5 + level / 2))



def power(
    ci_low: float,
    ci_high: float,
    effect: float | None,
    *,
    df: float | None = None,
    level: float = 0.95,
) -> float:
    """The power to show ``effect`` (a distance from the null, either sign) at the measured
    precision: the probability that a two-sided ``level`` interval as wide as ``[ci_low,
    ci_high]`` excludes the null on the effect's side when the true effect is ``effect``.

    The standard error is the interval's half-width over the Student-t quantile on ``df``
    degrees of freedom (normal when None); the power is ``1 - F(q - |effect|/se)`` with ``F``
    the noncentral t (normal) distribution. NaN when the interval or the effect is unknown or
    the interval has no width.
    """
    if effect is None or not all(map(math.isfinite, (ci_low, ci_high, effect))):
        return math.nan
    if df is not None and not df > 0:
        raise PruneAuditError(f"df must be > 0, got {df!r}")
    q = float(stats.norm.ppf(0.5 + level / 2) if df is None else stats.t.ppf(0.5 + level / 2, df))
    se = (ci_high - ci_low) / (2 * q)
    if not se > 0:
        return math.nan
    shift = abs(effect) / se
    if df is None:
        return float(stats.norm.sf(q - shift))
    return float(stats.nct.sf(q, df, shift))


def mean_interval(values: Sequence[float], level: float = 0.95) -> tuple[float, float, float]:
    """Mean of ``values`` (e.g. one per seed) and its Student-t interval; (m, nan, nan) for
    fewer than three finite values (no verdict rests on a t with fewer than 2 degrees of
    freedom), (m, m, m) when they are all equal."""
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    if len(x) < 3:
        m = float(x.mean()) if len(x) else math.nan
        return m, math.nan, math.nan
    m, se = float(x.mean()), float(x.std(ddof=1) / math.sqrt(len(x)))
    if se == 0:
        return m, m, m
    half = float(stats.t.ppf(0.5 + level / 2, len(x) - 1)) * se
    return m, m - half, m + half


def widened(ours: float, ci_low: float, ci_high: float,
            factor: float) -> tuple[float, float, float]:
    """``ours`` and its interval with both distances from ``ours`` times ``factor``: for an
    interval whose units cannot show variance a replication brings (rare collapsed seeds, rare
    disagreements of new members), measured by ``benchmarks/interval_capture.py``, so that its
    verdict and stability do not claim more than a replication would bear."""
    if not factor >= 1:
        raise PruneAuditError(f"widening factor must be at least 1, got {factor!r}")
    return ours, ours - (ours - ci_low) * factor, ours + (ci_high - ours) * factor


def between_from_groups(groups: Sequence[Sequence[float]]) -> float:
    """The standard deviation between groups beyond their sampling (e.g. each group the per-seed
    values of one build): the one-way random-effects method-of-moments estimate
    ``tau^2 = max(0, var(group means) - mean(var within / n))``, each group with at least two
    finite values; 0 with fewer than two such groups."""
    kept = [x[np.isfinite(x)] for x in (np.asarray(g, dtype=float) for g in groups)]
    kept = [x for x in kept if len(x) >= 2]
    if len(kept) < 2:
        return 0.0
    means = np.array([x.mean() for x in kept])
    sampling = np.mean([x.var(ddof=1) / len(x) for x in kept])
    return math.sqrt(max(float(means.var(ddof=1) - sampling), 0.0))


def with_between(
    ours: float, ci_low: float, ci_high: float, between_sd: float, *, df: float | None = None
) -> tuple[float, float, float]:
    """``ours`` and its interval with a between-build spread added in quadrature: each distance
    from ``ours`` is scaled by ``sqrt(se^2 + between_sd^2) / se`` (``se``: ``interval_se``),
    the interval of the truth averaged over builds (a modelled widening, where :func:`widened`
    takes a fixed factor)."""
    if not between_sd >= 0:
        raise PruneAuditError(f"between_sd must be >= 0, got {between_sd!r}")
    se = interval_se(ci_low, ci_high, df=df)
    if not (math.isfinite(se) and se > 0) or between_sd == 0:
        return ours, ci_low, ci_high
    return widened(ours, ci_low, ci_high, math.hypot(se, between_sd) / se)


def bootstrap_interval(
    data: Sequence[np.ndarray],
    statistic: Callable[..., float],
    *,
    seed: int = 0,
    n_resamples: int = 999,
    level: float = 0.95,
    vectorized: bool = False,
) -> tuple[float, float, float]:
    """``statistic(*data)`` and its percentile bootstrap interval, resampling the rows of the
    arrays in ``data`` together (e.g. writers), by ``scipy.stats.bootstrap``.

    ``vectorized``: ``statistic`` accepts an ``axis`` keyword and reduces along it (scipy then
    evaluates many resamples at once); the estimate is ``statistic(*data, axis=-1)``."""
    estimate = float(statistic(*data, axis=-1) if vectorized else statistic(*data))
    result = stats.bootstrap(
        tuple(np.asarray(d) for d in data),
        statistic,
        paired=True,
        vectorized=vectorized,
        n_resamples=n_resamples,
        confidence_level=level,
        method="percentile",
        rng=np.random.default_rng(seed),
    )
    ci = result.confidence_interval
    return estimate, float(ci.low), float(ci.high)



def units_for_power(
    ci_low: float,
    ci_high: float,
    effect: float | None,
    units: int,
    *,
    t: bool = True,
    target: float = TARGET_POWER,
    most: int = 10_000,
) -> int | None:
    """The fewest units (seeds, writers, members...) at which an interval like ``[ci_low,
    ci_high]`` (resting on ``units``) would have ``target`` power against ``effect``: the
    standard error shrinks as ``1/sqrt(n)``, and for a t interval (``t``) the df is ``n - 1``.
    None when the power already reaches ``target``, when it cannot be computed, or beyond
    ``most`` units."""
    df = units - 1 if t else None
    if units < 1 or (t and units < 2):
        return None
    now = power(ci_low, ci_high, effect, df=df)
    if not math.isfinite(now) or now >= target:
        return None
    q = float(stats.t.ppf(0.975, df) if t else stats.norm.ppf(0.975))
    se = (ci_high - ci_low) / (2 * q)

    def reaches(n: int) -> bool:  # power grows with n: bisect on it
        q_n = float(stats.t.ppf(0.975, n - 1) if t else stats.norm.ppf(0.975))
        half = q_n * se * math.sqrt(units / n)
        return power(-half, half, effect, df=n - 1 if t else None) >= target

    if not reaches(most):
        return None
    low, high = units, most  # reaches(low) is False, reaches(high) is True
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (low, mid) if reaches(mid) else (mid, high)
    return high


@dataclass(frozen=True)
class Resampling:
    """How the statistics of :class:`~pruneaudit.audit.MemberVotes` are resampled: ``n_perm``
    balanced re-splits of the members for the permutation null, ``n_boot`` bootstrap resamples,
    each drawn from ``seed``."""

    n_perm: int = 199
    n_boot: int = 199
    seed: int = 0
