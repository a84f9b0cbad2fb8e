"""Study 3's parameters and its protocol beside P's."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pruneaudit import models
from pruneaudit.compress.prune import TECHNIQUE_TABLE, TREATMENTS
from pruneaudit.errors import PruneAuditError, check_choice, check_positive_int, check_range
from pruneaudit.runs import gpu_cost_text, series
from pruneaudit.runs.spec import check_lr
from pruneaudit.studies.params import Rule, StudyParams, Workload, series_workload

DATASET = "mnist"
MODEL = "alexnet"
STUDY = "S3_Pareto_selection"
SOURCE = "P; Sec. 4.2, Figs. 3-4"
STRUCTURED: tuple[str, ...] = tuple(n for n, t in TECHNIQUE_TABLE.items() if t.structured)


@dataclass(frozen=True, kw_only=True)
class Params(StudyParams):
    """Study 3's parameters (the notebook's parameters cell; methods page, "Study 3")."""

    STUDY = "Study 3"

    #: LeNet instead of P's AlexNet (a dense AlexNet alone exceeds the quick budget).
    model: str = "lenet"
    techniques: tuple[str, ...] = (
        "l1_structured", "l2_structured", "linfty_structured", "random_structured",
    )
    #: Finetune only (P: both treatments).
    treatments: tuple[str, ...] = ("finetune",)
    #: Five seeds on the first 30,000 training examples: an interval over seeds (evidence:
    #: Study 3).
    seeds: tuple[int, ...] = (0, 1, 2, 3, 4)
    #: Pruning rounds of 20% (8: 83.2% sparsity; P: 20).
    iterations: int = 8
    epochs: int = 1
    lr: float = 0.1
    train_size: int | None = 30000
    test_size: int | None = None
    #: If no pruned point reaches it, the floor is lowered to keep the min_candidates most
    #: accurate pruned points (the page states the floor used).
    accuracy_floor: float = 0.98
    min_candidates: int = 3
    fairness_weight: float = 100.0
    sparsity_weight: float = 1.0

    @property
    def grid(self) -> series.SeriesGrid:
        """The grid of pruning series: every technique and treatment per seed, on
        :data:`DATASET`."""
        return series.SeriesGrid([DATASET], [self.model], self.techniques, self.treatments,
                                 self.seeds, self.iterations)

    def rules(self) -> Iterable[Rule]:
        yield lambda: series.distinct("techniques", self.techniques, STRUCTURED)
        yield lambda: series.distinct("treatments", self.treatments, TREATMENTS)
        yield lambda: series.distinct("seeds", self.seeds)
        yield lambda: check_choice("model", self.model, models.MODELS)
        for name in ("iterations", "epochs", "min_candidates"):
            yield lambda name=name: check_positive_int(name, getattr(self, name))
        yield lambda: check_lr(self.lr)
        yield lambda: check_range("accuracy_floor", self.accuracy_floor, 0, 1, lo_open=True)
        yield self._check_weights
        for name in ("train_size", "test_size"):
            if getattr(self, name) is not None:
                yield lambda name=name: check_positive_int(name, getattr(self, name))

    def _check_weights(self) -> None:
        w_fair, w_sparse = self.fairness_weight, self.sparsity_weight
        if w_fair < 0 or w_sparse < 0 or w_fair + w_sparse <= 0:
            raise PruneAuditError(
                f"fairness_weight and sparsity_weight must be >= 0 and not both 0, got "
                f"{w_fair!r}, {w_sparse!r}"
            )


def cost_numbers(params: Params) -> dict[str, float | int | str]:
    """This run's training cost and the paper profile's (P's protocol, both treatments), one
    model at a time at the recorded rate; the GPU cost as measured or 'not measured'."""
    mine = series.grid_cost(
        params.grid, params.epochs, train_size=params.train_size, root=params.data_root,
        store=params.store,
    )
    paper = series.grid_cost(
        series.SeriesGrid([DATASET], ["alexnet"], STRUCTURED, TREATMENTS, range(6), 20), 30,
        root=params.data_root, store=params.store,
    )
    return {
        "model_epochs": int(mine["model_epochs"].sum()),
        "cpu_hours": float(mine["cpu_hours"].sum()),
        "rate": str(mine["rate"].iloc[0]),
        "paper_model_epochs": int(paper["model_epochs"].sum()),
        "paper_cpu_hours": float(paper["cpu_hours"].sum()),
        "paper_rate": str(paper["rate"].iloc[0]),
        "gpu_cost": gpu_cost_text("Study 3"),
    }


def cost(params: Params) -> list[Workload]:
    """The workload of ``params``: the pruning series of every technique and treatment per seed
    (:func:`~pruneaudit.studies.params.series_workload`)."""
    p = params
    return series_workload(p.grid, p.epochs, train_size=p.train_size, root=p.data_root)


#: The values the book's profiles give that differ from the defaults (``quick``: the defaults).
PROFILES = {
    # an AlexNet this small stays at chance (every point would tie): the default LeNet. A few
    # thousand images cannot give the 98% floor: it is lowered to keep min_candidates points
    # (enough of them for a frontier of several points, which the browser test's slider check
    # needs)
    "smoke": {
        "techniques": ["l1_structured", "random_structured"],
        "seeds": [0, 1],
        "iterations": 5,
        "epochs": 2,
        "train_size": 3000,
        "test_size": 500,
        "min_candidates": 6,
    },
    # AlexNet on MNIST, the 4 structured techniques, both treatments, seeds 0-5, 20 rounds of
    # 30 epochs, 98% floor (a cluster job)
    "paper": {
        "model": "alexnet",
        "treatments": ["finetune", "rewind"],
        "seeds": [0, 1, 2, 3, 4, 5],
        "iterations": 20,
        "epochs": 30,
        "lr": 0.01,
        "train_size": None,
    },
}
