"""Study 5's runs: Study 4's populations on corrupted test sets.

The populations are Study 4's (:class:`pruneaudit.studies.compression_impact.Populations`, made
from Study 4's parameters held in this page's :class:`~.params.Params`: the same member runs, so
a store that holds Study 4's runs trains nothing here). Each member is
evaluated on the test set corrupted by every corruption of :mod:`pruneaudit.data.corruptions` at
every severity (:func:`pruneaudit.runs.run_corrupted`, one seeded corruption draw shared by all
members).

The tables computed from the runs: :mod:`~.frames`.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from pruneaudit import runs
from pruneaudit.runs.store import ResultsStore
from pruneaudit.runtime import Runtime
from pruneaudit.studies.compression_impact.params import Populations
from pruneaudit.studies.robustness.frames import (
    CLEAN,
    RobustnessRuns,
    level_rows,
    member_rows,
    relative_robustness,
)
from pruneaudit.studies.robustness.params import Params, check_grid


@dataclass(frozen=True)
class Result:
    """What Study 5's page shows: its parameters, Study 4's populations it evaluates, the runs
    and H1's relative robustness per corruption and level (:func:`relative_robustness`)."""

    params: Params
    populations: Populations
    runs: RobustnessRuns
    relative: pd.DataFrame


def run(
    params: Params, store: ResultsStore, *, progress: bool = True, runtime: Runtime | None = None
) -> Result:
    """Train (or read) Study 4's populations of ``params`` (:meth:`Params.populations`),
    evaluate them on every corrupted test set, and train the reference population (dense,
    ``params.reference_seeds``, other seeds than the members'; none when empty).

    The runs hold the clean populations per level (0.0 = dense), the tidy accuracy frame
    (:attr:`~.frames.RobustnessRuns.accuracy`) and the reference population (None without
    reference seeds).
    ``runtime``: the process's settings (device, threads, progress output) the runs train
    with; None: a fresh one on the parameters' device (:meth:`StudyParams.runtime
    <pruneaudit.studies.params.StudyParams.runtime>`).
    """
    p, root = params.populations(), params.data_root
    names, sev = check_grid(params.corruption_names, params.severities)
    runtime = runtime if runtime is not None else params.runtime()
    pops = runs.run_levels(p.spec, list(p.seeds), p.levels, store, root, progress, p.independent,
                           runtime=runtime)
    specs = [s for pop in pops.values() for s in pop.specs]
    parts = [member_rows(pop, t, CLEAN, 0) for t, pop in pops.items()]
    grid = [(c, s) for c in names for s in sev]
    evaluated = runs.run_corrupted(
        specs, grid, store, root, seed=params.corruption_seed, progress=progress,
        runtime=runtime,
    )
    parts += [level_rows(pops, shifted, c, s) for (c, s), shifted in evaluated.items()]
    reference = None
    if params.reference_seeds:
        ref_specs = runs.member_specs(p.spec, list(params.reference_seeds))
        reference = runs.run_population(ref_specs, store, root, progress, runtime=runtime)
    test = runs.splits(specs[0], root).test
    evaluated = RobustnessRuns(pops, pd.concat(parts, ignore_index=True), reference, test)
    return Result(params, p, evaluated, relative_robustness(evaluated))
