"""Findings beside the papers: published values, intervals and verdicts that can fail.

A *finding* is one directional statement of a paper (D1.1, D1.2, ...: each study page lists its
own) with the paper's value, ours with a 95% interval, and a verdict computed from that interval
alone. With ``P`` the paper's effect and ``0`` the null, both on the paper's side of the null:

- ``reproduced``: the interval excludes the null on the paper's side and contains ``P`` (for a
  finding stated only as a direction, excluding the null suffices);
- ``same direction, smaller`` / ``same direction, larger``: it excludes the null on the paper's
  side and lies wholly below / above ``P``;
- ``inconclusive``: it contains both the null and ``P`` (too few units to tell), or it could not
  be computed (fewer units than an interval needs);
- ``not reproduced``: it contains the null and excludes ``P``;
- ``opposite``: it excludes the null on the other side;
- ``not testable here``: the offline data or the budget cannot show it (a reason is required).

A finding stated only as a direction has no ``P``: its interval containing the null is
``inconclusive`` unless a smallest effect of interest is given, which then plays ``P``'s part.
The verdict never looks at the point estimate. It is the pair of two answers, kept apart
(:func:`direction_of`, :func:`size_of`): *direction* (is the effect there, on the paper's side:
``paper's side``, ``can't tell`` or ``opposite``) and *size* against the paper's number
(``about the paper's``, ``smaller``, ``larger``). Where the paper prints its own spread (a
standard error; :attr:`Published.se`), "about the paper's" tests consistency with a replication
of the paper: the interval is widened to that of ours minus the paper's.

The *stability* of a row (:func:`stability`) is the probability that an independent replication
with the same units lands in the same verdict: the replication's estimate is the truth plus new
noise, so it is drawn from the predictive spread around ours (twice the variance of ours), with
an interval of our width around it. A row below :data:`STABLE` (fixed in advance) is
*borderline* between its verdict and the most likely other one (:func:`verdict_label`).

The *power* of a row is the probability that an
interval of the width we measured excludes the null on the paper's side if the true effect were
the paper's (:func:`power`). The published values come from the package's copy of the papers'
table (``pruneaudit/audit/data/published.csv``, :func:`published`), with an ``id`` column (its
row) and a ``number`` column (the printed value as a number; a trailing ``%`` is divided by 100).

Formulas: the book's methods page, section *Findings and verdicts*.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from functools import cache
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from pruneaudit.errors import PruneAuditError, check_choice

REPRODUCED = "reproduced"
SMALLER = "same direction, smaller"
LARGER = "same direction, larger"
INCONCLUSIVE = "inconclusive"
NOT_REPRODUCED = "not reproduced"
OPPOSITE = "opposite"
NOT_TESTABLE = "not testable here"
VERDICTS = (REPRODUCED, SMALLER, LARGER, INCONCLUSIVE, NOT_REPRODUCED, OPPOSITE, NOT_TESTABLE)
#: Verdicts that fail a finding (what a simulated null must give).
FAILING = (INCONCLUSIVE, NOT_REPRODUCED, OPPOSITE)
#: Units a finding's numbers are in: ``percent`` (a share shown in %), ``points`` (a difference of
#: shares shown in percentage points), ``ratio`` or ``""`` (a plain number).
UNITS = ("", "percent", "points", "ratio")
#: Keys of each object in ``<notebook>.findings.json``.
JSON_KEYS = (
    "finding", "paper", "ours", "ci_low", "ci_high", "verdict", "source", "power", "unit",
    "definition", "basis", "excess", "units", "needed", "direction", "size", "stability",
    "direction_stability", "alternative", "paper_se", "headline", "firm_at",
)
#: Answers to "is the effect there, on the paper's side?" (:func:`direction_of`).
PAPERS_SIDE = "paper's side"
CANT_TELL = "can't tell"
DIRECTIONS = (PAPERS_SIDE, CANT_TELL, OPPOSITE)
#: Answers to "how large, against the paper's number?" (:func:`size_of`; empty: no number).
ABOUT = "about the paper's"
SIZE_SMALLER = "smaller"
SIZE_LARGER = "larger"
SIZES = (ABOUT, SIZE_SMALLER, SIZE_LARGER, "")
#: A verdict whose stability is below this (fixed before any build) is printed as borderline.
STABLE = 0.8
#: Quadrature nodes of the replication's predictive distribution (:func:`stability`).
STABILITY_NODES = 2000
#: The rule is evaluated on every this many nodes, and on every node between two that differ: a
#: verdict region narrower than this between two equal answers (under 0.8% of the mass) is missed.
STABILITY_STRIDE = 16
#: The power a verdict should have; below it, :func:`units_for_power` says what would reach it.
TARGET_POWER = 0.8


@cache
def published() -> pd.DataFrame:
    """Every number the papers print, one a row (``id``, ``study``, ``paper``, ``source``, ...,
    ``metric``, ``value`` as printed, ``number``)."""
    with resources.files("pruneaudit.audit").joinpath("data/published.csv").open() as f:
        return pd.read_csv(f, dtype={"value": str})


@dataclass(frozen=True)
class Published:
    """One published number: its value as printed, as a number, and where it is printed."""

    id: int
    value: str
    number: float
    source: str
    #: The paper's own standard error of the number, where it prints one (``std err=`` in the
    #: table's note), else None.
    se: float | None = None

    def __float__(self) -> float:
        return self.number


def lookup(study: str, metric: str, **columns: str) -> Published:
    """The one published row of ``study`` whose ``metric`` (and each other column) equals the
    given text; an error names the candidates when none or several match."""
    table = published()
    rows = table[(table.study == study) & (table.metric == metric)]
    for name, value in columns.items():
        check_choice("column", name, tuple(table.columns))
        rows = rows[rows[name].astype(str) == str(value)]
    if len(rows) != 1:
        options = table[(table.study == study) & (table.metric == metric)]
        raise PruneAuditError(
            f"{len(rows)} published rows match study={study!r} metric={metric!r} {columns}; "
            f"candidates (id: setting / dataset): "
            + "; ".join(f"{r.id}: {r.setting} / {r.dataset}" for r in options.itertuples())
        )
    row = rows.iloc[0]
    if pd.isna(row.number):
        raise PruneAuditError(f"published row {row.id} ({row.value!r}) is not a number")
    return Published(
        int(row.id), str(row.value), float(row.number), str(row.source), printed_se(row.note)
    )


def printed_se(note: object) -> float | None:
    """The standard error a published row's note prints (``std err=0.023``), else None."""
    match = re.search(r"std err\s*=\s*([0-9.eE+-]+)", note) if isinstance(note, str) else None
    return float(match.group(1)) if match else None


