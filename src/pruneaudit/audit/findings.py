"""Findings beside the papers: published values, intervals and verdicts that can fail.

A *finding* is one directional statement of a paper (D1.1, D1.2, ...: each study page lists its
own) with the paper's value, ours with a 95% interval, and a verdict computed from that interval
alone:

- ``reproduced``: the interval excludes the null value on the paper's side and reaches the paper's
  value (``ci_high >= paper`` for an effect above the null, ``ci_low <= paper`` below it);
  for a finding stated only as a direction (``paper`` None) excluding the null suffices;
- ``same direction, smaller``: the interval excludes the null on the paper's side but lies wholly
  short of the paper's value;
- ``not reproduced``: the interval contains the null value or lies on the other side;
- ``not testable here``: the offline data or the budget cannot show it (a reason is required).

The verdict never looks at the point estimate, so a null effect (an interval around the null)
gives ``not reproduced`` at the interval's coverage. The published values come from the
package's copy of ``published.csv`` (:func:`published`), with an ``id`` column (its row) and a
``number`` column (the printed value as a number; a trailing ``%`` is divided by 100).

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
NOT_REPRODUCED = "not reproduced"
NOT_TESTABLE = "not testable here"
VERDICTS = (REPRODUCED, SMALLER, NOT_REPRODUCED, NOT_TESTABLE)
#: Keys of each object in ``<notebook>.findings.json``.
JSON_KEYS = ("finding", "paper", "ours", "ci_low", "ci_high", "verdict", "source")


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
    ci_low: float, ci_high: float, paper: float | None, *, null: float = 0.0, direction: int = 0
) -> str:
    """The verdict of an interval ``[ci_low, ci_high]`` against the paper's value.

    The paper's side of ``null`` is the sign of ``paper - null``, or ``direction`` (+1 or -1)
    when ``paper`` is None (a finding stated as a direction only).
    """
    if not (math.isfinite(ci_low) and math.isfinite(ci_high)):
        return NOT_REPRODUCED
    if ci_low > ci_high:
        raise PruneAuditError(f"interval low {ci_low} is above its high {ci_high}")
    if paper is not None:
        side = float(np.sign(paper - null))
        if side == 0:
            raise PruneAuditError(f"the paper's value {paper} equals the null {null}: no direction")
    elif direction in (1, -1):
        side = float(direction)
    else:
        raise PruneAuditError("give the paper's value or a direction of +1 or -1")
    lo, hi = sorted((side * (ci_low - null), side * (ci_high - null)))
    if lo <= 0:
        return NOT_REPRODUCED
    if paper is None or hi >= side * (paper - null):
        return REPRODUCED
    return SMALLER


def mean_interval(values: Sequence[float], level: float = 0.95) -> tuple[float, float, float]:
    """Mean of ``values`` (e.g. one per seed) and its Student-t interval; (nan, nan, nan) for
    fewer than two finite values, (m, m, m) when they are all equal."""
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    if len(x) < 2:
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

    def __post_init__(self) -> None:
        check_choice("verdict", self.verdict, VERDICTS)
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
) -> Finding:
    """A :class:`Finding` whose verdict is computed from the interval (:func:`verdict`)."""
    value = None if paper is None else float(paper)
    return Finding(
        name,
        value,
        float(ours),
        float(ci_low),
        float(ci_high),
        verdict(ci_low, ci_high, value, null=null, direction=direction),
        source,
        basis,
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
) -> Finding:
    """A :class:`Finding` for a claim of *no* material difference (paper value None): the
    verdict is ``reproduced`` when the interval lies inside ``(null - margin, null + margin)``
    (an equivalence test with a margin fixed in advance), else ``not reproduced``."""
    if not margin > 0:
        raise PruneAuditError(f"margin must be > 0, got {margin!r}")
    inside = (
        math.isfinite(ci_low)
        and math.isfinite(ci_high)
        and null - margin < ci_low <= ci_high < null + margin
    )
    return Finding(
        name,
        None,
        float(ours),
        float(ci_low),
        float(ci_high),
        REPRODUCED if inside else NOT_REPRODUCED,
        source,
        basis,
    )


def not_testable(name: str, paper: Published | float | None, *, source: str, why: str) -> Finding:
    """A :class:`Finding` that the offline data or the budget cannot test, with the reason."""
    value = None if paper is None else float(paper)
    return Finding(name, value, None, None, None, NOT_TESTABLE, source, why)


def findings_frame(rows: Sequence[Finding]) -> pd.DataFrame:
    """The findings as a table, one row each, in the order given."""
    return pd.DataFrame([asdict(r) for r in rows], columns=[*JSON_KEYS, "basis"])


def summary_text(rows: Sequence[Finding], profile: str | None = None) -> str:
    """One paragraph under a findings table: the verdict counts and, for a profile below the
    paper's, what a *not reproduced* there can and cannot mean."""
    counts = {v: sum(r.verdict == v for r in rows) for v in VERDICTS}
    said = ", ".join(f"{n} {v}" for v, n in counts.items() if n)
    text = f"{len(rows)} findings: {said or 'none'}."
    if counts[NOT_REPRODUCED] and profile != "paper":
        run = f"the {profile} profile" if profile else "parameters below the paper's"
        text += (
            f" This page ran {run}: a *not reproduced* here means the effect is absent on this "
            "task or too small to show at this budget, not that the paper is wrong; the protocol "
            "table and the cost of the paper profile are further down the page."
        )
    return text


def _plain(value: object) -> object:
    if value is None:
        return None
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
