"""Findings beside the papers: published values, intervals and verdicts that can fail.

A *finding* is one directional statement of a paper (D1.1, D1.2, ...: each study page lists its
own) with the paper's value, ours with a 95% interval, and a verdict computed from that interval
alone, never from the point estimate. It is the pair of two answers, kept apart:

- *direction* (:func:`direction_of`): ``paper's side`` when the interval excludes the null on the
  paper's side, ``opposite`` on the other side, ``absent`` when it lies inside the negligible band
  around the null (the row's margin, or its smallest effect of interest), else ``can't tell``;
- *size* (:func:`size_of`) against the *paper's band* (:func:`paper_band`): the values a
  replication of the paper itself could give, ``P ± (q * paper_se + margin)``, with ``paper_se``
  the paper's printed standard error or, where it prints none, our per-unit spread scaled to the
  paper's stated units (:func:`paper_se_from_units`), and ``margin`` the smallest difference a
  reader of the paper would care about, fixed in advance per row with its reason (the package's
  ``data/margins.csv``, :func:`margin_for`). ``about the paper's`` only when our whole interval
  lies inside the band (an equivalence test, two one-sided), ``smaller`` / ``larger`` when it
  lies wholly outside on one side, else ``can't tell``.

The verdict (:func:`combined`): ``reproduced`` = paper's side and about the paper's size (for a
finding stated only as a direction, the paper's side suffices); ``same direction, smaller`` /
``larger``; ``same direction, size can't tell`` (the interval overlaps an edge of the band: never
``reproduced``); ``not reproduced`` = absent, or direction undecided and the interval wholly below
the band; ``inconclusive`` = direction undecided otherwise (also when no interval could be
computed); ``opposite``; ``not testable here`` and ``not comparable here`` (each with its reason).
A direction-only finding's smallest effect of interest plays the band's near edge.

The *stability* of a row (:func:`stability`) is the probability that an independent replication
with the same units lands in the same verdict: the replication's estimate is the truth plus its
build's effect plus new noise, so it is drawn around ours with variance ``2 * (se^2 + tau^2)``,
``tau^2`` the between-build variance (:func:`between_sd`, estimated from the project's own
independent builds, ``data/between_builds.csv``), with an interval of our width around it. A row
below :data:`STABLE` (fixed in advance) is *borderline* between its verdict and the most likely
other one (:func:`verdict_label`).

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
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from functools import cache, lru_cache
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from pruneaudit.errors import PruneAuditError, check_choice

REPRODUCED = "reproduced"
SMALLER = "same direction, smaller"
LARGER = "same direction, larger"
#: The effect is on the paper's side but the interval overlaps an edge of the paper's band.
SIZE_UNCLEAR = "same direction, size can't tell"
INCONCLUSIVE = "inconclusive"
NOT_REPRODUCED = "not reproduced"
OPPOSITE = "opposite"
NOT_TESTABLE = "not testable here"
#: Our quantity is not the paper's (another footing, another population): no size verdict.
NOT_COMPARABLE = "not comparable here"
VERDICTS = (
    REPRODUCED, SMALLER, LARGER, SIZE_UNCLEAR, INCONCLUSIVE, NOT_REPRODUCED, OPPOSITE,
    NOT_TESTABLE, NOT_COMPARABLE,
)
#: Verdicts that fail a finding (what a simulated null must give).
FAILING = (INCONCLUSIVE, NOT_REPRODUCED, OPPOSITE)
#: The margin reason of a row with a paper value whose margin the package's table does not
#: state: its band is the paper's own spread alone (a point without one).
NO_MARGIN = "no margin stated in advance: the band is the paper's own spread alone"
#: Verdicts that say nothing of the finding: the row's basis says why.
UNTESTED = (NOT_TESTABLE, NOT_COMPARABLE)
#: Units a finding's numbers are in: ``percent`` (a share shown in %), ``points`` (a difference of
#: shares shown in percentage points), ``ratio`` or ``""`` (a plain number).
UNITS = ("", "percent", "points", "ratio")
#: Keys of each object in ``<notebook>.findings.json``.
JSON_KEYS = (
    "finding", "paper", "ours", "ci_low", "ci_high", "verdict", "source", "power", "unit",
    "definition", "basis", "excess", "units", "needed", "direction", "size", "stability",
    "direction_stability", "alternative", "paper_se", "headline", "firm_at", "paper_band",
    "margin", "margin_reason", "paper_units", "between_sd",
)
#: Answers to "is the effect there, on the paper's side?" (:func:`direction_of`).
PAPERS_SIDE = "paper's side"
ABSENT = "absent"
CANT_TELL = "can't tell"
DIRECTIONS = (PAPERS_SIDE, ABSENT, CANT_TELL, OPPOSITE)
#: Answers to "how large, against the paper's band?" (:func:`size_of`; empty: no number).
ABOUT = "about the paper's"
SIZE_SMALLER = "smaller"
SIZE_LARGER = "larger"
SIZES = (ABOUT, SIZE_SMALLER, SIZE_LARGER, CANT_TELL, "")
#: A verdict whose stability is below this (fixed before any build) is printed as borderline.
STABLE = 0.8
#: Quadrature nodes of the replication's predictive distribution (:func:`stability`).
STABILITY_NODES = 2000
#: The rule is evaluated on every this many nodes, and on every node between two that differ: a
#: verdict region narrower than this between two equal answers (under 0.8% of the mass) is missed.
STABILITY_STRIDE = 16
#: Quantile nodes of the ratio of a replication's interval width to ours (:func:`stability`).
WIDTH_NODES = 16
#: The power a verdict should have; below it, :func:`units_for_power` says what would reach it.
TARGET_POWER = 0.8


@cache
def published() -> pd.DataFrame:
    """Every number the papers print, one a row (``id``, ``study``, ``paper``, ``source``, ...,
    ``metric``, ``value`` as printed, ``number``)."""
    with resources.files("pruneaudit.audit").joinpath("data/published.csv").open() as f:
        return pd.read_csv(f, dtype={"value": str})


@cache
def margins() -> pd.DataFrame:
    """The margin of every testable numeric finding, fixed in advance (``finding``: the row's
    name or the start of it, ``margin`` in the row's unit, ``paper_units``: how many units of the
    row's kind the paper's number rests on, blank when not stated or of another kind,
    ``reason``)."""
    with resources.files("pruneaudit.audit").joinpath("data/margins.csv").open() as f:
        table = pd.read_csv(f, dtype={"finding": str, "reason": str})
    table["paper_units"] = table["paper_units"].astype("Int64")
    return table


@dataclass(frozen=True)
class Margin:
    """A row's margin (in its unit), the paper's units (None: not stated) and the reason."""

    margin: float
    paper_units: int | None
    reason: str


def begins_with(name: str, key: str) -> bool:
    """Whether ``name`` begins with ``key`` as a whole word (``D4.1`` does not begin
    ``D4.10 ...``)."""
    return re.match(re.escape(key) + r"(?![\w.])", name) is not None


def margin_for(name: str) -> Margin | None:
    """The margin of the finding called ``name`` (``margins``: the longest key it begins
    with, as a whole word), None when the table has none."""
    table = margins()
    hits = [r for r in table.itertuples() if begins_with(name, r.finding)]
    if not hits:
        return None
    row = max(hits, key=lambda r: len(r.finding))
    units = None if pd.isna(row.paper_units) else int(row.paper_units)
    return Margin(float(row.margin), units, str(row.reason))


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


def _quantile(df: float | None, level: float = 0.95) -> float:
    """The two-sided ``level`` quantile of a t on ``df`` (normal when None)."""
    return _normal_quantile(level) if df is None else float(stats.t.ppf(0.5 + level / 2, df))


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


def paper_band(
    paper: float, paper_se: float | None, margin: float, level: float = 0.95
) -> tuple[float, float]:
    """The values a replication of the paper could give, ``paper ± (q * paper_se + margin)``
    (``q`` the normal ``level`` quantile; no spread term without ``paper_se``)."""
    if not margin >= 0:
        raise PruneAuditError(f"margin must be >= 0, got {margin!r}")
    if paper_se is not None and not paper_se >= 0:
        raise PruneAuditError(f"paper_se must be >= 0, got {paper_se!r}")
    half = (0.0 if paper_se is None else _normal_quantile(level) * paper_se) + margin
    return paper - half, paper + half


def _side(paper: float | None, null: float, direction: int) -> float:
    """The paper's side of the null (+1 or -1): the sign of ``paper - null``, else
    ``direction``."""
    if paper is not None:
        side = float(np.sign(paper - null))
        if side == 0:
            raise PruneAuditError(f"the paper's value {paper} equals the null {null}: no direction")
        return side
    if direction in (1, -1):
        return float(direction)
    raise PruneAuditError("give the paper's value or a direction of +1 or -1")


def _oriented(ci_low: float, ci_high: float, side: float, null: float) -> tuple[float, float]:
    if ci_low > ci_high:
        raise PruneAuditError(f"interval low {ci_low} is above its high {ci_high}")
    low, high = sorted((side * (ci_low - null), side * (ci_high - null)))
    return low, high


@cache
def _normal_quantile(level: float) -> float:
    """The two-sided ``level`` quantile of the standard normal."""
    return float(stats.norm.ppf(0.5 + level / 2))


def direction_of(
    ci_low: float, ci_high: float, *, side: int, null: float = 0.0,
    negligible: float | None = None,
) -> str:
    """Is the effect there, on the paper's ``side`` (+1 or -1) of ``null``? ``paper's side``
    when the interval excludes the null on that side, ``opposite`` on the other, ``absent`` when
    it lies inside ``(null - negligible, null + negligible)``, else ``can't tell`` (also when
    there is no interval)."""
    if not (math.isfinite(ci_low) and math.isfinite(ci_high)):
        return CANT_TELL
    low, high = _oriented(ci_low, ci_high, side, null)
    if low > 0:
        return PAPERS_SIDE
    if high < 0:
        return OPPOSITE
    if negligible is not None and negligible > 0 and -negligible < low and high < negligible:
        return ABSENT
    return CANT_TELL


def size_of(
    ci_low: float,
    ci_high: float,
    band: tuple[float, float] | None,
    *,
    side: int,
) -> str:
    """How large, against the paper's ``band`` (:func:`paper_band`) on the paper's ``side``:
    ``about the paper's`` when the whole interval lies inside it, ``smaller`` / ``larger`` when
    it lies wholly nearer to / farther from the null than the band, else ``can't tell``; empty
    when there is no band or no interval. A band may be open on the far side (``inf``): a
    direction-only finding's smallest effect of interest."""
    if band is None or not (math.isfinite(ci_low) and math.isfinite(ci_high)):
        return ""
    low, high = sorted(band)
    if low <= ci_low and ci_high <= high:
        return ABOUT
    if ci_high < low:
        return SIZE_SMALLER if side > 0 else SIZE_LARGER
    if ci_low > high:
        return SIZE_LARGER if side > 0 else SIZE_SMALLER
    return CANT_TELL