def _side_and_target(
    paper: float | None, null: float, direction: int, smallest: float | None
) -> tuple[float, float | None]:
    """The paper's side of the null (+1 or -1) and its effect as a distance on that side (the
    paper's value, else ``smallest``, else None)."""
    if paper is not None:
        side = float(np.sign(paper - null))
        if side == 0:
            raise PruneAuditError(f"the paper's value {paper} equals the null {null}: no direction")
        return side, side * (paper - null)
    if direction in (1, -1):
        if smallest is not None and not smallest > 0:
            raise PruneAuditError(f"smallest must be > 0, got {smallest!r}")
        return float(direction), smallest
    raise PruneAuditError("give the paper's value or a direction of +1 or -1")


def _oriented(ci_low: float, ci_high: float, side: float, null: float) -> tuple[float, float]:
    if ci_low > ci_high:
        raise PruneAuditError(f"interval low {ci_low} is above its high {ci_high}")
    low, high = sorted((side * (ci_low - null), side * (ci_high - null)))
    return low, high


def widening(ci_low: float, ci_high: float, paper_se: float | None, level: float = 0.95) -> float:
    """How much each end of ``[ci_low, ci_high]`` moves out so that it becomes the interval of
    ours minus the paper's, when the paper prints a standard error: the half-width ``h`` becomes
    ``sqrt(h^2 + (q * paper_se)^2)`` with ``q`` the normal quantile; 0 without one."""
    if paper_se is None or not paper_se > 0:
        return 0.0
    half = (ci_high - ci_low) / 2
    return math.hypot(half, _normal_quantile(level) * paper_se) - half


