"""One estimate per claim from every build: inverse-variance pooling of the builds' rows.

Each build (a folder of ``<notebook>.findings.json`` files made from its own seed set,
:func:`pruneaudit.audit.between_builds.json_builds`) gives a row of a paper's claim (kind
``same`` or ``analogue``) an estimate and a 95% interval. Its standard error is taken from the
interval as ``(ci_high - ci_low) / (2 * 1.96)`` (:func:`pruneaudit.audit.intervals.interval_se`):
exact for a normal interval; for a Student-t interval on few degrees of freedom it overstates the
standard error by ``t / 1.96`` (about 1.2 on 7 df, 1.4 on 4), and for an asymmetric interval
(bootstrap percentile, Clopper-Pearson, a rank correlation near 1) it is an approximation.

The builds' estimates are combined by :func:`statsmodels.stats.meta_analysis.combine_effects`:
the inverse-variance *fixed effect* ``sum(w_i y_i) / sum(w_i)``, ``w_i = 1 / se_i^2``, with
standard error ``1 / sqrt(sum(w_i))``; where Cochran's ``Q = sum(w_i (y_i - fixed)^2)`` on
``k - 1`` degrees of freedom has a p-value below :data:`HETEROGENEITY_P` (the builds disagree
beyond their intervals), the DerSimonian-Laird *random effects* estimate instead, whose weights
``1 / (se_i^2 + tau^2)`` add the between-build variance
``tau^2 = max(0, (Q - (k - 1)) / (sum(w) - sum(w^2) / sum(w)))``.

Left out of a row's pool: builds whose interval is missing or of zero width (no standard error);
a row whose estimate and interval are the same in every build is not pooled at all (no seed
changes it, e.g. a property of the test set: the builds are one measurement, not several).

Formulas: the book's page *Pooled over builds* (``book/pooled.md``), section *Method*.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping

import numpy as np
import pandas as pd
from statsmodels.stats.meta_analysis import combine_effects

from pruneaudit.audit.intervals import interval_se
from pruneaudit.errors import PruneAuditError, check_frame

#: The kinds of row pooled: the papers' own claims (not our ``beyond`` questions).
POOLED_KINDS = ("same", "analogue")
#: Below this p-value of Cochran's Q the builds disagree beyond their intervals: random effects.
#: 0.10 rather than 0.05, as is usual for Q, whose power is low with few builds.
HETEROGENEITY_P = 0.10
#: A build's interval is *asymmetric* when its two half-widths differ by more than this share of
#: the larger (the standard error from its width is then rough).
ASYMMETRY = 0.25
#: The build whose own estimate the page shows beside the pooled one.
DEFAULT_BUILD = "default"
#: How a row was pooled (the ``model`` column).
FIXED, RANDOM = "fixed effect", "random effects"
SAME_EVERYWHERE, TOO_FEW = "same in every build", "fewer than 2 builds with an interval"
#: Columns of :func:`pool`.
POOLED_COLUMNS = (
    "study", "claim", "finding", "kinds", "unit", "builds", "left_out", "model", "pooled",
    "pooled_low", "pooled_high", "fixed", "fixed_low", "fixed_high", "random", "random_low",
    "random_high", "q", "q_p", "i2", "tau2", "asymmetric", "default", "default_low",
    "default_high", "paper", "null", "side", "equivalence",
)
#: Columns the builds' frame must hold.
BUILD_INPUT = ("study", "claim", "finding", "kind", "paper", "build", "ours", "ci_low", "ci_high")


def standard_error(ci_low: float, ci_high: float) -> float:
    """The standard error behind a 95% interval, ``(ci_high - ci_low) / (2 * 1.96)`` (module
    doc); NaN without a finite interval of positive width."""
    se = interval_se(ci_low, ci_high)
    return se if math.isfinite(se) and se > 0 else math.nan


def asymmetric(ours: float, ci_low: float, ci_high: float) -> bool:
    """Whether the interval's two half-widths around ``ours`` differ by more than
    :data:`ASYMMETRY` of the larger."""
    below, above = ours - ci_low, ci_high - ours
    larger = max(below, above)
    return bool(larger > 0 and abs(above - below) > ASYMMETRY * larger)


def combine(effects: np.ndarray, ses: np.ndarray) -> dict[str, float | str]:
    """The fixed and random effects (DerSimonian-Laird) pools of ``effects`` with standard
    errors ``ses``, Cochran's Q, its p-value, I², tau² and the chosen ``model`` (module doc).

    statsmodels 0.15 leaves the DerSimonian-Laird tau² negative when Q < k - 1 (and its random
    effects interval then narrower than the fixed one); here tau² is truncated at 0, as
    DerSimonian and Laird define it, so that the random effects equal the fixed effect, and I²
    at 0."""
    effects, ses = np.asarray(effects, dtype=float), np.asarray(ses, dtype=float)
    if len(effects) < 2 or len(effects) != len(ses) or not np.all(ses > 0):
        raise PruneAuditError("pooling needs at least 2 estimates, each with a positive se")
    with warnings.catch_warnings():  # its square roots of a negative variance, discarded below
        warnings.simplefilter("ignore", RuntimeWarning)
        result = combine_effects(effects, ses**2, method_re="dl", use_t=False)
        frame = result.summary_frame()
    fixed = frame.loc["fixed effect"]
    random = frame.loc["random effect"] if result.tau2 > 0 else fixed
    homogeneity = result.test_homogeneity()
    q_p = float(homogeneity.pvalue)
    model = RANDOM if q_p < HETEROGENEITY_P else FIXED
    chosen = random if model == RANDOM else fixed
    return {
        "model": model, "pooled": float(chosen.eff), "pooled_low": float(chosen.ci_low),
        "pooled_high": float(chosen.ci_upp), "fixed": float(fixed.eff),
        "fixed_low": float(fixed.ci_low), "fixed_high": float(fixed.ci_upp),
        "random": float(random.eff), "random_low": float(random.ci_low),
        "random_high": float(random.ci_upp), "q": float(homogeneity.statistic), "q_p": q_p,
        "i2": max(0.0, float(result.i2)), "tau2": max(0.0, float(result.tau2)),
    }


def _same_everywhere(rows: pd.DataFrame) -> bool:
    values = rows[["ours", "ci_low", "ci_high"]].to_numpy(dtype=float)
    return len(rows) > 1 and bool(np.allclose(values, values[0], rtol=0, atol=1e-12,
                                              equal_nan=True))


def _pool_row(rows: pd.DataFrame, claim: object | None) -> dict[str, object]:
    """One row of :func:`pool` from one claim's rows (one per build)."""
    first = rows.iloc[0]
    default = rows[rows.build == DEFAULT_BUILD]
    shown = default.iloc[0] if len(default) else None
    ses = np.array([standard_error(r.ci_low, r.ci_high) for r in rows.itertuples()])
    usable = rows[np.isfinite(ses) & np.isfinite(rows.ours.to_numpy(dtype=float))]
    out: dict[str, object] = {
        "study": first.study, "claim": first.claim,
        "finding": (shown if shown is not None else rows.iloc[-1]).finding,
        "kinds": ", ".join(sorted(set(rows.kind))), "unit": getattr(claim, "unit", ""),
        "builds": len(usable), "left_out": len(rows) - len(usable),
        "asymmetric": any(asymmetric(r.ours, r.ci_low, r.ci_high) for r in usable.itertuples()),
        "default": math.nan if shown is None else shown.ours,
        "default_low": math.nan if shown is None else shown.ci_low,
        "default_high": math.nan if shown is None else shown.ci_high,
        "paper": first.paper, "null": getattr(claim, "null", math.nan),
        "side": getattr(claim, "expected_side", 0),
        "equivalence": bool(getattr(claim, "equivalence", False)),
    }
    if _same_everywhere(rows):
        return {**out, "model": SAME_EVERYWHERE}
    if len(usable) < 2:
        return {**out, "model": TOO_FEW}
    return {**out, **combine(usable.ours.to_numpy(dtype=float), ses[usable.index])}


