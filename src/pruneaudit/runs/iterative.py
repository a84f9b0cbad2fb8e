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

from pruneaudit import compress, runtime
from pruneaudit.errors import check_positive_int
from pruneaudit.runs.run_data import splits
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
) -> pd.DataFrame:
    """Make the missing runs of the pruning series of every base spec (one per seed, say) and
    technique (one name or several).

    The dense runs (shared by the techniques) train first, as one population; then the series
    of every technique and base that stop at the same stored iteration train together as one
    population, each member pruned by its own technique. Returns the tidy per-class frame of all
    runs; the dense rows carry each series' technique and treatment so that each series reads
    as one curve (``iteration`` 0 = dense).
    """
    names = [techniques] if isinstance(techniques, str) else list(techniques)
    all_specs = [series_specs(b, t, treatment, iterations) for t in names for b in bases]
    store.check_writable()
    dense = {specs[0].key: specs[0] for specs in all_specs if not store.has(specs[0])}
    if dense:
        _train_dense(list(dense.values()), store, root, progress)
    starts: dict[int, list[list[RunSpec]]] = {}
    for specs in all_specs:
        done = 1
        while done <= iterations and store.has(specs[done]):
            done += 1
        if done <= iterations:
            starts.setdefault(done, []).append(specs)
    for start, group in sorted(starts.items()):
        _continue_series(group, start, treatment, store, root, progress)
    frames = []
    for i, technique in enumerate(names):
        chunk = all_specs[i * len(bases) : (i + 1) * len(bases)]
        frame = store.collect([s for specs in chunk for s in specs])
        frame["technique"], frame["treatment"] = technique, treatment
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def _train_dense(
    specs: list[RunSpec], store: ResultsStore, root: str | None, progress: bool
) -> None:
    """Train the dense runs ``specs`` as one population and store them with their initial
    weights (the rewound rounds' start)."""
    split = [splits(s, root) for s in specs]
    test = split[0].test
    nets = [fresh_model(s, test) for s in specs]
    inits = [compress.snapshot(m) for m in nets]
    fit_population(nets, split, specs, store, progress, epochs=round_epochs(specs[0]))
    records = evaluate_population(nets, test)
    for spec, net, init, record in zip(specs, nets, inits, records, strict=True):
        store.save(spec, *record, checkpoint=dense_checkpoint(net, init), env=environment())


def _continue_series(
    group: list[list[RunSpec]],
    start: int,
    treatment: str,
    store: ResultsStore,
    root: str | None,
    progress: bool,
) -> None:
    """Train the series in ``group`` (their dense runs stored) together from iteration
    ``start`` >= 1 to their end, each member pruned by its own series' technique."""
    first = [specs[0] for specs in group]
    split = [splits(s, root) for s in first]
    test = split[0].test
    inits = [init_snapshot(store.load(specs[0]).checkpoint()) for specs in group]
    nets = [load_model(specs[start - 1], store, root) for specs in group]
    techniques = [specs[1].technique for specs in group]
    named = techniques[0] if len(set(techniques)) == 1 else f"{len(set(techniques))} techniques"
    rounds = runtime.bar(
        range(start, len(group[0])),
        disable=not progress,
        desc=f"{named}/{treatment} x{len(group)}",
        unit="iteration",
    )
    for k in rounds:
        for specs, net, init, technique in zip(group, nets, inits, techniques, strict=True):
            with phase("pruning"):
                compress.prune_round(net, technique, treatment, k, init, seed=specs[0].seed)
        epochs = round_epochs(first[0], treatment)
        fit_population(nets, split, first, store, progress, epochs=epochs)
        for specs, net, record in zip(group, nets, evaluate_population(nets, test), strict=True):
            state = compress.pruned_state_dict(net)
            store.save(specs[k], *record, checkpoint=state, env=environment())
