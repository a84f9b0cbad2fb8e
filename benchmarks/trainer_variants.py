"""What the field offers for the stacked LeNet step on a CPU, measured side by side.

One training step of a stacked block of K LeNets (forward, summed cross-entropy, backward, SGD)
on a batch of 32 real MNIST digits per member, as :func:`pruneaudit.training.train_population`
runs it, in these variants:

* ``shipped``: the trainer's own step: the members in :func:`~pruneaudit.training.stacked.
  blocks` (at most 8 each), each block a stacked computation (grouped convolutions on
  ``channels_last`` tensors, pool-before-ReLU, linear layers as batched matrix products), the
  blocks at once in Python threads, one per torch thread;
* ``blocks one after another`` (K > 8): the same blocks in turn, each on all the threads (the
  trainer before blocks ran in parallel);
* ``one block of K`` (K > 8): all members in one stacked computation;
* ``contiguous`` (K <= 8): the shipped step in the default contiguous layout;
* ``compile`` (K <= 8): the shipped step under ``torch.compile`` (TorchInductor's CPU backend,
  C++/OpenMP kernels; its compile time shows in the first step's seconds);
* ``vmap`` (K <= 8): ``torch.func.vmap`` over ``torch.func.functional_call`` of one LeNet
  module with the members' stacked parameters (the functional route to a population).

Every variant runs in the same process on the same batches, at 1 and 2 torch threads, and must
give the shipped step's loss (checked) before it is timed. GFLOP/s count the convolution and
matmul FLOPs of the step (``torch.utils.flop_counter``) over the median step time; peak is a
float32 4096 x 4096 matmul timed in the same run. Writes
``benchmarks/out/trainer_variants.{md,csv}``.

Usage: ``python benchmarks/trainer_variants.py [--ks 8,16,30] [--threads 1,2] [--steps 60]``.
Quote figures from an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pandas as pd
import torch
import torch.nn.functional as F
from torch.utils.flop_counter import FlopCounterMode
from training_speed import _timed, matmul_peak, write_table  # this folder

from pruneaudit import data
from pruneaudit.data.augment import normalize
from pruneaudit.models import build_model
from pruneaudit.training import stacked
from pruneaudit.training.stack import Stack

BATCH, LR = 32, 0.01

Step = Callable[[], torch.Tensor]


def _batches(k: int, steps: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """``steps`` batches ``(x (32, K, 28, 28), y (K * 32,))`` of real, normalized MNIST digits."""
    mnist = data.load("mnist", "train")  # the package's data root
    g = torch.Generator().manual_seed(0)
    out = []
    for _ in range(steps):
        idx = torch.randint(0, len(mnist), (BATCH, k), generator=g)
        x = normalize(mnist.images[idx.reshape(-1)], mnist.spec).view(BATCH, k, 28, 28)
        out.append((x, mnist.labels[idx.t().reshape(-1)]))
    return out


def _models(k: int) -> list[torch.nn.Module]:
    return [build_model("lenet", 10, 1, 28, seed=s) for s in range(k)]


def stacked_step(
    k: int,
    groups: list[list[int]] | None = None,
    *,
    channels_last: bool = True,
    compiled: bool = False,
    parallel: bool = True,
):
    """A step over the members in ``groups`` (default: the trainer's :func:`~pruneaudit.training.
    stacked.blocks`), the blocks at once in threads as the trainer runs them (``parallel``) or one
    after another."""
    models = _models(k)
    groups = groups or stacked.blocks(k, torch.device("cpu"))
    stacks = [Stack([models[i] for i in g], True, channels_last=channels_last)
              for g in groups]
    opts = [torch.optim.SGD(s.params, lr=LR) for s in stacks]
    workers = min(len(groups), torch.get_num_threads()) if parallel else 1
    pool = ThreadPoolExecutor(workers) if workers > 1 else None
    if pool is not None:
        torch.set_num_threads(max(1, torch.get_num_threads() // workers))

    def loss(stack: Stack, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        logits = stack.forward(x)
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y, reduction="sum") / BATCH

    fn = torch.compile(loss) if compiled else loss

    def one(i: int, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        members = groups[i]
        value = fn(stacks[i], x[:, members].contiguous(), y.view(k, BATCH)[members].reshape(-1))
        opts[i].zero_grad(set_to_none=True)
        value.backward()
        opts[i].step()
        return value.detach()

    def step(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        if pool is None:
            return sum(one(i, x, y) for i in range(len(stacks)))
        return sum(pool.map(lambda i: one(i, x, y), range(len(stacks))))

    return step


def vmap_step(k: int):
    """The functional route: vmap over functional_call with stacked parameters."""
    from torch.func import functional_call, stack_module_state, vmap

    models = _models(k)
    params, buffers = stack_module_state(models)
    base = build_model("lenet", 10, 1, 28, seed=0).to("meta")
    opt = torch.optim.SGD(list(params.values()), lr=LR)

    def one(p, b, x, y):
        logits = functional_call(base, (p, b), (x.unsqueeze(1),))
        return F.cross_entropy(logits, y, reduction="sum")

    batched = vmap(one)

    def step(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        value = batched(params, buffers, x.transpose(0, 1), y.view(k, BATCH)).sum() / BATCH
        opt.zero_grad(set_to_none=True)
        value.backward()
        opt.step()
        return value.detach()

    return step


def step_flops(k: int) -> int:
    """Conv + matmul FLOPs of one step of K LeNets (forward + backward)."""
    model = build_model("lenet", 10, 1, 28, seed=0)
    x, y = torch.randn(BATCH, 1, 28, 28), torch.randint(0, 10, (BATCH,))
    with FlopCounterMode(display=False) as counter:
        F.cross_entropy(model(x), y).backward()
    return int(counter.get_total_flops()) * k


def measure(make, batches, warmup: int = 5) -> tuple[float, float, float]:
    """(first-call seconds (compile included), median step seconds, first step's loss)."""
    step = make()
    x, y = batches[0]
    first = _timed(lambda: step(x, y))
    for x, y in batches[1 : 1 + warmup]:
        step(x, y)
    times = [_timed(lambda b=b: step(*b)) for b in batches[1 + warmup :]]
    loss = float(make()(*batches[0]))  # a fresh population: the first step's loss
    return first, statistics.median(times), loss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ks", default="8,16,30")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--steps", type=int, default=60)
    args = parser.parse_args()
    ks = [int(s) for s in args.ks.split(",")]
    rows = []
    for threads in (int(s) for s in args.threads.split(",")):
        torch.set_num_threads(threads)
        peak = matmul_peak(threads)
        for k in ks:
            batches = _batches(k, args.steps)
            variants = {"shipped": lambda k=k: stacked_step(k)}
            if k > stacked.BLOCK:
                variants["blocks one after another"] = lambda k=k: stacked_step(k, parallel=False)
                variants[f"one block of {k}"] = lambda k=k: stacked_step(k, [list(range(k))])
            else:
                variants["contiguous"] = lambda k=k: stacked_step(k, channels_last=False)
                variants["compile"] = lambda k=k: stacked_step(k, compiled=True)
                variants["vmap"] = lambda k=k: vmap_step(k)
            reference = None
            for name, make in variants.items():
                torch.set_num_threads(threads)
                first, seconds, loss = measure(make, batches)
                reference = loss if reference is None else reference
                if abs(loss - reference) > 1e-4 * max(1.0, abs(reference)):
                    raise SystemExit(f"{name}: loss {loss} differs from the shipped {reference}")
                gflops = step_flops(k) / seconds / 1e9
                rows.append(
                    {
                        "threads": threads,
                        "K": k,
                        "variant": name,
                        "ms_per_step": seconds * 1e3,
                        "images_per_s": k * BATCH / seconds,
                        "gflops": gflops,
                        "fraction_of_peak": gflops / peak,
                        "first_step_s": first,
                        "peak_gflops": peak,
                    }
                )
                print(
                    f"threads {threads} K={k:3d} {name:18s} {seconds * 1e3:7.2f} ms/step "
                    f"{k * BATCH / seconds:8.0f} img/s {gflops:6.1f} GFLOP/s "
                    f"({gflops / peak:5.1%} of {peak:.0f}) first step {first:6.1f} s",
                    flush=True,
                )
    table = pd.DataFrame(rows)
    base = table[table.variant == "shipped"].set_index(["threads", "K"]).images_per_s
    table["vs_shipped"] = [
        r.images_per_s / base[(r.threads, r.K)] for r in table.itertuples()
    ]
    info = (
        f"One stacked LeNet training step, batch {BATCH} real MNIST digits per member, "
        f"SGD lr {LR}; "
        f"median of {args.steps - 6} steps; torch {torch.__version__}, {os.cpu_count()} CPUs, "
        f"{platform.processor() or platform.machine()}; peak: float32 4096 x 4096 matmul at the "
        f"same thread count."
    )
    write_table(table, info, "trainer_variants")


if __name__ == "__main__":
    main()
