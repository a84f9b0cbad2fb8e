"""A speed probe: this machine's population-training rate on one fixed small workload.

A profile's stated cold build (``measured:``) ran on one machine; on another the same build can
take half or twice as long. The probe trains one fixed population (:data:`MEMBERS` LeNets, one
epoch over :data:`IMAGES` synthetic 28 x 28 digits, the trainer's own settings) on the CPU at
the torch threads a build would start with, :data:`REPEATS` times (about ten seconds), and stores
nothing. A build records it beside its timings, a profile states the probe of its measured build
(``measured_probe:``), and a build on another machine scales the stated duration by the ratio
of the two probes (:func:`pruneaudit.book.builder.plan.expectations`). It measures the
training kernels only: evaluation, the results store and the pages' assembly (about a sixth of
a quick build) are assumed to scale alike. On a shared machine one training's rate drifts with
the machine's speed, so the probe is a median over several (``benchmarks/probe_noise.py``:
``benchmarks/out/probe_noise.md``).
"""

from __future__ import annotations

import functools
import statistics
import time

#: Members of the probe's population: two of the trainer's CPU blocks (one per thread on 2 cores).
MEMBERS = 16
#: Synthetic training images per member.
IMAGES = 2_000
#: Timed trainings; the probe is their median (the first also pays one-time set-up). Nine: on a
#: shared 2-core machine a median of 3 trainings fell up to 29% from the median of twelve
#: minutes' trainings, one of 9 up to 25% (``benchmarks/out/probe_noise.md``).
REPEATS = 9


def probe_rate(threads: int) -> float:
    """One training of the probe's population at ``threads`` torch threads, in seconds per
    10,000 training images per model."""
    import torch

    from pruneaudit.data.datasets import DATASETS, ImageData
    from pruneaudit.models import build_model
    from pruneaudit.training import TrainConfig, train_population

    generator = torch.Generator().manual_seed(0)
    images = torch.randint(0, 256, (IMAGES, 1, 28, 28), generator=generator, dtype=torch.uint8)
    labels = torch.randint(0, 10, (IMAGES,), generator=generator)
    data = ImageData("probe", images, labels, tuple("0123456789"), DATASETS["mnist"])
    cfgs = [TrainConfig(epochs=1, seed=k) for k in range(MEMBERS)]
    models = [build_model("lenet", 10, 1, 28, seed=k) for k in range(MEMBERS)]
    start = time.perf_counter()
    train_population(models, data, cfgs, progress=False, num_threads=threads, device="cpu")
    return (time.perf_counter() - start) / (MEMBERS * IMAGES) * 10_000


@functools.cache
def speed_probe() -> float:
    """Seconds per 10,000 training images per model of the probe's population on the CPU at
    :func:`pruneaudit.runtime.choose_threads`'s count (a build's): the median of ``REPEATS``
    trainings (each ``probe_rate``); measured once per process."""
    from pruneaudit import runtime

    threads = runtime.choose_threads()[0]
    return statistics.median(probe_rate(threads) for _ in range(REPEATS))


__all__ = ["IMAGES", "MEMBERS", "REPEATS", "probe_rate", "speed_probe"]
