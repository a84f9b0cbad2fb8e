"""The committed builds judged again under today's claims and rules.

Each row of each committed build (``benchmarks/out/builds/<profile>/<build>/``) keeps its
estimate, interval, units and between-build spread and is judged again by
:func:`pruneaudit.audit.rejudge` under its claim as declared now: its verdict is exact (a verdict
reads the interval and the claim alone); its stability is exact for builds that record their
interval's degrees of freedom, and for older builds uses the degrees of freedom their basis
prints (``df 5.1``, rounded to one decimal) or ``units - 1`` for a Student-t interval, else none:
the report measures how far that puts the stability of rows whose verdict did not change from
the one the build printed. Rows whose claim is gone (merged or renamed) or whose quantity is no
longer the one the build computed are listed, not judged.

Writes ``benchmarks/out/rejudged_<profile>.csv`` (one row per build and row: before and after)
and ``rejudged_<profile>.md`` (the headline rows in every build, the rows whose verdict
changed, the calibration by band over the rejudged builds, and the check that no row whose
interval lies inside its negligible band reads as an effect).

Usage::

    PYTHONPATH=src python benchmarks/rejudge_builds.py [--profile quick]
"""

from __future__ import annotations

import argparse
import json
import math
import re
from dataclasses import replace
from pathlib import Path

import pandas as pd
from replication import OUT_OF_SAMPLE  # builds made after the stability's model was fixed

from pruneaudit import audit
from pruneaudit.audit import between_builds as BB
from pruneaudit.audit import findings as F
from pruneaudit.audit.stability import WIDENED
from pruneaudit.book import study_of

OUT = Path(__file__).resolve().parent / "out"
BUILDS = OUT / "builds"
#: Verdicts that say the effect is there (on the paper's side, or our question's).
#: Rows renamed since older builds, their quantity unchanged (beyond rows took B ids on
#: 5 Dec 2026: ``claims_changelog.csv``); a renamed row whose definition changed is not judged.
RENAMED = {
    "D3.2 held out": "B3.2 held out", "D4.3 per error": "B4.3 per error",
    "D4.5 excess": "B4.5 excess", "D4.10 excess": "B4.10 excess",
    "D4.10 step excess": "B4.10 step excess", "D4.9 writers": "B4.9 writers",
    "D4.11 writers": "B4.11 writers", "D4.11 writers excess": "B4.11 writers excess",
}
PRESENT = (audit.REPRODUCED, audit.SMALLER, audit.LARGER, audit.SIZE_UNCLEAR,
           audit.SAME_DIRECTION, audit.PRESENT)


def legacy_df(row: audit.Finding) -> float | None:
    """The degrees of freedom of an older build's row: recorded, else printed in its basis
    (``df 5.1``), else ``units - 1`` for a Student-t interval, else None (normal or bootstrap)."""
    if row.df is None or not math.isnan(row.df):
        return row.df
    printed = re.search(r"\bdf ([0-9]+(?:\.[0-9]+)?)", row.basis)
    if printed:
        return float(printed.group(1))
    if "Student-t" in row.basis and row.units:
        return float(row.units - 1)
    return None


def _plain(value: float | None) -> float:
    return math.nan if value is None else float(value)


def rejudged(profile: str, widened: dict[str, float] | None = None) -> pd.DataFrame:
    """One row per build and finding: the verdict and stability as built and as judged now
    (``status``: ``judged``, ``untested`` (left as built), ``claim gone`` or ``quantity
    changed``). A row of an older build (no recorded degrees of freedom) has its between-build
    variance times its study's factor in ``widened`` (default
    :data:`pruneaudit.audit.stability.WIDENED`; a newer build's row already used it)."""
    widened = WIDENED if widened is None else widened
    out = []
    root = BUILDS / profile
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        for path in sorted(folder.glob("*.findings.json")):
            study = path.name.split(".")[0]
            claims = study_of(study).claims()
            for item in json.loads(path.read_text()):
                row = audit.from_json(item)
                row = replace(row, claim=RENAMED.get(row.claim, row.claim))
                claim = claims.get(row.claim)
                status, new = "judged", row
                if claim is None:
                    status = "claim gone"
                elif row.verdict in F.UNTESTED or row.ours is None:
                    status = "untested"
                elif row.definition != claim.quantity:
                    status = "quantity changed"
                else:
                    older = row.df is not None and math.isnan(row.df)
                    scale = math.sqrt(widened.get(study, 1.0)) if older else 1.0
                    between = None if row.between_sd is None else row.between_sd * scale
                    new = audit.rejudge(replace(row, df=legacy_df(row), between_sd=between),
                                        claim)
                inside = (new.negligible is not None and row.ci_low is not None
                          and -new.negligible < row.ci_low - (claim.null if claim else 0.0)
                          and row.ci_high - (claim.null if claim else 0.0) < new.negligible)
                out.append({
                    "study": study, "claim": row.claim, "build": folder.name, "status": status,
                    "kind_before": row.comparability, "kind_after": new.comparability,
                    "headline": bool(claim.headline) if claim else False,
                    "ours": _plain(row.ours), "ci_low": _plain(row.ci_low),
                    "ci_high": _plain(row.ci_high),
                    "verdict_before": row.verdict, "stability_before": _plain(row.stability),
                    "verdict_after": new.verdict, "stability_after": _plain(new.stability),
                    "inside_negligible": bool(inside and status == "judged"),
                })
    return pd.DataFrame(out)


