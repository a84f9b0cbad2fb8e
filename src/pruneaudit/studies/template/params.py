"""The template's parameters and its fixed protocol: a population of ``MEMBERS`` LeNets on the
first ``TRAIN_SIZE`` MNIST digits, dense and at each sparsity ``s_k = 1 - 0.8**k`` of
``k = 1..iterations`` rounds of 20%, the page following digits ``0..n_classes-1``.

A study declares each parameter once, here: its type, its default (a notebook run without a
profile takes it) and a ``#:`` comment. The notebook's parameters cell is generated from
:class:`Params` (``pruneaudit params --cell template --write``), and :data:`PROFILES` gives the
values that differ from the defaults in the book's profiles (smoke, quick, paper).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pruneaudit import runs
from pruneaudit.errors import PruneAuditError
from pruneaudit.runs.spec import RunSpec
from pruneaudit.studies.params import Rule, StudyParams, Workload, population_workload

#: The fixed protocol (a study would make what it varies a parameter): LeNet on MNIST, trained
#: 3 epochs at lr 0.1 on 800 digits (80% of the first 1,000), tested on the first 500.
DATASET, MODEL = "mnist", "lenet"
EPOCHS, LR, TRAIN_SIZE, TEST_SIZE = 3, 0.1, 1000, 500
#: Members per population: two, the fewest a population's t interval needs.
MEMBERS = 2
#: Classes of the dataset.
DIGITS = 10


def check_sizes(n_classes: int, iterations: int) -> None:
    """Between 2 and 10 digits followed and at least 1 pruning round, or one clear error."""
    if not 2 <= n_classes <= DIGITS:
        raise PruneAuditError(f"n_classes must be in 2..{DIGITS} (MNIST's digits), got "
                              f"{n_classes}")
    if iterations < 1:
        raise PruneAuditError(f"iterations must be at least 1, got {iterations}")


def sparsity(k: int) -> float:
    """The sparsity after ``k`` pruning rounds of 20%: ``1 - 0.8**k`` (6 decimals)."""
    return round(1 - 0.8**k, 6)


@dataclass(frozen=True, kw_only=True)
class Params(StudyParams):
    """The template's page parameters (notebook ``00_template``'s parameters cell)."""

    STUDY = "Study 0 (template)"

    #: Digits 0..n_classes-1 whose accuracy the page follows.
    n_classes: int = 10
    #: Populations pruned to s_k = 1 - 0.8**k, k = 1..iterations, beside the dense one.
    iterations: int = 20
    #: The first member's seed (members: seed, seed + 1, ...).
    seed: int = 0

    def rules(self) -> Iterable[Rule]:
        yield lambda: check_sizes(self.n_classes, self.iterations)
        yield lambda: runs.level_seeds(self.seeds, sparsity(1))  # each level's own seeds

    @property
    def seeds(self) -> tuple[int, ...]:
        """The members' seeds of the dense population (each level has its own:
        ``pruneaudit.runs.level_seeds``)."""
        return tuple(range(self.seed, self.seed + MEMBERS))

    @property
    def levels(self) -> tuple[float, ...]:
        """The pruned populations' sparsities, ``k = 1..iterations``."""
        return tuple(sparsity(k) for k in range(1, self.iterations + 1))

    @property
    def spec(self) -> RunSpec:
        """Every member's run, but its seed and level."""
        return RunSpec(DATASET, MODEL, epochs=EPOCHS, lr=LR, augment=False,
                       train_size=TRAIN_SIZE, test_size=TEST_SIZE)


def cost(params: Params) -> list[Workload]:
    """The workload of ``params``: ``MEMBERS`` models per population, dense and at each level,
    each trained ``EPOCHS`` epochs and evaluated once
    (:func:`~pruneaudit.studies.params.population_workload`)."""
    n = MEMBERS * (1 + params.iterations)
    return [population_workload(DATASET, MODEL, n, EPOCHS, n, train_size=TRAIN_SIZE,
                                root=params.data_root)]


#: The values the book's profiles give that differ from the defaults (``quick``: the defaults).
PROFILES = {
    "smoke": {"n_classes": 3, "iterations": 5},
}
