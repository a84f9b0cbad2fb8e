"""Training: one model (:mod:`.loop`) or K models as one stacked computation (:mod:`.stacked`)."""

from __future__ import annotations

from pruneaudit.training.loop import (
    StepHook,
    TrainConfig,
    epoch_order,
    evaluate,
    num_steps,
    steps_per_epoch,
    train,
)
from pruneaudit.training.stacked import (
    BLOCK,
    EVAL_CHUNK,
    SHARED_FIELDS,
    evaluate_population,
    supports,
    train_population,
)

__all__ = [
    "StepHook",
    "TrainConfig",
    "steps_per_epoch",
    "num_steps",
    "epoch_order",
    "train",
    "evaluate",
    "SHARED_FIELDS",
    "BLOCK",
    "EVAL_CHUNK",
    "supports",
    "train_population",
    "evaluate_population",
]
