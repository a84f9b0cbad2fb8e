"""Study 1's protocol beside P's (section 3): :func:`protocol_table`."""

from __future__ import annotations

import pandas as pd

from pruneaudit.compress.prune import TREATMENTS

from .params import PAPER
from .run import Result


def protocol_table(result: Result) -> pd.DataFrame:
    """This run's protocol beside P's (section 3), one row per setting; ``same``: yes / NO."""
    p = result.params
    its = p.iterations
    dense = p.dense_budget
    rows = [
        (
            "datasets",
            "MNIST, Fashion-MNIST, QMNIST, KMNIST, EMNIST, CIFAR-10/100, SVHN",
            ", ".join(p.datasets),
            False,
        ),
        (
            "imbalance factors (long tail)",
            "none (datasets as they are)",
            ", ".join(f"{f:g}" for f in p.imbalance_factors),
            list(p.imbalance_factors) == [1],
        ),
        (
            "models",
            "LeNet, AlexNet, VGG11, ResNet18",
            ", ".join(p.models),
            set(p.models) == set(PAPER["models"]),
        ),
        (
            "techniques",
            f"all {len(PAPER['techniques'])}",
            f"{len(p.techniques)}: " + ", ".join(p.techniques),
            set(p.techniques) == set(PAPER["techniques"]),
        ),
        (
            "treatments",
            "finetune, rewind",
            ", ".join(p.treatments),
            set(p.treatments) == set(TREATMENTS),
        ),
        ("seeds", "6", str(len(p.seeds)), len(p.seeds) == PAPER["seeds"]),
        (
            "iterations",
            "20 (sparsity 98.8%)",
            f"{its} (sparsity {1 - 0.8**its:.1%})",
            its == PAPER["iterations"],
        ),
        ("epochs of the dense model", "30", str(dense), dense == PAPER["dense_epochs"]),
        (
            "epochs per finetuned round (from the current weights)",
            "30",
            str(p.epochs),
            p.epochs == PAPER["epochs"],
        ),
        (
            "epochs per rewound round (from the initial weights)",
            "30 (the dense model's budget)",
            f"{dense} (the dense model's budget)",
            dense == PAPER["dense_epochs"],
        ),
        (
            "learning rate",
            "0.01 (SGD, batch 32)",
            f"{p.lr:g} (SGD, batch 32)",
            p.lr == PAPER["lr"],
        ),
        (
            "training pool",
            "full training set",
            "full" if p.train_size is None else f"first {p.train_size:,} examples",
            p.train_size is None,
        ),
        (
            "test set",
            "full test set",
            "full" if p.test_size is None else f"first {p.test_size:,}",
            p.test_size is None,
        ),
    ]
    out = pd.DataFrame(rows, columns=["setting", "published (P)", "this run", "same"])
    out["same"] = out["same"].map({True: "yes", False: "NO"})
    return out