def pool(builds: pd.DataFrame, claims: Mapping[tuple[str, str], object] | None = None
         ) -> pd.DataFrame:
    """One row per (study, claim) of kind ``same`` or ``analogue`` in ``builds`` (the long frame
    of :func:`pruneaudit.audit.between_builds.json_builds`): the builds pooled
    (:data:`POOLED_COLUMNS`; ``model`` says how, or why not), the default build's own estimate
    beside. ``claims`` maps ``(study, claim id)`` to the declared claim, for its unit, null,
    expected side and whether it claims no difference (absent: unit ``""``, null NaN)."""
    check_frame("builds", builds, BUILD_INPUT, allow_empty=True)
    rows = builds[builds.kind.isin(POOLED_KINDS) & builds.claim.notna()].reset_index(drop=True)
    out = [
        _pool_row(group.reset_index(drop=True), (claims or {}).get((study, claim)))
        for (study, claim), group in rows.groupby(["study", "claim"], sort=False)
    ]
    frame = pd.DataFrame(out, columns=list(POOLED_COLUMNS))
    for column in POOLED_COLUMNS:
        if column not in ("study", "claim", "finding", "kinds", "unit", "model", "asymmetric",
                          "equivalence", "builds", "left_out", "side"):
            frame[column] = frame[column].astype(float)
    return frame


def forest_frame(builds: pd.DataFrame, pooled: pd.DataFrame) -> pd.DataFrame:
    """The long frame of a forest plot: per claim of ``pooled``, each build's estimate and
    interval (``source`` ``default build`` or ``other build``) and the pooled one
    (``source`` ``pooled``, ``build`` naming its model). Columns ``study, claim, finding,
    unit, build, source, estimate, low, high, null``."""
    keep = builds[builds.kind.isin(POOLED_KINDS)]
    out = []
    for row in pooled.itertuples(index=False):
        mine = keep[(keep.study == row.study) & (keep.claim == row.claim)]
        for b in mine.itertuples(index=False):
            out.append({"build": b.build, "estimate": b.ours, "low": b.ci_low,
                        "high": b.ci_high, "source": "default build"
                        if b.build == DEFAULT_BUILD else "other build"})
            out[-1].update(study=row.study, claim=row.claim, finding=row.finding,
                           unit=row.unit, null=row.null)
        if math.isfinite(row.pooled):
            out.append({"study": row.study, "claim": row.claim, "finding": row.finding,
                        "unit": row.unit, "build": f"pooled ({row.model})", "source": "pooled",
                        "estimate": row.pooled, "low": row.pooled_low,
                        "high": row.pooled_high, "null": row.null})
    return pd.DataFrame(out, columns=["study", "claim", "finding", "unit", "build", "source",
                                      "estimate", "low", "high", "null"])


__all__ = [
    "ASYMMETRY", "DEFAULT_BUILD", "FIXED", "HETEROGENEITY_P", "POOLED_COLUMNS", "POOLED_KINDS",
    "RANDOM", "SAME_EVERYWHERE", "TOO_FEW", "asymmetric", "combine", "forest_frame", "pool",
    "standard_error",
]
