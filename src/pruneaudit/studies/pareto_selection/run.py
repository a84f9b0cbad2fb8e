"""Study 3's run: the pruning series of the grid, read back as operating points, candidates,
frontiers and picks (the page's :class:`Result`)."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from pruneaudit.runs import series
from pruneaudit.runs.store import ResultsStore
from pruneaudit.runtime import Runtime

from .frames import Candidates, candidates, mark_frontiers, operating_points, picks
from .params import Params


@dataclass(frozen=True)
class Result:
    """What Study 3's page shows: the per-class frame of every run, the operating points, the
    candidates above the floor used (with their frontiers marked) and the two picks."""

    params: Params
    classes: pd.DataFrame
    points: pd.DataFrame
    candidates: Candidates
    marked: pd.DataFrame
    chosen: pd.DataFrame


def run(
    params: Params, store: ResultsStore, *, progress: bool = True, runtime: Runtime | None = None
) -> Result:
    """Run (or read) the study's pruning series (:func:`pruneaudit.runs.series.series_frame`) and
    derive the operating points, candidates, frontiers and picks; ``progress``: training bars
    (the build log when built, the cell when live).
    ``runtime``: the process's settings (device, threads, progress output) the runs train
    with; None: a fresh one on the parameters' device (:meth:`StudyParams.runtime
    <pruneaudit.studies.params.StudyParams.runtime>`).
    """
    classes = series.series_frame(
        params.grid, store, epochs=params.epochs, lr=params.lr,
        train_size=params.train_size, test_size=params.test_size, root=params.data_root,
        progress=progress,
        runtime=runtime if runtime is not None else params.runtime(),
    )
    points = operating_points(classes)
    cands = candidates(points, params.accuracy_floor, params.min_candidates)
    return Result(
        params, classes, points, cands, mark_frontiers(cands.frame),
        picks(cands.frame, params.fairness_weight, params.sparsity_weight),
    )