def combined(direction: str, size: str, *, has_paper: bool) -> str:
    """The verdict (module doc) of a direction and a size: on the paper's side, *reproduced*
    about the paper's size (or when only a direction is stated), else *same direction, smaller
    / larger / size can't tell*; *absent* is *not reproduced*; an undecided direction is *not
    reproduced* when the interval lies wholly below the band, else *inconclusive*."""
    if direction == OPPOSITE:
        return OPPOSITE
    if direction == PAPERS_SIDE:
        if not has_paper or size == ABOUT:
            return REPRODUCED
        return {SIZE_SMALLER: SMALLER, SIZE_LARGER: LARGER}.get(size, SIZE_UNCLEAR)
    if direction == ABSENT:
        return NOT_REPRODUCED
    return NOT_REPRODUCED if size == SIZE_SMALLER else INCONCLUSIVE


def _band(
    paper: float | None, side: float, null: float, smallest: float | None,
    paper_se: float | None, margin: float,
) -> tuple[float, float] | None:
    """The paper's band, or for a direction-only finding with a smallest effect of interest the
    effects at least that large on the paper's side (open on the far side); else None."""
    if paper is not None:
        return paper_band(paper, paper_se, margin)
    if smallest is None:
        return None
    edge = null + side * smallest
    return (edge, math.inf) if side > 0 else (-math.inf, edge)


