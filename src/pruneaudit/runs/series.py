"""Grids of iterative pruning series (P's protocol) and what they cost: shared by Studies 1 and 3.

:func:`series_frame` runs (or reads) one pruning series per (dataset, imbalance factor, model,
technique, treatment, seed) through :func:`pruneaudit.runs.run_series` and returns the tidy
per-class frame; :func:`class_stats` gives each class's share, imbalance r_c and mean image
entropy H_c of the training pool the models drew from (methods page, "Study 1: population
regression"); :func:`grid_cost` the training cost of a grid by
:func:`pruneaudit.runs.training_cost`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import pandas as pd

from pruneaudit import data
from pruneaudit.compress.prune import TECHNIQUES, TREATMENTS
from pruneaudit.data.class_properties import class_table
from pruneaudit.errors import PruneAuditError, check_choice, check_positive_int
from pruneaudit.runs.cost import seconds_per_10k, training_cost
from pruneaudit.runs.iterative import series_classes, series_specs, train_series
from pruneaudit.runs.populations import member_specs
from pruneaudit.runs.run_data import splits
from pruneaudit.runs.spec import (
    DENSE_EPOCHS_KEY,
    IMBALANCE_KEY,
    IMBALANCE_SEED_KEY,
    STACKED_MODELS,
    RunSpec,
)
from pruneaudit.runs.store import ResultsStore
from pruneaudit.runtime import Runtime

TIDY_COLUMNS = (
    "dataset",
    "imbalance_factor",
    "model",
    "technique",
    "treatment",
    "seed",
    "iteration",
    "sparsity",
    "class",
    "accuracy",
    "n",
)
#: Row order of :func:`series_frame`: the series keys, then iteration and class (the order the
#: regression's HAC lags run along, ``pruneaudit.audit.ORDER``).
ROW_ORDER = (
    "dataset", "imbalance_factor", "model", "technique", "treatment", "seed", "iteration", "class"
)


def distinct(name: str, values: Sequence, allowed: Sequence | None = None) -> list:
    """``values`` as a list: at least one, no repeats, each in ``allowed`` when given."""
    values = list(values)
    if not values:
        raise PruneAuditError(f"{name} must name at least one value, got none")
    if len(set(values)) != len(values):
        raise PruneAuditError(f"{name} must be distinct, got {values}")
    if allowed is not None:
        for v in values:
            check_choice(name.rstrip("s"), v, allowed)
    return values


def capped_sizes(
    dataset: str, train_size: int | None, test_size: int | None, root: str | None = None
) -> tuple[int | None, int | None]:
    """``(train_size, test_size)`` for ``dataset``: each None (the whole pool / test set) when
    it is None or at least what the dataset has (KMNIST offline: 8,000 / 2,000), else kept."""
    whole = splits(RunSpec(dataset, "lenet"), root)
    out = []
    for name, size, n in (
        ("train_size", train_size, len(whole.pool)),
        ("test_size", test_size, len(whole.test)),
    ):
        if size is not None:
            check_positive_int(name, size)
        out.append(None if size is None or size >= n else size)
    return out[0], out[1]


def imbalanced(spec: RunSpec, factor: float) -> RunSpec:
    """``spec`` trained on a long-tailed pool of ``factor`` (1: the spec unchanged, so balanced
    runs keep their store keys)."""
    factor = data.splits.check_factor(factor)
    if factor == 1:
        return spec
    return spec.with_extra(**{IMBALANCE_KEY: factor, IMBALANCE_SEED_KEY: 0})


def dense_specs(
    dataset: str,
    model: str,
    seeds: Sequence[int],
    factor: float = 1,
    *,
    root: str | None = None,
    dense_epochs: int | None = None,
    **fields,
) -> list[RunSpec]:
    """The dense run of every seed (the bases of the series) of one (dataset, model, factor);
    ``fields``: the other :class:`RunSpec` fields (epochs, lr, train_size, ...), sizes capped;
    ``dense_epochs``: epochs of the dense run and of every rewound round
    (:func:`pruneaudit.runs.trained.round_epochs`); None or ``epochs``: every round trains
    ``epochs`` (and the specs keep the keys they had before ``dense_epochs`` existed)."""
    train_n, test_n = capped_sizes(
        dataset, fields.pop("train_size", None), fields.pop("test_size", None), root
    )
    base = RunSpec(dataset, model, train_size=train_n, test_size=test_n, **fields)
    if dense_epochs is not None and check_positive_int("dense_epochs", dense_epochs) != base.epochs:
        base = base.with_extra(**{DENSE_EPOCHS_KEY: dense_epochs})
    return member_specs(imbalanced(base, factor), seeds)


@dataclass(frozen=True)
class SeriesGrid:
    """A grid of pruning series: one per (dataset, imbalance factor, model, technique, treatment,
    seed), each of ``iterations`` pruned rounds after its seed's dense model."""

    datasets: Sequence[str]
    models: Sequence[str]
    techniques: Sequence[str]
    treatments: Sequence[str]
    seeds: Sequence[int]
    iterations: int
    imbalance_factors: Sequence[float] = (1,)


