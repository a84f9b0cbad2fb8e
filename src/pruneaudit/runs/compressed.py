"""Copies of trained runs made without training: quantized after training, and evaluated on a
corrupted test set. Each is one run in the store (its spec the trained run's with ``scheme``,
or ``corruption`` / ``severity`` / ``corruption_seed``, in ``extra``)."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence

from pruneaudit import compress, data, training
from pruneaudit.errors import PruneAuditError
from pruneaudit.runs.populations import Population, population
from pruneaudit.runs.run_data import pool_and_test, splits
from pruneaudit.runs.spec import (
    CORRUPTION_KEY,
    CORRUPTION_SEED_KEY,
    SCHEME_KEY,
    SEVERITY_KEY,
    RunSpec,
)
from pruneaudit.runs.store import ResultsStore
from pruneaudit.runs.trained import evaluate_model, evaluation_frames, load_model
from pruneaudit.runtime import Runtime
from pruneaudit.timing import phase
from pruneaudit.training.device import environment


def quantized_specs(specs: Sequence[RunSpec], scheme: str) -> list[RunSpec]:
    """The post-training quantized copies of trained runs."""
    return [s.with_extra(**{SCHEME_KEY: scheme}) for s in specs]


def run_quantized(
    specs: Sequence[RunSpec],
    scheme: str,
    store: ResultsStore,
    root: str | None = None,
    progress: bool = True,
    *,
    runtime: Runtime | None = None,
) -> Population:
    """Quantize stored trained runs with ``scheme`` (calibrated on the first 100 training
    examples of each run's own split) and evaluate them; returns the quantized population.
    ``runtime`` (default: a fresh :class:`~pruneaudit.runtime.Runtime` from the environment):
    while it follows the free cores, both run at its
    :meth:`~pruneaudit.runtime.Runtime.steady_threads`."""
    runtime = Runtime.given(runtime)
    out = quantized_specs(specs, scheme)
    for base, spec in runtime.bar(
        list(zip(specs, out, strict=True)), disable=not progress, desc=f"quantize {scheme}"
    ):
        if store.has(spec):
            continue
        split = splits(base, root)
        model = load_model(base, store, root)
        # the calibration and evaluation: never at a load-picked count
        with runtime.at_steady_threads():
            qmodel = compress.quantize(model, scheme, calibration=split.train)
            classes, predictions = evaluate_model(
                qmodel, split.test, sparsity=compress.sparsity(model), runtime=runtime
            )
        store.save(spec, classes, predictions, env=environment(runtime.device_setting()))
    return population(out, store)


def corrupted_specs(
    specs: Sequence[RunSpec], corruption: str, severity: int, seed: int = 0
) -> list[RunSpec]:
    """The evaluations of trained runs on a corrupted test set."""
    extra = {CORRUPTION_KEY: corruption, SEVERITY_KEY: severity, CORRUPTION_SEED_KEY: seed}
    return [s.with_extra(**extra) for s in specs]


def run_corrupted(
    specs: Sequence[RunSpec],
    grid: Sequence[tuple[str, int]],
    store: ResultsStore,
    root: str | None = None,
    seed: int = 0,
    progress: bool = True,
    *,
    runtime: Runtime | None = None,
) -> dict[tuple[str, int], Population]:
    """Evaluate stored trained runs on their test set corrupted by each ``(corruption,
    severity)`` of ``grid`` (:func:`pruneaudit.data.corrupt`, seeded); returns each population.

    The runs must share a dataset and test set. The models are loaded once and the missing
    evaluations of each corrupted test set run as one batched computation over the members
    (:func:`pruneaudit.training.evaluate_population`), with ``runtime`` (default: a fresh
    :class:`~pruneaudit.runtime.Runtime` from the environment)."""
    runtime = Runtime.given(runtime)
    if len({(s.dataset, s.test_size) for s in specs}) > 1:
        raise PruneAuditError("run_corrupted needs runs of one dataset and test set")
    todo = {
        (c, v): [k for k, s in enumerate(corrupted_specs(specs, c, v, seed)) if not store.has(s)]
        for c, v in grid
    }
    needed = sorted({k for members in todo.values() for k in members})
    if needed:
        store.check_writable()
        nets = {k: load_model(specs[k], store, root) for k in needed}
        sparsity = {k: compress.sparsity(net) for k, net in nets.items()}
        base = specs[0]
        for (corruption, severity), members in runtime.bar(
            [(cell, m) for cell, m in todo.items() if m],
            disable=not progress,
            desc="corrupted test sets",
        ):
            shifted = corrupted_test(base.dataset, root, base.test_size, corruption, severity, seed)
            with phase("evaluation"):
                preds = training.evaluate_population(
                    [nets[k] for k in members], shifted, runtime=runtime
                )
            out = corrupted_specs([specs[k] for k in members], corruption, severity, seed)
            for spec, k, pred in zip(out, members, preds, strict=True):
                frames = evaluation_frames(shifted, pred, sparsity[k])
                store.save(spec, *frames, env=environment(runtime.device_setting()))
    return {(c, v): population(corrupted_specs(specs, c, v, seed), store) for c, v in grid}


@functools.lru_cache(maxsize=8)
def corrupted_test(
    dataset: str,
    root: str | None,
    test_size: int | None,
    corruption: str,
    severity: int,
    seed: int,
) -> data.ImageData:
    """The first ``test_size`` test examples of ``dataset`` under one seeded corruption (cached)."""
    _, test = pool_and_test(dataset, root, None, test_size)
    images = data.corrupt(test.images, corruption, severity, seed=seed)
    return dataclasses.replace(test, images=images)