def verdict_rule(
    paper: float | None,
    *,
    null: float = 0.0,
    direction: int = 0,
    smallest: float | None = None,
    paper_se: float | None = None,
    margin: float = 0.0,
) -> Callable[[float, float], str]:
    """The verdict of an interval's ends ``(ci_low, ci_high)`` against one paper value, as a
    function: the arguments are checked and the paper's side and band worked out once (a
    stability quadrature calls it thousands of times). Arguments as :func:`verdict`'s."""
    side = _side(paper, null, direction)
    if smallest is not None and not smallest > 0:
        raise PruneAuditError(f"smallest must be > 0, got {smallest!r}")
    band = _band(paper, side, null, smallest, paper_se, margin)
    negligible = smallest if smallest is not None else (margin or None)

    def rule(ci_low: float, ci_high: float) -> str:
        if not (math.isfinite(ci_low) and math.isfinite(ci_high)):
            return INCONCLUSIVE
        said = direction_of(ci_low, ci_high, side=int(side), null=null, negligible=negligible)
        size = size_of(ci_low, ci_high, band, side=int(side))
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
    margin: float = 0.0,
) -> str:
    """The verdict of an interval ``[ci_low, ci_high]`` against the paper's value (module doc).

    The paper's side of ``null`` is the sign of ``paper - null``, or ``direction`` (+1 or -1)
    when ``paper`` is None (a finding stated as a direction only); ``smallest`` is then the
    smallest effect of interest (an absolute distance from the null), if any. ``paper_se`` (the
    paper's own standard error) and ``margin`` (fixed in advance) make the paper's band
    (:func:`paper_band`); ``margin`` (or ``smallest``) is also the negligible band around the
    null that makes the effect *absent*. Without either, the band is the paper's point and no
    interval of positive width is *reproduced*.
    """
    return verdict_rule(
        paper, null=null, direction=direction, smallest=smallest, paper_se=paper_se,
        margin=margin,
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
    between_sd: float = 0.0,
    spread_df: float | None = None,
    fresh_spread: bool = True,
) -> tuple[float | None, str]:
    """The probability that an independent replication with the same units gives the same
    answer as ``rule(ci_low, ci_high)``, and the most likely other answer ("" if none).

    The replication's estimate is the truth plus its build's effect plus new noise: with ``se``
    the interval's half-width over the ``level`` quantile (Student t on ``df``, normal when
    None) and ``between_sd`` the standard deviation of a build's effect (the spread between
    independent builds beyond sampling: seed sets, devices; :func:`between_sd`), it is
    ``ours + sqrt(2 * (se^2 + between_sd^2)) * Z`` (the truth's uncertainty given ours, our
    build's effect and the replication's own). ``spread_df`` (default ``df``): the degrees of
    freedom ``k`` of the spread our interval rests on (``units - 1``), None when it is known
    well. With it, Z is a t on ``k`` and the replication estimates its spread afresh from its own
    units: its interval's distances from its estimate are ours times ``W = sqrt(F(k, k))`` (the
    ratio of two independent spread estimates on ``k`` df each); without it, or with
    ``fresh_spread`` False (the replication's interval as wide as ours), ``W = 1``, and Z is
    standard normal without ``k``. A few units leave a replication's interval much wider or narrower
    than ours, which moves verdicts that hinge on the width (inside or straddling a band). The
    probability is a deterministic quadrature over ``nodes`` quantiles of Z and
    ``WIDTH_NODES`` of W, taken as independent (the rule evaluated where its answer
    changes, ``STABILITY_STRIDE``). None when there is no finite interval of positive width.
    """
    values = (ours, ci_low, ci_high)
    if not all(v is not None and math.isfinite(v) for v in values) or not ci_high > ci_low:
        return None, ""
    if not between_sd >= 0:
        raise PruneAuditError(f"between_sd must be >= 0, got {between_sd!r}")
    se = interval_se(ci_low, ci_high, df=df, level=level)
    k = df if spread_df is None else spread_df
    z = _z_nodes(k, nodes)
    widths = (1.0,) if k is None or not fresh_spread else _width_nodes(k)
    centres = ours + math.sqrt(2 * (se**2 + between_sd**2)) * z  # ascending
    said = rule(ci_low, ci_high)
    answers: Counter[str] = Counter()
    for width in widths:
        below, above = (ours - ci_low) * width, (ci_high - ours) * width
        answers.update(_answers_along(centres, below, above, rule))
    same = answers.pop(said, 0)
    other = max(answers, key=answers.__getitem__) if answers else ""
    return same / (nodes * len(widths)), other


