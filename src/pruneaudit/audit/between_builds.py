"""The spread between independent builds beyond sampling, and how well stabilities predict it.

Two builds of a study with disjoint seed sets (on one device or two) give each row an estimate
with a 95% interval. Under sampling alone their difference has variance ``se_a^2 + se_b^2`` (each
``se`` an interval's half-width over 1.96); each build also carries its own effect of variance
``tau^2`` (another device's rounding, a collapse one seed set has and the other has not), so
``E[(a - b)^2] = se_a^2 + se_b^2 + 2 tau^2``. Modelling ``tau^2`` as a multiple ``ratio`` of a
row's sampling variance (a dispersion factor, as in quasi-likelihood), the method-of-moments
estimate over ``m`` pairs of row estimates is

    ratio = max(0, mean((a - b)^2 / (se_a^2 + se_b^2)) - 1),

per study and pooled (``all``), stored in ``pruneaudit/audit/data/between_builds.csv``
(:func:`write_ratios`) and read by :func:`pruneaudit.audit.stability.between_sd`. Builds that
share their seeds are not independent and form no pair.

:func:`keep_rates_as_printed` checks the stabilities against the builds: for every ordered pair
of independent builds (A, B) and every row firm in A (stability at least ``STABLE``), whether B
gives A's verdict, beside the mean of A's stabilities (the predicted keep rate; by band of
stability: :func:`keep_by_band`);
:func:`simulated_keep` does the same on simulated builds of a known number of units.

Formulas: the book's methods page, section *Findings and verdicts* (stability between builds).
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from pruneaudit.audit.findings_file import from_json
from pruneaudit.audit.intervals import interval_se, mean_interval
from pruneaudit.audit.stability import STABLE, stability
from pruneaudit.errors import PruneAuditError

#: Columns of the long frame of builds (:func:`json_builds`).
BUILD_COLUMNS = (
    "study", "finding", "kind", "paper", "build", "seeds", "ours", "ci_low", "ci_high",
    "verdict", "stability",
)
#: Columns of ``data/between_builds.csv``.
RATIO_COLUMNS = ("study", "ratio", "pairs", "builds")
#: Columns of the calibration table (:func:`keep_rates_as_printed`).
CALIBRATION_COLUMNS = ("study", "builds", "firm_pairs", "firm_kept", "predicted_keep")


def combine(frames: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """The builds of several reports, each (study, finding, build) once (the first report that
    holds it wins: a build shown in two reports is one build)."""
    frame = pd.concat(frames, ignore_index=True)
    return frame.drop_duplicates(["study", "finding", "build"], keep="first").reset_index(
        drop=True
    )


def independent_pairs(frame: pd.DataFrame) -> pd.DataFrame:
    """Every unordered pair of builds with disjoint seed sets that both hold a row with a finite
    interval of positive width: ``study, finding, kind, build_a, build_b, a, b, se_a, se_b, z2``
    with ``z2 = (a - b)^2 / (se_a^2 + se_b^2)`` (``se``: half-width / 1.96)."""
    rows = []
    ok = frame[np.isfinite(frame.ci_low) & np.isfinite(frame.ci_high)
               & (frame.ci_high > frame.ci_low) & np.isfinite(frame.ours)]
    for (study, finding), group in ok.groupby(["study", "finding"], sort=False):
        for a, b in itertools.combinations(group.itertuples(index=False), 2):
            if a.seeds == b.seeds:
                continue
            se_a = interval_se(a.ci_low, a.ci_high)
            se_b = interval_se(b.ci_low, b.ci_high)
            rows.append({
                "study": study, "finding": finding, "kind": a.kind, "build_a": a.build,
                "build_b": b.build, "a": a.ours, "b": b.ours, "se_a": se_a, "se_b": se_b,
                "z2": (a.ours - b.ours) ** 2 / (se_a**2 + se_b**2),
            })
    return pd.DataFrame(rows, columns=[
        "study", "finding", "kind", "build_a", "build_b", "a", "b", "se_a", "se_b", "z2"])


def variance_ratio(z2: Sequence[float]) -> float:
    """The method-of-moments between-build variance ratio (module doc) of standardized squared
    differences ``z2``; NaN without any."""
    z2 = np.asarray(z2, dtype=float)
    return max(float(z2.mean()) - 1.0, 0.0) if len(z2) else math.nan


def ratios(pairs: pd.DataFrame) -> pd.DataFrame:
    """Per study and ``all``: the between-build variance ratio, its pairs of row estimates and
    the builds they come from (:data:`RATIO_COLUMNS`)."""
    out = []
    for study, group in [*pairs.groupby("study"), ("all", pairs)]:
        builds = set(group.build_a) | set(group.build_b)
        out.append({"study": study, "ratio": round(variance_ratio(group.z2), 4),
                    "pairs": len(group), "builds": len(builds)})
    return pd.DataFrame(out, columns=list(RATIO_COLUMNS))


def write_ratios(pairs: pd.DataFrame, path: str | Path) -> Path:
    """Write :func:`ratios` of ``pairs`` as CSV (the package's ``data/between_builds.csv``)."""
    path = Path(path)
    ratios(pairs).to_csv(path, index=False)
    return path


def keep_rates_as_printed(frame: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """How often firm rows keep their verdict in another independent build, beside what their
    stabilities predict, with each build's verdict and stability as it printed them (builds
    made under the package's current rules): a row is firm in A when its stability is at least
    ``STABLE``; rows printed without a stability are left out. Returns the calibration table
    (:data:`CALIBRATION_COLUMNS`, one row per study and ``all``) and the instances, one per
    ordered pair of independent builds (A, B) and row: ``firm`` (in A), ``kept`` (B gives A's
    verdict), ``predicted`` (A's stability)."""
    known = frame[np.isfinite(frame.stability)].copy()
    known["new_verdict"], known["new_stability"] = known.verdict, known.stability
    return _keep_table(known)


def _keep_table(known: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The calibration table and instances of :func:`keep_rates_as_printed` from ``known``: one
    row per build and finding with its ``new_verdict`` and ``new_stability``."""
    instances = []
    for (study, finding), group in known.groupby(["study", "finding"], sort=False):
        for a, b in itertools.permutations(group.itertuples(index=False), 2):
            if a.seeds == b.seeds:
                continue
            firm = bool(np.isfinite(a.new_stability) and a.new_stability >= STABLE)
            instances.append({
                "study": study, "finding": finding, "build_a": a.build, "build_b": b.build,
                "verdict_a": a.new_verdict, "verdict_b": b.new_verdict, "firm": firm,
                "kept": a.new_verdict == b.new_verdict, "predicted": a.new_stability,
            })
    inst = pd.DataFrame(instances, columns=[
        "study", "finding", "build_a", "build_b", "verdict_a", "verdict_b", "firm", "kept",
        "predicted"])
    out = []
    for study, group in [*inst.groupby("study"), ("all", inst)]:
        firm = group[group.firm]
        builds = set(group.build_a) | set(group.build_b)
        out.append({
            "study": study, "builds": len(builds), "firm_pairs": len(firm),
            "firm_kept": int(firm.kept.sum()),
            "predicted_keep": round(float(firm.predicted.mean()), 3) if len(firm) else math.nan,
        })
    return pd.DataFrame(out, columns=list(CALIBRATION_COLUMNS)), inst


def simulated_keep(
    n_units: int,
    n_rows: int,
    rule: Callable[[float, float], str],
    *,
    seed: int,
    fresh_spread: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """Two simulated builds of ``n_rows`` rows, each the mean of ``n_units`` unit values (sd 1)
    around a truth drawn uniformly from [-2, 4], with its 95% t interval
    (:func:`pruneaudit.audit.intervals.mean_interval`): the first build's stability under
    ``rule`` (:func:`pruneaudit.audit.stability.stability` on ``n_units - 1`` df,
    ``fresh_spread`` as given) and whether the second build gives the first's verdict."""
    if n_units < 3:
        raise PruneAuditError(f"n_units must be at least 3 (a t on 2 df), got {n_units!r}")
    rng = np.random.default_rng(seed)
    stated, kept = [], []
    for truth in rng.uniform(-2.0, 4.0, n_rows):
        first, second = (mean_interval(b) for b in truth + rng.standard_normal((2, n_units)))
        steady, _ = stability(*first, rule, df=n_units - 1, fresh_spread=fresh_spread)
        stated.append(steady)
        kept.append(rule(*second[1:]) == rule(*first[1:]))
    return np.array(stated, dtype=float), np.array(kept)


#: Bands of a firm row's stability in the calibration by band (:func:`keep_by_band`).
BANDS = (("0.80-0.95", STABLE, 0.95), (">= 0.95", 0.95, math.inf))
#: Columns of the calibration by band.
BAND_COLUMNS = ("study", "band", "builds", "rows", "firm_pairs", "firm_kept", "keep_rate",
                "keep_low", "keep_high", "predicted_keep")


def keep_interval(kept: int, pairs: int, level: float = 0.95) -> tuple[float, float]:
    """The exact (Clopper-Pearson) interval of a keep rate ``kept / pairs`` (NaN without pairs),
    as if the pairs were independent draws. They are not (a row enters every pair of builds),
    so the interval is narrower than the keep rate's true uncertainty: a prediction outside it
    may still be right, one inside it is not shown wrong."""
    if pairs == 0:
        return math.nan, math.nan
    ci = stats.binomtest(kept, pairs).proportion_ci(level, method="exact")
    return round(float(ci.low), 3), round(float(ci.high), 3)


def json_builds(root: str | Path) -> pd.DataFrame:
    """The long frame (:data:`BUILD_COLUMNS` and ``claim``) of the builds under ``root``: each
    folder ``<root>/<build>`` holds one build's ``<notebook>.findings.json`` files, made from its
    own seed set (the folder's name is its label and its seed set)."""
    rows = []
    for folder in sorted(p for p in Path(root).iterdir() if p.is_dir()):
        for path in sorted(folder.glob("*.findings.json")):
            for item in json.loads(path.read_text()):
                row = from_json(item)
                rows.append({
                    "study": path.name.split(".")[0], "finding": row.finding,
                    "claim": row.claim, "kind": row.comparability, "paper": row.paper,
                    "build": folder.name, "seeds": folder.name, "verdict": row.verdict,
                    **{k: math.nan if getattr(row, k) is None else getattr(row, k)
                       for k in ("ours", "ci_low", "ci_high", "stability")},
                })
    return pd.DataFrame(rows, columns=[*BUILD_COLUMNS, "claim"])


def fixed_rows(frame: pd.DataFrame) -> list[str]:
    """The rows (``study claim``) whose estimate and interval are equal in every build of
    ``frame`` (:func:`json_builds`) that holds them, in two builds at least: estimates no seed
    set changes (a property of the test set, or of rows no build's models move), which a
    calibration would otherwise count as kept every time. Found from the builds, not listed."""
    known = frame.dropna(subset=["ours", "ci_low", "ci_high"])
    keyed = known.assign(row=known.study + " " + known.claim.fillna(""))
    fixed = []
    for row, group in keyed.groupby("row", sort=True):
        numbers = group[["ours", "ci_low", "ci_high"]].round(12).drop_duplicates()
        if group.build.nunique() >= 2 and len(numbers) == 1:
            fixed.append(row)
    return fixed


def keep_by_band(
    frame: pd.DataFrame, fixed: Sequence[str] = (), involving: Sequence[str] = ()
) -> pd.DataFrame:
    """Per study and in all, and per band of the first build's stability (:data:`BANDS`, and
    ``all``): over every ordered pair of builds, how many rows firm in the first keep their
    verdict in the second (with :func:`keep_interval`), beside the mean of their stabilities
    (the predicted keep rate). Rows of the claims in ``fixed``
    (``study claim``: estimates a build cannot change, e.g. a property of the test set) are
    left out. With ``involving``, only the pairs one of whose builds it names (e.g. builds
    made after the stability's model was fixed: the out-of-sample pairs)."""
    keyed = frame.study + " " + frame.claim.fillna("")
    _, inst = keep_rates_as_printed(frame[~keyed.isin(set(fixed))])
    firm = inst[inst.firm]
    if involving:
        named = set(involving)
        firm = firm[firm.build_a.isin(named) | firm.build_b.isin(named)]
    out = []
    for study, group in [*firm.groupby("study"), ("all", firm)]:
        builds = set(group.build_a) | set(group.build_b)
        for band, low, high in (*BANDS, ("all", STABLE, math.inf)):
            mine = group[(group.predicted >= low) & (group.predicted < high)]
            kept = int(mine.kept.sum())
            low, high = keep_interval(kept, len(mine))
            out.append({
                "study": study, "band": band, "builds": len(builds),
                "rows": mine.finding.nunique(), "firm_pairs": len(mine), "firm_kept": kept,
                "keep_rate": round(kept / len(mine), 3) if len(mine) else math.nan,
                "keep_low": low, "keep_high": high,
                "predicted_keep": round(float(mine.predicted.mean()), 3) if len(mine) else math.nan,
            })
    return pd.DataFrame(out, columns=list(BAND_COLUMNS))


def reestimate(roots: Sequence[str | Path]) -> int:
    """``pruneaudit between-builds ROOT [ROOT ...]``: re-estimate the package's between-build
    ratios (``data/between_builds.csv``) from the builds under each ``ROOT``
    (:func:`json_builds`, e.g. ``benchmarks/out/builds/quick``); the exit status."""
    pairs = independent_pairs(combine([json_builds(Path(r)) for r in roots]))
    if pairs.empty:
        raise PruneAuditError("no pair of builds with disjoint seed sets: nothing to estimate")
    path = write_ratios(pairs, Path(__file__).resolve().parent / "data" / "between_builds.csv")
    print(ratios(pairs).to_markdown(index=False))
    print(f"wrote {path}")
    return 0
