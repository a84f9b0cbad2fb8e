"""H1's populations: K independently trained members per pruning level, and their seed policy.

A population member at level ``t > 0`` trains from scratch with a
:class:`pruneaudit.compress.GradualPruner` (per-layer L1 magnitude, cubic schedule from
``GRADUAL_BEGIN`` to ``GRADUAL_END`` of the training steps, masks updated ``GRADUAL_UPDATES``
times), ending at sparsity ``t``. Level 0 is the dense baseline member of the same seed. The
members of a population train together (:func:`pruneaudit.runs.trained.fit_population`) and
are read back as one :class:`Population`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pruneaudit import compress
from pruneaudit.errors import PruneAuditError
from pruneaudit.runs.run_data import splits
from pruneaudit.runs.spec import (
    GRADUAL_BEGIN_KEY,
    GRADUAL_END_KEY,
    GRADUAL_UPDATES_KEY,
    LEVEL_KEY,
    RunSpec,
)
from pruneaudit.runs.store import ResultsStore
from pruneaudit.runs.trained import (
    dense_checkpoint,
    evaluate_population,
    fit_population,
    fresh_model,
    train_config,
)
from pruneaudit.runtime import Runtime
from pruneaudit.training.device import environment
from pruneaudit.training.loop import num_steps

GRADUAL_TECHNIQUE = "l1_unstructured"
GRADUAL_BEGIN, GRADUAL_END, GRADUAL_UPDATES = 0.2, 0.8, 50
#: Seeds of independent populations: level ``t`` uses ``seed + LEVEL_SEED_STRIDE * round(1000 t)``.
LEVEL_SEED_STRIDE = 10_000


def check_seeds(seeds: Iterable[int], minimum: int = 2) -> list[int]:
    """``seeds`` as a list: at least ``minimum`` (a t-test needs K >= 2), all distinct."""
    out = list(seeds)
    if len(out) < minimum or len(set(out)) != len(out):
        raise PruneAuditError(
            f"a population needs at least {minimum} distinct seeds (the t-test needs K >= 2), "
            f"got {out}"
        )
    return out


def check_levels(levels: Iterable[float]) -> list[float]:
    """Pruning end sparsities, sorted and distinct, each in (0, 1) (level 0 is the baseline)."""
    out = sorted({float(t) for t in levels})
    bad = [t for t in out if not 0 < t < 1]
    if bad:
        raise PruneAuditError(
            f"pruning levels must lie in (0, 1) (the dense baseline, level 0, is always run); "
            f"got {bad}"
        )
    return out


def level_seeds(seeds: Iterable[int], level: float, independent: bool = True) -> list[int]:
    """The seeds of the population at ``level``.

    ``independent=True`` (H1's protocol: separately trained populations): level ``t`` uses
    ``seed + LEVEL_SEED_STRIDE * round(1000 t)``, so no two levels share a seed (hence neither
    initialisation, data split nor data order) and the dense level keeps the seeds as given;
    seeds must lie in ``[0, LEVEL_SEED_STRIDE)``. ``independent=False``: every level uses the
    given seeds (shared initialisation and data order, paired members).
    """
    seeds = list(seeds)
    if not independent or level == 0:
        return seeds
    bad = [s for s in seeds if not 0 <= s < LEVEL_SEED_STRIDE]
    if bad:
        raise PruneAuditError(
            f"independent populations need seeds in [0, {LEVEL_SEED_STRIDE}), got {bad}; "
            "use smaller seeds or independent=False"
        )
    return [s + LEVEL_SEED_STRIDE * round(1000 * float(level)) for s in seeds]


def member_specs(base: RunSpec, seeds: Iterable[int], level: float = 0.0) -> list[RunSpec]:
    """The population of ``base`` at gradual-pruning ``level`` (0 = dense), one run per seed.

    ``seeds`` must be at least one, all distinct (a repeated seed is the same run twice)."""
    seeds = list(seeds)
    if not seeds:
        raise PruneAuditError("a population needs at least one seed, got none")
    if len(set(seeds)) != len(seeds):
        raise PruneAuditError(f"seeds must be distinct, got {seeds}")
    if level == 0:
        return [base.replace(technique=None, treatment=None, iteration=0, seed=s) for s in seeds]
    extra = {
        LEVEL_KEY: float(level),
        GRADUAL_BEGIN_KEY: GRADUAL_BEGIN,
        GRADUAL_END_KEY: GRADUAL_END,
        GRADUAL_UPDATES_KEY: GRADUAL_UPDATES,
    }
    return [
        base.replace(technique=GRADUAL_TECHNIQUE, treatment=None, iteration=0, seed=s, extra=extra)
        for s in seeds
    ]


def level_name(level: float) -> str:
    """Display name of a population level: ``"dense"`` or ``"pruned 90%"``."""
    return "dense" if level == 0 else f"pruned {100 * level:g}%"


def level_specs(
    base: RunSpec, seeds: Iterable[int], levels: Iterable[float], independent: bool = True
) -> dict[float, list[RunSpec]]:
    """Member specs per level: ``0.0`` (the dense baseline) and every pruning level.

    ``independent=True`` (H1's protocol): each level's population has its own seeds
    (:func:`level_seeds`), so no two populations share an initialisation, a data split or a
    data order; ``False``: member k of every level has seed ``seeds[k]``."""
    seeds = check_seeds(seeds)
    return {
        t: member_specs(base, level_seeds(seeds, t, independent), t)
        for t in [0.0, *check_levels(levels)]
    }


def gradual_pruner(spec: RunSpec, n_train: int) -> compress.GradualPruner:
    """The gradual pruning schedule of a population member at ``spec``'s level."""
    total = num_steps(n_train, train_config(spec))
    begin, end = int(GRADUAL_BEGIN * total), max(int(GRADUAL_END * total), 1)
    begin = min(begin, end - 1)
    return compress.GradualPruner(
        spec.level,
        begin,
        end,
        max(1, (end - begin) // GRADUAL_UPDATES),
        technique=GRADUAL_TECHNIQUE,
    )


def run_population(
    specs: Sequence[RunSpec],
    store: ResultsStore,
    root: str | None = None,
    progress: bool = True,
    *,
    runtime: Runtime | None = None,
) -> Population:
    """Make the missing members of a population (from :func:`member_specs`) with ``runtime``
    (default: a fresh :class:`~pruneaudit.runtime.Runtime` from the environment) and return
    it."""
    runtime = Runtime.given(runtime)
    missing = [s for s in specs if not store.has(s)]
    if missing:
        store.check_writable()
        split = [splits(s, root) for s in missing]
        nets = [fresh_model(s, sp.test) for s, sp in zip(missing, split, strict=True)]
        inits = [compress.snapshot(net) for net in nets]
        gradual = [s.level > 0 for s in missing]
        hooks = [
            gradual_pruner(s, len(sp.train_idx)) if g else None
            for s, sp, g in zip(missing, split, gradual, strict=True)
        ]
        fit_population(nets, split, missing, store, progress, hooks, runtime=runtime)
        records = evaluate_population(nets, [sp.test for sp in split], runtime)
        env = environment(runtime.device_setting())
        for s, net, init, g, record in zip(missing, nets, inits, gradual, records, strict=True):
            state = compress.pruned_state_dict(net) if g else dense_checkpoint(net, init)
            store.save(s, *record, checkpoint=state, env=env)
    return population(specs, store)


@dataclass(frozen=True)
class Population:
    """Stored runs read together: ``preds`` (K, N) test predictions, ``labels`` (N,), the
    per-class accuracy frame ``classes`` and each member's ``sparsity``."""

    specs: tuple[RunSpec, ...]
    preds: np.ndarray
    labels: np.ndarray
    classes: pd.DataFrame
    sparsity: np.ndarray


def population(specs: Sequence[RunSpec], store: ResultsStore) -> Population:
    """Read a stored population (every run must exist)."""
    if not specs:
        raise PruneAuditError("a population needs at least one run spec")
    classes = store.collect(specs)
    preds = store.collect(specs, table="predictions")
    keys = [s.key for s in specs]
    wide = preds.pivot(index="index", columns="key", values="prediction")[keys]
    labels = preds[preds["key"] == keys[0]].sort_values("index")["label"].to_numpy()
    sparsity = classes.groupby("key", sort=False)["sparsity"].first().reindex(keys).to_numpy()
    return Population(tuple(specs), wide.to_numpy().T.copy(), labels, classes, sparsity)


def run_levels(
    base: RunSpec,
    seeds: Iterable[int],
    levels: Iterable[float],
    store: ResultsStore,
    root: str | None = None,
    progress: bool = True,
    independent: bool = True,
    *,
    runtime: Runtime | None = None,
) -> dict[float, Population]:
    """Make the missing members of every level of :func:`level_specs` (all levels as one
    computation, with ``runtime`` as in :func:`run_population`) and read them:
    ``{level: Population}``, level 0 the dense baseline."""
    specs = level_specs(base, seeds, levels, independent)
    run_population([s for members in specs.values() for s in members], store, root, progress,
                   runtime=runtime)
    return {t: population(members, store) for t, members in specs.items()}