@lru_cache(maxsize=256)
def _z_nodes(k: float | None, nodes: int) -> np.ndarray:
    """The ``nodes`` mid-quantiles of a t on ``k`` df (standard normal when None), read-only:
    the cache hands every caller the same array."""
    levels = (np.arange(nodes) + 0.5) / nodes
    z = stats.norm.ppf(levels) if k is None else stats.t.ppf(levels, k)
    z.setflags(write=False)
    return z


@lru_cache(maxsize=256)
def _width_nodes(k: float) -> tuple[float, ...]:
    """The :data:`WIDTH_NODES` mid-quantiles of ``sqrt(F(k, k))``."""
    levels = (np.arange(WIDTH_NODES) + 0.5) / WIDTH_NODES
    return tuple(float(w) for w in np.sqrt(stats.f.ppf(levels, k, k)))


def _answers_along(
    centres: np.ndarray, below: float, above: float, rule: Callable[[float, float], str]
) -> Counter[str]:
    """How many of the ascending ``centres`` give each answer of ``rule`` on the interval
    ``[c - below, c + above]``, evaluated on every :data:`STABILITY_STRIDE`-th centre and on
    every centre between two that differ (each answer holds on runs of centres)."""
    nodes = len(centres)
    counts: Counter[str] = Counter()

    def at(i: int) -> str:
        return rule(float(centres[i] - below), float(centres[i] + above))

    coarse = [*range(0, nodes - 1, STABILITY_STRIDE), nodes - 1]
    left = at(0)
    counts[left] += 1
    for a, b in zip(coarse, coarse[1:], strict=False):
        right = at(b)
        if left == right:  # a run: the nodes between give the same answer
            counts[left] += b - a
        else:
            for i in range(a + 1, b):
                counts[at(i)] += 1
            counts[right] += 1
        left = right
    return counts


