"""Trained models of runs: their initial model, training config and fit, stored checkpoints, and
the stored tables of an evaluation (per-class accuracy with the measured sparsity, per-example
predictions).

Members that share a computation are trained together by
:func:`pruneaudit.training.train_population` (:func:`fit_population`) and evaluated as one
stacked computation (:func:`evaluate_population`). A dense checkpoint also holds the initial
weights under ``init.*`` keys, for rewinding.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence

import numpy as np
import pandas as pd
import torch
from torch import nn

from pruneaudit import compress, data, models, training
from pruneaudit.errors import PruneAuditError
from pruneaudit.runs.cost import record_rate
from pruneaudit.runs.run_data import Splits, splits
from pruneaudit.runs.spec import TRAINER_SCHEME, RunSpec
from pruneaudit.runs.store import ResultsStore
from pruneaudit.runtime import Runtime
from pruneaudit.timing import phase
from pruneaudit.training.device import environment
from pruneaudit.training.loop import StepHook, TrainConfig, evaluate

INIT_PREFIX = "init."


def train_config(spec: RunSpec) -> TrainConfig:
    """The training config of a run."""
    return TrainConfig(
        lr=spec.lr,
        batch_size=spec.batch_size,
        epochs=spec.epochs,
        seed=spec.seed,
        augment=spec.augment,
    )


def round_epochs(spec: RunSpec, treatment: str | None = None) -> int:
    """Epochs of one training round of ``spec``'s series: ``epochs``, unless the spec sets
    ``extra["dense_epochs"]``; then the dense run (treatment None) and every rewound round
    (retrained from the initial weights, as the dense model was: P's rounds repeat the dense
    budget) train ``dense_epochs``, and a finetuned round ``epochs`` from its current weights."""
    if spec.dense_epochs is None or treatment == "finetune":
        return spec.epochs
    return spec.dense_epochs


def fresh_model(spec: RunSpec, like: data.ImageData) -> nn.Module:
    """The initial (untrained) model of a run, seeded by the run's seed."""
    return models.build_model(
        spec.model, like.num_classes, like.in_channels, like.image_size, seed=spec.seed
    )


def load_model(spec: RunSpec, store: ResultsStore, root: str | None = None) -> nn.Module:
    """The trained model of a stored run (masks restored for pruned runs)."""
    state = store.load(spec).checkpoint()
    model = fresh_model(spec, splits(spec, root).test)
    weights = {k: v for k, v in state.items() if not k.startswith(INIT_PREFIX)}
    return compress.load_pruned_state_dict(model, weights)


