"""Study 3's parameters and its protocol beside P's."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import pandas as pd

from pruneaudit import models
from pruneaudit.compress.prune import TECHNIQUE_TABLE, TREATMENTS
from pruneaudit.errors import PruneAuditError, check_choice, check_positive_int, check_range
from pruneaudit.runs import gpu_cost_text, series
from pruneaudit.runs.spec import check_lr
from pruneaudit.studies.params import Rule, StudyParams

DATASET = "mnist"
MODEL = "alexnet"
STUDY = "S3_Pareto_selection"
SOURCE = "P; Sec. 4.2, Figs. 3-4"
STRUCTURED: tuple[str, ...] = tuple(n for n, t in TECHNIQUE_TABLE.items() if t.structured)


@dataclass(frozen=True, kw_only=True)
class Params(StudyParams):
    """Study 3's parameters (the notebook's parameters cell; methods page, "Study 3")."""

    STUDY = "Study 3"

    model: str
    techniques: tuple[str, ...]
    treatments: tuple[str, ...]
    seeds: tuple[int, ...]
    iterations: int
    epochs: int
    lr: float
    train_size: int | None
    test_size: int | None
    accuracy_floor: float
    min_candidates: int
    fairness_weight: float
    sparsity_weight: float

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


def protocol_table(params: Params) -> pd.DataFrame:
    """This run's protocol beside P's (section 4.2); ``same``: yes / NO / ? (not stated by P)."""
    p = params.as_dict()
    its = p["iterations"]
    rows = [
        ("model, data", "AlexNet, MNIST", f"{p['model']}, MNIST", p["model"] == "alexnet"),
        ("techniques", "4 structured", ", ".join(p["techniques"]), len(p["techniques"]) == 4),
        ("treatments", "not stated (P section 3: both)", ", ".join(p["treatments"]), None),
        ("seeds", "6 (0-5), averaged", f"{len(p['seeds'])}, averaged", len(p["seeds"]) == 6),
        ("iterations", "20", f"{its} (sparsity {1 - 0.8**its:.1%})", its == 20),
        ("epochs per round", "30", str(p["epochs"]), p["epochs"] == 30),
        ("learning rate", "0.01 (SGD, batch 32)", f"{p['lr']:g} (SGD, batch 32)", p["lr"] == 0.01),
        (
            "training pool",
            "60,000 (48,000 train)",
            "full" if p.get("train_size") is None else f"first {p['train_size']:,} examples",
            p.get("train_size") is None,
        ),
        (
            "accuracy floor",
            "98%",
            f"{p['accuracy_floor']:.1%} requested",
            p["accuracy_floor"] == 0.98,
        ),
        (
            "fairness weight / sparsity weight",
            "100",
            f"{p['fairness_weight'] / max(p['sparsity_weight'], 1e-12):g}",
            p["fairness_weight"] == 100 * p["sparsity_weight"],
        ),
    ]
    out = pd.DataFrame(rows, columns=["setting", "published (P)", "this run", "same"])
    out["same"] = out["same"].map({True: "yes", False: "NO", None: "?"})
    return out


def cost_numbers(params: Params) -> dict[str, float | int | str]:
    """This run's training cost and the paper profile's (P's protocol, both treatments), one
    model at a time at the recorded rate; the GPU cost as measured or 'not measured'."""
    mine = series.grid_cost(
        [DATASET], [params.model], params.techniques, params.treatments, params.seeds,
        params.iterations, params.epochs, train_size=params.train_size, root=params.data_root,
        store=params.store,
    )
    paper = series.grid_cost(
        [DATASET], ["alexnet"], STRUCTURED, TREATMENTS, range(6), 20, 30, root=params.data_root,
        store=params.store,
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