def spread_df_of(df: float | None, units: int | None) -> float | None:
    """The degrees of freedom of the spread an interval rests on (:func:`stability`): the t
    interval's ``df``, else ``units - 1`` (a bootstrap or normal interval over ``units``
    units), else None (the spread taken as known)."""
    if df is not None:
        return df
    return units - 1 if units is not None and units > 1 else None


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
    between_sd: float = 0.0,
) -> int | None:
    """The fewest units at which a row with our estimate would be firm (:func:`stability` at
    least ``target``) if the estimate held: the interval's distances from ``ours`` shrink as
    ``sqrt(units/n)`` (for a t interval, with the quantile on ``n - 1`` df), and so does the
    between-build spread ``between_sd`` (modelled as a multiple of the sampling spread,
    :func:`between_sd`). None when the row is already firm, cannot be computed, or needs more
    than ``most`` units."""
    if units < 2 or not all(map(math.isfinite, (ours, ci_low, ci_high))):
        return None

    def steady(n: int) -> float:
        shrink = math.sqrt(units / n)
        scale = shrink
        if t:
            scale *= float(stats.t.ppf(0.975, n - 1) / stats.t.ppf(0.975, units - 1))
        low, high = ours - (ours - ci_low) * scale, ours + (ci_high - ours) * scale
        value, _ = stability(ours, low, high, rule, df=n - 1 if t else None, nodes=500,
                             between_sd=between_sd * shrink, spread_df=n - 1)
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
    #: The values a replication of the paper could give (:func:`paper_band`), [low, high]; None
    #: for a finding without a paper value.
    paper_band: tuple[float, float] | None = None
    #: The smallest difference a reader of the paper would care about, fixed in advance (the
    #: band's margin and the negligible band around the null), with its reason.
    margin: float | None = None
    margin_reason: str = ""
    #: How many units the paper's number rests on, when stated (and of our units' kind).
    paper_units: int | None = None
    #: The spread between independent builds beyond sampling used by the stability
    #: (:func:`between_sd`).
    between_sd: float | None = None

    def __post_init__(self) -> None:
        check_choice("verdict", self.verdict, VERDICTS)
        check_choice("unit", self.unit, UNITS)
        check_choice("direction", self.direction, (*DIRECTIONS, ""))
        check_choice("size", self.size, SIZES)
        if self.verdict in UNTESTED and not self.basis:
            raise PruneAuditError(f"finding {self.finding!r} is {self.verdict}: say why in basis")


