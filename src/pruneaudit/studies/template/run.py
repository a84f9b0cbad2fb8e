"""The template's run: populations of LeNets trained through the results store.

:func:`run` asks :func:`pruneaudit.runs.run_levels` for one population of ``MEMBERS`` members
per sparsity (dense and every level of :class:`~.params.Params`). It trains only the members the
store lacks, all as one stacked computation (a progress bar per epoch when ``progress``), saves
each (per-class accuracy, predictions, checkpoint) and reads every population back: a second run
with the same parameters trains nothing. The page's curves are the members' mean accuracy per
digit and sparsity.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from pruneaudit import runs
from pruneaudit.runs.store import ResultsStore
from pruneaudit.runtime import Runtime

from .params import Params


@dataclass(frozen=True)
class Result:
    """What the template's page shows: its parameters, the populations (sparsity -> the
    members read from the store; 0.0 the dense one) and the curves (columns class, iteration,
    sparsity, accuracy: the members' mean)."""

    params: Params
    populations: Mapping[float, runs.Population]
    curves: pd.DataFrame


def run(
    params: Params, store: ResultsStore, *, progress: bool = True, runtime: Runtime | None = None
) -> Result:
    """Train the populations of ``params`` that ``store`` lacks, read them all, and return the
    page's :class:`Result`.
    ``runtime``: the process's settings (device, threads, progress output) the runs train
    with; None: a fresh one on the parameters' device (:meth:`StudyParams.runtime
    <pruneaudit.studies.params.StudyParams.runtime>`).
    """
    runtime = runtime if runtime is not None else params.runtime()
    pops = runs.run_levels(params.spec, params.seeds, params.levels, store, params.data_root,
                           progress, runtime=runtime)
    return Result(params, pops, class_curves(pops, params.n_classes))


def class_curves(pops: Mapping[float, runs.Population], n_classes: int) -> pd.DataFrame:
    """Per digit ``0..n_classes-1`` and population (iteration ``k``: the ``k``-th in sparsity
    order, 0 the dense one): the members' mean accuracy and measured sparsity."""
    rows = []
    for k, level in enumerate(sorted(pops)):
        pop = pops[level]
        mean = pop.classes.groupby("class")["accuracy"].mean()
        rows += [(f"digit {c}", k, float(pop.sparsity.mean()), float(mean[c]))
                 for c in range(n_classes)]
    return pd.DataFrame(rows, columns=["class", "iteration", "sparsity", "accuracy"])


def accuracy_drops(curves: pd.DataFrame) -> pd.Series:
    """Per class: accuracy at the last iteration minus at iteration 0."""
    ordered = curves.sort_values("iteration").groupby("class")["accuracy"]
    return ordered.last() - ordered.first()