def series_frame(
    grid: SeriesGrid,
    store: ResultsStore,
    *,
    root: str | None = None,
    progress: bool = True,
    dense_epochs: int | None = None,
    runtime: Runtime | None = None,
    **fields,
) -> pd.DataFrame:
    """Run (or read from ``store``) every pruning series of ``grid``; the tidy per-class frame.

    One series per (dataset, imbalance factor, model, technique, treatment, seed): iteration 0 is
    the seed's dense model (shared by all techniques and treatments), iterations 1..``iterations``
    its pruned and retrained successors, trained with ``runtime`` (default: a fresh
    :class:`~pruneaudit.runtime.Runtime` from the environment). ``fields``: epochs, lr, batch_size,
    augment, train_size, test_size; ``dense_epochs`` (:func:`dense_specs`) trains the dense model
    (and every rewound round) for its own budget, ``epochs`` being the budget of a finetuned round.
    Columns: :data:`TIDY_COLUMNS`, one row per run and class, sorted.

    Per model that the population trainer stacks (:data:`~pruneaudit.runs.spec.STACKED_MODELS`),
    the series of every dataset, imbalance factor, technique and treatment train packed
    (:func:`pruneaudit.runs.iterative.train_series`): the missing dense runs as one population,
    then each round as one (``1 + iterations`` populations in a cold run). Models trained one
    at a time gain nothing from packing and would hold every series in memory, so theirs train
    per dataset, imbalance factor and treatment, as before.
    """
    techniques = distinct("techniques", grid.techniques, TECHNIQUES)
    treatments = distinct("treatments", grid.treatments, TREATMENTS)
    iterations = check_positive_int("iterations", grid.iterations)
    frames = []
    for model in distinct("models", grid.models):
        chunks: dict[tuple, list[list[RunSpec]]] = {}  # the series trained together
        for dataset in distinct("datasets", grid.datasets):
            for factor in distinct("imbalance_factors", grid.imbalance_factors):
                bases = dense_specs(
                    dataset, model, grid.seeds, factor, root=root, dense_epochs=dense_epochs,
                    **fields,
                )
                for treatment in treatments:
                    chunk = chunks.setdefault(
                        () if model in STACKED_MODELS else (dataset, factor, treatment), []
                    )
                    chunk += [series_specs(b, t, treatment, iterations)
                              for t in techniques for b in bases]
        for chunk in chunks.values():
            train_series(chunk, store, root, progress, runtime=runtime)
            frames += [series_classes([specs], store).assign(
                imbalance_factor=float(dict(specs[0].extra).get(IMBALANCE_KEY, 1)))
                for specs in chunk]
    frame = pd.concat(frames, ignore_index=True)[list(TIDY_COLUMNS)]
    return frame.sort_values(list(ROW_ORDER), kind="mergesort").reset_index(drop=True)


