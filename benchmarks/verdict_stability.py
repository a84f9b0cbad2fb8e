"""Do two cold builds that differ only in float rounding give the same findings?

Builds one study notebook twice, each into its own empty results store and output folder, with
different torch thread counts (``$PRUNEAUDIT_THREADS``; 1 and 2 by default: the same arithmetic
summed in a different order), then compares:

- the findings (``<notebook>.findings.json``) row by row: verdict, ours and interval of each
  build, whether the verdicts agree, and the largest difference of ours / interval ends;
- the stored runs the two stores share (same keys): the share of test predictions that differ
  and the largest difference of a per-class accuracy, per kind of run and in all.

A notebook that reads another's runs (Study 5 reads Study 4's) is built after that one into the
same store: pass both, in order (``--notebooks 04_compression_impact 05_robustness``); each
notebook's findings are compared. Builds run one after another unless ``--parallel`` (on a
shared 2-core machine in parallel they share the cores; the rounding is the same). With
``--compare-only`` nothing is built and the given stores and outputs are compared.

Usage::

    PYTHONPATH=src python benchmarks/verdict_stability.py --notebooks 04_compression_impact \
        --profile quick [--threads 1 2] [--work /tmp/verdict_stability] [--parallel] \
        [--compare-only]

Writes ``<work>/comparison.md`` (the tables printed) and exits 1 when a verdict differs.

Measured (quick profile, 2 shared cores, Studies 4 and 5): every verdict and interval equal, the
stored predictions of all 1,348 shared runs equal and the 96 trained checkpoints equal bit for
bit; on the smoke profile the 90%-pruned weights differed by up to 3e-8 (predictions equal).
So 1 vs 2 threads perturbs these builds little or not at all: a build on another CPU (other
vector kernels) remains the stronger check.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
BUILD = """
import json, sys, time
from pathlib import Path
from pruneaudit.book.builder.runner import run_notebook
profile, out, threads, overrides, *names = sys.argv[1:]
for name in names:
    start = time.perf_counter()
    run_notebook(name, profile, json.loads(overrides) or None, out, progress=True,
                 threads=int(threads))
    with open(Path(out) / "wall.txt", "a") as f:
        f.write(f"{name} {time.perf_counter() - start:.0f}\\n")
