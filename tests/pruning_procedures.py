"""Pruning procedures the tests use as references; the package itself never calls them.

:func:`prune_step` hands a fraction straight to ``torch.nn.utils.prune`` (the rounding that
:func:`pruneaudit.compress.prune_to` avoids); :func:`iterative_prune` is the protocol's
train -> (prune -> retrain) loop for one model, the reference the stacked population code is
checked against. Importable from any test module (``pythonpath = ["tests"]`` in pyproject.toml).
"""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.utils.prune as prune
from torch import nn

from pruneaudit import compress
from pruneaudit.data import ImageData
from pruneaudit.errors import check_choice, check_positive_int, check_range
from pruneaudit.models import prunable_parameters
from pruneaudit.training import TrainConfig, train


def prune_step(model: nn.Module, technique: str, amount: float, seed: int = 0) -> nn.Module:
    """Prune ``amount`` (in (0, 1)) of the still-unpruned weights or slices, in place.

    Layer-wise techniques prune that fraction of each prunable tensor (torch rounds
    ``amount * remaining`` per tensor); ``global_unstructured`` prunes that fraction of all
    remaining prunable weights by L1 magnitude. Random draws are seeded by ``seed`` inside
    ``fork_rng`` (the caller's random state is left untouched). Returns ``model``.
    """
    entry = compress.TECHNIQUE_TABLE[
        check_choice("pruning technique", technique, compress.TECHNIQUES)
    ]
    check_range("amount", amount, 0.0, 1.0, lo_open=True, hi_open=True)
    targets = prunable_parameters(model)
    cuda = sorted({p.device.index or 0 for p in model.parameters() if p.device.type == "cuda"})
    with torch.random.fork_rng(devices=cuda):
        torch.manual_seed(seed)
        if entry.is_global:
            prune.global_unstructured(
                targets, pruning_method=prune.L1Unstructured, amount=float(amount)
            )
        else:
            for module, param in targets:
                entry.prune_tensor(module, param, amount=float(amount))
    return model


def iterative_prune(
    model: nn.Module,
    data: ImageData,
    technique: str,
    treatment: str,
    iterations: int,
    train_cfg: TrainConfig,
    *,
    callback: Callable[[int, nn.Module], None] | None = None,
    seed: int = 0,
    rate: float = 0.2,
) -> nn.Module:
    """The protocol's iterative pruning of one model, in place: train, then ``iterations`` times
    :func:`pruneaudit.compress.prune_round` and retrain with ``train_cfg``.

    ``callback(k, model)`` runs after each round, ``k = 0`` for the trained dense model.
    """
    check_positive_int("iterations", iterations)
    init = compress.snapshot(model)
    train(model, data, train_cfg, progress=False)
    if callback is not None:
        callback(0, model)
    for k in range(1, iterations + 1):
        compress.prune_round(model, technique, treatment, k, init, seed=seed, rate=rate)
        train(model, data, train_cfg, progress=False)
        if callback is not None:
            callback(k, model)
    return model
