"""Would a replication keep the book's verdicts? Builds with disjoint seed sets, compared in every
pair.

Builds the given study notebooks (quick Studies 2-5 by default) once with the profile's seeds
and once per ``--offset`` with every seed list moved by it
(:func:`pruneaudit.book.replication.seed_overrides`; Study 5 follows Study 4's), each into its
own results store and output folder, then compares every pair of builds (not only each against
the default build; :func:`pruneaudit.book.replication.compare_builds`) and prints, row by row,
both builds' estimate and interval, verdict and stability, and:

- per study and pair: testable rows, rows firm in each build, rows firm in both and whether those
  agree (they must), borderline rows;
- the rows firm in both builds of a pair whose verdicts differ, per pair;
- capture: how often one build's estimate falls inside the other's 95% interval, by kind of
  interval (read from each row's ``basis``: Student t, bootstrap, rank-trend bootstrap, cluster
  jackknife). Equal-precision replications land inside a correct 95% interval about 83% of the
  time; clearly less means the interval misses variance a replication shows.

Usage::

    PYTHONPATH=src python benchmarks/replication.py [--notebooks 02_qmnist_writers ...] \
        [--profile quick] [--offset 1000 [2000 ...]] [--work /tmp/replication] [--warm] \
        [--recompute] [--compare-only] [--books LABEL=DIR ...] \
        [--save benchmarks/out/replication.md]
    PYTHONPATH=src python benchmarks/replication.py --calibrate

``--warm`` rebuilds over stores that already hold the runs (findings recomputed by the code of
now); ``--recompute`` builds no page: it recomputes each study's findings from the stores through
the study's own ``run`` and ``findings`` (what the page computes, without a kernel);
``--compare-only`` builds nothing; ``--books`` compares the given output folders (e.g. builds on
two devices) instead of the ones under ``--work``. Exits 1 when a row firm in both builds of a
pair changes verdict. The builds of offset 1000 go to ``<work>/store_other`` and
``<work>/book_other``, of another offset ``o`` to ``store_other<o>`` and ``book_other<o>``.

``--calibrate`` builds nothing: it reads the committed replication reports (:data:`REPORTS`),
refreshes the between-build variance ratios of the package
(``src/pruneaudit/audit/data/between_builds.csv``, :mod:`pruneaudit.audit.between_builds`) and
writes ``benchmarks/out/stability_calibration_committed.csv``: per study and in all, over every
ordered pair of builds with disjoint seed sets, how many rows firm in the first keep their
verdict in the second, beside the mean of their stabilities (verdicts recomputed by
:data:`ROW_RULES`); and, for each report of four builds made by the code of now
(:data:`PRINTED_REPORTS`), the same from the verdicts and stabilities as printed: the quick
builds in ``stability_calibration.csv``, the smoke builds in ``stability_calibration_smoke.csv``.
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
from pruneaudit.audit import between_builds as BB  # noqa: E402
from pruneaudit.audit import findings as F  # noqa: E402
from pruneaudit.book import Profile, study_module, study_notebooks  # noqa: E402
from pruneaudit.book.replication import (  # noqa: E402
    EXPECTED_CAPTURE,
    capture,
    compare_builds,
    firm_disagreements,
    interval_kind,
    pair_summary,
    seed_overrides,
)
from pruneaudit.charts.format import number  # noqa: E402
from pruneaudit.runs.store import ResultsStore  # noqa: E402
from pruneaudit.training.device import resolve_device  # noqa: E402

OUT = Path(__file__).resolve().parent / "out"
__all__ = ["EXPECTED_CAPTURE", "interval_kind", "run_study", "recompute", "main"]


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


def _label(offset: int) -> str:
    return "other" if offset == 1000 else f"other{offset}"


#: The committed replication reports and their builds: (file under ``benchmarks/out``, the
#: "default" build, the "other seeds" build). A build shown in two reports is one build (the
#: first report wins); builds that share a seed set form no pair.
CPU_DEFAULT = BB.Build("CPU, default seeds", "default")
CPU_OTHER = BB.Build("CPU, seeds + 1000", "+1000")
H200_DEFAULT = BB.Build("H200 float32, default seeds", "default")
REPORTS = (
    ("replication_gpu.md", H200_DEFAULT, BB.Build("H200 float32, seeds + 1000", "+1000")),
    ("replication.md", CPU_DEFAULT, CPU_OTHER),
    ("replication_study1.md", CPU_DEFAULT, CPU_OTHER),
    ("bf16_verdicts.md", H200_DEFAULT, BB.Build("H200 bfloat16, default seeds", "default")),
)
#: The committed reports of builds made under the package's current rules (every pair of the
#: builds with disjoint seed sets), by profile: the reports (of different studies), the default
#: build, the CSV under ``benchmarks/out`` their calibration on the verdicts and stabilities as
#: printed is written to (the quick builds': the book's calibration).
PRINTED_REPORTS = {
    "smoke": (("replication_smoke.md",), BB.Build("CPU smoke, default seeds", "default"),
              "stability_calibration_smoke.csv"),
    "quick": (("replication_quick.md", "replication_quick_study1.md"),
              BB.Build("CPU quick, default seeds", "default"), "stability_calibration.csv"),
}
#: How each committed row decides its verdict, as its study does (keys: the start of a row's
#: name): null, side and smallest effect of a direction-only row, the paper's printed standard
#: error, how many units our interval rests on (for the paper's standard error from its units).
#: None: the row's rule depends on its data (a null or smallest effect computed per build), so
#: the calibration leaves it out. ``similar``: an equivalence claim with that margin.
ROW_RULES: dict[str, dict | None] = {
    "D1.1": {"paper_se": 0.023}, "D1.2": {"paper_se": 0.001}, "D1.3": {},
    "D1.4 pre-pruning": {"paper_se": 0.005}, "D1.4 a0 effect shrinks with": {"paper_se": 0.002},
    "D1.4 a0 effect shrinks under": {"paper_se": 0.002},
    "D1.5": {"direction": 1, "smallest": 0.05},
    "D2.1": {"units": 16}, "D2.2 group-level": {"similar": 0.5}, "D2.2 a writer": None,
    "D2.3": {}, "D2.4": {}, "D2.5": None,
    "D2.6 digit 1": {"direction": 1, "smallest": 0.01},
    "D2.6 digit 5": {"direction": -1, "smallest": 0.01},
    "D3.1": {"null": 1.0, "direction": 1, "smallest": 1.0},
    "D3.2 fairness pick is fairer": {"direction": 1, "smallest": 0.01},
    "D3.3": {"direction": 1, "smallest": 0.1},
    "D4.1 share": {"null": 0.05}, "D4.1 trend": {"direction": 1, "smallest": 0.5},
    "D4.2": {"units": 10}, "D4.3 share": {"units": 16},
    "D4.3 trend": {"direction": 1, "smallest": 0.5}, "D4.4": {"null": 0.05},
    "D4.5": {"units": 16}, "D4.6 dense": {"units": 16},
    "D4.6 trend": {"direction": 1, "smallest": 0.5}, "D4.9": {"units": 16},
    "D4.10": {"units": 16}, "D4.11": {"direction": 1, "smallest": 0.1},
    "D5.1 natural": {"units": 31}, "D5.1 trend": {"direction": -1, "smallest": 0.5},
    "D5.2 share": {"null": 0.5}, "D5.2 relative": {"units": 31}, "D5.3": {"units": 31},
    "D5.4": {"units": 31},
}


def _row_rule(row) -> object:
    """The verdict rule of one build's committed row (:data:`ROW_RULES`, the package's margins),
    or None."""
    keys = [k for k in ROW_RULES if F.begins_with(row.finding, k)]
    if not keys:
        return None
    spec = ROW_RULES[max(keys, key=len)]
    if spec is None:
        return None
    spec = dict(spec)
    if "similar" in spec:
        margin = spec["similar"]

        def equivalence(low: float, high: float) -> str:
            if -margin < low <= high < margin:
                return F.REPRODUCED
            return F.NOT_REPRODUCED if low >= margin or high <= -margin else F.INCONCLUSIVE

        return equivalence
    paper = None if math.isnan(row.paper) else float(row.paper)
    units, paper_se = spec.pop("units", None), spec.pop("paper_se", None)
    margin = F.margin_for(row.finding) if paper is not None else None
    if paper is not None and paper_se is None and margin is not None:
        paper_se = F.paper_se_from_units(row.ci_low, row.ci_high, units, margin.paper_units)
    return F.verdict_rule(paper, paper_se=paper_se,
                          margin=margin.margin if margin is not None else 0.0, **spec)


def calibrate() -> int:
    """Refresh the package's between-build ratios from the committed reports and write the
    calibration table (module doc); print the instances behind it."""
    frame = BB.combine([BB.report_builds((OUT / f).read_text(), a, b) for f, a, b in REPORTS])
    pairs = BB.independent_pairs(frame)
    data = Path(BB.__file__).resolve().parent / "data" / "between_builds.csv"
    BB.write_ratios(pairs, data)
    F.between_builds.cache_clear()
    ratios = BB.ratios(pairs)
    table, inst = BB.keep_rates(frame, _row_rule, F.between_ratio_of_study)
    sampling, _ = BB.keep_rates(frame, _row_rule, lambda study: 0.0)
    table.to_csv(OUT / "stability_calibration_committed.csv", index=False)
    seeds = frame.groupby("study").seeds.nunique().rename("seed sets")
    left_out = sorted(set(frame.finding) - set(inst.finding))
    border = inst[~inst.firm & inst.predicted.notna()]
    border_table = border.groupby("study").agg(
        instances=("kept", "size"), flipped=("kept", lambda k: int((~k).sum())),
        predicted_flip=("predicted", lambda p: round(float((1 - p).mean()), 3)))
    flips = inst[inst.firm & ~inst.kept]
    lines = [
        "# Stability calibration: committed replications", "",
        "Builds: " + "; ".join(f"{f}: {a.label} / {b.label}" for f, a, b in REPORTS) + ". A "
        "pair is two builds with disjoint seed sets; `builds` counts the builds entering a "
        "study's pairs (a device or precision variant of one seed set counts once per variant), "
        "and every study has two seed sets only (default and + 1000), so no study has four "
        "mutually independent builds. The ratios are estimated from the same pairs the keep "
        "rates count (in-sample).", "",
        "Between-build variance ratio per study (written to the package's "
        "data/between_builds.csv):", "", ratios.to_markdown(index=False), "",
        "Independent seed sets per study:", "", seeds.to_frame().to_markdown(), "",
        "Firm rows kept, with the between-build spread "
        "(stability_calibration_committed.csv):", "",
        table.to_markdown(index=False), "",
        "The same with sampling alone (no between-build spread):", "",
        sampling.to_markdown(index=False), "",
        "Borderline rows: share that flipped beside the predicted share:", "",
        border_table.to_markdown(), "",
        "Firm rows that flipped:", "",
        flips.to_markdown(index=False) if len(flips) else "None.", "",
        "Rows left out (their rule depends on each build's data): " + "; ".join(left_out), "",
        *(line for profile, (reports, default, csv) in PRINTED_REPORTS.items()
          for line in _printed_section(
              profile, [r for r in reports if (OUT / r).is_file()], default, csv)),
    ]
    text = "\n".join(lines)
    print(text)
    (OUT / "stability_calibration.md").write_text(text)
    return 0


def _printed_section(
    profile: str, reports: list[str], default: BB.Build, csv: str
) -> list[str]:
    """The calibration on the ``reports`` of one of :data:`PRINTED_REPORTS` (written to
    ``csv``; nothing without a report): keep rates by the stability each build printed, at the
    book's threshold and stricter ones, borderline flips, firm rows that flipped, and the
    between-build ratios its own pairs would give (not written)."""
    if not reports:
        return []
    frame = BB.combine([BB.report_builds((OUT / r).read_text(), default) for r in reports])
    table, inst = BB.keep_rates_as_printed(frame)
    table.to_csv(OUT / csv, index=False)
    by_cut = pd.DataFrame([
        {"stability at least": cut, "instances": len(f), "kept": int(f.kept.sum()),
         "keep": round(float(f.kept.mean()), 3) if len(f) else math.nan,
         "predicted_keep": round(float(f.predicted.mean()), 3) if len(f) else math.nan}
        for cut in (F.STABLE, 0.9, 0.95) for f in [inst[inst.predicted >= cut]]])
    border = inst[inst.predicted < F.STABLE]
    flips = inst[inst.firm & ~inst.kept]
    return [
        f"## Profile {profile}: independent builds, verdicts as printed ({', '.join(reports)})",
        "",
        f"The {profile} builds with disjoint seed sets made by the code of now (per study: "
        "`builds`): every ordered "
        "pair, each row firm in the first (printed stability at least "
        f"{F.STABLE}) against the second's printed verdict, beside the first's stability. The "
        "between-build ratios the stabilities used were estimated from the committed reports "
        "above, not from these builds. Rows printed without a stability are left out "
        f"({csv}):", "",
        table.to_markdown(index=False), "",
        "Keep rate by printed stability:", "", by_cut.to_markdown(index=False), "",
        f"Borderline instances: {len(border)}, flipped {int((~border.kept).sum())} "
        f"({(~border.kept).mean():.3f}) beside the predicted {(1 - border.predicted).mean():.3f}.",
        "",
        "Between-build ratios these pairs alone would give (not written to the package):", "",
        BB.ratios(BB.independent_pairs(frame)).to_markdown(index=False), "",
        "Firm rows that flipped:", "",
        flips.to_markdown(index=False) if len(flips) else "None.", "",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notebooks", nargs="+", default=list(study_notebooks()))
    parser.add_argument("--profile", default="quick")
    parser.add_argument("--offset", nargs="+", type=int, default=[1000],
                        help="one build per offset of every seed list, beside the default")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--work", type=Path, default=Path("/tmp/replication"))
    parser.add_argument("--warm", action="store_true", help="rebuild over filled stores")
    parser.add_argument("--recompute", action="store_true",
                        help="findings from the stores through each study's run, no pages")
    parser.add_argument("--compare-only", action="store_true", help="build nothing")
    parser.add_argument("--books", nargs="+", metavar="LABEL=DIR",
                        help="compare these output folders (implies --compare-only)")
    parser.add_argument("--calibrate", action="store_true",
                        help="refresh the between-build ratios and the calibration table")
    parser.add_argument("--save", type=Path, help="also write the tables here")
    parser.add_argument("--note", default="", help="a line under the title (where it was built)")
    parser.add_argument("--title", default=None,
                        help="the report's title when the builds are not seed offsets "
                             "(with --books: another precision, another device)")
    args = parser.parse_args(argv)
    if args.calibrate:
        return calibrate()
    if args.books:
        outs = dict(item.split("=", 1) if "=" in item else (Path(item).name, item)
                    for item in args.books)
        outs = {label: Path(path) for label, path in outs.items()}
        sets: dict[str, dict] = {label: {} for label in outs}
    else:
        sets = {"default": {}} | {
            _label(o): seed_overrides(args.notebooks, args.profile, o) for o in args.offset}
        outs = {k: args.work / f"book_{k}" for k in sets}
        stores = {k: args.work / f"store_{k}" for k in sets}
        if args.recompute:
            for label, overrides in sets.items():
                recompute(args.notebooks, args.profile, overrides, stores[label], outs[label])
        elif not args.compare_only:
            for label, overrides in sets.items():
                proc = build(args.notebooks, args.profile, args.threads, stores[label],
                             outs[label], overrides, cold=not args.warm)
                if proc.wait():
                    sys.exit(f"build {label} failed: see {outs[label] / 'build.log'}")
    table = pd.concat(
        [compare_builds(name, {k: load(out, name) for k, out in outs.items()})
         for name in args.notebooks], ignore_index=True)
    shown = table.drop(columns=["firm both", "same direction"]).copy()
    for col in ("stability (A)", "stability (B)"):
        shown[col] = shown[col].map(lambda v: "-" if pd.isna(v) else f"{v:.2f}")
    shown["paper"] = shown["paper"].map(lambda v: "direction" if pd.isna(v) else number(v))
    builds = (", ".join(outs) if args.books else
              "default seeds vs " + ", ".join(f"seeds + {o}" for o in args.offset))
    title = args.title or (f"Replication: {', '.join(args.notebooks)}, profile {args.profile}, "
                           f"{builds}, every pair")
    seeds = [f"Seed overrides of build {k}: " + "; ".join(f"{n}={v}" for n, v in o.items())
             for k, o in sets.items() if o]
    flips = firm_disagreements(table)
    lines = [
        f"# {title}", "", *([args.note, ""] if args.note else []),
        *([] if args.title or args.books else [*seeds, ""]),
        "## Per study and pair of builds", "", pair_summary(table).to_markdown(), "",
        "## Firm in both builds of a pair, verdicts differ", "",
        flips.to_markdown(index=False) if len(flips) else "None.", "",
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
    return int(len(flips) > 0)


if __name__ == "__main__":
    raise SystemExit(main())
