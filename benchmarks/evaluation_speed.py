"""Evaluating a population on corrupted test sets: one model at a time vs batched over members.

Study 5 evaluates every member of its populations on 60 corrupted copies of the test set. In one
run, on the real MNIST test set (data root from ``--root``, else the package's setting), with K
LeNets (``--k``, fresh weights: the arithmetic is the same as trained ones'), one torch thread
unless ``--threads``:

(a) one at a time, as :func:`pruneaudit.runs.run_corrupted` did before: for each corrupted test
    set, each member's checkpoint read from a results store and evaluated alone
    (:func:`pruneaudit.training.evaluate`);
(b) batched: every checkpoint read once, each corrupted test set evaluated for all members as
    one computation (:func:`pruneaudit.training.evaluate_population`), as it does now.

Both see the same corrupted sets (``--sets``, drawn from Study 5's grid; built once, outside the
timing). Prints the seconds of each, their ratio and whether the predictions agree, and writes
``benchmarks/out/evaluation_speed.csv``.

Usage: ``python benchmarks/evaluation_speed.py [--k 20] [--sets 6] [--threads 1]``.
Timings on a shared machine are noisy: quote figures from an otherwise idle one.
"""

from __future__ import annotations

import argparse
import dataclasses
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import torch

from pruneaudit import compress, data, training
from pruneaudit.runs import ResultsStore, RunSpec, populations, run_data, trained

OUT = Path(__file__).resolve().parent / "out"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=20, help="members (Study 5 quick: 20)")
    parser.add_argument("--sets", type=int, default=6, help="corrupted test sets")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--root", default=None)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    base = RunSpec("mnist", "lenet", epochs=1)
    specs = populations.member_specs(base, range(args.k))
    test = run_data.splits(base, args.root).test
    grid = [(c, s) for c in data.CORRUPTIONS for s in (1, 3, 5)][: args.sets]
    shifted = [data.corrupt(test.images, c, s, seed=0) for c, s in grid]
    sets = [dataclasses.replace(test, images=x) for x in shifted]
    with tempfile.TemporaryDirectory() as tmp:
        store = ResultsStore(tmp)
        for spec in specs:  # checkpoints to read, as a build's store holds them
            net = trained.fresh_model(spec, test)
            store.save(spec, *trained.evaluation_frames(test, np.zeros(len(test), int), 0.0),
                       checkpoint=compress.pruned_state_dict(net))
        start = time.perf_counter()
        alone = np.stack([
            np.stack([training.evaluate(trained.load_model(s, store, args.root), x)
                      for s in specs])
            for x in sets
        ])
        one_at_a_time = time.perf_counter() - start
        start = time.perf_counter()
        nets = [trained.load_model(s, store, args.root) for s in specs]
        together = np.stack([training.evaluate_population(nets, x) for x in sets])
        batched = time.perf_counter() - start
    agree = float((alone == together).mean())
    row = {
        "members": args.k, "test_sets": len(sets), "examples": len(test), "threads": args.threads,
        "one_at_a_time_s": round(one_at_a_time, 2), "batched_s": round(batched, 2),
        "speedup": round(one_at_a_time / batched, 2), "predictions_equal": agree,
    }
    OUT.mkdir(exist_ok=True)
    pd.DataFrame([row]).to_csv(OUT / "evaluation_speed.csv", index=False)
    for key, value in row.items():
        print(f"{key}: {value}")


if __name__ == "__main__":
    main()
