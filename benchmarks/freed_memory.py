"""Freed memory kept for reuse against handed back to the system, side by side (not kept).

A stacked training step frees and allocates the same few-megabyte activations and gradients
every time. By default glibc's ``malloc`` hands much of that memory back to the system and
fills each new block in through page faults; with its mmap threshold raised to its 64-bit limit
(32 MB) and trimming off (``mallopt``, :func:`keep_freed_memory`) it keeps the memory for the
next allocation. In one run, on the real MNIST data (the package's data root), each case once
per setting in a fresh process (the setting cannot be undone in a process), the two settings
alternating, ``--repeats`` times:

- ``train``: :func:`pruneaudit.training.train_population` of K LeNets (``--k``, default 30) on
  the first ``--images`` training digits, one epoch, batch 32, at ``--threads`` torch threads;
- ``evaluate``: :func:`pruneaudit.training.evaluate_population` of K LeNets (fresh weights: the
  arithmetic is a trained model's) on the first ``--test`` test digits, as Study 5 evaluates
  each corrupted test set.

Prints and writes ``benchmarks/out/freed_memory.{md,csv}``: per case and setting the median
seconds, minor page faults and peak resident memory, and the ratio of the medians. The package
does not use the setting: it removed most page faults but gained a few percent at most, within
the machine's drift (``profile_evidence.md``, "Population trainer").

Usage: ``python benchmarks/freed_memory.py [--k 30] [--threads 2] [--images 10000]
[--test 10000] [--repeats 3]``. Quote figures from an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from training_speed import peak_rss_mb  # noqa: E402

from pruneaudit.timing import machine  # noqa: E402

OUT = Path(__file__).resolve().parent / "out"
SETTINGS = ("malloc's defaults", "freed memory kept")
#: ``mallopt`` parameters of glibc's ``malloc.h``, and the largest mmap threshold it takes.
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD, MMAP_THRESHOLD_LIMIT = -1, -3, 32 * 1024 * 1024


def keep_freed_memory() -> bool:
    """Have glibc's ``malloc`` serve blocks up to 32 MB from its heaps and never trim them;
    True where it took effect (glibc), False elsewhere."""
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_LIMIT)) and bool(
        mallopt(M_TRIM_THRESHOLD, 2**31 - 1))


def child(case: str, keep: bool, args: argparse.Namespace) -> dict:
    """Run one case in this process and return its seconds, minor faults and peak memory."""
    from pruneaudit import data
    from pruneaudit.models import build_model
    from pruneaudit.training import TrainConfig, evaluate_population, train_population

    applied = keep_freed_memory() if keep else False
    torch.set_num_threads(args.threads)
    models = [build_model("lenet", 10, 1, 28, seed=s) for s in range(args.k)]
    if case == "train":
        images = data.load("mnist", "train").subset(range(args.images))
        cfgs = [TrainConfig(epochs=1, lr=0.01, batch_size=32, seed=s) for s in range(args.k)]
        run = lambda: train_population(models, images, cfgs, progress=False)  # noqa: E731
    else:
        images = data.load("mnist", "test").subset(range(args.test))
        run = lambda: evaluate_population(models, images)  # noqa: E731
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    start = time.perf_counter()
    run()
    seconds = time.perf_counter() - start
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults
    return {"seconds": seconds, "minor_faults": faults, "peak_rss_mb": peak_rss_mb(),
            "applied": applied}


def _run_child(case: str, keep: bool, argv: list[str]) -> dict:
    cmd = [sys.executable, __file__, "--child", case, *(["--keep"] if keep else []), *argv]
    done = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=30)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--images", type=int, default=10_000)
    parser.add_argument("--test", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cases", nargs="+", default=["train", "evaluate"])
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--keep", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.keep, args)))
        return
    argv = [f"--k={args.k}", f"--threads={args.threads}", f"--images={args.images}",
            f"--test={args.test}"]
    rows = []
    for case in args.cases:
        for repeat in range(args.repeats):
            order = (False, True) if repeat % 2 == 0 else (True, False)
            for keep in order:
                res = _run_child(case, keep, argv)
                rows.append({"case": case, "setting": SETTINGS[keep], "repeat": repeat, **res})
                print(f"{case:9s} {SETTINGS[keep]:18s} {res['seconds']:7.2f} s "
                      f"{res['minor_faults']:9d} faults {res['peak_rss_mb']:7.0f} MB", flush=True)
    runs = pd.DataFrame(rows)
    table = (runs.groupby(["case", "setting"], sort=False)
             [["seconds", "minor_faults", "peak_rss_mb"]].median().reset_index())
    default = table[table.setting == SETTINGS[0]].set_index("case").seconds
    table["speed_vs_defaults"] = table.case.map(default) / table.seconds
    table["minor_faults"] = table.minor_faults.round().astype(int)
    info = (
        f"K={args.k} LeNets, {args.threads} torch threads; train: {args.images} MNIST training "
        f"digits, one epoch, batch 32; evaluate: {args.test} test digits. Medians of "
        f"{args.repeats} fresh processes per case and setting, the settings alternating; "
        f"torch {torch.__version__}, {machine()}; {time.strftime('%Y-%m-%d')}. The package "
        "keeps malloc's defaults (a few percent at most, within the machine's drift)."
    )
    OUT.mkdir(exist_ok=True)
    runs.to_csv(OUT / "freed_memory.csv", index=False)
    (OUT / "freed_memory.md").write_text(
        info + "\n\n" + table.to_markdown(index=False, floatfmt=".2f") + "\n")
    print(info)
    print(table.to_string(index=False))


if __name__ == "__main__":
    main()