@cache
def between_builds() -> pd.DataFrame:
    """The spread between the project's independent builds beyond sampling, per study (``study``:
    a notebook name, or ``all``): ``ratio`` = between-build variance / sampling variance of a
    row, with the ``pairs`` of row estimates and ``builds`` it rests on (written by
    :func:`pruneaudit.audit.between_builds.write_ratios`)."""
    with resources.files("pruneaudit.audit").joinpath("data/between_builds.csv").open() as f:
        return pd.read_csv(f)


def between_ratio_of_study(study: str) -> float:
    """The between-build variance ratio of the study ``study`` (a notebook name, or its
    ``NN_`` prefix), else the pooled ``all``; 0 when the table has neither."""
    table = between_builds()
    mine = table[table.study.str.startswith(study)]
    if len(mine) == 0:
        mine = table[table.study == "all"]
    return max(float(mine.ratio.iloc[0]), 0.0) if len(mine) else 0.0


def between_ratio(name: str) -> float:
    """The between-build variance ratio for the finding called ``name``: its study's (the
    notebook numbered like ``D<k>.``), else the pooled ``all``; 0 when the table has neither."""
    match = re.match(r"D(\d+)\.", name)
    return between_ratio_of_study(f"{int(match.group(1)):02d}_" if match else "all")


