"""Replications of the book: other seed sets, and the comparison of builds in every pair.

Every parameter whose name ends in ``seeds`` and holds a list of integers (Study 1's, 2's, 3's
and 4's ``seeds``, Study 5's ``reference_seeds``) is shifted by ``offset``; Study 5's members are
Study 4's populations, so they follow Study 4's seeds. :func:`seed_overrides` refuses an offset
that would leave a seed in both sets.

:func:`compare_builds` compares the findings of several builds (seed sets, devices) in every
pair, :func:`pair_summary` counts per study and pair, :func:`firm_disagreements` lists the rows
firm in both builds of a pair whose verdicts differ (a stability that claims too much), and
:func:`capture` counts how often one build's estimate lies in the other's interval.
"""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Mapping, Sequence

import pandas as pd

from pruneaudit.audit import findings as F
from pruneaudit.audit.findings import Finding
from pruneaudit.book.profiles import Profile, notebook_reads
from pruneaudit.charts.format import number
from pruneaudit.errors import PruneAuditError


def _seed_list(value: object) -> bool:
    return (
        isinstance(value, list | tuple)
        and len(value) > 0
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    )


def seed_overrides(
    names: Sequence[str], profile: str | os.PathLike | Mapping | Profile, offset: int
) -> dict[str, list[int]]:
    """``{"NAME.key": seeds + offset}`` for every seed list of the notebooks ``names`` under
    ``profile`` (its values over each study Params' defaults)."""
    if not isinstance(offset, int) or isinstance(offset, bool) or offset == 0:
        raise PruneAuditError(f"seed offset must be a nonzero integer, got {offset!r}")
    profile = Profile.read(profile)
    overrides: dict[str, list[int]] = {}
    for name in names:
        for key, value in profile.values(name).items():
            if not (key.endswith("seeds") and _seed_list(value)):
                continue
            moved = [int(v) + offset for v in value]
            if set(moved) & set(value):
                raise PruneAuditError(
                    f"seed offset {offset} leaves seeds of {name}.{key} ({list(value)}) in both "
                    f"sets; use an offset larger than {max(value) - min(value)}"
                )
            overrides[f"{name}.{key}"] = moved
    return overrides


def replication_overrides(
    profile: str | os.PathLike | Profile, names: Sequence[str] | None, offset: int
) -> dict[str, object]:
    """The ``-p`` overrides of a replication with every seed list of the selected notebooks
    (default: the profile's) and of the notebooks they read moved by ``offset``
    (:func:`seed_overrides`)."""
    profile = Profile.read(profile, {})
    names = list(names) if names else profile.notebooks
    read = [t for n in names for t in notebook_reads(n).values()]
    return dict(seed_overrides(list(dict.fromkeys([*names, *read])), profile, offset))


#: Share of equal-precision replications inside a correct 95% interval: P(|Z| < 1.96/sqrt 2).
EXPECTED_CAPTURE = 0.834


def interval_kind(basis: str) -> str:
    """The kind of a row's interval, from the words of its ``basis``."""
    text = basis.lower()
    if "jackknife" in text:
        return "cluster jackknife"
    if "spearman" in text or "rank" in text:
        return "rank-trend bootstrap"
    if "bootstrap" in text:
        return "bootstrap"
    if "student" in text or "welch" in text or "t interval" in text:
        return "Student t"
    return "other"


def _cell(row: Finding) -> str:
    """Ours and its interval, three significant digits (the book's reader formatter)."""
    if row.ours is None or not math.isfinite(row.ours):
        return "-"
    if row.ci_low is None or not math.isfinite(row.ci_low):
        return f"{number(row.ours)} [n/a]"
    return f"{number(row.ours)} [{number(row.ci_low)}, {number(row.ci_high)}]"


def _inside(row: Finding, other: Finding) -> bool | None:
    values = (row.ci_low, row.ci_high, other.ours)
    if any(v is None or not math.isfinite(v) for v in values):
        return None
    return row.ci_low <= other.ours <= row.ci_high