def dense_checkpoint(model: nn.Module, init: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """The checkpoint of a dense run: its weights and, under ``init.*``, its initial ones."""
    state = compress.pruned_state_dict(model)
    state.update({INIT_PREFIX + k: v for k, v in init.items()})
    return state


def init_snapshot(state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """The initial weights held in a dense checkpoint (the rewound rounds' start)."""
    return {k[len(INIT_PREFIX) :]: v for k, v in state.items() if k.startswith(INIT_PREFIX)}


@phase("evaluation")
def evaluate_model(
    model: nn.Module,
    test: data.ImageData,
    sparsity: float | None = None,
    runtime: Runtime | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per-class accuracy (+ sparsity) and per-example predictions of ``model`` on ``test``,
    evaluated with ``runtime`` (:func:`pruneaudit.training.evaluate`).

    ``sparsity`` None measures it on ``model``; a quantized model (whose int8 layers are no
    longer conv / linear modules) passes the sparsity of the model it was made from."""
    preds = evaluate(model, test, runtime=runtime)
    return evaluation_frames(
        test, preds, compress.sparsity(model) if sparsity is None else sparsity
    )


@phase("evaluation")
def evaluate_population(
    nets: Sequence[nn.Module], tests: Sequence[data.ImageData], runtime: Runtime
) -> list[tuple[pd.DataFrame, pd.DataFrame]]:
    """:func:`evaluate_model` of every net of a trained population on its own test set
    (``tests[k]``), the nets of each test set evaluated as one stacked computation
    (:func:`pruneaudit.training.evaluate_population`, the same predictions) with
    ``runtime``."""
    if len(tests) != len(nets):
        raise PruneAuditError(f"{len(nets)} nets but {len(tests)} test sets")
    out: list[tuple[pd.DataFrame, pd.DataFrame]] = [None] * len(nets)  # type: ignore[list-item]
    for members in _groups([id(t) for t in tests]):
        test = tests[members[0]]
        preds = training.evaluate_population([nets[k] for k in members], test, runtime=runtime)
        for k, p in zip(members, preds, strict=True):
            out[k] = evaluation_frames(test, p, compress.sparsity(nets[k]))
    return out


def _groups(keys: Sequence[object]) -> list[list[int]]:
    """Positions of equal keys, in order of first appearance."""
    groups: dict[object, list[int]] = {}
    for i, key in enumerate(keys):
        groups.setdefault(key, []).append(i)
    return list(groups.values())


def class_accuracy_frame(labels: np.ndarray, preds: np.ndarray, num_classes: int) -> pd.DataFrame:
    """Per-class accuracy of predictions ``preds`` of ``labels``: columns ``class, accuracy, n``
    (NaN accuracy for a class with no example), as ``pruneaudit.audit.class_accuracy_frame``."""
    labels, preds = np.asarray(labels, dtype=np.int64), np.asarray(preds, dtype=np.int64)
    n = np.bincount(labels, minlength=num_classes)
    correct = np.bincount(labels[labels == preds], minlength=num_classes)
    with np.errstate(invalid="ignore", divide="ignore"):
        accuracy = np.where(n > 0, correct / np.maximum(n, 1), np.nan)
    return pd.DataFrame({"class": np.arange(num_classes), "accuracy": accuracy, "n": n})


def evaluation_frames(
    test: data.ImageData, preds: np.ndarray, sparsity: float
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The stored tables of predictions ``preds`` on ``test``: per-class accuracy (+ sparsity)
    and per-example predictions."""
    labels = test.labels.numpy()
    classes = class_accuracy_frame(labels, preds, test.num_classes)
    classes["sparsity"] = sparsity
    predictions = pd.DataFrame(
        {"index": np.arange(len(labels)), "label": labels, "prediction": preds}
    )
    return classes, predictions


def fit_population(
    nets: list[nn.Module],
    split: list[Splits],
    specs: list[RunSpec],
    store: ResultsStore,
    progress: bool,
    hooks: list[StepHook | None] | None = None,
    epochs: Sequence[int] | None = None,
    *,
    runtime: Runtime,
) -> None:
    """Train ``nets`` in place as one packed population with ``runtime`` (its device, threads
    and progress bars; the precision is the specs', which must agree), member ``k`` on its own
    training split for ``epochs[k]`` epochs (None: the specs' own): the members of each training
    pool and config train as one part of :func:`pruneaudit.training.train_packed` (its result is
    each member's alone). Records the training rate in ``store``
    (:func:`pruneaudit.runs.cost.record_rate`: the one source of the cost estimates). A spec
    of another trainer scheme than this code's is refused (it would be stored mislabelled)."""
    older = [s for s in specs if s.trainer not in (None, TRAINER_SCHEME)]
    if older:
        raise PruneAuditError(
            f"run {older[0].key[:12]} names the population trainer's scheme {older[0].trainer}; "
            f"this code trains with scheme {TRAINER_SCHEME} only (make the spec without trainer)"
        )
    precisions = sorted({s.precision for s in specs})
    if len(precisions) != 1:
        raise PruneAuditError(f"one population trains at one precision, got {precisions}")
    (precision,) = precisions
    configs = [train_config(s) for s in specs]
    if epochs is not None:
        configs = [dataclasses.replace(c, epochs=e) for c, e in zip(configs, epochs, strict=True)]
    hooks = [None] * len(nets) if hooks is None else hooks
    keys = [(id(sp.pool), dataclasses.replace(c, seed=0)) for sp, c in zip(split, configs,
                                                                             strict=True)]
    parts = [
        training.Part(
            [nets[k] for k in members], split[members[0]].pool, [configs[k] for k in members],
            [split[k].train_idx for k in members], [hooks[k] for k in members],
        )
        for members in _groups(keys)
    ]
    start = time.perf_counter()
    with phase("training"):
        training.train_packed(parts, progress=progress, precision=precision, runtime=runtime)
    images = sum(len(s.train_idx) * c.epochs for s, c in zip(split, configs, strict=True))
    device = environment(runtime.device_setting())["device"]
    record_rate(store.root, specs[0].model, device, time.perf_counter() - start, images)
