"""Study 2's protocol beside P's and its training cost."""

from __future__ import annotations

import pandas as pd

from pruneaudit import runs
from pruneaudit.runs import RunSpec
from pruneaudit.runs.cost import Rate, seconds_per_10k

from .params import MODEL, TECHNIQUE, TREATMENT
from .run import Result, dense_specs

#: The published protocol of P Sec. 4.1 (seeds, iterations, epochs per round, training digits).
PAPER = {"seeds": 6, "iterations": 20, "epochs": 30, "train_examples": 48_000}


def series_cost(
    seeds: int, iterations: int, epochs: int, train_examples: int, seconds_per_10k: float
) -> runs.Cost:
    """Training cost of ``seeds`` series of ``iterations`` rounds after the dense run, ``epochs``
    per round (:func:`pruneaudit.runs.training_cost`)."""
    return runs.training_cost(seeds * (iterations + 1) * epochs, train_examples, seconds_per_10k)


def paper_cost(seconds_per_10k: float) -> runs.Cost:
    """The cost of P's protocol at a measured rate."""
    return series_cost(**PAPER, seconds_per_10k=seconds_per_10k)


def _augmentation(spec: RunSpec) -> str:
    if not spec.augment:
        return "none"
    if dict(spec.extra).get(runs.FLIP_KEY):
        return "random crop (pad 2) + horizontal flip (P as printed; wrong for digits)"
    return "random crop (pad 2), no flip"


def training_rate(result: Result) -> Rate:
    """The rate the page's training times use: LeNet's, as recorded in the page's results store
    (:func:`pruneaudit.runs.cost.seconds_per_10k`)."""
    return seconds_per_10k(MODEL, result.params.store)


def protocol_table(result: Result, rate: Rate | None = None) -> pd.DataFrame:
    """The protocol run beside P's, one row per setting (index ``setting``), with the training
    cost of each at ``rate`` (seconds per 10,000 images per model; None: the page's
    :func:`training_rate`)."""
    rate = training_rate(result) if rate is None else rate
    params = result.params
    b = dense_specs(params)[0]
    paper = paper_cost(rate.seconds_per_10k)
    ours = series_cost(
        len(params.seeds), params.iterations, b.epochs, len(result.train_idx),
        rate.seconds_per_10k,
    )
    series = ", ".join(sorted(result.writers["series"].unique()))
    rows = [
        ("model", "LeNet (3x3 conv 6, 16; FC 120, 84, 10)", "LeNet (same)"),
        ("pruning (20% of the rest per round)", "global_unstructured + rewind",
         f"{TECHNIQUE} + {TREATMENT}"),
        ("pruned weights regrow?", "no (cumulative masks)", "no (cumulative masks)"),
        ("iterations", str(PAPER["iterations"]), str(params.iterations)),
        ("seeds (replicates)", "6 (0-5)", f"{len(params.seeds)} {list(params.seeds)}"),
        ("training digits per model", f"{PAPER['train_examples']:,} (80% of 60,000)",
         f"{len(result.train_idx):,}"),
        ("epochs per round", str(PAPER["epochs"]), str(b.epochs)),
        ("optimizer", "SGD, lr 0.01, batch 32", f"SGD, lr {b.lr}, batch {b.batch_size}"),
        ("augmentation", "random crop and horizontal flip", _augmentation(b)),
        ("test digits / writers / series", "60,000 / all / hsf0, hsf1, hsf4",
         f"{len(result.test):,} / {result.writers['writer'].nunique()} / {series}"),
        ("model-epochs", f"{paper.model_epochs:,}", f"{ours.model_epochs:,}"),
        ("training time on this CPU", f"{paper.hours:.1f} h", f"{ours.hours * 60:.1f} min"),
        ("training time on a GPU", runs.gpu_cost_text("Study 2"), ""),
    ]
    return pd.DataFrame(rows, columns=["setting", "published (P)", "this page"]).set_index(
        "setting"
    )


def prunable_weights() -> int:
    """Number of prunable weights (conv and linear) of the study's LeNet on 28x28 digits."""
    from pruneaudit import models

    net = models.build_model(MODEL, 10, 1, 28, seed=0)
    return sum(getattr(m, name).numel() for m, name in models.prunable_parameters(net))