@cache
def _normal_quantile(level: float) -> float:
    """The two-sided ``level`` quantile of the standard normal."""
    return float(stats.norm.ppf(0.5 + level / 2))


def direction_of(
    ci_low: float, ci_high: float, *, side: int, null: float = 0.0
) -> str:
    """Is the effect there, on the paper's ``side`` (+1 or -1) of ``null``? ``paper's side``
    when the interval excludes the null on that side, ``opposite`` on the other, else
    ``can't tell`` (also when there is no interval)."""
    if not (math.isfinite(ci_low) and math.isfinite(ci_high)):
        return CANT_TELL
    low, high = _oriented(ci_low, ci_high, side, null)
    return PAPERS_SIDE if low > 0 else OPPOSITE if high < 0 else CANT_TELL


def size_of(
    ci_low: float,
    ci_high: float,
    target: float | None,
    *,
    side: int,
    null: float = 0.0,
    paper_se: float | None = None,
) -> str:
    """How large, against the paper's effect ``target`` (a distance from ``null`` on the paper's
    ``side``): ``smaller`` / ``larger`` when the interval (widened by :func:`widening` for the
    paper's own spread) lies wholly below / above it, else ``about the paper's``; empty when
    there is no ``target`` or no interval."""
    if target is None or not (math.isfinite(ci_low) and math.isfinite(ci_high)):
        return ""
    low, high = _oriented(ci_low, ci_high, side, null)
    wide = widening(ci_low, ci_high, paper_se)
    if high + wide < target:
        return SIZE_SMALLER
    if low - wide > target:
        return SIZE_LARGER
    return ABOUT


def combined(direction: str, size: str, *, has_paper: bool) -> str:
    """The verdict (module doc) of a direction and a size: the effect on the paper's side is
    *reproduced* at about the paper's size (or when only a direction is stated), else *same
    direction, smaller/larger*; undecided direction is *not reproduced* when the interval is
    wholly below the paper's effect, else *inconclusive*."""
    if direction == OPPOSITE:
        return OPPOSITE
    if direction == PAPERS_SIDE:
        if not has_paper or size in (ABOUT, ""):
            return REPRODUCED
        return SMALLER if size == SIZE_SMALLER else LARGER
    return NOT_REPRODUCED if size == SIZE_SMALLER else INCONCLUSIVE


def verdict_rule(
    paper: float | None,
    *,
    null: float = 0.0,
    direction: int = 0,
    smallest: float | None = None,
    paper_se: float | None = None,
) -> Callable[[float, float], str]:
    """The verdict of an interval's ends ``(ci_low, ci_high)`` against one paper value, as a
    function: the arguments are checked and the paper's side worked out once (a stability
    quadrature calls it thousands of times). Arguments as :func:`verdict`'s."""
    side, target = _side_and_target(paper, null, direction, smallest)

    def rule(ci_low: float, ci_high: float) -> str:
        if not (math.isfinite(ci_low) and math.isfinite(ci_high)):
            return INCONCLUSIVE
        said = direction_of(ci_low, ci_high, side=int(side), null=null)
        size = size_of(ci_low, ci_high, target, side=int(side), null=null, paper_se=paper_se)
        return combined(said, size, has_paper=paper is not None)

    return rule


def verdict(
    ci_low: float,
    ci_high: float,
    paper: float | None,
    *,
    null: float = 0.0,
    direction: int = 0,
    smallest: float | None = None,
    paper_se: float | None = None,
) -> str:
    """The verdict of an interval ``[ci_low, ci_high]`` against the paper's value (module doc).

    The paper's side of ``null`` is the sign of ``paper - null``, or ``direction`` (+1 or -1)
    when ``paper`` is None (a finding stated as a direction only); ``smallest`` is then the
    smallest effect of interest (an absolute distance from the null), if any. ``paper_se``: the
    paper's own standard error, which widens the comparison with its value (:func:`size_of`).
    """
    return verdict_rule(
        paper, null=null, direction=direction, smallest=smallest, paper_se=paper_se
    )(ci_low, ci_high)