def between_sd(name: str, ci_low: float, ci_high: float, *, df: float | None = None) -> float:
    """The standard deviation of a build's effect on the finding called ``name``: the square
    root of its study's :func:`between_ratio` times the row's sampling standard error
    (``interval_se``); 0 without a finite interval."""
    se = interval_se(ci_low, ci_high, df=df)
    if not math.isfinite(se):
        return 0.0
    return math.sqrt(between_ratio(name)) * se


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
    margin: Margin | float | None = None,
    paper_units: int | None = None,
    between: float | None = None,
    unit_sd: float | None = None,
) -> Finding:
    """A :class:`Finding` whose verdict (:func:`verdict`) and power (:func:`power`, against the
    paper's effect or ``smallest``; ``df`` of the interval's t, None for normal or bootstrap
    intervals) are computed from the interval. ``units``: how many units the interval rests on
    (default ``df + 1`` for a t interval); with it, a row below :data:`TARGET_POWER` also says
    how many units would reach it (:func:`units_for_power`).

    With a paper value the row carries the paper's band (:func:`paper_band`): its ``margin``
    (a :class:`Margin`, or a number with ``paper_units``; by default the package's table,
    :func:`margin_for`, by the row's name; 0 when it has none) and the paper's standard error
    (printed, when ``paper`` is a :class:`Published` that prints one, else from ``unit_sd``,
    the spread of one unit, and the paper's units, :func:`paper_se_from_sd`, else from ``units``
    and the paper's units, :func:`paper_se_from_units`). The row also carries its direction and
    size (:func:`direction_of`, :func:`size_of`) and the stability of its verdict and of its
    direction (:func:`stability`) with the between-build spread ``between`` (a standard
    deviation in the row's unit; by default :func:`between_sd`). ``headline``: the page states
    this row first."""
    value = None if paper is None else float(paper)
    effect = value - null if value is not None else smallest
    if units is None and df is not None:
        units = round(df) + 1
    needed = (
        units_for_power(float(ci_low), float(ci_high), effect, units, t=df is not None)
        if units is not None
        else None
    )
    ours, ci_low, ci_high = float(ours), float(ci_low), float(ci_high)
    if margin is None:
        margin = margin_for(name)
    if isinstance(margin, Margin):
        paper_units = margin.paper_units if paper_units is None else paper_units
        reason, margin = margin.reason, margin.margin
    else:
        reason = ""
    if value is None:  # a direction-only finding: its smallest effect of interest, no band
        margin, reason, paper_units = None, "", None
    elif margin is None:
        reason = NO_MARGIN
    paper_se = paper.se if isinstance(paper, Published) else None
    if paper_se is None and value is not None:
        paper_se = (
            paper_se_from_sd(unit_sd, paper_units)
            if unit_sd is not None
            else paper_se_from_units(ci_low, ci_high, units, paper_units, df=df)
        )
    side = _side(value, null, direction)
    rule = verdict_rule(
        value, null=null, direction=direction, smallest=smallest, paper_se=paper_se,
        margin=margin or 0.0,
    )
    band = paper_band(value, paper_se, margin or 0.0) if value is not None else None
    negligible = smallest if smallest is not None else (margin or None)

    def rule_direction(low: float, high: float) -> str:
        return direction_of(low, high, side=int(side), null=null, negligible=negligible)

    spread = between_sd(name, ci_low, ci_high, df=df) if between is None else float(between)
    spread_df = spread_df_of(df, units)
    steady, other = stability(
        ours, ci_low, ci_high, rule, df=df, between_sd=spread, spread_df=spread_df
    )
    steady_direction, _ = stability(
        ours, ci_low, ci_high, rule_direction, df=df, between_sd=spread, spread_df=spread_df
    )
    firm_at = (
        units_for_stability(
            ours, ci_low, ci_high, rule, units, t=df is not None, between_sd=spread
        )
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
        size=size_of(ci_low, ci_high, band, side=int(side)) if value is not None else "",
        stability=_plain(steady),
        direction_stability=_plain(steady_direction),
        alternative=other,
        paper_se=_plain(paper_se),
        headline=headline,
        firm_at=firm_at,
        paper_band=None if band is None else (float(band[0]), float(band[1])),
        margin=margin,
        margin_reason=reason,
        paper_units=paper_units,
        between_sd=_plain(spread) if steady is not None else None,
    )


