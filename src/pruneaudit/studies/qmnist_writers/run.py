"""Study 2's run: the pruning series of every seed (:func:`run_series`), read back as the page's
:class:`Result`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pruneaudit import data, runs
from pruneaudit.errors import check_range
from pruneaudit.runs import ResultsStore, RunSpec
from pruneaudit.runtime import Runtime

from .frames import digit_frame, writer_frame, writer_trajectory
from .params import DATASET, MODEL, TECHNIQUE, TREATMENT, Params


def dense_specs(params: Params) -> list[RunSpec]:
    """The dense run of each seed: LeNet on QMNIST at the parameters' training settings (with
    P's horizontal flip when ``params.flip``), the start of one pruning series per seed."""
    base = RunSpec(
        DATASET, MODEL, epochs=params.epochs, lr=params.lr, batch_size=params.batch_size,
        augment=params.augment, train_size=params.train_size,
        extra=runs.flip_extra(params.flip),
    )
    return runs.member_specs(base, params.seeds)


def run_series(
    bases: Sequence[RunSpec],
    iterations: int,
    store: ResultsStore,
    root: str | None = None,
    progress: bool = True,
    runtime: Runtime | None = None,
) -> pd.DataFrame:
    """Make (or read) the pruning series of every base; the tidy per-class frame of all runs."""
    return runs.run_series(bases, TECHNIQUE, TREATMENT, iterations, store, root, progress,
                           runtime=runtime)


def predictions(
    bases: Sequence[RunSpec], iteration: int, iterations: int, store: ResultsStore
) -> runs.Population:
    """The stored models of all seeds at ``iteration`` (0 = unpruned) read as one population."""
    check_range("iteration", iteration, 0, iterations)
    specs = [
        runs.series_specs(b, TECHNIQUE, TREATMENT, iterations)[iteration] for b in bases
    ]
    return runs.population(specs, store)


@dataclass(frozen=True)
class Result:
    """Everything the page shows: its ``params``, ``classes`` (tidy run-series frame), ``digits``
    (:func:`~.frames.digit_frame`), ``writers`` (:func:`~.frames.writer_frame`), ``sparsity`` of
    the pruned models (one per seed), the ``pruned_iteration``, the ``test`` data, the ``pool``
    and the first seed's ``train_idx``; ``correct_dense`` / ``correct_pruned`` (K, N) per-seed
    correctness on the test digits; ``trajectory`` (:func:`~.frames.writer_trajectory`)."""

    classes: pd.DataFrame
    digits: pd.DataFrame
    writers: pd.DataFrame
    sparsity: np.ndarray
    pruned_iteration: int
    test: data.ImageData
    pool: data.ImageData
    train_idx: np.ndarray
    correct_dense: np.ndarray
    correct_pruned: np.ndarray
    trajectory: pd.DataFrame
    params: Params

    @property
    def seeds(self) -> int:
        """The number of seeds (models per stage)."""
        return int(self.correct_dense.shape[0])


def run(
    params: Params, store: ResultsStore, *, progress: bool = True, runtime: Runtime | None = None
) -> Result:
    """Run (or read) the series of every seed (:func:`dense_specs`) and assemble the study's
    frames; the pruned model is the one after ``params.pruned_iteration`` rounds (None: the
    last).
    ``runtime``: the process's settings (device, threads, progress output) the runs train
    with; None: a fresh one on the parameters' device (:meth:`StudyParams.runtime
    <pruneaudit.studies.params.StudyParams.runtime>`).
    """
    specs = dense_specs(params)
    iterations = params.iterations
    k = iterations if params.pruned_iteration is None else params.pruned_iteration
    runtime = runtime if runtime is not None else params.runtime()
    classes = run_series(specs, iterations, store, params.data_root, progress, runtime)
    pops = [predictions(specs, i, iterations, store) for i in range(iterations + 1)]
    dense, pruned = pops[0], pops[k]
    split = runs.splits(specs[0], params.data_root)
    digits = digit_frame(split.test, split.pool, dense.preds, pruned.preds)
    correct = [p.preds == p.labels[None, :] for p in pops]
    return Result(
        classes=classes,
        digits=digits,
        writers=writer_frame(digits),
        sparsity=pruned.sparsity,
        pruned_iteration=k,
        test=split.test,
        pool=split.pool,
        train_idx=split.train_idx,
        correct_dense=correct[0],
        correct_pruned=correct[k],
        trajectory=writer_trajectory(digits, correct, [p.sparsity.mean() for p in pops]),
        params=params,
    )
