"""Study-level runs, all through the results store: asking twice trains nothing the second time.

Every trained or compressed model is one :class:`~pruneaudit.runs.RunSpec` in the store, with
its per-class test accuracy (plus the measured ``sparsity``), its per-example test predictions
and, for trained models, a checkpoint. The functions here make missing runs and return tidy
frames; members that share a computation (the seeds and techniques of the pruning series of one
training pool and treatment, a population) are trained together by
:func:`pruneaudit.training.train_population`.

Data protocol (``RunSpec`` fields ``train_size``, ``test_size``, ``val_fraction``, ``seed``):
the first ``train_size`` training examples (all if None; the first examples keep the dataset's
own class proportions) are split by :func:`pruneaudit.data.train_val_split` with the run's seed
into train (80%) and validation (20%); models train on the train part and are evaluated on the
first ``test_size`` test examples. KMNIST's training images are not available offline: when
they are missing its 10,000 test images are split 80/20 once, with split seed 0 for every run,
by :func:`pruneaudit.data.kmnist_split` (train pool / test).

Iterative pruning (P): iteration 0 is the dense model of a seed, shared by every technique and
treatment; iteration ``k`` is :func:`pruneaudit.compress.prune_round` ``k`` then retraining with
the same training config. Its checkpoint holds the pruned weights and masks; the dense
checkpoint also holds the initial weights under ``init.*`` keys, for rewinding. An interrupted
series resumes from its last stored iteration and gives the same result as an uninterrupted one.

Gradual pruning (H1): a population member at level ``t > 0`` trains from scratch with a
:class:`pruneaudit.compress.GradualPruner` (per-layer L1 magnitude, cubic schedule from
``GRADUAL_BEGIN`` to ``GRADUAL_END`` of the training steps, masks updated ``GRADUAL_UPDATES``
times), ending at sparsity ``t``. Level 0 is the dense baseline member of the same seed.
"""

from __future__ import annotations

import dataclasses
import functools
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch
from torch import nn
from tqdm.auto import tqdm

from pruneaudit import audit, compress, data, models, training
from pruneaudit.errors import DataMissingError, PruneAuditError, check_positive_int
from pruneaudit.runs.cost import record_rate
from pruneaudit.runs.spec import LEVEL_KEY, SCHEME_KEY, RunSpec
from pruneaudit.runs.store import ResultsStore
from pruneaudit.timing import phase
from pruneaudit.training.device import environment
from pruneaudit.training.loop import StepHook, TrainConfig, evaluate, num_steps

INIT_PREFIX = "init."
GRADUAL_TECHNIQUE = "l1_unstructured"
GRADUAL_BEGIN, GRADUAL_END, GRADUAL_UPDATES = 0.2, 0.8, 50
#: ``extra`` key of a run whose training augmentation adds P's horizontal flip (see
#: :func:`flip_extra`); absent (not False) when off, so existing run keys stay unchanged.
FLIP_KEY = "flip"


@dataclass(frozen=True)
class Splits:
    """The data of a run: ``pool`` split into ``train_idx`` / ``val_idx``, and ``test``."""

    pool: data.ImageData
    train_idx: np.ndarray
    val_idx: np.ndarray
    test: data.ImageData

    @property
    def train(self) -> data.ImageData:
        return self.pool.subset(self.train_idx)

    @property
    def val(self) -> data.ImageData:
        return self.pool.subset(self.val_idx)


def flip_extra(flip: bool) -> dict[str, bool]:
    """The ``extra`` that turns on a horizontal flip in a run's augmentation: ``{"flip": True}``,
    or ``{}`` when off (so a spec without the flip keeps its key). A flip is wrong for digits
    (a mirrored 2 is not a 2); it exists so that P's printed protocol (crop + flip) can be run."""
    if not isinstance(flip, bool):
        raise PruneAuditError(f"flip must be True or False, got {flip!r}")
    return {FLIP_KEY: True} if flip else {}


