"""Model-epochs per minute: the plain PyTorch loop vs ``train`` vs ``train_population``.

In one run, all LeNet on the real MNIST training set (data root from ``--root``, else
``$PRUNEAUDIT_DATA``, else ``../shared/data``), batch 32, SGD lr 0.01, one epoch each:

(a) the plain loop users write: ``torchvision.datasets.MNIST`` with ``Compose([RandomCrop(28,
    padding=2), ToTensor(), Normalize])``, ``DataLoader(batch_size=32, shuffle=True)``,
    ``SGD(lr=0.01)``, torch's default number of threads; (a1) the same loop with one thread;
(b) :func:`pruneaudit.training.train`, one model;
(c) :func:`pruneaudit.training.train_population` with K models (``--ks``, default 8 and 30), at
    torch's default number of threads; (c1) the same on one thread.

Each configuration runs in a fresh subprocess, so its peak resident memory (``VmHWM``, see
:func:`peak_rss_mb`) is its own. Achieved GFLOP/s counts the convolution and matrix-multiply
FLOPs of one LeNet training step (forward + backward,
``torch.utils.flop_counter.FlopCounterMode``) times the steps and models, over the wall time;
the machine's float32 peak is a 4096 x 4096 matmul timed in the same run (at 1 thread for the
one-thread rows, else at torch's default). Prints the table
and writes ``benchmarks/out/training_speed.{md,csv}``.

Usage: ``python benchmarks/training_speed.py [--subset N] [--ks 8,30] [--root DIR]``.
Timings on a shared machine are noisy: quote figures from an otherwise idle one.
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
import torch.nn.functional as F

from pruneaudit.timing import machine

OUT = Path(__file__).resolve().parent / "out"
BATCH, LR = 32, 0.01


def _root(arg: str | None) -> Path:
    """``--root``, else the package's data root (``$PRUNEAUDIT_DATA``, else found beside the
    repository), handed to each configuration's process."""
    from pruneaudit import config

    return config.data_root(arg)


def _mnist(root: Path, subset: int | None):
    from pruneaudit import data

    mnist = data.load("mnist", "train", root=root)
    return mnist.subset(range(subset)) if subset else mnist


def plain_loop(root: Path, subset: int | None, threads: int | None) -> float:
    """The loop users write; returns seconds for one epoch."""
    from torch.utils.data import DataLoader, Subset
    from torchvision import datasets, transforms

    from pruneaudit.data import DATASETS
    from pruneaudit.models import build_model

    if threads is not None:
        torch.set_num_threads(threads)
    spec = DATASETS["mnist"]
    tf = transforms.Compose(
        [
            transforms.RandomCrop(28, padding=2),
            transforms.ToTensor(),
            transforms.Normalize(spec.mean, spec.std),
        ]
    )
    ds = datasets.MNIST(root, train=True, download=False, transform=tf)
    if subset:
        ds = Subset(ds, range(subset))
    loader = DataLoader(ds, batch_size=BATCH, shuffle=True)
    model = build_model("lenet", 10, 1, 28, seed=0)
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    model.train()
    start = time.perf_counter()
    for x, y in loader:
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
    return time.perf_counter() - start


def single(root: Path, subset: int | None) -> float:
    from pruneaudit.models import build_model
    from pruneaudit.training import TrainConfig, train

    mnist = _mnist(root, subset)
    model = build_model("lenet", 10, 1, 28, seed=0)
    start = time.perf_counter()
    train(model, mnist, TrainConfig(epochs=1, lr=LR, batch_size=BATCH), progress=False)
    return time.perf_counter() - start


def population(root: Path, subset: int | None, k: int, threads: int | None = None) -> float:
    from pruneaudit.models import build_model
    from pruneaudit.training import TrainConfig, train_population

    if threads is not None:
        torch.set_num_threads(threads)

    mnist = _mnist(root, subset)
    models = [build_model("lenet", 10, 1, 28, seed=s) for s in range(k)]
    cfgs = [TrainConfig(epochs=1, lr=LR, batch_size=BATCH, seed=s) for s in range(k)]
    start = time.perf_counter()
    train_population(models, mnist, cfgs, progress=False)
    return time.perf_counter() - start


def step_flops() -> int:
    """Conv + matmul FLOPs of one LeNet training step on a batch of 32 (forward + backward)."""
    from torch.utils.flop_counter import FlopCounterMode

    from pruneaudit.models import build_model

    model = build_model("lenet", 10, 1, 28, seed=0)
    x, y = torch.randn(BATCH, 1, 28, 28), torch.randint(0, 10, (BATCH,))
    with FlopCounterMode(display=False) as counter:
        F.cross_entropy(model(x), y).backward()
    return int(counter.get_total_flops())


