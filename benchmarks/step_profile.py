"""Where a stacked training step spends its time: ``torch.profiler`` over the population trainer.

Trains K LeNets (default 30) with :func:`pruneaudit.training.train_population` on real MNIST
digits (``--images`` of the training set, one epoch, batch 32, SGD lr 0.01, augmentation on:
the trainer's defaults). The trainer splits K=30 into the same four blocks of 7-8 members at
one and at two torch threads, and trains each block at one torch thread; at two threads two
blocks run at once in Python threads, whose operators ``torch.profiler`` does not record. So
the profile is taken at one torch thread (the blocks in turn, on the calling thread: the same
computation per block), and the unprofiled wall time is measured at one and at ``--threads``
threads (default 2), which shows what running two blocks at once costs or gains.

Every operator's own (self) CPU time is put in one category by what it is and where it was
called (its own name first, then its ancestors' that torch records: the optimizer's
``Optimizer.step``, the autograd engine's ``evaluate_function: <Op>Backward``), and the table
gives each category's milliseconds per block step and its share of the profiled wall time. The
rest of the wall time is outside any torch operator: Python and the trainer's own code. The
convolutions and matrix products are the work; the rest is what the profile asks about
(gathers, masks, augmentation, optimizer, Python).

Writes ``benchmarks/out/step_profile.{md,csv}`` (the categories; the Markdown also lists the
operators with the most own time).

Usage: ``python benchmarks/step_profile.py [--k 30] [--threads 2] [--images 10000]``.
Quote figures from an otherwise idle machine; the profiler's own overhead makes the profiled
run slower than the unprofiled one (both are printed).
"""

from __future__ import annotations

import argparse
import platform
import time
from collections import Counter
from pathlib import Path

import pandas as pd
import torch
from torch.profiler import ProfilerActivity, profile

from pruneaudit import data
from pruneaudit.models import build_model
from pruneaudit.timing import machine
from pruneaudit.training import TrainConfig, train_population
from pruneaudit.training.stacked import blocks

OUT = Path(__file__).resolve().parent / "out"
BATCH, LR = 32, 0.01

#: Categories, first match wins: (category, words in the operator's name or its ancestor's).
CATEGORIES = (
    ("optimizer (SGD step, zero_grad)", ("optimizer.",)),
    ("convolution, forward and backward", ("convolution", "conv2d", "mkldnn_conv")),
    ("matrix products, forward and backward", ("bmm", "baddbmm", "addmm", "aten::mm",
                                               "matmul", "linear", "mmbackward")),
    ("pooling and ReLU, forward and backward", ("pool", "relu", "threshold", "clamp")),
    ("loss (log-softmax, NLL)", ("softmax", "nll", "cross_entropy")),
    ("batch: gather, augmentation, normalize", ("aten::index", "index_select", "gather",
                                                "aten::sub", "aten::div", "aten::where",
                                                "aten::flip", "aten::roll", "aten::pad",
                                                "constant_pad", "unfold", "aten::arange",
                                                "take_along_dim")),
    ("masks (weight times mask)", ("aten::mul",)),
)
#: Operators listed one by one, by their own time.
TOP_OPS = 15
OTHER = "other operators (copies, views, sums, autograd bookkeeping)"


def _population(k: int, images: int):
    mnist = data.load("mnist", "train").subset(range(images))  # the package's data root
    models = [build_model("lenet", 10, 1, 28, seed=s) for s in range(k)]
    cfgs = [TrainConfig(epochs=1, lr=LR, batch_size=BATCH, seed=s) for s in range(k)]
    return models, mnist, cfgs


def _category(event) -> str:
    """The category of an operator event: by the first of its own name and its ancestors' names
    that a category's words match (own name first), else :data:`OTHER`."""
    names = []
    node = event
    while node is not None:
        names.append(node.name.lower())
        node = node.cpu_parent
    for name in names:
        for category, words in CATEGORIES:
            if any(w in name for w in words):
                return category
    return OTHER


def _train(k: int, images: int, threads: int) -> float:
    """Seconds to train a fresh population of ``k`` at ``threads`` torch threads."""
    models, mnist, cfgs = _population(k, images)
    start = time.perf_counter()
    train_population(models, mnist, cfgs, progress=False, num_threads=threads)
    return time.perf_counter() - start


def profiled(k: int, threads: int, images: int) -> tuple[pd.DataFrame, dict]:
    """The per-category table of a profiled run at one torch thread and the run's facts
    (unprofiled seconds at one and at ``threads`` threads, profiled seconds, steps, blocks)."""
    _train(k, min(images, 320), 1)  # warm-up: first-call costs out of every timed run
    plain = {n: _train(k, images, n) for n in dict.fromkeys((1, threads))}
    models, mnist, cfgs = _population(k, images)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        start = time.perf_counter()
        train_population(models, mnist, cfgs, progress=False, num_threads=1)
        wall = time.perf_counter() - start
    busy: Counter[str] = Counter()
    for e in prof.events():
        busy[_category(e)] += e.self_cpu_time_total / 1e3  # ms
    n_blocks = len(blocks(k, torch.device("cpu"), 1))  # the profiled run's blocks
    steps = -(-images // BATCH)
    block_steps = steps * n_blocks
    wall_ms = wall * 1e3
    rows = [{"category": c, "ms_per_block_step": busy[c] / block_steps,
             "share": busy[c] / wall_ms} for c in [*(c for c, _ in CATEGORIES), OTHER]]
    outside = wall_ms - sum(busy.values())
    rows.append({"category": "outside torch operators (Python, the trainer's code)",
                 "ms_per_block_step": outside / block_steps, "share": outside / wall_ms})
    ops = pd.DataFrame(
        [{"operator": a.key, "calls": a.count, "self_ms_per_block_step":
          a.self_cpu_time_total / 1e3 / block_steps, "share": a.self_cpu_time_total / 1e3 / wall_ms}
         for a in prof.key_averages()]
    ).sort_values("share", ascending=False).head(TOP_OPS)
    facts = {"plain": plain, "profiled_s": wall, "blocks": n_blocks,
             "steps": steps, "ops": ops}
    return pd.DataFrame(rows), facts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=30)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--images", type=int, default=10_000)
    parser.add_argument("--save", default="step_profile", help="name under benchmarks/out/")
    args = parser.parse_args()
    table, facts = profiled(args.k, args.threads, args.images)
    work = table["category"].str.startswith(("convolution", "matrix"))
    plain = "; ".join(
        f"{n} thread{'s' * (n > 1)} {s:.2f} s ({s / facts['steps'] * 1e3:.1f} ms per step of all "
        f"{args.k} members)" for n, s in facts["plain"].items())
    head = (
        f"K={args.k} LeNets in {facts['blocks']} blocks, {args.images} MNIST training images, "
        f"one epoch, batch 32, augmentation on; torch {torch.__version__}, {machine()}, "
        f"{platform.machine()}. Unprofiled: {plain}. Profiled at one thread: "
        f"{facts['profiled_s']:.2f} s. Convolutions and matrix products: "
        f"{table.loc[work, 'share'].sum():.0%} of the profiled time."
    )
    text = (head + "\n\n" + table.to_markdown(index=False, floatfmt=".3f")
            + f"\n\nThe {TOP_OPS} operators with the most own time (profiled run):\n\n"
            + facts["ops"].to_markdown(index=False, floatfmt=".3f") + "\n")
    print(text)
    OUT.mkdir(exist_ok=True)
    (OUT / f"{args.save}.md").write_text(text)
    table.to_csv(OUT / f"{args.save}.csv", index=False)


if __name__ == "__main__":
    main()
