"""Would a replication keep the book's verdicts? Builds with disjoint seed sets, compared in every
pair.

Builds the given study notebooks (quick Studies 2-5 by default) once with the profile's seeds
and once per ``--offset`` with every seed list moved by it
(:func:`pruneaudit.book.builder.replication.seed_overrides`; Study 5 follows Study 4's), each
into its own results store and output folder, then compares every pair of builds (not only each
against the default build; :func:`pruneaudit.book.builder.replication.compare_builds`) and
prints, row by row, both builds' estimate and interval, verdict and stability, and:

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
        [--recompute [--save-builds [--offsets-only]]] [--compare-only] [--books LABEL=DIR ...] \
        [--save benchmarks/out/replication.md]
    PYTHONPATH=src python benchmarks/replication.py --report

``--warm`` rebuilds over stores that already hold the runs (findings recomputed by the code of
now); ``--recompute`` builds no page: it recomputes each study's findings from the stores through
the study's own ``run`` and ``findings`` (what the page computes, without a kernel);
``--compare-only`` builds nothing; ``--books`` compares the given output folders (e.g. builds on
two devices) instead of the ones under ``--work``. Exits 1 when a row firm in both builds of a
pair changes verdict. The builds of offset 1000 go to ``<work>/store_other`` and
``<work>/book_other``, of another offset ``o`` to ``store_other<o>`` and ``book_other<o>``.

``--recompute --save-builds`` keeps each build's findings JSON under
``benchmarks/out/builds/<profile>/<build>/`` (committed); with ``--offsets-only`` it computes
only the offsets' builds, for a new build beside the committed ones. ``--report`` builds
nothing: from the committed builds of each profile it recomputes
``benchmarks/out/stability_calibration.csv`` (quick) and ``stability_calibration_smoke.csv``
(smoke), and ``stability_calibration.md``: per study and in all, and per band of the first
build's stability (0.80-0.95, >= 0.95, all), over every ordered pair of builds, how many rows
firm in the first keep their verdict in the second, beside the mean of their stabilities
(:func:`pruneaudit.audit.between_builds.keep_by_band`); rows whose estimate and interval are
equal in every committed build (:func:`pruneaudit.audit.between_builds.fixed_rows`, found from
the builds) are left out. Where a profile has builds made after the claims and the
stability's model were fixed (:data:`OUT_OF_SAMPLE`), it also counts the pairs with those builds
alone (``stability_calibration_out_of_sample.csv``). It writes nothing under ``src/``: the
package's between-build spreads are its own data.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from verdict_stability import build  # noqa: E402

from pruneaudit import audit  # noqa: E402
from pruneaudit.audit import between_builds as BB  # noqa: E402
from pruneaudit.book import Profile, study_notebooks, study_of  # noqa: E402
from pruneaudit.book.builder.replication import (  # noqa: E402
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
    return params, study_of(name).run(params, ResultsStore(store), progress=False,
                                          runtime=params.runtime())


def recompute(names: list[str], profile: str, overrides: dict, store: Path, out: Path) -> None:
    """Write ``<out>/<name>.findings.json`` for each notebook from the runs in ``store``, through
    its study's ``Params``, ``run`` and ``findings`` (:func:`run_study`)."""
    out.mkdir(parents=True, exist_ok=True)
    for name in names:
        start = time.perf_counter()
        _, result = run_study(name, profile, overrides, store)
        findings = study_of(name).findings(result)
        audit.write_findings_json(findings, out / f"{name}.findings.json")
        print(f"{name}: run and findings {time.perf_counter() - start:.0f} s "
              f"on {resolve_device()} ({store.name})", flush=True)


def load(out: Path, name: str) -> list[audit.Finding]:
    return [audit.from_json(item)
            for item in json.loads((out / f"{name}.findings.json").read_text())]


def _label(offset: int) -> str:
    return "other" if offset == 1000 else f"other{offset}"


#: Where each build's findings JSON is committed: ``builds/<profile>/<build>/``.
BUILDS = OUT / "builds"
#: The calibration each profile's builds make (``--report``).
CALIBRATIONS = {"quick": "stability_calibration.csv", "smoke": "stability_calibration_smoke.csv"}
#: Builds made after the claims and the stability's model were fixed (29 Nov): their pairs are
#: out of sample for the predicted keep rate, and ``--report`` also counts them alone. +6000 and
#: +7000 were declared on 1 Dec, before any of their findings was read, as that day's only
#: additions, to be reported whatever they show. +8000 was built on 6 Dec under the claims and
#: quantities of 5-6 Dec and Study 5's widening (all fixed before it), the day's one addition,
#: planned the day before and reported whatever it shows.
OUT_OF_SAMPLE = {"quick": ("other4000", "other5000", "other6000", "other7000", "other8000")}


