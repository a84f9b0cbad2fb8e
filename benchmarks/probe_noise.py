"""How far the speed probe's median falls from the machine's sustained rate, by the trainings
it takes.

The speed probe (:func:`pruneaudit.runs.speed_probe`) is the median of a few trainings of one
fixed population (:func:`pruneaudit.runs.probe.probe_rate`); a build's expected duration scales
by it. On a shared machine one training's rate drifts. In one process, at the thread count a
build would choose, ``--phases`` times: ``--idle`` seconds of sleep, then trainings one after
another for ``--load`` seconds, each one's rate recorded. Then, for medians of k consecutive
trainings (the probe at ``REPEATS = k``; non-overlapping groups), how far each falls from the
median of all the trainings (the sustained rate): the 90th percentile and the largest of
``|median_k / sustained - 1|``, and how the first k trainings after each idle spell compare.

Prints and writes ``benchmarks/out/probe_noise.{md,csv}``. Usage: ``python
benchmarks/probe_noise.py [--phases 2] [--idle 90] [--load 240]``. Run it on an otherwise idle
machine: it measures the machine's own drift.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
import torch

from pruneaudit import runtime
from pruneaudit.runs.probe import IMAGES, MEMBERS, REPEATS, probe_rate
from pruneaudit.timing import machine

OUT = Path(__file__).resolve().parent / "out"
GROUPS = (1, 3, 5, 9, 15)


def readings(phases: int, idle: float, load: float, threads: int) -> pd.DataFrame:
    """One row per training: its phase, seconds since the start and rate."""
    rows, t0 = [], time.perf_counter()
    for phase in range(phases):
        time.sleep(idle)
        end = time.perf_counter() + load
        while time.perf_counter() < end:
            rate = probe_rate(threads)
            rows.append({"phase": phase, "t": time.perf_counter() - t0, "rate": rate})
    return pd.DataFrame(rows)


def spread(rates: pd.DataFrame) -> pd.DataFrame:
    """Per group size k: how far medians of k consecutive trainings fall from the sustained
    rate (the median of all of them)."""
    sustained = rates.rate.median()
    rows = []
    for k in GROUPS:
        medians, firsts = [], []
        for _, phase in rates.groupby("phase"):
            r = phase.rate.to_numpy()
            medians += [np.median(r[i : i + k]) for i in range(0, len(r) - k + 1, k)]
            firsts.append(np.median(r[:k]) / sustained - 1)
        if not medians:  # fewer than k trainings in every spell
            continue
        errors = np.abs(np.array(medians) / sustained - 1)
        rows.append({
            "trainings_k": k, "medians": len(medians),
            "p90_abs_error": np.quantile(errors, 0.9), "max_abs_error": errors.max(),
            "first_k_after_idle": ", ".join(f"{f:+.3f}" for f in firsts),
            "shipped": "yes" if k == REPEATS else "",
        })
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--phases", type=int, default=2)
    parser.add_argument("--idle", type=float, default=90.0)
    parser.add_argument("--load", type=float, default=240.0)
    args = parser.parse_args()
    threads = runtime.choose_threads()[0]
    rates = readings(args.phases, args.idle, args.load, threads)
    table = spread(rates)
    info = (
        f"{len(rates)} trainings of the speed probe's population ({MEMBERS} LeNets, one epoch "
        f"over {IMAGES:,} synthetic digits) at {threads} torch threads, in {args.phases} spells of "
        f"{args.load:.0f} s, each after {args.idle:.0f} s idle; sustained rate (median of all) "
        f"{rates.rate.median():.3f} s per 10k images per model, single trainings "
        f"{rates.rate.min():.3f} to {rates.rate.max():.3f}; torch {torch.__version__}, "
        f"{machine()}; {time.strftime('%Y-%m-%d')}. Errors: |median of k / sustained - 1| over "
        "non-overlapping groups; first_k_after_idle: the first k of each spell (signed). "
        f"The probe takes k = {REPEATS}."
    )
    OUT.mkdir(exist_ok=True)
    rates.round(4).to_csv(OUT / "probe_noise.csv", index=False)
    (OUT / "probe_noise.md").write_text(
        info + "\n\n" + table.to_markdown(index=False, floatfmt=".3f") + "\n")
    print(info)
    print(table.to_string(index=False))
    print("median of 30 s windows per spell:", [
        p.groupby(p.t // 30).rate.median().round(3).tolist() for _, p in rates.groupby("phase")])


if __name__ == "__main__":
    main()
