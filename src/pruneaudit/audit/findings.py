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
The verdict never looks at the point estimate. The *power* of a row is the probability that an
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
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
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
    "definition", "basis", "excess", "units", "needed",
)
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
    return Published(int(row.id), str(row.value), float(row.number), str(row.source))


def verdict(
    ci_low: float,
    ci_high: float,
    paper: float | None,
    *,
    null: float = 0.0,
    direction: int = 0,
    smallest: float | None = None,
) -> str:
    """The verdict of an interval ``[ci_low, ci_high]`` against the paper's value (module doc).

    The paper's side of ``null`` is the sign of ``paper - null``, or ``direction`` (+1 or -1)
    when ``paper`` is None (a finding stated as a direction only); ``smallest`` is then the
    smallest effect of interest (an absolute distance from the null), if any.
    """
    if paper is not None:
        side = float(np.sign(paper - null))
        if side == 0:
            raise PruneAuditError(f"the paper's value {paper} equals the null {null}: no direction")
        target: float | None = side * (paper - null)
    elif direction in (1, -1):
        side = float(direction)
        if smallest is not None and not smallest > 0:
            raise PruneAuditError(f"smallest must be > 0, got {smallest!r}")
        target = smallest
    else:
        raise PruneAuditError("give the paper's value or a direction of +1 or -1")
    if not (math.isfinite(ci_low) and math.isfinite(ci_high)):
        return INCONCLUSIVE
    if ci_low > ci_high:
        raise PruneAuditError(f"interval low {ci_low} is above its high {ci_high}")
    lo, hi = sorted((side * (ci_low - null), side * (ci_high - null)))
    if hi < 0:
        return OPPOSITE
    if lo > 0:
        if paper is None or lo <= target <= hi:
            return REPRODUCED
        return SMALLER if hi < target else LARGER
    if target is None or hi >= target:
        return INCONCLUSIVE
    return NOT_REPRODUCED


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

    def __post_init__(self) -> None:
        check_choice("verdict", self.verdict, VERDICTS)
        check_choice("unit", self.unit, UNITS)
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
) -> Finding:
    """A :class:`Finding` whose verdict (:func:`verdict`) and power (:func:`power`, against the
    paper's effect or ``smallest``; ``df`` of the interval's t, None for normal or bootstrap
    intervals) are computed from the interval. ``units``: how many units the interval rests on
    (default ``df + 1`` for a t interval); with it, a row below :data:`TARGET_POWER` also says
    how many units would reach it (:func:`units_for_power`)."""
    value = None if paper is None else float(paper)
    effect = value - null if value is not None else smallest
    if units is None and df is not None:
        units = round(df) + 1
    needed = (
        units_for_power(float(ci_low), float(ci_high), effect, units, t=df is not None)
        if units is not None
        else None
    )
    return Finding(
        name,
        value,
        float(ours),
        float(ci_low),
        float(ci_high),
        verdict(ci_low, ci_high, value, null=null, direction=direction, smallest=smallest),
        source,
        basis,
        _plain(power(float(ci_low), float(ci_high), effect, df=df)),
        unit,
        definition,
        None if excess is None else tuple(float(v) for v in excess),
        units,
        needed,
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
) -> Finding:
    """A :class:`Finding` for a claim of *no* material difference (paper value None): the
    verdict is ``reproduced`` when the interval lies inside ``(null - margin, null + margin)``
    (an equivalence test with a margin fixed in advance), ``not reproduced`` when it lies wholly
    outside that range, else ``inconclusive``."""
    if not margin > 0:
        raise PruneAuditError(f"margin must be > 0, got {margin!r}")
    finite = math.isfinite(ci_low) and math.isfinite(ci_high)
    if finite and null - margin < ci_low <= ci_high < null + margin:
        said = REPRODUCED
    elif finite and (ci_low >= null + margin or ci_high <= null - margin):
        said = NOT_REPRODUCED
    else:
        said = INCONCLUSIVE
    return Finding(
        name, None, float(ours), float(ci_low), float(ci_high), said, source, basis,
        unit=unit, definition=definition,
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


def findings_frame(rows: Sequence[Finding]) -> pd.DataFrame:
    """The findings as a table, one row each, in the order given."""
    return pd.DataFrame([asdict(r) for r in rows], columns=list(JSON_KEYS))


def summary_text(rows: Sequence[Finding], profile: str | None = None) -> str:
    """One paragraph under a findings table: the verdict counts and, for a profile below the
    paper's, what a *not reproduced* there can and cannot mean."""
    counts = {v: sum(r.verdict == v for r in rows) for v in VERDICTS}
    said = ", ".join(f"{n} {v}" for v, n in counts.items() if n)
    text = f"{len(rows)} findings: {said or 'none'}."
    if counts[INCONCLUSIVE]:
        text += (
            " An *inconclusive* row's interval holds both no effect and the paper's: this budget "
            "has too few units to tell."
        )
    if counts[NOT_REPRODUCED] and profile != "paper":
        run = f"the {profile} profile" if profile else "parameters below the paper's"
        text += (
            f" This page ran {run}: a *not reproduced* here means the effect is absent on this "
            "task or smaller than the paper's at this budget, not that the paper is wrong; the "
            "protocol table and the cost of the paper profile are further down the page."
        )
    return text


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
