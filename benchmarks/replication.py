"""Would a replication keep the book's verdicts? Two builds, default seeds and a disjoint set.

Builds the given study notebooks (quick Studies 2-5 by default) twice, each into its own results
store and output folder: once with the profile's seeds and once with every seed list moved by
``--offset`` (:func:`pruneaudit.book.replication.seed_overrides`; Study 5 follows Study 4's),
then prints, row by row, both builds' estimate and interval, verdict and stability, and:

- per study: testable rows, rows firm in each build, rows firm in both and whether those agree
  (they must), borderline rows;
- capture: how often one build's estimate falls inside the other's 95% interval, by kind of
  interval (read from each row's ``basis``: Student t, bootstrap, rank-trend bootstrap, cluster
  jackknife). Equal-precision replications land inside a correct 95% interval about 83% of the
  time; clearly less means the interval misses variance a replication shows.

Usage::

    PYTHONPATH=src python benchmarks/replication.py [--notebooks 02_qmnist_writers ...] \
        [--profile quick] [--offset 1000] [--work /tmp/replication] [--warm] [--compare-only] \
        [--save benchmarks/out/replication.md]

``--warm`` rebuilds over stores that already hold the runs (findings recomputed by the code of
now); ``--recompute`` builds no page: it recomputes each study's findings from the stores through
the study's own ``run`` and ``findings`` (what the page computes, without a kernel);
``--compare-only`` builds nothing. Exits 1 when a row firm in both builds changes verdict.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from verdict_stability import build  # noqa: E402

from pruneaudit import audit, config  # noqa: E402
from pruneaudit.audit import findings as F  # noqa: E402
from pruneaudit.book.profiles import Profile, study_module  # noqa: E402
from pruneaudit.book.replication import seed_overrides  # noqa: E402
from pruneaudit.charts.format import number  # noqa: E402
from pruneaudit.runs.store import ResultsStore  # noqa: E402
from pruneaudit.training.device import resolve_device  # noqa: E402

STUDIES = ["02_qmnist_writers", "03_pareto_selection", "04_compression_impact", "05_robustness"]
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


def run_study(name: str, profile: str, overrides: dict, store: Path) -> tuple[object, object]:
    """The study's checked ``Params`` under ``profile`` and ``overrides`` and its ``run`` on
    ``store`` (runs missing from the store are trained, on the parameters' device)."""
    params = Profile.read(profile, overrides).study_params(name)
    config.set_device(params.device)
    return params, study_module(name).run(params, ResultsStore(store), progress=False)


def recompute(names: list[str], profile: str, overrides: dict, store: Path, out: Path) -> None:
    """Write ``<out>/<name>.findings.json`` for each notebook from the runs in ``store``, through
    its study's ``Params``, ``run`` and ``findings`` (:func:`run_study`)."""
    out.mkdir(parents=True, exist_ok=True)
    for name in names:
        start = time.perf_counter()
        _, result = run_study(name, profile, overrides, store)
        findings = study_module(name).findings(result)
        audit.write_findings_json(findings, out / f"{name}.findings.json")
        print(f"{name}: run and findings {time.perf_counter() - start:.0f} s "
              f"on {resolve_device()} ({store.name})", flush=True)


def load(out: Path, name: str) -> list[audit.Finding]:
    return [F.from_json(item) for item in json.loads((out / f"{name}.findings.json").read_text())]


def _cell(row: audit.Finding) -> str:
    """Ours and its interval, three significant digits (the book's reader formatter)."""
    if row.ours is None or not math.isfinite(row.ours):
        return "-"
    if row.ci_low is None or not math.isfinite(row.ci_low):
        return f"{number(row.ours)} [n/a]"
    return f"{number(row.ours)} [{number(row.ci_low)}, {number(row.ci_high)}]"


def _inside(row: audit.Finding, other: audit.Finding) -> bool | None:
    values = (row.ci_low, row.ci_high, other.ours)
    if any(v is None or not math.isfinite(v) for v in values):
        return None
    return row.ci_low <= other.ours <= row.ci_high


def compare(name: str, outs: list[Path]) -> pd.DataFrame:
    """One row per finding present in both builds."""
    a, b = ({r.finding: r for r in load(out, name)} for out in outs)
    rows = []
    for finding, ra in a.items():
        rb = b.get(finding)
        if rb is None or ra.verdict == F.NOT_TESTABLE:
            continue
        rows.append({
            "study": name, "finding": finding, "kind": interval_kind(ra.basis),
            "paper": ra.paper, "ours (default)": _cell(ra),
            "verdict (default)": F.verdict_label(ra), "stability (default)": ra.stability,
            "ours (other seeds)": _cell(rb), "verdict (other seeds)": F.verdict_label(rb),
            "stability (other seeds)": rb.stability,
            "firm both": not F.is_borderline(ra) and not F.is_borderline(rb),
            "same verdict": ra.verdict == rb.verdict,
            "same direction": ra.direction == rb.direction,
            "B in A's interval": _inside(ra, rb), "A in B's interval": _inside(rb, ra),
        })
    return pd.DataFrame(rows)


def summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per study: testable rows, firm rows in each build, firm in both, and their agreement."""
    def per(group: pd.DataFrame) -> pd.Series:
        firm_a = group["verdict (default)"].map(lambda v: not v.startswith("borderline"))
        firm_b = group["verdict (other seeds)"].map(lambda v: not v.startswith("borderline"))
        both = group["firm both"]
        return pd.Series({
            "testable rows": len(group), "firm (default)": int(firm_a.sum()),
            "firm (other seeds)": int(firm_b.sum()), "firm in both": int(both.sum()),
            "firm in both, verdicts differ": int((both & ~group["same verdict"]).sum()),
            "borderline (default)": int((~firm_a).sum()),
            "borderline (other seeds)": int((~firm_b).sum()),
            "verdicts differ (all rows)": int((~group["same verdict"]).sum()),
        })
    return table.groupby("study").apply(per, include_groups=False)


def capture(table: pd.DataFrame) -> pd.DataFrame:
    """By kind of interval: how often each build's estimate is inside the other's interval."""
    long = pd.concat([
        table[["kind", "B in A's interval"]].rename(columns={"B in A's interval": "inside"}),
        table[["kind", "A in B's interval"]].rename(columns={"A in B's interval": "inside"}),
    ]).dropna()
    long["inside"] = long["inside"].astype(bool)
    out = long.groupby("kind")["inside"].agg(pairs="size", captured="sum")
    out = out.astype(int)
    out["capture"] = out["captured"] / out["pairs"]
    out["expected"] = EXPECTED_CAPTURE
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notebooks", nargs="+", default=STUDIES)
    parser.add_argument("--profile", default="quick")
    parser.add_argument("--offset", type=int, default=1000)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--work", type=Path, default=Path("/tmp/replication"))
    parser.add_argument("--warm", action="store_true", help="rebuild over filled stores")
    parser.add_argument("--recompute", action="store_true",
                        help="findings from the stores through each study's run, no pages")
    parser.add_argument("--compare-only", action="store_true", help="build nothing")
    parser.add_argument("--save", type=Path, help="also write the tables here")
    parser.add_argument("--note", default="", help="a line under the title (where it was built)")
    parser.add_argument("--title", default=None,
                        help="the report's title when the second build is not the seed offset "
                             "(with --compare-only: another precision, another device)")
    args = parser.parse_args(argv)
    sets = {"default": {}, "other": seed_overrides(args.notebooks, args.profile, args.offset)}
    stores = [args.work / f"store_{k}" for k in sets]
    outs = [args.work / f"book_{k}" for k in sets]
    if args.recompute:
        for overrides, store, out in zip(sets.values(), stores, outs, strict=True):
            recompute(args.notebooks, args.profile, overrides, store, out)
    elif not args.compare_only:
        for (label, overrides), store, out in zip(sets.items(), stores, outs, strict=True):
            proc = build(args.notebooks, args.profile, args.threads, store, out, overrides,
                         cold=not args.warm)
            if proc.wait():
                sys.exit(f"build {label} failed: see {out / 'build.log'}")
    table = pd.concat([compare(name, outs) for name in args.notebooks], ignore_index=True)
    shown = table.drop(columns=["firm both", "same direction"]).copy()
    for col in ("stability (default)", "stability (other seeds)"):
        shown[col] = shown[col].map(lambda v: "-" if pd.isna(v) else f"{v:.2f}")
    shown["paper"] = shown["paper"].map(lambda v: "direction" if pd.isna(v) else number(v))
    title = args.title or (f"Replication: {', '.join(args.notebooks)}, profile {args.profile}, "
                           f"default seeds vs seeds + {args.offset}")
    seeds = ("Seed overrides of the second build: "
             + "; ".join(f"{k}={v}" for k, v in sets["other"].items()))
    lines = [
        f"# {title}", "", *([args.note, ""] if args.note else []),
        *([] if args.title else [seeds, ""]),
        "## Per study", "", summary(table).to_markdown(), "",
        "## Capture: one build's estimate inside the other's 95% interval", "",
        capture(table).to_markdown(floatfmt=("", ".0f", ".0f", ".2f", ".2f")), "",
        "## Row by row", "", shown.to_markdown(index=False), "",
    ]
    text = "\n".join(lines)
    print(text)
    args.work.mkdir(parents=True, exist_ok=True)
    (args.work / "replication.md").write_text(text)
    if args.save:
        args.save.write_text(text)
    return int(((table["firm both"]) & ~table["same verdict"]).any())


if __name__ == "__main__":
    raise SystemExit(main())