def _pools(
    datasets: Sequence[str],
    imbalance_factors: Sequence[float],
    train_size: int | None,
    root: str | None,
) -> Iterator[tuple[str, float, data.ImageData]]:
    """(dataset, imbalance factor, training pool) of every pair of the grid: the first
    ``train_size`` examples (capped to the dataset), long-tailed by the factor."""
    for dataset in distinct("datasets", datasets):
        size = capped_sizes(dataset, train_size, None, root)[0]
        for factor in distinct("imbalance_factors", imbalance_factors):
            spec = imbalanced(RunSpec(dataset, "lenet", train_size=size), factor)
            yield dataset, factor, splits(spec, root).pool


def class_stats(
    datasets: Sequence[str],
    *,
    imbalance_factors: Sequence[float] = (1,),
    train_size: int | None = None,
    root: str | None = None,
) -> pd.DataFrame:
    """Class shares, r_c and H_c of every (dataset, imbalance factor, class) from the training
    pool the models drew from (the first ``train_size`` examples, long-tailed by the factor).

    Columns: dataset, imbalance_factor, class, name, n (pool examples), fraction, r (imbalance
    r_c = n_c − 1/C with n_c the class fraction), H (mean image entropy H_c: Shannon entropy in
    bits of each image's 256-bin pixel histogram, averaged over the class's images).
    """
    rows = []
    for dataset, factor, pool in _pools(datasets, imbalance_factors, train_size, root):
        table = class_table(pool.images, pool.labels, pool.num_classes, pool.classes)
        table = table.rename(columns={"imbalance": "r", "entropy": "H"})
        rows.append(table.assign(dataset=dataset, imbalance_factor=float(factor)))
    out = pd.concat(rows, ignore_index=True)
    return out[["dataset", "imbalance_factor", "class", "name", "n", "fraction", "r", "H"]]


def grid_cost(
    grid: SeriesGrid,
    epochs: int,
    *,
    train_size: int | None = None,
    val_fraction: float = 0.2,
    root: str | None = None,
    dense_epochs: int | None = None,
    store: str | None = None,
) -> pd.DataFrame:
    """Training cost of ``grid``, one row per model: model_epochs, images (all
    training images seen), cpu_hours at the model's rate
    (:func:`pruneaudit.runs.cost.seconds_per_10k`: recorded in ``store``, else the reference
    rate) and the rate's ``source``.

    Per (dataset, factor, model, seed): ``dense_epochs`` (default ``epochs``) for the dense model,
    plus per technique and iteration ``epochs`` for a finetuned round and ``dense_epochs`` for a
    rewound one (:func:`pruneaudit.runs.trained.round_epochs`).
    """
    iterations = check_positive_int("iterations", grid.iterations)
    check_positive_int("epochs", epochs)
    dense = epochs if dense_epochs is None else check_positive_int("dense_epochs", dense_epochs)
    per_round = {"finetune": epochs, "rewind": dense}
    rounds = sum(per_round[t] for t in distinct("treatments", grid.treatments))
    per_seed = dense + len(distinct("techniques", grid.techniques)) * iterations * rounds
    per_member = len(distinct("seeds", grid.seeds)) * per_seed
    train = [
        round(len(pool) * (1 - val_fraction))
        for _, _, pool in _pools(grid.datasets, grid.imbalance_factors, train_size, root)
    ]
    rows = []
    for model in distinct("models", grid.models):
        rate = seconds_per_10k(model, store)
        costs = [training_cost(per_member, n, rate.seconds_per_10k) for n in train]
        rows.append(
            {
                "model": model,
                "model_epochs": sum(c.model_epochs for c in costs),
                "images": sum(c.images for c in costs),
                "cpu_hours": sum(c.hours for c in costs),
                "rate": rate.text(),
            }
        )
    return pd.DataFrame(rows)