def _as_builds(frame: pd.DataFrame) -> pd.DataFrame:
    """The rejudged rows in the form :func:`pruneaudit.audit.between_builds.keep_by_band`
    reads."""
    judged = frame[frame.status != "claim gone"]
    return pd.DataFrame({
        "study": judged.study, "finding": judged.study + " " + judged.claim,
        "claim": judged.claim, "kind": judged.kind_after, "paper": math.nan,
        "build": judged.build, "seeds": judged.build, "verdict": judged.verdict_after,
        "ours": judged.ours, "ci_low": judged.ci_low, "ci_high": judged.ci_high,
        "stability": judged.stability_after,
    })


def report(profile: str) -> str:
    frame = rejudged(profile)
    frame.to_csv(OUT / f"rejudged_{profile}.csv", index=False)
    judged = frame[frame.status == "judged"]
    kept = judged[(judged.verdict_before == judged.verdict_after)
                  & ~judged.study.isin(list(WIDENED))]
    drift = (kept.stability_after - kept.stability_before).abs()
    lines = [f"# The committed {profile} builds judged under today's claims and rules", "",
             f"Builds: {', '.join(sorted(frame.build.unique()))}. Rows judged again: "
             f"{len(judged)}; left as built (untested by the build): "
             f"{(frame.status == 'untested').sum()}; not judged, their quantity changed: "
             f"{sorted(set(frame.claim[frame.status == 'quantity changed']))}; their claim gone "
             f"(merged or renamed): {sorted(set(frame.claim[frame.status == 'claim gone']))}.",
             "",
             f"Verdicts changed in {(judged.verdict_before != judged.verdict_after).sum()} of "
             f"{len(judged)} judged rows. Where the verdict stayed (studies not widened), the "
             "stability recomputed "
             f"from the degrees of freedom the build printed is within {drift.max():.3f} of the "
             f"printed one (median {drift.median():.3f}): older builds did not record them "
             "exactly.", ""]
    wrong = judged[judged.inside_negligible & judged.verdict_after.isin(PRESENT)]
    lines += [f"Rows whose interval lies inside their negligible band and read as an effect: "
              f"{len(wrong)} now, "
              f"{(judged.inside_negligible & judged.verdict_before.isin(PRESENT)).sum()} as "
              "built.", ""]
    heads = frame[frame.headline].copy()
    for when in ("before", "after"):
        stab = heads[f"stability_{when}"].round(2).astype(str)
        heads[when] = heads[f"verdict_{when}"] + " (" + stab + ")"
    lines += ["## Headline rows (today's headlines), verdict (stability), before -> after", ""]
    for (study, claim), group in heads.groupby(["study", "claim"], sort=True):
        lines += [f"### {study} {claim}", "",
                  group[["build", "status", "kind_before", "kind_after", "before", "after"]]
                  .to_markdown(index=False), ""]
    changed = judged[judged.verdict_before != judged.verdict_after]
    counts = changed.groupby(["study", "claim", "verdict_before", "verdict_after"]).size()
    lines += ["## Rows whose verdict changed (builds)", "",
              counts.rename("builds").reset_index().to_markdown(index=False), ""]
    builds = _as_builds(frame)
    fixed = BB.fixed_rows(builds)
    lines += ["## Calibration over the rejudged builds", "",
              f"Left out as fixed: {', '.join(fixed) or 'none'}. Between-build variance "
              f"widened: {WIDENED} (chosen on these builds: in sample for those studies).", "",
              BB.keep_by_band(builds, fixed).to_markdown(index=False), ""]
    new = [b for b in OUT_OF_SAMPLE.get(profile, ()) if b in set(builds.build)]
    if new:
        lines += [f"Out of sample (pairs with {', '.join(new)}):", "",
                  BB.keep_by_band(builds, fixed, involving=new).to_markdown(index=False), ""]
    text = "\n".join(lines)
    (OUT / f"rejudged_{profile}.md").write_text(text)
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="quick")
    args = parser.parse_args(argv)
    print(report(args.profile))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
