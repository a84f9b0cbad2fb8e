"""Study 1's constants and parameters: the rules, the protocol beside P's, the training cost."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import pandas as pd

from pruneaudit import data, models
from pruneaudit.compress.prune import TECHNIQUES, TREATMENTS
from pruneaudit.errors import PruneAuditError, check_positive_int, check_range
from pruneaudit.runs import series
from pruneaudit.runs.spec import check_lr
from pruneaudit.studies.params import Rule, StudyParams, Workload, series_workload

STUDY = "S1_population_OLS"
SOURCE = "P; App. D"
FIT_NAMES = (
    "OLS, linear terms",
    "OLS, with cross terms",
    "GLM, linear terms",
    "GLM, with cross terms",
)
#: The published protocol of P (section 3) for the protocol table.
PAPER = {
    "models": ("lenet", "alexnet", "vgg11", "resnet18"),
    # P's seven PyTorch pruning techniques, named here so that a technique added to the
    # package's registry is not counted as one of P's.
    "techniques": (
        "l1_unstructured", "random_unstructured", "global_unstructured", "l1_structured",
        "l2_structured", "linfty_structured", "random_structured",
    ),
    "iterations": 20,
    "epochs": 30,
    "dense_epochs": 30,
    "lr": 0.01,
    "seeds": 6,
}
#: The datasets of P's protocol available offline: the paper profile's grid, whose cost the page
#: states.
PAPER_DATASETS = ("mnist", "fashion_mnist", "kmnist", "qmnist")


# --------------------------------------------------------------------------- parameters


@dataclass(frozen=True, kw_only=True)
class Params(StudyParams):
    """The page's parameters: the grid of pruning series (datasets x imbalance factors x models x
    techniques x treatments x seeds, ``iterations`` rounds), its training budget, the tests'
    ``alpha`` and the configuration the per-class figures show (``appendix_*``)."""

    STUDY = "Study 1"

    #: The 28x28 datasets (QMNIST left out: offline its images are MNIST's).
    datasets: tuple[str, ...] = ("mnist", "fashion_mnist", "kmnist")
    #: Long-tail factors of each training pool (1: balanced; the quick profile adds seeded long
    #: tails, so that r_c varies and E is identified: an extension beyond P; evidence: Study 1).
    imbalance_factors: tuple[float, ...] = (1.0,)
    models: tuple[str, ...] = ("lenet",)
    #: Two unstructured and two structured techniques of P's seven.
    techniques: tuple[str, ...] = (
        "l1_unstructured", "global_unstructured", "l1_structured", "random_structured",
    )
    treatments: tuple[str, ...] = ("finetune", "rewind")
    #: Trained as one population: the only measured setting where E is visible (evidence).
    seeds: tuple[int, ...] = (0, 1, 2)
    #: Pruning rounds of 20% (6: 73.8% sparsity; P: 20).
    iterations: int = 6
    #: Epochs of the dense model and of each rewound round (P: 30; the quick profile's 15 are
    #: budget-matched, methods page, Study 1); None: epochs.
    dense_epochs: int | None = None
    #: Epochs of a finetuned round, from the current weights (P: 30).
    epochs: int = 3
    lr: float = 0.1
    #: First N training images, split 80/20; None: all (quick: 10,000, 8,000 to train; KMNIST:
    #: its 8,000-image pool).
    train_size: int | None = None
    #: First N test images; None: all (quick: 5,000; KMNIST: its 2,000 held-out images).
    test_size: int | None = None
    alpha: float = 0.01
    #: The configuration the per-class figures show.
    appendix_dataset: str = "mnist"
    appendix_technique: str = "l1_unstructured"
    appendix_treatment: str = "finetune"

    @property
    def grid(self) -> series.SeriesGrid:
        """The grid of pruning series of :func:`pruneaudit.runs.series.series_frame` and
        :func:`~pruneaudit.runs.series.grid_cost`."""
        return series.SeriesGrid(self.datasets, self.models, self.techniques, self.treatments,
                                 self.seeds, self.iterations, self.imbalance_factors)

    @property
    def dense_budget(self) -> int:
        """Epochs of the dense model (and of a rewound round): ``dense_epochs``, else ``epochs``."""
        return self.dense_epochs or self.epochs

    def rules(self) -> Iterable[Rule]:
        yield lambda: series.distinct("datasets", self.datasets, tuple(data.DATASETS))
        yield lambda: series.distinct("models", self.models, tuple(models.MODELS))
        yield lambda: series.distinct("techniques", self.techniques, TECHNIQUES)
        yield lambda: series.distinct("treatments", self.treatments, TREATMENTS)
        yield lambda: series.distinct("seeds", self.seeds)
        yield lambda: _check_factors(self.imbalance_factors)
        yield lambda: check_positive_int("iterations", self.iterations)
        yield lambda: check_positive_int("epochs", self.epochs)
        if self.dense_epochs is not None:
            yield lambda: check_positive_int("dense_epochs", self.dense_epochs)
        yield lambda: check_lr(self.lr)
        yield lambda: check_range("alpha", self.alpha, 0, 1, lo_open=True, hi_open=True)
        for name in ("train_size", "test_size"):
            if getattr(self, name) is not None:
                yield lambda name=name: check_positive_int(name, getattr(self, name))
        for name, within in (
            ("appendix_dataset", "datasets"),
            ("appendix_technique", "techniques"),
            ("appendix_treatment", "treatments"),
        ):
            yield lambda name=name, within=within: _check_within(self, name, within)


def _check_factors(factors: Iterable[float]) -> None:
    for factor in series.distinct("imbalance_factors", factors):
        data.splits.check_factor(factor)


def _check_within(params: Params, name: str, within: str) -> None:
    value, allowed = getattr(params, name), getattr(params, within)
    if value not in allowed:
        raise PruneAuditError(f"{name}={value!r} is not one of {within} {list(allowed)}")


def grid_costs(params: Params) -> tuple[pd.DataFrame, pd.DataFrame]:
    """This run's training cost and that of P's protocol on :data:`PAPER_DATASETS` (the paper
    profile), each one row per model (:func:`pruneaudit.runs.series.grid_cost`: model_epochs,
    images, cpu_hours at the model's recorded or reference rate, the rate's text), at the rates of
    ``params.store``."""
    mine = series.grid_cost(
        params.grid,
        params.epochs,
        train_size=params.train_size,
        root=params.data_root,
        dense_epochs=params.dense_budget,
        store=params.store,
    )
    paper = series.grid_cost(
        series.SeriesGrid(PAPER_DATASETS, PAPER["models"], PAPER["techniques"], TREATMENTS,
                          range(PAPER["seeds"]), PAPER["iterations"]),
        PAPER["epochs"],
        root=params.data_root,
        store=params.store,
    )
    return mine, paper


def cost(params: Params) -> list[Workload]:
    """The workload of ``params``, one :class:`~pruneaudit.studies.params.Workload` per model:
    the grid of pruning series (:func:`~pruneaudit.studies.params.series_workload`)."""
    p = params
    return series_workload(p.grid, p.epochs, dense_epochs=p.dense_epochs,
                           train_size=p.train_size, root=p.data_root)


#: The values the book's profiles give that differ from the defaults.
PROFILES = {
    "smoke": {
        "datasets": ["mnist", "kmnist"],
        "imbalance_factors": [1, 10],
        "techniques": ["l1_unstructured", "random_structured"],
        "seeds": [0],
        "iterations": 2,
        "dense_epochs": 2,  # = epochs: every round trains 2 (store keys as before)
        "epochs": 2,
        "train_size": 3000,
        "test_size": 500,
    },
    "quick": {
        "imbalance_factors": [1, 10, 100],  # seeded long tails, so that r_c varies (beyond P)
        "dense_epochs": 15,  # budget-matched: dense and rewound rounds (methods page, Study 1)
        "train_size": 10000,  # 8,000 train (KMNIST: its 8,000-image pool)
        "test_size": 5000,  # KMNIST: its 2,000 held-out images
    },
    # the published protocol on the four 28x28 datasets available offline (EMNIST,
    # CIFAR-10/100, SVHN are not): 4 models x 7 techniques x 2 treatments x 6 seeds, 20 rounds
    # of 30 epochs (a cluster job)
    "paper": {
        "datasets": ["mnist", "fashion_mnist", "kmnist", "qmnist"],
        "imbalance_factors": [1.0, 10.0, 100.0],  # the quick profile's long tails too
        "models": ["lenet", "alexnet", "vgg11", "resnet18"],
        "techniques": ["l1_unstructured", "random_unstructured", "global_unstructured",
                       "l1_structured", "l2_structured", "linfty_structured",
                       "random_structured"],
        "seeds": [0, 1, 2, 3, 4, 5],
        "iterations": 20,
        "dense_epochs": 30,
        "epochs": 30,
        "lr": 0.01,
    },
}