def stability(
    ours: float,
    ci_low: float,
    ci_high: float,
    rule: Callable[[float, float], str],
    *,
    df: float | None = None,
    level: float = 0.95,
    nodes: int = STABILITY_NODES,
) -> tuple[float | None, str]:
    """The probability that an independent replication with the same units gives the same
    answer as ``rule(ci_low, ci_high)``, and the most likely other answer ("" if none).

    The replication's estimate is the truth plus new noise: with ``se`` the interval's
    half-width over the ``level`` quantile (Student t on ``df``, normal when None), it is
    ``ours + sqrt(2) * se * Z`` (Z a t on ``df`` or a standard normal: the truth's uncertainty
    and the replication's own noise), and its interval keeps our interval's distances from
    ``ours`` on each side. The probability is a deterministic quadrature over ``nodes``
    quantiles of Z (the rule evaluated where its answer changes, ``STABILITY_STRIDE``). None
    when there is no finite interval of positive width.
    """
    values = (ours, ci_low, ci_high)
    if not all(v is not None and math.isfinite(v) for v in values) or not ci_high > ci_low:
        return None, ""
    dist = stats.norm if df is None else stats.t(df)
    q = float(dist.ppf(0.5 + level / 2))
    se = (ci_high - ci_low) / (2 * q)
    z = dist.ppf((np.arange(nodes) + 0.5) / nodes)
    below, above = ours - ci_low, ci_high - ours
    said = rule(ci_low, ci_high)
    centres = ours + math.sqrt(2) * se * z  # ascending: each answer holds on runs of nodes
    got: list[str | None] = [None] * nodes

    def at(i: int) -> str:
        if got[i] is None:
            got[i] = rule(float(centres[i] - below), float(centres[i] + above))
        return got[i]

    coarse = [*range(0, nodes - 1, STABILITY_STRIDE), nodes - 1]
    for a, b in zip(coarse, coarse[1:], strict=False):
        if at(a) == at(b):  # a run: the nodes between give the same answer
            got[a + 1 : b] = [got[a]] * (b - a - 1)
        else:
            for i in range(a + 1, b):
                at(i)
    answers: dict[str, int] = {}
    for answer in got:
        answers[answer] = answers.get(answer, 0) + 1
    same = answers.pop(said, 0)
    other = max(answers, key=answers.__getitem__) if answers else ""
    return same / nodes, other


def is_borderline(row: Finding) -> bool:
    """Whether ``row``'s verdict would change in more than ``1 - STABLE`` of replications."""
    return row.stability is not None and row.stability < STABLE


def verdict_label(row: Finding) -> str:
    """The verdict as printed: ``borderline: reproduced / same direction, smaller`` (the row's
    verdict first, then the likeliest other) for a borderline row, else the verdict."""
    if is_borderline(row) and row.alternative:
        return f"borderline: {row.verdict} / {row.alternative}"
    return row.verdict


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