def matmul_peak(threads: int | None, n: int = 4096, repeats: int = 5) -> float:
    """GFLOP/s of the best of ``repeats`` float32 ``n x n`` matmuls."""
    before = torch.get_num_threads()
    if threads is not None:
        torch.set_num_threads(threads)
    try:
        a, b = torch.randn(n, n), torch.randn(n, n)
        a @ b
        best = min(_timed(lambda: a @ b) for _ in range(repeats))
    finally:
        torch.set_num_threads(before)
    return 2 * n**3 / best / 1e9


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def child(config: str, root: Path, subset: int | None) -> None:
    """Run one configuration and print its JSON result (seconds, threads, peak RSS)."""
    kind, _, arg = config.partition(":")
    if kind == "baseline":  # imports only: torch, torchvision, pruneaudit
        from torchvision import datasets  # noqa: F401

        from pruneaudit import data, training  # noqa: F401

        seconds = 0.0
    elif kind == "plain":
        seconds = plain_loop(root, subset, int(arg) if arg else None)
    elif kind == "single":
        seconds = single(root, subset)
    else:
        k, _, threads = arg.partition(":")
        seconds = population(root, subset, int(k), int(threads) if threads else None)
    print(json.dumps({"seconds": seconds, "peak_rss_mb": peak_rss_mb()}))


def peak_rss_mb() -> float:
    """Peak resident memory of this process in MB.

    ``VmHWM`` of ``/proc/self/status`` where it exists: on Linux ``ru_maxrss`` of a child
    includes its parent's resident memory at the fork (it survives ``exec``), ``VmHWM`` does not.
    """
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024  # kB
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: kB


def run_child(config: str, args: argparse.Namespace) -> dict:
    cmd = [sys.executable, __file__, "--child", config, "--root", str(_root(args.root))]
    if args.subset:
        cmd += ["--subset", str(args.subset)]
    done = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--subset", type=int, default=None, help="first N training images only")
    parser.add_argument(
        "--ks", default="8,30", help="population sizes, comma-separated ('' for none)"
    )
    parser.add_argument("--root", default=None, help="data root (default: $PRUNEAUDIT_DATA)")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, _root(args.root), args.subset)
        return

    n = args.subset or 60000
    steps = -(-n // BATCH)
    flops = step_flops()
    default_threads = torch.get_num_threads()
    peak = matmul_peak(None)
    peak1 = matmul_peak(1)
    baseline = run_child("baseline", args)["peak_rss_mb"]
    print(f"float32 matmul peak: {peak:.1f} GFLOP/s ({default_threads} threads), "
          f"{peak1:.1f} GFLOP/s (1 thread); LeNet step: {flops / 1e6:.1f} MFLOP", flush=True)
    configs = [
        (f"(a) plain loop, {default_threads} threads (torch default)", "plain", 1,
         default_threads),
        ("(a1) plain loop, 1 thread", "plain:1", 1, 1),
        ("(b) pruneaudit.training.train", "single", 1, default_threads),
    ] + [
        row
        for k in (int(s) for s in args.ks.split(",") if s.strip())
        for row in (
            (f"(c1) train_population K={k}, 1 thread", f"pop:{k}:1", k, 1),
            (f"(c) train_population K={k}", f"pop:{k}", k, default_threads),
        )
    ]
    rows = []
    for label, config, models, threads in configs:
        res = run_child(config, args)
        per_min = models * 60 / res["seconds"]
        gflops = flops * steps * models / res["seconds"] / 1e9
        rows.append(
            {
                "configuration": label,
                "threads": threads,
                "models": models,
                "seconds": res["seconds"],
                "model_epochs_per_min": per_min,
                "peak_rss_mb": res["peak_rss_mb"],
                "gflops": gflops,
                "fraction_of_peak": gflops / (peak1 if threads == 1 else peak),
            }
        )
        print(f"{label:45s} {res['seconds']:8.1f} s  {per_min:7.2f} model-epochs/min  "
              f"{res['peak_rss_mb']:7.0f} MB  {gflops:6.2f} GFLOP/s", flush=True)
    table = pd.DataFrame(rows)
    per_min = table.model_epochs_per_min
    table.insert(5, "ratio_to_a", per_min / per_min.iloc[0])
    table.insert(6, "ratio_to_a1", per_min / per_min.iloc[1])
    info = (
        f"LeNet, MNIST train ({n} images), batch {BATCH}, SGD lr {LR}, one epoch per model; "
        f"torch {torch.__version__}, {machine()}, {time.strftime('%Y-%m-%d')}; "
        f"float32 matmul peak {peak:.1f} GFLOP/s "
        f"({default_threads} threads; {peak1:.1f} with 1 thread); GFLOP/s count convolution and "
        f"matmul FLOPs ({flops / 1e6:.1f} MFLOP per LeNet step, forward + backward); peak RSS "
        f"includes {baseline:.0f} MB of a process that only imports torch, torchvision and "
        f"pruneaudit."
    )
    write_table(table, info, "training_speed")


def write_table(table: pd.DataFrame, info: str, name: str) -> None:
    """Print ``info`` and ``table``; write them to ``benchmarks/out/<name>.{md,csv}``."""
    print(info)
    print(table.to_string(index=False, float_format=lambda v: f"{v:.2f}"))
    OUT.mkdir(exist_ok=True)
    table.to_csv(OUT / f"{name}.csv", index=False)
    (OUT / f"{name}.md").write_text(
        f"{info}\n\n{table.to_markdown(index=False, floatfmt='.2f')}\n"
    )


if __name__ == "__main__":
    main()
