"""Study 1's run: :func:`run` trains (or reads) the grid and fits it into the page's
:class:`Result`."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from pruneaudit import audit
from pruneaudit.runs import series
from pruneaudit.runs.store import ResultsStore
from pruneaudit.runtime import Runtime

from .fits import Fits, coefficient_table, fit_all
from .params import Params, grid_costs


@dataclass(frozen=True)
class Result:
    """What the page shows: the tidy per-class frame of every series (``classes``), the class
    statistics of the training pools (``stats``), the design frame and its fits, the coefficients
    beside P's App. D and the training cost of this run and of P's protocol (one row per model)."""

    params: Params
    classes: pd.DataFrame
    stats: pd.DataFrame
    frame: pd.DataFrame
    fits: Fits
    coefficients: pd.DataFrame
    cost: pd.DataFrame
    paper_cost: pd.DataFrame


def analyse(
    params: Params,
    classes: pd.DataFrame,
    stats: pd.DataFrame,
    cost: pd.DataFrame,
    paper_cost: pd.DataFrame,
) -> Result:
    """The :class:`Result` of a per-class frame, its class statistics and the costs
    (:func:`~pruneaudit.studies.population_ols.params.grid_costs`): the design frame
    (:func:`pruneaudit.audit.design_frame`), its fits
    (:func:`~pruneaudit.studies.population_ols.fits.fit_all`) and the coefficient table of the
    findings' fit."""
    frame = audit.design_frame(classes, stats)
    fits = fit_all(frame)
    return Result(
        params=params,
        classes=classes,
        stats=stats,
        frame=frame,
        fits=fits,
        coefficients=coefficient_table(fits.ols_cluster),
        cost=cost,
        paper_cost=paper_cost,
    )


def run(
    params: Params, store: ResultsStore, *, progress: bool = True, runtime: Runtime | None = None
) -> Result:
    """Run (or read from ``store``) every pruning series of the grid
    (:func:`pruneaudit.runs.series.series_frame`), take the class statistics of its training pools
    (:func:`pruneaudit.runs.series.class_stats`) and the costs, and :func:`analyse` them;
    ``progress``: training bars (the build log when built, the cell when live).
    ``runtime``: the process's settings (device, threads, progress output) the runs train
    with; None: a fresh one on the parameters' device (:meth:`StudyParams.runtime
    <pruneaudit.studies.params.StudyParams.runtime>`).
    """
    classes = series.series_frame(
        params.grid,
        store,
        dense_epochs=params.dense_epochs,
        epochs=params.epochs,
        lr=params.lr,
        train_size=params.train_size,
        test_size=params.test_size,
        root=params.data_root,
        progress=progress,
        runtime=runtime if runtime is not None else params.runtime(),
    )
    stats = series.class_stats(
        params.datasets,
        imbalance_factors=params.imbalance_factors,
        train_size=params.train_size,
        root=params.data_root,
    )
    return analyse(params, classes, stats, *grid_costs(params))

