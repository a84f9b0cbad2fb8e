"""The data of a run: its training pool split into train / validation, and its test set.

Data protocol (``RunSpec`` fields ``train_size``, ``test_size``, ``val_fraction``, ``seed``):
the first ``train_size`` training examples (all if None; the first examples keep the dataset's
own class proportions) are split by :func:`pruneaudit.data.train_val_split` with the run's seed
into train (80%) and validation (20%); models train on the train part and are evaluated on the
first ``test_size`` test examples. KMNIST's training images are not available offline: when
they are missing its 10,000 test images are split 80/20 once, with split seed 0 for every run,
by :func:`pruneaudit.data.kmnist_split` (train pool / test).
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass

import numpy as np

from pruneaudit import data
from pruneaudit.errors import DataMissingError, PruneAuditError
from pruneaudit.runs.spec import FLIP_KEY, IMBALANCE_KEY, IMBALANCE_SEED_KEY, RunSpec


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
    (:func:`pruneaudit.data.long_tail_indices`). Runs of one pool share its (cached) object."""
    extra = dict(spec.extra)
    pool, test = _run_pool(
        spec.dataset, root, spec.train_size, spec.test_size, bool(extra.get(FLIP_KEY)),
        float(extra.get(IMBALANCE_KEY, 1)), int(extra.get(IMBALANCE_SEED_KEY, 0)),
    )
    train_idx, val_idx = data.train_val_split(len(pool), spec.seed, spec.val_fraction)
    return Splits(pool, train_idx, val_idx, test)


@functools.lru_cache(maxsize=32)
def _run_pool(
    dataset: str,
    root: str | None,
    train_size: int | None,
    test_size: int | None,
    flip: bool,
    factor: float,
    imbalance_seed: int,
) -> tuple[data.ImageData, data.ImageData]:
    """The training pool of a run (flip allowed, long-tailed by ``factor``) and its test set;
    cached."""
    pool, test = pool_and_test(dataset, root, train_size, test_size)
    if flip:
        pool = dataclasses.replace(pool, spec=dataclasses.replace(pool.spec, flip_ok=True))
    if factor != 1:  # long-tailed subsample (data.splits)
        keep = data.long_tail_indices(pool.labels.numpy(), pool.num_classes, factor, imbalance_seed)
        pool = pool.subset(keep)
    return pool, test


@functools.lru_cache(maxsize=16)
def pool_and_test(
    dataset: str, root: str | None, train_size: int | None, test_size: int | None
) -> tuple[data.ImageData, data.ImageData]:
    """The training pool (its first ``train_size`` examples) and the test set (its first
    ``test_size``) of ``dataset``, KMNIST's offline split when its training images are missing;
    cached."""
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