def units_for_stability(
    ours: float,
    ci_low: float,
    ci_high: float,
    rule: Callable[[float, float], str],
    units: int,
    *,
    t: bool = True,
    target: float = STABLE,
    most: int = 10_000,
) -> int | None:
    """The fewest units at which a row with our estimate would be firm (:func:`stability` at
    least ``target``) if the estimate held: the interval's distances from ``ours`` shrink as
    ``sqrt(units/n)`` (for a t interval, with the quantile on ``n - 1`` df). None when the row is
    already firm, cannot be computed, or needs more than ``most`` units."""
    if units < 2 or not all(map(math.isfinite, (ours, ci_low, ci_high))):
        return None

    def steady(n: int) -> float:
        scale = math.sqrt(units / n)
        if t:
            scale *= float(stats.t.ppf(0.975, n - 1) / stats.t.ppf(0.975, units - 1))
        low, high = ours - (ours - ci_low) * scale, ours + (ci_high - ours) * scale
        value, _ = stability(ours, low, high, rule, df=n - 1 if t else None, nodes=500)
        return -1.0 if value is None else value

    if steady(units) >= target:
        return None
    n = units
    while n < most:  # doubling, then bisection on the first doubling that is firm
        n = min(2 * n, most)
        if steady(n) >= target:
            low, high = n // 2, n
            while high - low > 1:
                mid = (low + high) // 2
                low, high = (low, mid) if steady(mid) >= target else (mid, high)
            return high
    return None


@dataclass(frozen=True)
class Finding:
    """One row of a study's findings table."""

    finding: str
    paper: float | None
    ours: float | None
    ci_low: float | None
    ci_high: float | None
    verdict: str
    source: str
    #: What the interval is over (seeds, writers, models...), or why it is not testable here.
    basis: str = ""
    #: Power to show the paper's effect (or the smallest effect of interest) at our precision.
    power: float | None = None
    #: Unit of ``paper``, ``ours`` and the interval (:data:`UNITS`).
    unit: str = ""
    #: The quantity computed, in one line a reader can check against the paper.
    definition: str = ""
    #: Optional (estimate, low, high) of the statistic beyond a dense-vs-dense noise null (e.g.
    #: Study 4's balanced re-splits); informative beside the raw value, never its verdict.
    excess: tuple[float, float, float] | None = None
    #: How many units (seeds, writers, members...) the interval rests on, when known.
    units: int | None = None
    #: Units that would give :data:`TARGET_POWER` (:func:`units_for_power`), when power is below.
    needed: int | None = None
    #: Is the effect there, on the paper's side (:data:`DIRECTIONS`; empty when not computed).
    direction: str = ""
    #: Its size against the paper's number (:data:`SIZES`).
    size: str = ""
    #: Probability that a replication with the same units gives the same verdict
    #: (:func:`stability`); None when it cannot be computed.
    stability: float | None = None
    #: The same for the direction alone.
    direction_stability: float | None = None
    #: The likeliest other verdict of a replication ("" if none).
    alternative: str = ""
    #: The paper's own standard error of its number, where it prints one.
    paper_se: float | None = None
    #: Whether the page states this row in its first sentences (its headline).
    headline: bool = False
    #: Units at which a borderline row would be firm if its estimate held
    #: (:func:`units_for_stability`).
    firm_at: int | None = None

    def __post_init__(self) -> None:
        check_choice("verdict", self.verdict, VERDICTS)
        check_choice("unit", self.unit, UNITS)
        check_choice("direction", self.direction, (*DIRECTIONS, ""))
        check_choice("size", self.size, SIZES)
        if self.verdict == NOT_TESTABLE and not self.basis:
            raise PruneAuditError(f"finding {self.finding!r} is not testable: say why in basis")


