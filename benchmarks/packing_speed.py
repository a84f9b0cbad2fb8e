"""Study 1's pruning-series grid trained cold: wall time, populations and models.

Runs :func:`pruneaudit.runs.series.series_frame` on the quick profile's Study 1 grid (datasets,
imbalance factors, techniques, treatments, seeds, epochs, sizes), with ``--iterations`` rounds
(default 1: the dense population and one round of each treatment, about a sixth of the study's
training), into an empty results store, and prints one JSON line: the wall time, the number of
populations trained (the store's training-rate records: one per call of the population trainer)
and the models stored. ``--record`` also appends the line to ``benchmarks/out/
packing_speed.jsonl`` and writes that file's lines as the table ``packing_speed.md``. Run it once
per code version, one after the other on an otherwise idle machine, and compare the lines of
one session only.

Usage: ``python benchmarks/packing_speed.py [--iterations N] [--label TEXT] [--record]``.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import pandas as pd

from pruneaudit.book.profiles import Profile
from pruneaudit.runs import series
from pruneaudit.runs.store import ResultsStore

OUT = Path(__file__).resolve().parent / "out"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=1)
    parser.add_argument("--label", default="")
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        p = Profile.read("quick", {"store": tmp}).study_params("01_population_ols")
        store = ResultsStore(Path(tmp) / "store")
        start = time.perf_counter()
        frame = series.series_frame(
            replace(p.grid, iterations=args.iterations), store,
            dense_epochs=p.dense_epochs, epochs=p.epochs,
            lr=p.lr, train_size=p.train_size, test_size=p.test_size, root=p.data_root,
            progress=False,
        )
        seconds = time.perf_counter() - start
        rates = (Path(store.root) / "_rates.jsonl").read_text().splitlines()
        models = len(list(store.keys()))
    line = {
        "label": args.label, "iterations": args.iterations, "seconds": round(seconds, 1),
        "populations": len(rates), "models": models, "rows": len(frame),
        "machine": _cpu(), "date": time.strftime("%Y-%m-%d %H:%M"),
    }
    print(json.dumps(line))
    if args.record:
        record(line)


def _cpu() -> str:
    """The CPU's model name (``lscpu``), else the platform's."""
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        return next(x.split(":", 1)[1].strip() for x in out.splitlines()
                    if x.startswith("Model name"))
    except (OSError, subprocess.CalledProcessError, StopIteration):
        return platform.processor() or platform.machine()


def record(line: dict) -> None:
    """Append ``line`` to ``packing_speed.jsonl`` and write every line as ``packing_speed.md``."""
    OUT.mkdir(exist_ok=True)
    with (OUT / "packing_speed.jsonl").open("a") as f:
        f.write(json.dumps(line) + "\n")
    rows = [json.loads(x) for x in (OUT / "packing_speed.jsonl").read_text().splitlines()]
    table = pd.DataFrame(rows).to_markdown(index=False)
    (OUT / "packing_speed.md").write_text(
        "# Packing Study 1's pruning series\n\n"
        "`benchmarks/packing_speed.py`: the quick profile's Study 1 grid with the rounds given, "
        "trained cold into an empty store; `populations`: calls of the population trainer. "
        "Compare rows of one date and machine only.\n\n" + table + "\n"
    )


if __name__ == "__main__":
    main()