"""


def build(notebooks: list[str], profile: str, threads: int, store: Path,
          out: Path, overrides: dict | None = None, *, cold: bool = True) -> subprocess.Popen:
    """Start the builds of ``notebooks`` (in order) with ``threads`` torch threads and the
    parameter ``overrides`` (``NAME.key: value``) into an empty ``store`` and ``out``; the log
    goes to ``out/build.log``, the wall times to ``out/wall.txt``. ``cold=False`` builds
    over what the store holds (a warm rebuild: findings recomputed by the code of now)."""
    for path in (store, out):
        if cold and path.exists() and any(path.iterdir()):
            sys.exit(f"{path} is not empty: a cold build needs empty folders (remove it, or "
                     "pass --compare-only to compare what is there)")
    out.mkdir(parents=True, exist_ok=True)
    # passive OpenMP waiting: on a shared machine a spinning 2-thread build is many times slower
    # (it changes no result: the work is split the same way)
    env = {"OMP_WAIT_POLICY": "PASSIVE", **os.environ, "PRUNEAUDIT_STORE": str(store),
           "PRUNEAUDIT_THREADS": str(threads), "PYTHONPATH": os.pathsep.join(
               p for p in (str(REPO / "src"), os.environ.get("PYTHONPATH")) if p)}
    with open(out / "build.log", "w") as log:
        return subprocess.Popen(
            [sys.executable, "-c", BUILD, profile, str(out), str(threads),
             json.dumps(overrides or {}), *notebooks],
            cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)


def findings_table(name: str, outs: list[Path]) -> pd.DataFrame:
    """One row per finding: verdict, ours, interval of each build, and their agreement."""
    frames = []
    for i, out in enumerate(outs):
        rows = json.loads((out / f"{name}.findings.json").read_text())
        frames.append(pd.DataFrame(rows)[["finding", "verdict", "ours", "ci_low", "ci_high"]]
                      .rename(columns=lambda c, i=i: c if c == "finding" else f"{c}_{i + 1}"))
    table = frames[0].merge(frames[1], on="finding", how="outer", sort=False)
    order = {name: i for i, name in enumerate(frames[0]["finding"])}
    table = table.sort_values("finding", key=lambda s: s.map(order).fillna(len(order)),
                              kind="stable").reset_index(drop=True)
    table["same"] = table["verdict_1"] == table["verdict_2"]
    diffs = [(table[f"{c}_1"] - table[f"{c}_2"]).abs() for c in ("ours", "ci_low", "ci_high")]
    table["max_diff"] = pd.concat(diffs, axis=1).max(axis=1)
    return table


def _fmt(ours, lo, hi) -> str:
    if ours is None or pd.isna(ours):
        return "-"
    if pd.isna(lo):
        return f"{ours:.4f} [n/a]"
    return f"{ours:.4f} [{lo:.4f}, {hi:.4f}]"


def show_findings(table: pd.DataFrame, threads: list[int]) -> str:
    """The findings comparison as a markdown table."""
    view = pd.DataFrame({
        "finding": table["finding"].str.slice(0, 60),
        f"verdict ({threads[0]} thr)": table["verdict_1"],
        f"verdict ({threads[1]} thr)": table["verdict_2"],
        f"ours [CI] ({threads[0]} thr)": [_fmt(*r) for r in zip(
            table["ours_1"], table["ci_low_1"], table["ci_high_1"], strict=True)],
        f"ours [CI] ({threads[1]} thr)": [_fmt(*r) for r in zip(
            table["ours_2"], table["ci_low_2"], table["ci_high_2"], strict=True)],
        "same": table["same"].map({True: "yes", False: "**NO**"}),
        "max |diff|": table["max_diff"].map(lambda v: "-" if pd.isna(v) else f"{v:.2g}"),
    })
    return view.to_markdown(index=False)


def _kind(extra: dict) -> str:
    """``dense``, ``level=0.9``, ``scheme=float16``, with `` corrupted`` for runs on corrupted
    test sets (one row for all corruptions and severities) and `` <key>=...`` for other keys."""
    shown = [f"{k}={extra[k]}" for k in ("level", "scheme") if k in extra]
    shown += [f"{k}={v}" for k, v in sorted(extra.items()) if k not in (
        "level", "scheme", "corruption", "corruption_seed", "severity")
        and not k.startswith("gradual_")]
    if "corruption" in extra:
        shown.append("corrupted")
    return " ".join(shown) or "dense"


def _weight_diff(a, b) -> float:
    """Largest absolute difference of a weight between two runs' checkpoints (NaN without)."""
    if not (a.has_checkpoint and b.has_checkpoint):
        return np.nan
    wa, wb = a.checkpoint(), b.checkpoint()
    if set(wa) != set(wb):
        return np.inf
    return max((float((wa[k].float() - wb[k].float()).abs().max()) if wa[k].numel() else 0.0
                for k in wa), default=0.0)


