"""Study 1's pipeline: :func:`run` trains (or reads) the grid and fits it; :func:`numbers` gives
the figures the page's prose cites."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from pruneaudit import audit
from pruneaudit.runs import gpu_cost_text, series
from pruneaudit.runs.store import ResultsStore

from .fits import Fits, coefficient_table, fit_all
from .params import PAPER, Params, grid_costs


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
    (:func:`~pruneaudit.studies.population_ols.grid_costs`): the design frame
    (:func:`pruneaudit.audit.design_frame`), its fits
    (:func:`~pruneaudit.studies.population_ols.fit_all`) and the coefficient table of the
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


def run(params: Params, store: ResultsStore) -> Result:
    """Run (or read from ``store``) every pruning series of the grid
    (:func:`pruneaudit.runs.series.series_frame`), take the class statistics of its training pools
    (:func:`pruneaudit.runs.series.class_stats`) and the costs, and :func:`analyse` them."""
    classes = series.series_frame(
        *params.grid,
        store,
        imbalance_factors=params.imbalance_factors,
        dense_epochs=params.dense_epochs,
        epochs=params.epochs,
        lr=params.lr,
        train_size=params.train_size,
        test_size=params.test_size,
        root=params.data_root,
        progress=params.progress,
    )
    stats = series.class_stats(
        params.datasets,
        imbalance_factors=params.imbalance_factors,
        train_size=params.train_size,
        root=params.data_root,
    )
    return analyse(params, classes, stats, *grid_costs(params))


def numbers(result: Result) -> dict[str, float | int | str]:
    """The numbers the page's prose cites (glued into its Markdown): the grid's series, the
    findings' fit's rows and (dataset, class) clusters; this run's model-epochs, CPU hours and
    rates (``rate``: model and rate text); P's protocol's model-epochs and CPU hours, in all and
    per model (``paper_hours_<model>``); and the measured GPU time of P's protocol (a phrase)."""
    p = result.params
    fit = result.fits.ols_cluster
    paper_hours = result.paper_cost.set_index("model")["cpu_hours"]
    return {
        "series": len(p.datasets) * len(p.imbalance_factors) * len(p.models)
        * len(p.techniques) * len(p.treatments) * len(p.seeds),
        "pruned_rows": int(fit.result.nobs),
        "clusters": int(len(np.unique(audit.cluster_groups(fit.result.model.data.frame)))),
        "model_epochs": int(result.cost["model_epochs"].sum()),
        "cpu_hours": float(result.cost["cpu_hours"].sum()),
        "rate": "; ".join(f"{r.model}: {r.rate}" for r in result.cost.itertuples()),
        "paper_model_epochs": int(result.paper_cost["model_epochs"].sum()),
        "paper_cpu_hours": float(paper_hours.sum()),
        **{f"paper_hours_{m}": float(paper_hours[m]) for m in PAPER["models"]},
        "gpu_cost": gpu_cost_text("Study 1"),
    }
