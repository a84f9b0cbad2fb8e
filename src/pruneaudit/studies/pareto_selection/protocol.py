"""Study 3's protocol beside P's (section 4.2): :func:`protocol_table`."""

from __future__ import annotations

import pandas as pd

from .run import Result


def protocol_table(result: Result) -> pd.DataFrame:
    """This run's protocol beside P's (section 4.2); ``same``: yes / NO / ? (not stated by P)."""
    p = result.params.as_dict()
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