def compare_stores(stores: list[Path]) -> pd.DataFrame:
    """Per kind of run (dense, each pruning level, each quantization scheme, ...) in both
    stores: runs, share of test predictions that differ, largest per-class accuracy
    difference, largest weight difference (runs with checkpoints)."""
    from pruneaudit.runs.store import ResultsStore

    a, b = (ResultsStore(s) for s in stores)
    keys_a, keys_b = set(a.keys()), set(b.keys())
    rows = []
    for key in sorted(keys_a & keys_b):
        ra, rb = a.load(key), b.load(key)
        pa = ra.predictions.sort_values("index")["prediction"].to_numpy()
        pb = rb.predictions.sort_values("index")["prediction"].to_numpy()
        ca = ra.classes.sort_values("class")["accuracy"].to_numpy()
        cb = rb.classes.sort_values("class")["accuracy"].to_numpy()
        rows.append({"kind": _kind(dict(ra.spec.extra)), "runs": 1, "examples": pa.size,
                     "differing": int((pa != pb).sum()) if pa.size == pb.size else np.nan,
                     "runs_differing": int(pa.size != pb.size or (pa != pb).any()),
                     "max_class_acc_diff": float(np.abs(ca - cb).max()) if ca.size == cb.size
                     else np.nan, "max_weight_diff": _weight_diff(ra, rb)})
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    per = frame.groupby("kind", sort=True).agg(
        runs=("runs", "sum"), runs_differing=("runs_differing", "sum"),
        examples=("examples", "sum"), differing=("differing", "sum"),
        max_class_acc_diff=("max_class_acc_diff", "max"),
        max_weight_diff=("max_weight_diff", "max"))
    total = frame[["runs", "runs_differing", "examples", "differing"]].sum().to_frame("all").T
    for column in ("max_class_acc_diff", "max_weight_diff"):
        total[column] = frame[column].max()
    per = pd.concat([per, total])
    per["share_differing"] = per["differing"] / per["examples"]
    per.attrs["only"] = (len(keys_a - keys_b), len(keys_b - keys_a))
    return per


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notebooks", nargs="+", default=["04_compression_impact"])
    parser.add_argument("--profile", default="quick")
    parser.add_argument("--threads", nargs=2, type=int, default=[1, 2])
    parser.add_argument("--work", type=Path, default=Path("/tmp/verdict_stability"),
                        help="stores in <work>/store_<i>, outputs in <work>/book_<i>")
    parser.add_argument("--stores", nargs=2, type=Path, help="override the two stores")
    parser.add_argument("--outs", nargs=2, type=Path, help="override the two output folders")
    parser.add_argument("--parallel", action="store_true", help="run the two builds at once")
    parser.add_argument("--compare-only", action="store_true", help="build nothing")
    args = parser.parse_args(argv)
    stores = args.stores or [args.work / f"store_{i + 1}" for i in range(2)]
    outs = args.outs or [args.work / f"book_{i + 1}" for i in range(2)]
    if not args.compare_only:
        procs = []
        for i in range(2):
            procs.append(build(args.notebooks, args.profile, args.threads[i], stores[i], outs[i]))
            if not args.parallel and procs[-1].wait():
                sys.exit(f"build {i + 1} failed: see {outs[i] / 'build.log'}")
        if args.parallel and any(p.wait() for p in procs):
            sys.exit(f"a build failed: see {outs[0] / 'build.log'}, {outs[1] / 'build.log'}")
    lines = [f"# Verdict stability: {', '.join(args.notebooks)}, profile {args.profile}, "
             f"{args.threads[0]} vs {args.threads[1]} torch threads", ""]
    for i in range(2):
        wall = outs[i] / "wall.txt"
        if wall.is_file():
            lines.append(f"Build {i + 1} ({args.threads[i]} thr) wall times (s): "
                         + "; ".join(wall.read_text().split("\n")).strip("; "))
    changed = 0
    for name in args.notebooks:
        table = findings_table(name, outs)
        changed += int((~table["same"]).sum())
        lines += ["", f"## {name}: findings ({int(table['same'].sum())} of {len(table)} "
                  "verdicts agree)", "", show_findings(table, args.threads)]
    runs = compare_stores(stores)
    lines += ["", "## Stored runs shared by both stores", ""]
    if runs.empty:
        lines.append("(none)")
    else:
        only = runs.attrs["only"]
        lines += [runs.to_markdown(floatfmt=".4g"), "",
                  f"Runs in one store only: {only[0]} (store 1), {only[1]} (store 2)."]
    text = "\n".join(lines) + "\n"
    print(text)
    args.work.mkdir(parents=True, exist_ok=True)
    (args.work / "comparison.md").write_text(text)
    return 1 if changed else 0


if __name__ == "__main__":
    raise SystemExit(main())
