"""Seconds per LeNet/MNIST epoch at batch 32: the plain PyTorch loop vs ``pruneaudit.train``.

In one run, on the real MNIST training set (data root from ``--root``, else
``$PRUNEAUDIT_DATA``, else ``./data``):

(a) the plain loop users write: ``torchvision.datasets.MNIST`` with
    ``Compose([RandomCrop(28, padding=2), ToTensor(), Normalize])``, ``DataLoader(batch_size=32,
    shuffle=True)``, ``SGD(lr=0.01)``, with torch's default number of threads, and the same loop
    again with one thread (so the thread setting alone is not mistaken for the speed-up);
(b) :func:`pruneaudit.train.train` with the same model, batch size, learning rate and
    augmentation.

Prints seconds per epoch and the ratios and writes ``benchmarks/out/train_speed.{csv,md}``.
Usage: ``python benchmarks/train_speed.py [--epochs 1] [--subset N] [--root DIR]``.
Timings on a shared machine are noisy: run it on an otherwise idle one for figures to quote.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path

import pandas as pd
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, Subset
from torchvision import datasets, transforms

from pruneaudit import config, data
from pruneaudit.models import build_model
from pruneaudit.train import TrainConfig, train

OUT = Path(__file__).resolve().parent / "out"


def plain_loop(
    root: Path, epochs: int, subset: int | None, threads: int | None
) -> tuple[float, float]:
    """The loop users write; returns (wall, CPU) seconds per epoch."""
    spec = data.DATASETS["mnist"]
    tf = transforms.Compose(
        [
            transforms.RandomCrop(28, padding=2),
            transforms.ToTensor(),
            transforms.Normalize(spec.mean, spec.std),
        ]
    )
    ds = datasets.MNIST(root, train=True, download=False, transform=tf)
    if subset is not None:
        ds = Subset(ds, range(subset))
    loader = DataLoader(ds, batch_size=32, shuffle=True)
    model = build_model("lenet", 10, 1, 28, seed=0)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    before = torch.get_num_threads()
    if threads is not None:
        torch.set_num_threads(threads)
    try:
        model.train()
        start, cpu = time.perf_counter(), time.process_time()
        for _ in range(epochs):
            for x, y in loader:
                opt.zero_grad()
                loss = F.cross_entropy(model(x), y)
                loss.backward()
                opt.step()
        return (time.perf_counter() - start) / epochs, (time.process_time() - cpu) / epochs
    finally:
        torch.set_num_threads(before)


def package_loop(root: Path, epochs: int, subset: int | None) -> tuple[float, float]:
    """:func:`pruneaudit.train.train` on the same data; returns (wall, CPU) seconds per epoch."""
    mnist = data.load("mnist", "train", root=root)
    if subset is not None:
        mnist = mnist.subset(range(subset))
    model = build_model("lenet", 10, 1, 28, seed=0)
    start, cpu = time.perf_counter(), time.process_time()
    train(model, mnist, TrainConfig(epochs=epochs, lr=0.01, batch_size=32), progress=False)
    return (time.perf_counter() - start) / epochs, (time.process_time() - cpu) / epochs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--subset", type=int, default=None, help="first N training images only")
    parser.add_argument("--root", default=None, help="data root (default: $PRUNEAUDIT_DATA)")
    args = parser.parse_args()
    root = config.data_root(args.root)
    data.load("mnist", "train", root=root)  # loading is not part of an epoch
    default_threads = torch.get_num_threads()
    load_before = os.getloadavg()[0]

    rows = []
    for label, fn in [
        (f"(a) plain loop, {default_threads} threads (torch default)",
         lambda: plain_loop(root, args.epochs, args.subset, None)),
        ("(a1) plain loop, 1 thread", lambda: plain_loop(root, args.epochs, args.subset, 1)),
        ("(b) pruneaudit.train.train", lambda: package_loop(root, args.epochs, args.subset)),
    ]:
        seconds, cpu = fn()
        rows.append({"loop": label, "seconds_per_epoch": seconds, "cpu_seconds_per_epoch": cpu})
        print(f"{label:45s} {seconds:8.2f} s/epoch  ({cpu:.2f} CPU s)", flush=True)
    table = pd.DataFrame(rows)
    base = table.seconds_per_epoch.iloc[0]
    table["speedup_vs_a"] = base / table.seconds_per_epoch
    table["speedup_vs_a1"] = table.seconds_per_epoch.iloc[1] / table.seconds_per_epoch
    n = args.subset or 60000
    info = (
        f"LeNet, MNIST train ({n} images), batch 32, SGD lr 0.01, {args.epochs} epoch(s); "
        f"torch {torch.__version__}, {os.cpu_count()} CPUs ({platform.machine()}), "
        f"load average before the run {load_before:.1f}"
    )
    print(info)
    print(f"speed-up of (b) over (a): {table.speedup_vs_a.iloc[-1]:.2f}x; "
          f"over (a1): {table.speedup_vs_a1.iloc[-1]:.2f}x")
    OUT.mkdir(exist_ok=True)
    table.to_csv(OUT / "train_speed.csv", index=False)
    (OUT / "train_speed.md").write_text(
        f"{info}\n\n{table.to_markdown(index=False, floatfmt='.2f')}\n"
    )


if __name__ == "__main__":
    main()