def splits(spec: RunSpec, root: str | None = None) -> Splits:
    """The train / validation / test data of ``spec`` (see the module docstring); with
    ``extra["flip"]`` the pool's dataset spec allows the augmentation's horizontal flip; a spec
    whose ``extra`` has ``imbalance_factor`` > 1 trains on a long-tailed subsample of its pool
    (:func:`pruneaudit.data.long_tail_indices`)."""
    pool, test = _pool_and_test(spec.dataset, root, spec.train_size, spec.test_size)
    extra = dict(spec.extra)
    if extra.get(FLIP_KEY):
        pool = dataclasses.replace(pool, spec=dataclasses.replace(pool.spec, flip_ok=True))
    if extra.get(data.IMBALANCE_KEY, 1) != 1:  # long-tailed subsample (data.splits)
        keep = data.long_tail_indices(
            pool.labels.numpy(),
            pool.num_classes,
            extra[data.IMBALANCE_KEY],
            int(extra.get(data.IMBALANCE_SEED_KEY, 0)),
        )
        pool = pool.subset(keep)
    train_idx, val_idx = data.train_val_split(len(pool), spec.seed, spec.val_fraction)
    return Splits(pool, train_idx, val_idx, test)


@functools.lru_cache(maxsize=16)
def _pool_and_test(
    dataset: str, root: str | None, train_size: int | None, test_size: int | None
) -> tuple[data.ImageData, data.ImageData]:
    test = data.load(dataset, "test", root=root)
    try:
        pool = data.load(dataset, "train", root=root)
    except DataMissingError:
        if dataset != "kmnist":
            raise
        pool, test = data.kmnist_split(0, 0.8, root=root)
    for name, size, part in (("train_size", train_size, pool), ("test_size", test_size, test)):
        if size is not None and size > len(part):
            raise PruneAuditError(
                f"{name}={size} exceeds the {len(part)} examples {dataset} has here; "
                f"pass at most {len(part)}, or None for all of them"
            )
    if train_size is not None:
        pool = pool.subset(np.arange(train_size))
    if test_size is not None:
        test = test.subset(np.arange(test_size))
    return pool, test


def train_config(spec: RunSpec) -> TrainConfig:
    """The training config of a run."""
    return TrainConfig(
        lr=spec.lr,
        batch_size=spec.batch_size,
        epochs=spec.epochs,
        seed=spec.seed,
        augment=spec.augment,
    )


def round_epochs(spec: RunSpec, treatment: str | None = None) -> int:
    """Epochs of one training round of ``spec``'s series: ``epochs``, unless the spec sets
    ``extra["dense_epochs"]``; then the dense run (treatment None) and every rewound round
    (retrained from the initial weights, as the dense model was: P's rounds repeat the dense
    budget) train ``dense_epochs``, and a finetuned round ``epochs`` from its current weights."""
    if spec.dense_epochs is None or treatment == "finetune":
        return spec.epochs
    return spec.dense_epochs


def fresh_model(spec: RunSpec, like: data.ImageData) -> nn.Module:
    """The initial (untrained) model of a run, seeded by the run's seed."""
    return models.build_model(
        spec.model, like.num_classes, like.in_channels, like.image_size, seed=spec.seed
    )


def load_model(spec: RunSpec, store: ResultsStore, root: str | None = None) -> nn.Module:
    """The trained model of a stored run (masks restored for pruned runs)."""
    state = store.load(spec).checkpoint()
    model = fresh_model(spec, splits(spec, root).test)
    weights = {k: v for k, v in state.items() if not k.startswith(INIT_PREFIX)}
    return compress.load_pruned_state_dict(model, weights)