def compare_builds(study: str, books: Mapping[str, Sequence[Finding]]) -> pd.DataFrame:
    """One row per finding of ``study`` and unordered pair of builds (``books``: each build's
    label and rows, in order; every pair, not only each against the first) that both hold it:
    both builds' estimate and interval, verdict (``borderline: ...`` as printed) and stability,
    whether the row is firm in both and whether the verdicts and directions agree, and whether
    each build's estimate lies in the other's interval."""
    rows = []
    for (label_a, rows_a), (label_b, rows_b) in itertools.combinations(books.items(), 2):
        by_name = {r.finding: r for r in rows_b}
        for ra in rows_a:
            rb = by_name.get(ra.finding)
            if rb is None or ra.verdict in F.UNTESTED or rb.verdict in F.UNTESTED:
                continue
            rows.append({
                "study": study, "finding": ra.finding, "kind": interval_kind(ra.basis),
                "paper": ra.paper, "A": label_a, "B": label_b, "ours (A)": _cell(ra),
                "verdict (A)": F.verdict_label(ra), "stability (A)": ra.stability,
                "ours (B)": _cell(rb), "verdict (B)": F.verdict_label(rb),
                "stability (B)": rb.stability,
                "firm both": not F.is_borderline(ra) and not F.is_borderline(rb),
                "same verdict": ra.verdict == rb.verdict,
                "same direction": ra.direction == rb.direction,
                "B in A's interval": _inside(ra, rb), "A in B's interval": _inside(rb, ra),
            })
    return pd.DataFrame(rows, columns=list(COMPARE_COLUMNS))


#: Columns of :func:`compare_builds`.
COMPARE_COLUMNS = (
    "study", "finding", "kind", "paper", "A", "B", "ours (A)", "verdict (A)", "stability (A)",
    "ours (B)", "verdict (B)", "stability (B)", "firm both", "same verdict", "same direction",
    "B in A's interval", "A in B's interval",
)


def pair_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per study and pair of builds: testable rows, rows firm in each build, firm in both, how
    many of those disagree (none should), borderline rows and all disagreements."""
    def per(group: pd.DataFrame) -> pd.Series:
        firm_a = ~group["verdict (A)"].str.startswith("borderline")
        firm_b = ~group["verdict (B)"].str.startswith("borderline")
        both = group["firm both"].astype(bool)
        same = group["same verdict"].astype(bool)
        return pd.Series({
            "testable rows": len(group), "firm (A)": int(firm_a.sum()),
            "firm (B)": int(firm_b.sum()), "firm in both": int(both.sum()),
            "firm in both, verdicts differ": int((both & ~same).sum()),
            "borderline (A)": int((~firm_a).sum()), "borderline (B)": int((~firm_b).sum()),
            "verdicts differ (all rows)": int((~same).sum()),
        })
    if table.empty:
        return pd.DataFrame()
    return table.groupby(["study", "A", "B"], sort=False).apply(per, include_groups=False)


def firm_disagreements(table: pd.DataFrame) -> pd.DataFrame:
    """The rows firm in both builds of a pair whose verdicts differ, per pair."""
    if table.empty:
        return table
    both = table["firm both"].astype(bool) & ~table["same verdict"].astype(bool)
    return table.loc[both, ["study", "A", "B", "finding", "ours (A)", "verdict (A)",
                            "stability (A)", "ours (B)", "verdict (B)", "stability (B)"]]


def capture(table: pd.DataFrame) -> pd.DataFrame:
    """By kind of interval: how often each build's estimate is inside the other's interval."""
    long = pd.concat([
        table[["kind", "B in A's interval"]].rename(columns={"B in A's interval": "inside"}),
        table[["kind", "A in B's interval"]].rename(columns={"A in B's interval": "inside"}),
    ]).dropna()
    long["inside"] = long["inside"].astype(bool)
    out = long.groupby("kind")["inside"].agg(pairs="size", captured="sum").astype(int)
    out["capture"] = out["captured"] / out["pairs"]
    out["expected"] = EXPECTED_CAPTURE
    return out