def out_of_sample_csv(profile: str) -> str:
    """The file of ``profile``'s calibration over its out-of-sample pairs only."""
    return CALIBRATIONS[profile].replace(".csv", "_out_of_sample.csv")


def report() -> int:
    """Recompute each profile's calibration CSV (:data:`CALIBRATIONS`) from its committed builds
    (:data:`BUILDS`; :func:`pruneaudit.audit.between_builds.keep_by_band`) and write them, with
    ``stability_calibration.md`` (the appendix's section); writes nothing else."""
    lines = ["# Stability calibration by band, from the committed builds", "",
             "Every ordered pair of committed builds with disjoint seed sets "
             "(`benchmarks/out/builds/<profile>/<build>/`): rows firm in the first build "
             f"(printed stability at least {audit.STABLE}) by band of that stability, and how many "
             "kept their verdict in the second, beside the mean stability (the predicted keep "
             "rate). `keep_low`-`keep_high`: the exact 95% interval of the keep rate, counting "
             "the pairs as independent; they are not (a row enters every pair of builds), so the "
             "true uncertainty is wider. Left out: rows whose estimate and interval are equal "
             "in every build of the profile (no seed set changes them), found from the builds.",
             ""]
    for profile, name in CALIBRATIONS.items():
        root = BUILDS / profile
        builds = sorted(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
        lines += [f"## Profile {profile}", ""]
        if len(builds) < 2:
            lines += [f"Builds committed: {', '.join(builds) or 'none'}: no pair to compare.", ""]
            (OUT / name).unlink(missing_ok=True)
            continue
        frame = BB.json_builds(root)
        fixed = BB.fixed_rows(frame)
        table = BB.keep_by_band(frame, fixed)
        table.to_csv(OUT / name, index=False)
        lines += [f"Builds: {', '.join(builds)} ({name}). Left out as fixed ({len(fixed)}): "
                  f"{', '.join(fixed) or 'none'}.", "", table.to_markdown(index=False), ""]
        new = [b for b in OUT_OF_SAMPLE.get(profile, ()) if b in builds]
        if new:
            fresh = BB.keep_by_band(frame, fixed, involving=new)
            fresh.to_csv(OUT / out_of_sample_csv(profile), index=False)
            lines += [f"Only the pairs with {', '.join(new)}, made after the claims and the "
                      f"stability's model were fixed (out of sample; "
                      f"{out_of_sample_csv(profile)}):", "", fresh.to_markdown(index=False), ""]
    text = "\n".join(lines)
    (OUT / "stability_calibration.md").write_text(text)
    print(text)
    return 0


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
    parser.add_argument("--report", action="store_true",
                        help="recompute the profile's calibration CSV from its committed builds")
    parser.add_argument("--save-builds", action="store_true",
                        help="with --recompute: keep each build's findings JSON under "
                             "benchmarks/out/builds/<profile>/<build>")
    parser.add_argument("--offsets-only", action="store_true",
                        help="with --recompute --save-builds: compute only the offsets' builds "
                             "and compare them with the committed default build")
    parser.add_argument("--save", type=Path, help="also write the tables here")
    parser.add_argument("--note", default="", help="a line under the title (where it was built)")
    parser.add_argument("--title", default=None,
                        help="the report's title when the builds are not seed offsets "
                             "(with --books: another precision, another device)")
    args = parser.parse_args(argv)
    if args.offsets_only and not (args.recompute and args.save_builds):
        parser.error("--offsets-only needs --recompute --save-builds (the default build is read "
                     "from benchmarks/out/builds/<profile>/default)")
    if args.report:
        return report()
    if args.books:
        outs = dict(item.split("=", 1) if "=" in item else (Path(item).name, item)
                    for item in args.books)
        outs = {label: Path(path) for label, path in outs.items()}
        sets: dict[str, dict] = {label: {} for label in outs}
    else:
        sets = {"default": {}} | {
            _label(o): seed_overrides(args.notebooks, args.profile, o) for o in args.offset}
        outs = {k: (BUILDS / args.profile / k if args.save_builds else args.work / f"book_{k}")
                for k in sets}
        stores = {k: args.work / f"store_{k}" for k in sets}
        if args.recompute:
            for label, overrides in sets.items():
                if args.offsets_only and label == "default":
                    continue
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
    for col in ("stability (A)", "stability (B)"):  # two decimals, as in the row-by-row table
        if col in flips:
            flips[col] = flips[col].map(lambda v: "-" if pd.isna(v) else f"{v:.2f}")
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
