"""Study 3's page helpers: parameters, the protocol beside P's, cost, floor and picks text."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from pruneaudit import models
from pruneaudit.compress.prune import TREATMENTS
from pruneaudit.errors import PruneAuditError, check_positive_int, check_range
from pruneaudit.runs import gpu_cost_text, series
from pruneaudit.runs.spec import check_lr

from .frames import STRUCTURED, Candidates, chart_weight

# --------------------------------------------------------------------------- page helpers


def validate(params: Mapping) -> None:
    """Check the page's parameters before any training; one :class:`PruneAuditError` each."""
    p = dict(params)
    series.distinct("techniques", p["techniques"], STRUCTURED)
    series.distinct("treatments", p["treatments"], TREATMENTS)
    series.distinct("seeds", p["seeds"])
    if p["model"] not in models.MODELS or p["model"] not in series.SECONDS_PER_10K:
        raise PruneAuditError(f"model {p['model']!r} is not one of {models.MODELS}")
    for name in ("iterations", "epochs", "min_candidates"):
        check_positive_int(name, p[name])
    check_lr(p["lr"])
    check_range("accuracy_floor", p["accuracy_floor"], 0, 1, lo_open=True)
    for name in ("fairness_weight", "sparsity_weight"):
        check_range(name, p[name], 0, float("inf"))
    chart_weight(p["fairness_weight"], p["sparsity_weight"])
    for name in ("train_size", "test_size"):
        if p.get(name) is not None:
            check_positive_int(name, p[name])


def protocol_table(params: Mapping) -> pd.DataFrame:
    """This run's protocol beside P's (section 4.2); ``same``: yes / NO / ? (not stated by P)."""
    p = dict(params)
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


def cost_text(params: Mapping, root: str | None = None) -> str:
    """One paragraph: this run's training cost and the paper profile's (one model at a time)."""
    p = dict(params)
    mine = series.grid_cost(
        ["mnist"],
        [p["model"]],
        p["techniques"],
        p["treatments"],
        p["seeds"],
        p["iterations"],
        p["epochs"],
        train_size=p.get("train_size"),
        root=root,
    )
    paper = series.grid_cost(
        ["mnist"], ["alexnet"], list(STRUCTURED), list(TREATMENTS), range(6), 20, 30, root=root
    )
    return (
        f"This run trains **{int(mine['model_epochs'].sum()):,} model-epochs** (about "
        f"{mine['cpu_hours'].sum():.2f} CPU hours one model at a time; seeds train together, "
        f"which is faster). P's protocol with both treatments (the paper profile) is "
        f"**{int(paper['model_epochs'].sum()):,} AlexNet model-epochs**, about "
        f"{paper['cpu_hours'].sum():,.0f} CPU hours on this machine: a cluster job. On a GPU, "
        f"at the LeNet rate scaled by AlexNet's training FLOPs: {gpu_cost_text('Study 3')}."
    )


def floor_text(cands: Candidates, points: pd.DataFrame) -> str:
    """What the accuracy floor did, in one sentence for the page."""
    if not cands.lowered:
        return (
            f"**{cands.passed_requested}** pruned points reach the floor of "
            f"{cands.floor_requested:.1%}."
        )
    best = points.loc[points.iteration > 0, "accuracy"].max()
    return (
        f"Only {cands.passed_requested} pruned point(s) reach the requested floor of "
        f"{cands.floor_requested:.1%} (best pruned accuracy {best:.1%}), so the floor is lowered "
        f"to **{cands.floor_used:.1%}**, keeping the {len(cands.frame)} most accurate pruned "
        "points; the results below are those of this lowered floor."
    )


def picks_text(chosen: pd.DataFrame) -> str:
    """The two picks of :func:`picks` in one paragraph, naming technique and iteration."""
    fair, sparse = chosen.iloc[0], chosen.iloc[1]
    text = (
        f"The value function picks **{fair['technique']} / {fair['treatment']} at iteration "
        f"{int(fair['iteration'])}** (sparsity {fair['sparsity']:.1%}, unfairness "
        f"{fair['unfairness_max_min']:.3f}, accuracy {fair['accuracy']:.1%}; P: a point at "
        f"around 68% sparsity, technique not named). The sparsest candidate above the floor is "
        f"**{sparse['technique']} / {sparse['treatment']} at iteration "
        f"{int(sparse['iteration'])}** (sparsity {sparse['sparsity']:.1%}, unfairness "
        f"{sparse['unfairness_max_min']:.3f}). "
    )
    if fair["label"] == sparse["label"]:
        return text + "Here both rules choose the same network."
    return text + (
        f"The fairness-aware pick gives up {sparse['sparsity'] - fair['sparsity']:.1%} of "
        f"sparsity for an unfairness lower by "
        f"{sparse['unfairness_max_min'] - fair['unfairness_max_min']:.3f}."
    )
