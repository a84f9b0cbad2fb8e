"""P's iterative pruning series, through the results store.

Iteration 0 is the dense model of a seed, shared by every technique and treatment; iteration
``k`` is :func:`pruneaudit.compress.prune_round` ``k`` then retraining with the same training
config. Its checkpoint holds the pruned weights and masks; the dense checkpoint also holds the
initial weights under ``init.*`` keys, for rewinding. An interrupted series resumes from its
last stored iteration and gives the same result as an uninterrupted one.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import torch
from torch import nn

from pruneaudit import compress
from pruneaudit.errors import check_positive_int
from pruneaudit.runs.run_data import Splits, splits
from pruneaudit.runs.spec import RunSpec
from pruneaudit.runs.store import ResultsStore
from pruneaudit.runs.trained import (
    dense_checkpoint,
    evaluate_population,
    fit_population,
    fresh_model,
    init_snapshot,
    load_model,
    round_epochs,
)
from pruneaudit.runtime import Runtime
from pruneaudit.timing import phase
from pruneaudit.training.device import environment


def series_specs(base: RunSpec, technique: str, treatment: str, iterations: int) -> list[RunSpec]:
    """The runs of one iterative-pruning series: the dense run, then iterations 1..N."""
    check_positive_int("iterations", iterations)
    dense = base.replace(technique=None, treatment=None, iteration=0)
    return [dense] + [
        base.replace(technique=technique, treatment=treatment, iteration=k)
        for k in range(1, iterations + 1)
    ]


def run_series(
    bases: Sequence[RunSpec],
    techniques: str | Sequence[str],
    treatment: str,
    iterations: int,
    store: ResultsStore,
    root: str | None = None,
    progress: bool = True,
    *,
    runtime: Runtime | None = None,
) -> pd.DataFrame:
    """Make the missing runs of the pruning series of every base spec (one per seed, say) and
    technique (one name or several), packed (:func:`train_series`, with ``runtime``), and
    return the tidy
    per-class frame of all runs; the dense rows carry each series' technique and treatment so
    that each series reads as one curve (``iteration`` 0 = dense)."""
    names = [techniques] if isinstance(techniques, str) else list(techniques)
    all_specs = [series_specs(b, t, treatment, iterations) for t in names for b in bases]
    train_series(all_specs, store, root, progress, runtime=runtime)
    return series_classes(all_specs, store)


def series_classes(all_specs: Sequence[Sequence[RunSpec]], store: ResultsStore) -> pd.DataFrame:
    """The stored per-class frame of every series (from :func:`series_specs`), the dense rows
    labelled with their series' technique and treatment."""
    frames = []
    for specs in all_specs:
        frame = store.collect(list(specs))
        frame["technique"], frame["treatment"] = specs[1].technique, specs[1].treatment
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def train_series(
    all_specs: Sequence[Sequence[RunSpec]],
    store: ResultsStore,
    root: str | None = None,
    progress: bool = True,
    *,
    runtime: Runtime | None = None,
) -> None:
    """Make the missing runs of every pruning series (each from :func:`series_specs`), packed,
    with ``runtime`` (default: a fresh :class:`~pruneaudit.runtime.Runtime` from the
    environment):
    the missing dense runs train first, as one population; then round ``k`` of every series that
    lacks it, as one population per round, each member pruned by its own series' technique and
    treatment and retrained for its treatment's epochs (:func:`round_epochs`), whatever its
    training pool (``fit_population`` packs them). A member's bits do not depend on its
    companions, so packing changes no stored result."""
    runtime = Runtime.given(runtime)
    store.check_writable()
    dense = {specs[0].key: specs[0] for specs in all_specs if not store.has(specs[0])}
    if dense:
        _train_dense(list(dense.values()), store, root, progress, runtime)
    starts = {}  # series -> its first missing iteration
    for i, specs in enumerate(all_specs):
        done = 1
        while done < len(specs) and store.has(specs[done]):
            done += 1
        if done < len(specs):
            starts[i] = done
    if not starts:
        return
    live: dict[int, tuple[nn.Module, dict[str, torch.Tensor], Splits]] = {}  # net, init, data
    rounds = runtime.bar(
        range(min(starts.values()), max(len(all_specs[i]) for i in starts)),
        disable=not progress,
        desc=f"pruning rounds of {len(starts)} series",
        unit="iteration",
    )
    for k in rounds:
        members = [i for i, first in starts.items() if first <= k < len(all_specs[i])]
        for i in members:
            if i not in live:  # the series starts here: its last stored round
                dense = all_specs[i][0]
                live[i] = (load_model(all_specs[i][k - 1], store, root),
                           init_snapshot(store.load(dense).checkpoint()), splits(dense, root))
        nets, inits, split = (list(x) for x in zip(*(live[i] for i in members), strict=True))
        _train_round(k, [all_specs[i] for i in members], nets, inits, split, store, progress,
                     runtime)


def _train_round(
    k: int,
    group: list[Sequence[RunSpec]],
    nets: list[nn.Module],
    inits: list[dict[str, torch.Tensor]],
    split: list[Splits],
    store: ResultsStore,
    progress: bool,
    runtime: Runtime,
) -> None:
    """Prune every series of ``group`` to round ``k`` (its net holding round ``k - 1``, ``split``
    its dense run's data), retrain them as one population and store round ``k``."""
    first = [specs[0] for specs in group]
    for specs, net, init in zip(group, nets, inits, strict=True):
        with phase("pruning"):
            compress.prune_round(
                net, specs[k].technique, specs[k].treatment, k, init, seed=specs[0].seed
            )
    epochs = [round_epochs(specs[0], specs[k].treatment) for specs in group]
    fit_population(nets, split, first, store, progress, epochs=epochs, runtime=runtime)
    records = evaluate_population(nets, [sp.test for sp in split], runtime)
    env = environment(runtime.device_setting())
    for specs, net, record in zip(group, nets, records, strict=True):
        store.save(specs[k], *record, checkpoint=compress.pruned_state_dict(net), env=env)


def _train_dense(
    specs: list[RunSpec], store: ResultsStore, root: str | None, progress: bool, runtime: Runtime
) -> None:
    """Train the dense runs ``specs`` as one population and store them with their initial
    weights (the rewound rounds' start)."""
    split = [splits(s, root) for s in specs]
    nets = [fresh_model(s, sp.test) for s, sp in zip(specs, split, strict=True)]
    inits = [compress.snapshot(m) for m in nets]
    epochs = [round_epochs(s) for s in specs]
    fit_population(nets, split, specs, store, progress, epochs=epochs, runtime=runtime)
    records = evaluate_population(nets, [sp.test for sp in split], runtime)
    env = environment(runtime.device_setting())
    for spec, net, init, record in zip(specs, nets, inits, records, strict=True):
        store.save(spec, *record, checkpoint=dense_checkpoint(net, init), env=env)
