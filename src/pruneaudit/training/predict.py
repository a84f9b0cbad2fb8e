"""Predictions of a population: every member on one test set in stacked forward passes.

The members of a stackable architecture (:func:`pruneaudit.training.stack.supports`) are
evaluated in the blocks of :func:`pruneaudit.training.stacked.blocks`, one block after another
(in threads it was no faster on 2 cores: ``benchmarks/out/profile_evidence.md``), each block's
test images copied once per member and run through one grouped pass; other models one by one
with :func:`~pruneaudit.training.evaluate`. Either way each member gets the labels
:func:`~pruneaudit.training.evaluate` gives it alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import torch
from torch import nn

from pruneaudit.data.augment import normalize
from pruneaudit.errors import check_positive_int
from pruneaudit.runtime import Runtime
from pruneaudit.training.device import full_precision, on_device, resolve_device
from pruneaudit.training.loop import evaluate
from pruneaudit.training.stack import Stack, check_architecture
from pruneaudit.training.stacked import MIN_BLOCK, _check_population, blocks

if TYPE_CHECKING:
    from pruneaudit.data.datasets import ImageData

#: Images per stacked evaluation pass (bounds the activations' memory).
EVAL_CHUNK = 256
_CPU = torch.device("cpu")


def evaluate_population(
    models: list[nn.Module],
    data: ImageData,
    batch_size: int = 1000,
    *,
    device: str | torch.device | None = None,
    runtime: Runtime | None = None,
) -> np.ndarray:
    """Predicted labels ``(K, N)`` (int64) of every member on ``data``, as
    :func:`~pruneaudit.training.evaluate` gives them member by member (normalized, unaugmented),
    computed on ``device`` (default: the setting of ``runtime``, default a fresh
    :class:`~pruneaudit.runtime.Runtime` from the environment); while the runtime follows the
    free cores, at its steady count (:meth:`pruneaudit.runtime.Runtime.at_steady_threads`), not at a
    population's."""
    _check_population(models)
    check_positive_int("batch_size", batch_size)
    runtime = Runtime.given(runtime)
    dev = resolve_device(runtime.device_setting(device))
    if not check_architecture(models):
        return np.stack(
            [evaluate(m, data, batch_size, device=dev, runtime=runtime)  # type: ignore[misc]
             for m in models]
        )
    k, n = len(models), len(data)
    out = np.zeros((k, n), dtype=np.int64)
    data = on_device(data, dev)
    with torch.inference_mode(), full_precision(dev), runtime.at_steady_threads():
        for block in blocks(k, dev):
            stack = evaluation_stack([models[i] for i in block], dev)
            for start in range(0, n, batch_size):
                for lo in range(start, min(start + batch_size, n), EVAL_CHUNK):
                    hi = min(lo + EVAL_CHUNK, start + batch_size, n)
                    x = normalize(data.images[lo:hi], data.spec).repeat(1, stack.k, 1, 1)
                    pred = stack.forward(x)[: len(block)].argmax(-1)
                    out[block[0] : block[-1] + 1, lo:hi] = pred.cpu().numpy()
    return out


def evaluation_stack(members: list[nn.Module], device: torch.device = _CPU) -> Stack:
    """The members as one stack for the forward pass (logits: the first ``len(members)`` of
    its output). A lone member sits beside a copy of itself: a stack of one runs the ungrouped
    convolution, whose logits differ in the last bits from the member's in blocks of 2 to 9,
    which agree (LeNet, 1 and 2 threads, AVX2: ``tests/training/test_companions.py``), so a
    rare near-tie could have given it another label alone."""
    return Stack(members * MIN_BLOCK if len(members) == 1 else members, False, device)


__all__ = ["EVAL_CHUNK", "evaluate_population", "evaluation_stack"]
