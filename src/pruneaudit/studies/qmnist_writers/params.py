"""Study 2's notebook parameters, checked once before any training."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pruneaudit.errors import PruneAuditError, check_positive_int, check_range
from pruneaudit.runs.series import SeriesGrid, distinct
from pruneaudit.runs.spec import check_lr
from pruneaudit.studies.params import Rule, StudyParams, Workload, series_workload

#: The study's fixed protocol: LeNet on QMNIST, pruned globally with rewinding.
DATASET = "qmnist"
MODEL = "lenet"
TECHNIQUE = "global_unstructured"
TREATMENT = "rewind"
#: Training digits offline (QMNIST train) and the largest test set here (test10k).
TRAIN_DIGITS = 60_000
#: Fewest seeds: the per-seed findings need a Student t on 2 degrees of freedom or more.
MIN_SEEDS = 3


@dataclass(frozen=True, kw_only=True)
class Params(StudyParams):
    """Study 2's parameters: one pruning series per seed (``iterations`` rounds, ``epochs`` per
    round), the model compared as pruned, and how many writers the page lists."""

    STUDY = "Study 2"

    #: One population: the headline findings' unit is the seed (evidence: Study 2; P: 6).
    seeds: tuple[int, ...] = tuple(range(16))
    #: Epochs per training round (P: 30; evidence: Study 2).
    epochs: int = 1
    #: SGD learning rate (P: 0.01).
    lr: float = 0.01
    batch_size: int = 32
    #: Random crop (padding 2).
    augment: bool = True
    #: Add P's horizontal flip: wrong for digits, kept to run P's protocol as printed.
    flip: bool = False
    #: First N QMNIST training digits (None: all 60,000, 48,000 per seed), split 80/20.
    train_size: int | None = None
    #: Rounds of pruning 20% of the remaining weights (global_unstructured, rewind; 20: 98.8%).
    iterations: int = 20
    #: Model compared as pruned (None: the last iteration).
    pruned_iteration: int | None = None
    #: Writers listed as most hurt (and offered by the writer picker).
    n_hurt: int = 10
    #: Of them, writers in the static gallery.
    n_gallery: int = 4

    def rules(self) -> Iterable[Rule]:
        yield lambda: _check_seeds(self.seeds)
        for name in ("epochs", "batch_size", "iterations", "n_hurt", "n_gallery"):
            yield lambda name=name: check_positive_int(name, getattr(self, name))
        yield lambda: check_lr(self.lr)
        if self.train_size is not None:
            yield lambda: check_range("train_size", self.train_size, 1, TRAIN_DIGITS)
        yield lambda: _check_pruned_iteration(self.pruned_iteration, self.iterations)
        yield lambda: _check_gallery(self.n_gallery, self.n_hurt)
        yield lambda: _check_flip(self.flip, self.augment)


def _check_seeds(seeds: tuple[int, ...]) -> None:
    if len(seeds) < MIN_SEEDS:
        raise PruneAuditError(
            f"seeds must list at least {MIN_SEEDS} seeds (intervals over seeds: a t on 2 df or "
            f"more), got {list(seeds)}"
        )
    distinct("seeds", seeds)
    if any(s < 0 for s in seeds):
        raise PruneAuditError(f"seeds must be integers >= 0, got {list(seeds)}")


def _check_pruned_iteration(k: int | None, iterations: int) -> None:
    if k is not None and not 1 <= k <= iterations:
        raise PruneAuditError(
            f"pruned_iteration must be None or 1..iterations={iterations}, got {k!r}"
        )


def _check_gallery(n_gallery: int, n_hurt: int) -> None:
    if n_gallery > n_hurt:
        raise PruneAuditError(
            f"n_gallery={n_gallery} exceeds n_hurt={n_hurt}: the gallery shows some of the "
            "writers most hurt; lower n_gallery or raise n_hurt"
        )


def _check_flip(flip: bool, augment: bool) -> None:
    if flip and not augment:
        raise PruneAuditError("flip=True needs augment=True (the flip is part of the augmentation)")


def cost(params: Params) -> list[Workload]:
    """The workload of ``params``: one pruning series of LeNet per seed, rewound rounds
    (:func:`~pruneaudit.studies.params.series_workload`)."""
    p = params
    grid = SeriesGrid([DATASET], [MODEL], [TECHNIQUE], [TREATMENT], p.seeds, p.iterations)
    return series_workload(grid, p.epochs, train_size=p.train_size, root=p.data_root)


#: The values the book's profiles give that differ from the defaults (``quick``: the defaults).
PROFILES = {
    "smoke": {"seeds": [0, 1, 2], "lr": 0.05, "augment": False, "train_size": 1000,
              "iterations": 2, "n_hurt": 5, "n_gallery": 2},
    # P section 4.1 as printed: six replicates, SGD lr 0.01, batch 32, 30 epochs per round, 20
    # rounds of rewinding, random crop + horizontal flip (the flip is wrong for digits; it is on
    # here only because P prints it); the defaults hold lr, batch, crop, all training digits and
    # the 20 rounds
    "paper": {"seeds": [0, 1, 2, 3, 4, 5], "epochs": 30, "flip": True},
}