def finding(
    name: str,
    ours: float,
    ci_low: float,
    ci_high: float,
    paper: Published | float | None,
    *,
    source: str,
    basis: str,
    null: float = 0.0,
    direction: int = 0,
    smallest: float | None = None,
    df: float | None = None,
    unit: str = "",
    definition: str = "",
    excess: tuple[float, float, float] | None = None,
    units: int | None = None,
    headline: bool = False,
) -> Finding:
    """A :class:`Finding` whose verdict (:func:`verdict`) and power (:func:`power`, against the
    paper's effect or ``smallest``; ``df`` of the interval's t, None for normal or bootstrap
    intervals) are computed from the interval. ``units``: how many units the interval rests on
    (default ``df + 1`` for a t interval); with it, a row below :data:`TARGET_POWER` also says
    how many units would reach it (:func:`units_for_power`). The row also carries its direction and
    size (:func:`direction_of`, :func:`size_of`; the paper's standard error, when ``paper`` is a
    :class:`Published` that prints one, widens the size comparison) and the stability of its
    verdict and of its direction (:func:`stability`). ``headline``: the page states this row
    first."""
    value = None if paper is None else float(paper)
    paper_se = paper.se if isinstance(paper, Published) else None
    effect = value - null if value is not None else smallest
    if units is None and df is not None:
        units = round(df) + 1
    needed = (
        units_for_power(float(ci_low), float(ci_high), effect, units, t=df is not None)
        if units is not None
        else None
    )
    ours, ci_low, ci_high = float(ours), float(ci_low), float(ci_high)
    side, target = _side_and_target(value, null, direction, smallest)
    rule = verdict_rule(
        value, null=null, direction=direction, smallest=smallest, paper_se=paper_se
    )

    def rule_direction(low: float, high: float) -> str:
        return direction_of(low, high, side=int(side), null=null)

    finite = math.isfinite(ci_low) and math.isfinite(ci_high)
    steady, other = stability(ours, ci_low, ci_high, rule, df=df)
    steady_direction, _ = stability(ours, ci_low, ci_high, rule_direction, df=df)
    firm_at = (
        units_for_stability(ours, ci_low, ci_high, rule, units, t=df is not None)
        if units is not None and steady is not None and steady < STABLE
        else None
    )
    return Finding(
        name,
        value,
        ours,
        ci_low,
        ci_high,
        rule(ci_low, ci_high),
        source,
        basis,
        _plain(power(ci_low, ci_high, effect, df=df)),
        unit,
        definition,
        None if excess is None else tuple(float(v) for v in excess),
        units,
        needed,
        direction=rule_direction(ci_low, ci_high),
        size=size_of(ci_low, ci_high, target, side=int(side), null=null, paper_se=paper_se)
        if finite
        else "",
        stability=_plain(steady),
        direction_stability=_plain(steady_direction),
        alternative=other,
        paper_se=paper_se,
        headline=headline,
        firm_at=firm_at,
    )


def similar(
    name: str,
    ours: float,
    ci_low: float,
    ci_high: float,
    margin: float,
    *,
    source: str,
    basis: str,
    null: float = 0.0,
    unit: str = "",
    definition: str = "",
    headline: bool = False,
) -> Finding:
    """A :class:`Finding` for a claim of *no* material difference (paper value None): the
    verdict is ``reproduced`` when the interval lies inside ``(null - margin, null + margin)``
    (an equivalence test with a margin fixed in advance), ``not reproduced`` when it lies wholly
    outside that range, else ``inconclusive``; with its stability (:func:`stability`, normal
    predictive)."""
    if not margin > 0:
        raise PruneAuditError(f"margin must be > 0, got {margin!r}")

    def rule(low: float, high: float) -> str:
        finite = math.isfinite(low) and math.isfinite(high)
        if finite and null - margin < low <= high < null + margin:
            return REPRODUCED
        if finite and (low >= null + margin or high <= null - margin):
            return NOT_REPRODUCED
        return INCONCLUSIVE

    steady, other = stability(float(ours), float(ci_low), float(ci_high), rule)
    return Finding(
        name, None, float(ours), float(ci_low), float(ci_high), rule(ci_low, ci_high), source,
        basis, unit=unit, definition=definition, stability=_plain(steady), alternative=other,
        headline=headline,
    )


def not_testable(
    name: str,
    paper: Published | float | None,
    *,
    source: str,
    why: str,
    unit: str = "",
    definition: str = "",
) -> Finding:
    """A :class:`Finding` that the offline data or the budget cannot test, with the reason."""
    value = None if paper is None else float(paper)
    return Finding(
        name, value, None, None, None, NOT_TESTABLE, source, why, unit=unit, definition=definition
    )


