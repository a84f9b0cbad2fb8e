"""Training: one model (:mod:`.loop`) or K models as one stacked computation (:mod:`.stacked`,
their predictions :mod:`.predict`), on the device of :mod:`.device`."""

from __future__ import annotations

from pruneaudit.training.device import (
    cuda_devices,
    environment,
    full_precision,
    is_quantized,
    on_device,
    resolve_device,
)
from pruneaudit.training.loop import (
    ScheduledHook,
    StepHook,
    TrainConfig,
    epoch_order,
    evaluate,
    hook_acts,
    num_steps,
    steps_per_epoch,
    train,
)
from pruneaudit.training.predict import EVAL_CHUNK, evaluate_population
from pruneaudit.training.stacked import (
    BLOCK,
    CUDA_BLOCK,
    MIN_BLOCK,
    SHARED_FIELDS,
    PackedOptions,
    Part,
    block_size,
    supports,
    train_packed,
    train_population,
)

__all__ = [
    "resolve_device",
    "on_device",
    "full_precision",
    "is_quantized",
    "environment",
    "cuda_devices",
    "StepHook",
    "ScheduledHook",
    "hook_acts",
    "TrainConfig",
    "steps_per_epoch",
    "num_steps",
    "epoch_order",
    "train",
    "evaluate",
    "SHARED_FIELDS",
    "BLOCK",
    "CUDA_BLOCK",
    "MIN_BLOCK",
    "block_size",
    "EVAL_CHUNK",
    "supports",
    "Part",
    "PackedOptions",
    "train_packed",
    "train_population",
    "evaluate_population",
]