@phase("evaluation")
def _record(
    model: nn.Module, test: data.ImageData, sparsity: float | None = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per-class accuracy (+ sparsity) and per-example predictions of ``model`` on ``test``.

    ``sparsity`` None measures it on ``model``; a quantized model (whose int8 layers are no
    longer conv / linear modules) passes the sparsity of the model it was made from."""
    preds = evaluate(model, test)
    return _frames(test, preds, compress.sparsity(model) if sparsity is None else sparsity)


@phase("evaluation")
def _records(
    nets: Sequence[nn.Module], test: data.ImageData
) -> list[tuple[pd.DataFrame, pd.DataFrame]]:
    """:func:`_record` of every net of a trained population, evaluated as one stacked computation
    (:func:`pruneaudit.training.evaluate_population`, the same predictions)."""
    preds = training.evaluate_population(list(nets), test)
    return [_frames(test, p, compress.sparsity(net)) for net, p in zip(nets, preds, strict=True)]


def _frames(
    test: data.ImageData, preds: np.ndarray, sparsity: float
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The stored tables of predictions ``preds`` on ``test``: per-class accuracy (+ sparsity)
    and per-example predictions."""
    labels = test.labels.numpy()
    classes = audit.class_accuracy_frame(labels, preds, test.num_classes)
    classes["sparsity"] = sparsity
    predictions = pd.DataFrame(
        {"index": np.arange(len(labels)), "label": labels, "prediction": preds}
    )
    return classes, predictions


# --------------------------------------------------------------------------- pruning series


def series_specs(base: RunSpec, technique: str, treatment: str, iterations: int) -> list[RunSpec]:
    """The runs of one iterative-pruning series: the dense run, then iterations 1..N."""
    check_positive_int("iterations", iterations)
    dense = base.replace(technique=None, treatment=None, iteration=0)
    return [dense] + [
        base.replace(technique=technique, treatment=treatment, iteration=k)
        for k in range(1, iterations + 1)
    ]


def _dense_checkpoint(model: nn.Module, init: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    state = compress.pruned_state_dict(model)
    state.update({INIT_PREFIX + k: v for k, v in init.items()})
    return state


def _init_snapshot(state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    return {k[len(INIT_PREFIX) :]: v for k, v in state.items() if k.startswith(INIT_PREFIX)}


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
    _fit(nets, split, specs, store, progress, epochs=round_epochs(specs[0]))
    for spec, net, init, record in zip(specs, nets, inits, _records(nets, test), strict=True):
        store.save(spec, *record, checkpoint=_dense_checkpoint(net, init), env=environment())


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
    inits = [_init_snapshot(store.load(specs[0]).checkpoint()) for specs in group]
    nets = [load_model(specs[start - 1], store, root) for specs in group]
    techniques = [specs[1].technique for specs in group]
    named = techniques[0] if len(set(techniques)) == 1 else f"{len(set(techniques))} techniques"
    rounds = tqdm(
        range(start, len(group[0])),
        disable=not progress,
        desc=f"{named}/{treatment} x{len(group)}",
        unit="iteration",
    )
    for k in rounds:
        for specs, net, init, technique in zip(group, nets, inits, techniques, strict=True):
            with phase("pruning"):
                compress.prune_round(net, technique, treatment, k, init, seed=specs[0].seed)
        _fit(nets, split, first, store, progress, epochs=round_epochs(first[0], treatment))
        for specs, net, record in zip(group, nets, _records(nets, test), strict=True):
            state = compress.pruned_state_dict(net)
            store.save(specs[k], *record, checkpoint=state, env=environment())


def _fit(
    nets: list[nn.Module],
    split: list[Splits],
    specs: list[RunSpec],
    store: ResultsStore,
    progress: bool,
    hooks: list[StepHook | None] | None = None,
    epochs: int | None = None,
) -> None:
    """Train ``nets`` in place as one population, member ``k`` on its own training split
    (``epochs``: instead of the specs' own), and record the training rate in ``store``
    (:func:`pruneaudit.runs.cost.record_rate`: the one source of the cost estimates)."""
    configs = [train_config(s) for s in specs]
    if epochs is not None:
        configs = [dataclasses.replace(c, epochs=epochs) for c in configs]
    start = time.perf_counter()
    with phase("training"):
        training.train_population(
            nets,
            split[0].pool,
            configs,
            indices=[s.train_idx for s in split],
            step_hooks=hooks,
            progress=progress,
        )
    images = sum(len(s.train_idx) * c.epochs for s, c in zip(split, configs, strict=True))
    record_rate(
        store.root, specs[0].model, environment()["device"], time.perf_counter() - start, images
    )


# --------------------------------------------------------------------------- populations (H1)


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
        "gradual_begin": GRADUAL_BEGIN,
        "gradual_end": GRADUAL_END,
        "gradual_updates": GRADUAL_UPDATES,
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
) -> Population:
    """Make the missing members of a population (from :func:`member_specs`) and return it."""
    missing = [s for s in specs if not store.has(s)]
    if missing:
        store.check_writable()
        split = [splits(s, root) for s in missing]
        test = split[0].test
        nets = [fresh_model(s, test) for s in missing]
        inits = [compress.snapshot(net) for net in nets]
        gradual = [s.level > 0 for s in missing]
        hooks = [
            gradual_pruner(s, len(sp.train_idx)) if g else None
            for s, sp, g in zip(missing, split, gradual, strict=True)
        ]
        _fit(nets, split, missing, store, progress, hooks)
        records = _records(nets, test)
        for s, net, init, g, record in zip(missing, nets, inits, gradual, records, strict=True):
            state = compress.pruned_state_dict(net) if g else _dense_checkpoint(net, init)
            store.save(s, *record, checkpoint=state, env=environment())
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


# --------------------------------------------------------------------------- compressed copies


def run_levels(
    base: RunSpec,
    seeds: Iterable[int],
    levels: Iterable[float],
    store: ResultsStore,
    root: str | None = None,
    progress: bool = True,
    independent: bool = True,
) -> dict[float, Population]:
    """Make the missing members of every level of :func:`level_specs` (all levels as one
    computation) and read them: ``{level: Population}``, level 0 the dense baseline."""
    specs = level_specs(base, seeds, levels, independent)
    run_population([s for members in specs.values() for s in members], store, root, progress)
    return {t: population(members, store) for t, members in specs.items()}


def quantized_specs(specs: Sequence[RunSpec], scheme: str) -> list[RunSpec]:
    """The post-training quantized copies of trained runs."""
    return [s.with_extra(**{SCHEME_KEY: scheme}) for s in specs]


def run_quantized(
    specs: Sequence[RunSpec],
    scheme: str,
    store: ResultsStore,
    root: str | None = None,
    progress: bool = True,
) -> Population:
    """Quantize stored trained runs with ``scheme`` (calibrated on the first 100 training
    examples of each run's own split) and evaluate them; returns the quantized population."""
    out = quantized_specs(specs, scheme)
    for base, spec in tqdm(
        list(zip(specs, out, strict=True)), disable=not progress, desc=f"quantize {scheme}"
    ):
        if store.has(spec):
            continue
        split = splits(base, root)
        model = load_model(base, store, root)
        qmodel = compress.quantize(model, scheme, calibration=split.train)
        classes, predictions = _record(qmodel, split.test, sparsity=compress.sparsity(model))
        store.save(spec, classes, predictions, env=environment())
    return population(out, store)


def corrupted_specs(
    specs: Sequence[RunSpec], corruption: str, severity: int, seed: int = 0
) -> list[RunSpec]:
    """The evaluations of trained runs on a corrupted test set."""
    extra = {"corruption": corruption, "severity": severity, "corruption_seed": seed}
    return [s.with_extra(**extra) for s in specs]


def run_corrupted(
    specs: Sequence[RunSpec],
    grid: Sequence[tuple[str, int]],
    store: ResultsStore,
    root: str | None = None,
    seed: int = 0,
    progress: bool = True,
) -> dict[tuple[str, int], Population]:
    """Evaluate stored trained runs on their test set corrupted by each ``(corruption,
    severity)`` of ``grid`` (:func:`pruneaudit.data.corrupt`, seeded); returns each population.

    The runs must share a dataset and test set. The models are loaded once and the missing
    evaluations of each corrupted test set run as one batched computation over the members
    (:func:`pruneaudit.training.evaluate_population`)."""
    if len({(s.dataset, s.test_size) for s in specs}) > 1:
        raise PruneAuditError("run_corrupted needs runs of one dataset and test set")
    todo = {
        (c, v): [k for k, s in enumerate(corrupted_specs(specs, c, v, seed)) if not store.has(s)]
        for c, v in grid
    }
    needed = sorted({k for members in todo.values() for k in members})
    if needed:
        store.check_writable()
        nets = {k: load_model(specs[k], store, root) for k in needed}
        sparsity = {k: compress.sparsity(net) for k, net in nets.items()}
        base = specs[0]
        for (corruption, severity), members in tqdm(
            [(cell, m) for cell, m in todo.items() if m],
            disable=not progress,
            desc="corrupted test sets",
        ):
            shifted = _corrupted_test(
                base.dataset, root, base.test_size, corruption, severity, seed
            )
            with phase("evaluation"):
                preds = training.evaluate_population([nets[k] for k in members], shifted)
            out = corrupted_specs([specs[k] for k in members], corruption, severity, seed)
            for spec, k, pred in zip(out, members, preds, strict=True):
                store.save(spec, *_frames(shifted, pred, sparsity[k]), env=environment())
    return {(c, v): population(corrupted_specs(specs, c, v, seed), store) for c, v in grid}


@functools.lru_cache(maxsize=8)
def _corrupted_test(
    dataset: str,
    root: str | None,
    test_size: int | None,
    corruption: str,
    severity: int,
    seed: int,
) -> data.ImageData:
    _, test = _pool_and_test(dataset, root, None, test_size)
    images = data.corrupt(test.images, corruption, severity, seed=seed)
    return dataclasses.replace(test, images=images)