def not_comparable(
    name: str,
    ours: float,
    ci_low: float,
    ci_high: float,
    paper: Published | float | None,
    *,
    source: str,
    why: str,
    null: float = 0.0,
    direction: int = 0,
    unit: str = "",
    definition: str = "",
) -> Finding:
    """A :class:`Finding` whose quantity is not the paper's (another footing, another
    population): our estimate, interval and direction (when the paper's side is known), no size
    and no verdict of its own (``not comparable here``); ``why`` is its basis."""
    value = None if paper is None else float(paper)
    ours, ci_low, ci_high = float(ours), float(ci_low), float(ci_high)
    said = ""
    if value is not None or direction in (1, -1):
        said = direction_of(ci_low, ci_high, side=int(_side(value, null, direction)), null=null)
    return Finding(
        name, value, ours, ci_low, ci_high, NOT_COMPARABLE, source, why, unit=unit,
        definition=definition, direction=said,
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
    units: int | None = None,
) -> Finding:
    """A :class:`Finding` for a claim of *no* material difference (paper value None): the
    verdict is ``reproduced`` when the interval lies inside ``(null - margin, null + margin)``
    (an equivalence test with a margin fixed in advance), ``not reproduced`` when it lies wholly
    outside that range, else ``inconclusive``; with its stability (:func:`stability`, normal
    interval over ``units`` units)."""
    if not margin > 0:
        raise PruneAuditError(f"margin must be > 0, got {margin!r}")

    def rule(low: float, high: float) -> str:
        finite = math.isfinite(low) and math.isfinite(high)
        if finite and null - margin < low <= high < null + margin:
            return REPRODUCED
        if finite and (low >= null + margin or high <= null - margin):
            return NOT_REPRODUCED
        return INCONCLUSIVE

    spread = between_sd(name, float(ci_low), float(ci_high))
    steady, other = stability(float(ours), float(ci_low), float(ci_high), rule, between_sd=spread,
                              spread_df=spread_df_of(None, units))
    return Finding(
        name, None, float(ours), float(ci_low), float(ci_high), rule(ci_low, ci_high), source,
        basis, units=units, unit=unit, definition=definition, stability=_plain(steady),
        alternative=other,
        headline=headline, margin=float(margin),
        between_sd=_plain(spread) if steady is not None else None,
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


#: Verdicts that leave the question open: a row that keeps one is not called *firm*.
UNDECIDED = (INCONCLUSIVE, SIZE_UNCLEAR)


def verdict_counts(rows: Sequence[Finding]) -> str:
    """The one line that counts a page's verdicts, firm and borderline apart, e.g. ``14
    findings: 8 firm (5 reproduced, 3 not reproduced), 1 inconclusive, 3 borderline, 2 not
    testable here.`` A verdict that leaves the question open (``UNDECIDED``) is counted by
    its name, never as *firm*."""
    testable = [r for r in rows if r.verdict not in UNTESTED]
    steady = [r for r in testable if not is_borderline(r)]
    firm = [r for r in steady if r.verdict not in UNDECIDED]
    counts = {v: sum(r.verdict == v for r in firm) for v in VERDICTS}
    parts = []
    if firm:
        said = ", ".join(f"{n} {v}" for v, n in counts.items() if n)
        parts.append(f"{len(firm)} firm ({said})")
    for undecided in UNDECIDED:
        n = sum(r.verdict == undecided for r in steady)
        if n:
            parts.append(f"{n} {undecided}")
    if len(steady) < len(testable):
        parts.append(f"{len(testable) - len(steady)} borderline")
    for untested in UNTESTED:
        n = sum(r.verdict == untested for r in rows)
        if n:
            parts.append(f"{n} {untested}")
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
    if any(r.verdict == SIZE_UNCLEAR for r in rows):
        text += (
            " A *same direction, size can't tell* row shows the effect on the paper's side, but "
            "its interval crosses an edge of the paper's band (the values a replication of the "
            "paper could give, widened by a margin fixed in advance): *reproduced* needs the "
            "whole interval inside the band."
        )
    if any(r.verdict == INCONCLUSIVE for r in rows):
        text += (
            " An *inconclusive* row's interval holds no effect and reaches the paper's band: "
            "this budget has too few units to tell."
        )
    if profile == "smoke" and any(r.stability is not None for r in rows):
        text += (
            " This is a smoke build (one to three models per population): its intervals over "
            "writers, classes or corruptions leave out most of the spread between seed sets, so "
            "its stabilities over-state how firm a verdict is (the methods page's calibration "
            "on four smoke builds); read every verdict here as borderline."
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
    for key in ("excess", "paper_band"):
        if known.get(key) is not None:
            known[key] = tuple(known[key])
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
