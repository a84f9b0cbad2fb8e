"""Study 1's constants and parameters: validation, the protocol beside P's, the cost."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from pruneaudit import data, models
from pruneaudit.compress.prune import TECHNIQUES, TREATMENTS
from pruneaudit.errors import PruneAuditError, check_positive_int, check_range
from pruneaudit.runs import gpu_cost_text, series
from pruneaudit.runs.spec import check_lr

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
    "iterations": 20,
    "epochs": 30,
    "dense_epochs": 30,
    "lr": 0.01,
    "seeds": 6,
}
_PART = {
    "exp_sparsity": "np.exp(sparsity)",
    "sparsity": "sparsity",
    "a0": "accuracy0",
    "quartile": "accuracy0_quartile",
    "r": "imbalance",
    "H": "class_entropy",
}


# --------------------------------------------------------------------------- parameters


def validate(params: Mapping) -> None:
    """Check the page's parameters before any training; one :class:`PruneAuditError` each."""
    p = dict(params)
    series.distinct("datasets", p["datasets"], tuple(data.DATASETS))
    series.distinct("models", p["models"], tuple(models.MODELS))
    for m in p["models"]:
        if m not in series.SECONDS_PER_10K:
            raise PruneAuditError(f"no measured training rate for model {m!r}")
    series.distinct("techniques", p["techniques"], TECHNIQUES)
    series.distinct("treatments", p["treatments"], TREATMENTS)
    series.distinct("seeds", p["seeds"])
    for f in series.distinct("imbalance_factors", p.get("imbalance_factors", [1])):
        data.splits.check_factor(f)
    for name in ("iterations", "epochs"):
        check_positive_int(name, p[name])
    if p.get("dense_epochs") is not None:
        check_positive_int("dense_epochs", p["dense_epochs"])
    check_lr(p["lr"])
    check_range("alpha", p.get("alpha", 0.01), 0, 1, lo_open=True, hi_open=True)
    for name in ("train_size", "test_size"):
        if p.get(name) is not None:
            check_positive_int(name, p[name])
    for name, within in (
        ("appendix_dataset", "datasets"),
        ("appendix_technique", "techniques"),
        ("appendix_treatment", "treatments"),
    ):
        if name in p and p[name] not in p[within]:
            raise PruneAuditError(f"{name}={p[name]!r} is not one of {within} {p[within]}")


def _dense(p: Mapping) -> int:
    """Epochs of the dense model (and of a rewound round): ``dense_epochs``, else ``epochs``."""
    return int(p.get("dense_epochs") or p["epochs"])


def protocol_table(params: Mapping) -> pd.DataFrame:
    """This run's protocol beside P's (section 3), one row per setting; ``same``: yes / NO."""
    p = dict(params)
    its = p["iterations"]
    rows = [
        (
            "datasets",
            "MNIST, Fashion-MNIST, QMNIST, KMNIST, EMNIST, CIFAR-10/100, SVHN",
            ", ".join(p["datasets"]),
            False,
        ),
        (
            "imbalance factors (long tail)",
            "none (datasets as they are)",
            ", ".join(f"{f:g}" for f in p.get("imbalance_factors", [1])),
            list(p.get("imbalance_factors", [1])) == [1],
        ),
        (
            "models",
            "LeNet, AlexNet, VGG11, ResNet18",
            ", ".join(p["models"]),
            set(p["models"]) == set(PAPER["models"]),
        ),
        (
            "techniques",
            "all 7",
            f"{len(p['techniques'])}: " + ", ".join(p["techniques"]),
            len(p["techniques"]) == len(TECHNIQUES),
        ),
        (
            "treatments",
            "finetune, rewind",
            ", ".join(p["treatments"]),
            set(p["treatments"]) == set(TREATMENTS),
        ),
        ("seeds", "6", str(len(p["seeds"])), len(p["seeds"]) == PAPER["seeds"]),
        (
            "iterations",
            "20 (sparsity 98.8%)",
            f"{its} (sparsity {1 - 0.8**its:.1%})",
            its == PAPER["iterations"],
        ),
        (
            "epochs of the dense model",
            "30",
            str(_dense(p)),
            _dense(p) == PAPER["dense_epochs"],
        ),
        (
            "epochs per finetuned round (from the current weights)",
            "30",
            str(p["epochs"]),
            p["epochs"] == PAPER["epochs"],
        ),
        (
            "epochs per rewound round (from the initial weights)",
            "30 (the dense model's budget)",
            f"{_dense(p)} (the dense model's budget)",
            _dense(p) == PAPER["dense_epochs"],
        ),
        (
            "learning rate",
            "0.01 (SGD, batch 32)",
            f"{p['lr']:g} (SGD, batch 32)",
            p["lr"] == PAPER["lr"],
        ),
        (
            "training pool",
            "full training set",
            "full" if p.get("train_size") is None else f"first {p['train_size']:,} examples",
            p.get("train_size") is None,
        ),
        (
            "test set",
            "full test set",
            "full" if p.get("test_size") is None else f"first {p['test_size']:,}",
            p.get("test_size") is None,
        ),
    ]
    out = pd.DataFrame(rows, columns=["setting", "published (P)", "this run", "same"])
    out["same"] = out["same"].map({True: "yes", False: "NO"})
    return out


def cost_text(params: Mapping, root: str | None = None) -> str:
    """One paragraph: this run's training cost and the paper profile's, one model at a time."""
    p = dict(params)
    mine = series.grid_cost(
        p["datasets"],
        p["models"],
        p["techniques"],
        p["treatments"],
        p["seeds"],
        p["iterations"],
        p["epochs"],
        imbalance_factors=p.get("imbalance_factors", [1]),
        train_size=p.get("train_size"),
        root=root,
        dense_epochs=_dense(p),
    )
    paper = series.grid_cost(
        ["mnist", "fashion_mnist", "kmnist", "qmnist"],
        list(PAPER["models"]),
        TECHNIQUES,
        TREATMENTS,
        range(PAPER["seeds"]),
        PAPER["iterations"],
        PAPER["epochs"],
        root=root,
    )
    per_model = ", ".join(f"{r.model} {r.cpu_hours:,.0f} h" for r in paper.itertuples())
    return (
        f"This run trains **{mine['model_epochs'].sum():,} model-epochs** (about "
        f"{mine['cpu_hours'].sum():.2f} CPU hours one model at a time; the seeds of a series "
        f"train together, which is faster). P's protocol on the four offline datasets, four "
        f"models and six seeds (the paper profile) is **{paper['model_epochs'].sum():,} "
        f"model-epochs**, about {paper['cpu_hours'].sum():,.0f} CPU hours on this machine "
        f"({per_model}): a cluster job. On a GPU, at the LeNet rate (a lower bound): "
        f"{gpu_cost_text('Study 1')}."
    )
