"""Training and evaluation: plain SGD on in-memory uint8 images, seeded and deterministic.

The random-draw contract (what a population trainer reproduces member by member)
--------------------------------------------------------------------------------
The model's initialization is not drawn here (see :func:`pruneaudit.models.build_model`).
Training owns one generator, ``g = torch.Generator().manual_seed(cfg.seed)`` (CPU), created
when :func:`train` starts, and nothing else random is used. For each epoch, in this order:

1. ``perm = torch.randperm(n, generator=g)``; the batches are ``perm.split(batch_size)`` in
   order (the last one is shorter when ``batch_size`` does not divide ``n``) — this is
   :func:`epoch_order`;
2. then, only if ``cfg.augment``, for each batch in order (``b`` = its length), exactly the draws
   of :func:`pruneaudit.data.augment.draw_augmentation`:
   ``torch.randint(0, 2 * pad + 1, (b, 2), generator=g)`` (crop offsets), then, only if
   ``data.spec.flip_ok``, ``torch.rand(b, generator=g)`` (flip where ``< 0.5``).

Each batch is ``data.images[idx]`` (uint8), augmented with these draws by
:func:`pruneaudit.data.augment.apply_augmentation`, normalized by
:func:`pruneaudit.data.augment.normalize`, and used for one step of ``torch.optim.SGD(lr, momentum,
weight_decay)`` on the mean cross-entropy. ``step_hook(model, step)`` runs after every optimizer
step with ``step`` = the 0-based index of the step just taken (0 .. ``num_steps - 1``) counted
over all epochs.

Every call of :func:`train` starts a fresh generator from ``cfg.seed``: two training rounds with
the same config see the same data order and augmentation (pass another seed, e.g. with
``dataclasses.replace(cfg, seed=...)``, for different draws). The forward and backward passes run
with the model in ``channels_last`` memory format (see :func:`train`); a reimplementation in the
default format agrees to float rounding, not bit for bit.

On CPU, with the same seed, initial weights, data and number of torch threads, two runs give
identical weights (the tests check this with ``torch.equal``).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from pruneaudit.compress import pruning_hooks, refresh_effective_weight
from pruneaudit.data.augment import apply_augmentation, crop_padding, draw_augmentation, normalize
from pruneaudit.errors import PruneAuditError, check_positive_int, check_range
from pruneaudit.runtime import Runtime, threads_at
from pruneaudit.training.device import (
    autocast,
    full_precision,
    is_quantized,
    model_device,
    on_device,
    resolve_device,
)

if TYPE_CHECKING:
    from tqdm.std import tqdm

    from pruneaudit.data.datasets import ImageData


class StepHook(Protocol):
    """Called as ``hook(model, step)`` after every optimizer step (a plain function will do)."""

    def __call__(self, model: nn.Module, step: int, /) -> None: ...


@runtime_checkable
class ScheduledHook(StepHook, Protocol):
    """A step hook that says on which steps it acts (e.g.
    :class:`~pruneaudit.compress.GradualPruner`): the population trainer copies a member's
    weights out to its hook only on those steps (:func:`hook_acts`)."""

    def acts_at(self, step: int) -> bool: ...


def hook_acts(hook: StepHook | None, step: int) -> bool:
    """Whether ``hook`` acts after ``step``: a :class:`ScheduledHook` on the steps it names,
    any other hook after every step, no hook never."""
    if hook is None:
        return False
    return hook.acts_at(step) if isinstance(hook, ScheduledHook) else True


@contextmanager
def _placed(
    model: nn.Module, num_threads: int | None, device: torch.device, runtime: Runtime
) -> Iterator[None]:
    """Run with ``num_threads`` torch threads (None: torch's setting, or while ``runtime``
    follows the free cores its steady count,
    :meth:`pruneaudit.runtime.Runtime.steady_threads`, as a single
    model's training differs in the last bits between thread counts) and the model on
    ``device`` in ``channels_last``; restore all three (the model goes
    back to its own device), with TF32 off on CUDA
    (:func:`pruneaudit.training.device.full_precision`).

    Measured with ``benchmarks/training_speed.py`` on 2 cores: on an idle machine torch's
    default (all cores) is ~1.5x faster than one thread for LeNet; when other work shares the
    CPU, or several runs go in parallel (Dask workers, which set ``OMP_NUM_THREADS=1``), one
    thread is several times faster: pass ``num_threads=1`` there. ``channels_last`` makes
    max-pooling and convolutions faster.
    ``torch.compile`` (slower at batch 32 on this CPU, after a long compile), fused SGD and
    preparing batches in larger blocks did not pay off measurably and are not used.
    """
    if num_threads is None:  # following the free cores: a count the load does not set
        num_threads = runtime.steady_threads()
    home = model_device(model)
    if device != home:
        model.to(device)
    model.to(memory_format=torch.channels_last)
    try:
        with threads_at(num_threads), full_precision(device):
            yield
    finally:
        model.to(home, memory_format=torch.contiguous_format)
        _refresh_pruned(model)


def _refresh_pruned(model: nn.Module) -> None:
    """Recompute each pruned module's effective weight (``orig * mask``) after a layout change.

    torch's pruning hook stores the effective weight as a plain attribute at every forward
    pass; ``model.to(memory_format=...)`` converts parameters and buffers but not that attribute,
    so it would stay ``channels_last`` and ``torch.nn.utils.prune.global_unstructured`` (which
    flattens it with ``view``) would fail on the next pruning round.
    """
    for module in model.modules():
        for name in pruning_hooks(module):
            refresh_effective_weight(module, name)


def _contiguous_pruned(model: nn.Module) -> None:
    """Give each pruned module's effective weight attribute the contiguous layout, same values.

    Inside training the attribute holds ``orig * mask`` from the last forward pass (torch's
    pruning recomputes it only at the next forward), as in any plain loop; only its layout is
    changed here, so that a step hook that flattens it (``global_unstructured``) works and sees
    exactly the values a plain contiguous-format loop would show it.
    """
    for module in model.modules():
        for name in pruning_hooks(module):
            value = getattr(module, name, None)
            if isinstance(value, torch.Tensor) and not value.is_contiguous():
                setattr(module, name, value.contiguous())


@dataclass(frozen=True)
class TrainConfig:
    """Training settings; the defaults are the protocol's (SGD, lr 0.01, batch 32, 30 epochs)."""

    lr: float = 0.01
    batch_size: int = 32
    epochs: int = 30
    seed: int = 0
    augment: bool = True
    momentum: float = 0.0
    weight_decay: float = 0.0

    def __post_init__(self) -> None:
        check_range("lr", self.lr, 0.0, math.inf, lo_open=True, hi_open=True)
        check_positive_int("batch_size", self.batch_size)
        check_positive_int("epochs", self.epochs)
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise PruneAuditError(f"seed must be a non-negative integer, got {self.seed!r}")
        if not isinstance(self.augment, bool):
            raise PruneAuditError(f"augment must be True or False, got {self.augment!r}")
        check_range("momentum", self.momentum, 0.0, 1.0, hi_open=True)
        check_range("weight_decay", self.weight_decay, 0.0, math.inf, hi_open=True)


def steps_per_epoch(n: int, batch_size: int) -> int:
    """Number of optimizer steps in one epoch over ``n`` examples (the last batch may be short)."""
    return math.ceil(n / batch_size)


def num_steps(n: int, cfg: TrainConfig) -> int:
    """Total optimizer steps of :func:`train` on ``n`` examples (``step_hook`` sees 0..this-1)."""
    return cfg.epochs * steps_per_epoch(n, cfg.batch_size)


def epoch_order(n: int, batch_size: int, generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    """One epoch's batches of example indices: ``randperm(n, generator=g).split(batch_size)``."""
    return torch.randperm(n, generator=generator).split(batch_size)


def train(
    model: nn.Module,
    data: ImageData,
    cfg: TrainConfig,
    *,
    step_hook: StepHook | None = None,
    progress: bool = True,
    num_threads: int | None = None,
    device: str | torch.device | None = None,
    runtime: Runtime | None = None,
) -> nn.Module:
    """Train ``model`` in place on all of ``data`` with plain SGD; returns ``model``.

    The random draws follow the contract in this module's docstring. ``step_hook(model, step)``
    is called after every optimizer step (used by gradual pruning), with the model in the
    standard contiguous memory format.

    ``runtime`` (default: a fresh :class:`~pruneaudit.runtime.Runtime` from the environment)
    gives the defaults of the device, the precision and the threads, and the progress bar.

    Speed: runs with ``num_threads`` torch threads (default None: torch's setting, or, while
    the runtime follows the free cores, :meth:`pruneaudit.runtime.Runtime.steady_threads`,
    never a count the load picked) and the model in ``channels_last`` memory format, both
    restored afterwards (the model comes back in the standard contiguous format). Batches are
    indexed straight from the uint8 tensors: no DataLoader, no per-image work.

    Device: ``device`` (default: the runtime's setting,
    :meth:`pruneaudit.runtime.Runtime.device_setting`) runs the
    steps; the data moves there once, augmentation runs there, the random draws stay on the CPU
    generator (same draws on every device), and the model returns to its own device at the end.
    The runtime's precision (:meth:`pruneaudit.runtime.Runtime.precision_setting`): ``fp32``,
    or ``bf16`` autocast of the forward pass on CUDA
    (:func:`pruneaudit.training.device.autocast`; refused on the CPU).
    """
    runtime = Runtime.given(runtime)
    dev = resolve_device(runtime.device_setting(device))
    cast = autocast(runtime.precision_setting(), dev)
    n = len(data)
    if n == 0:
        raise PruneAuditError("cannot train on an empty ImageData")
    bar = runtime.bar(
        total=num_steps(n, cfg),
        disable=not progress,
        desc=f"train {type(model).__name__} on {data.name}",
        unit="step",
        leave=False,
    )
    try:
        with _placed(model, num_threads, dev, runtime):
            _sgd(model, on_device(data, dev), cfg, step_hook, bar, dev, cast)
    finally:
        bar.close()
    return model


def _sgd(
    model: nn.Module,
    data: ImageData,
    cfg: TrainConfig,
    step_hook: StepHook | None,
    bar: tqdm,
    device: torch.device,
    cast: AbstractContextManager | None = None,
) -> None:
    """The training loop proper (draws exactly as in the module docstring); ``cast`` wraps the
    forward pass (autocast; default none)."""
    cast = cast if cast is not None else nullcontext()
    n, spec = len(data), data.spec
    images, labels = data.images, data.labels
    pad = crop_padding(spec.size) if cfg.augment else 0
    g = torch.Generator().manual_seed(cfg.seed)
    opt = torch.optim.SGD(
        model.parameters(), lr=cfg.lr, momentum=cfg.momentum, weight_decay=cfg.weight_decay
    )
    model.train()
    step = 0
    for epoch in range(cfg.epochs):
        bar.set_postfix(epoch=f"{epoch + 1}/{cfg.epochs}", refresh=False)
        for idx in epoch_order(n, cfg.batch_size, g):
            if cfg.augment:
                offsets, flips = draw_augmentation(len(idx), spec, g)
            if device.type != "cpu":
                idx = idx.to(device, non_blocking=True)
            x = images[idx]
            if cfg.augment:
                if device.type != "cpu":
                    offsets = offsets.to(device, non_blocking=True)
                    flips = None if flips is None else flips.to(device, non_blocking=True)
                x = apply_augmentation(x, offsets, flips, pad)
            with cast:
                logits = model(normalize(x, spec))
            loss = F.cross_entropy(logits.float(), labels[idx])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            if step_hook is not None:
                # the hook sees the standard layout: torch's pruning masks assume it
                model.to(memory_format=torch.contiguous_format)
                _contiguous_pruned(model)
                step_hook(model, step)
                model.to(memory_format=torch.channels_last)
            step += 1
            bar.update()


def evaluate(
    model: nn.Module,
    data: ImageData,
    batch_size: int = 1000,
    return_logits: bool = False,
    *,
    num_threads: int | None = None,
    device: str | torch.device | None = None,
    runtime: Runtime | None = None,
) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """Predicted labels (``np.ndarray`` int64, one per example, in order) of ``model`` on ``data``.

    Runs in eval mode under ``torch.inference_mode`` on normalized, unaugmented images, and puts
    the model back in the mode it was in. With ``return_logits`` also the float32 logits (N, C).
    Threads, memory format and device as in :func:`train`, except that a model holding torch
    int8 modules (:func:`~pruneaudit.training.device.is_quantized`) is evaluated on the CPU,
    where its kernels are; ``runtime`` as in :func:`train`.
    """
    check_positive_int("batch_size", batch_size)
    runtime = Runtime.given(runtime)
    dev = torch.device("cpu") if is_quantized(model) else resolve_device(
        runtime.device_setting(device)
    )
    data = on_device(data, dev)
    was_training = model.training
    model.eval()
    preds, logits = [], []
    try:
        with _placed(model, num_threads, dev, runtime), torch.inference_mode():
            for start in range(0, len(data), batch_size):
                out = model(normalize(data.images[start : start + batch_size], data.spec))
                preds.append(out.argmax(1))
                if return_logits:
                    logits.append(out)
    finally:
        model.train(was_training)
    labels = torch.cat(preds).cpu().numpy() if preds else np.zeros(0, dtype=np.int64)
    if not return_logits:
        return labels
    return labels, (torch.cat(logits).cpu().numpy() if logits else np.zeros((0, 0), np.float32))