def mark_headlines(rows: Sequence[Finding], names: Sequence[str]) -> list[Finding]:
    """``rows`` with ``headline`` set on the first row each of ``names`` begins, as a whole word
    (``"D4.1"`` marks ``"D4.1 share of ..."``, not ``"D4.10 ..."``; ``"D2.2 a writer"`` picks one
    of two D2.2 rows); a name no row begins is an error."""
    marked, seen = [], set()
    for row in rows:
        key = next((n for n in names if n not in seen
                    and re.match(re.escape(n) + r"(?![\w.])", row.finding)), None)
        if key is not None:
            seen.add(key)
            row = replace(row, headline=True)
        marked.append(row)
    missing = [n for n in names if n not in seen]
    if missing:
        raise PruneAuditError(f"no findings row begins with the headline name(s) {missing}")
    return marked


def findings_frame(rows: Sequence[Finding]) -> pd.DataFrame:
    """The findings as a table, one row each, in the order given."""
    return pd.DataFrame([asdict(r) for r in rows], columns=list(JSON_KEYS))


def verdict_counts(rows: Sequence[Finding]) -> str:
    """The one line that counts a page's verdicts, firm and borderline apart, e.g. ``14
    findings: 9 firm (5 reproduced, 4 not reproduced), 3 borderline, 2 not testable here.``"""
    testable = [r for r in rows if r.verdict != NOT_TESTABLE]
    firm = [r for r in testable if not is_borderline(r)]
    counts = {v: sum(r.verdict == v for r in firm) for v in VERDICTS}
    parts = []
    if firm:
        said = ", ".join(f"{n} {v}" for v, n in counts.items() if n)
        parts.append(f"{len(firm)} firm ({said})")
    if len(firm) < len(testable):
        parts.append(f"{len(testable) - len(firm)} borderline")
    if len(testable) < len(rows):
        parts.append(f"{len(rows) - len(testable)} {NOT_TESTABLE}")
    noun = "finding" if len(rows) == 1 else "findings"
    return f"{len(rows)} {noun}: {', '.join(parts) or 'none'}."


def summary_text(rows: Sequence[Finding], profile: str | None = None) -> str:
    """One paragraph under a findings table: the verdict counts (:func:`verdict_counts`) and,
    for a profile below the paper's, what a *not reproduced* there can and cannot mean."""
    text = verdict_counts(rows)
    if any(is_borderline(r) for r in rows):
        text += (
            f" A *borderline* row would change verdict in more than {1 - STABLE:.0%} of "
            "replications with as many units (another seed set, another device): it names both "
            "verdicts it sits between."
        )
    if any(r.verdict == INCONCLUSIVE for r in rows):
        text += (
            " An *inconclusive* row's interval holds both no effect and the paper's: this budget "
            "has too few units to tell."
        )
    if any(r.verdict == NOT_REPRODUCED for r in rows) and profile != "paper":
        run = f"the {profile} profile" if profile else "parameters below the paper's"
        text += (
            f" This page ran {run}: a *not reproduced* here means the effect is absent on this "
            "task or smaller than the paper's at this budget, not that the paper is wrong; the "
            "protocol table and the cost of the paper profile are further down the page."
        )
    return text


def from_json(item: dict) -> Finding:
    """A :class:`Finding` from one object of ``<notebook>.findings.json`` (keys it does not
    know are left out; missing ones take their defaults)."""
    known = {k: v for k, v in item.items() if k in JSON_KEYS}
    if known.get("excess") is not None:
        known["excess"] = tuple(known["excess"])
    base = {"paper": None, "ours": None, "ci_low": None, "ci_high": None, "source": ""}
    return Finding(**{**base, **known})


def _plain(value: object) -> object:
    if value is None:
        return None
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, float | np.floating):
        return None if not math.isfinite(float(value)) else float(value)
    return value


def write_findings_json(rows: Sequence[Finding], path: str | os.PathLike) -> Path:
    """Write ``rows`` as a JSON list of objects with keys :data:`JSON_KEYS` (atomic)."""
    path = Path(path)
    items = [{k: _plain(getattr(r, k)) for k in JSON_KEYS} for r in rows]
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(items, indent=1, allow_nan=False) + "\n")
    os.replace(tmp, path)
    return path
