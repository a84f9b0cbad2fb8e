"""Study 4's protocol beside H1's and H2's, with the training cost of both:
:func:`protocol_table`."""

from __future__ import annotations

import pandas as pd

from pruneaudit import runs
from pruneaudit.runs.cost import seconds_per_10k

from .run import PRUNING, QUANTIZATION, Result


def protocol_table(result: Result) -> pd.DataFrame:
    """The published protocol beside this page's: one row per setting (H1 / H2 vs ours),
    with the training cost of both (:func:`pruneaudit.runs.training_cost`) at the model's
    training rate in the page's results store (:func:`pruneaudit.runs.cost.seconds_per_10k`)."""
    impact, spec = result.runs, result.populations.spec
    rate = seconds_per_10k(spec.model, result.params.store)
    levels = [c.level for c in impact.compressed if c.kind == PRUNING]
    schemes = [c.scheme for c in impact.compressed if c.kind == QUANTIZATION]
    k, n_train, n_test = len(impact.baseline.specs), len(impact.train), len(impact.test)
    paper = runs.training_cost(30 * (1 + 7) * 30, 48_000, rate.seconds_per_10k)
    ours = runs.training_cost(k * (1 + len(levels)) * spec.epochs, n_train,
                                     rate.seconds_per_10k)
    meta = impact.test.meta
    groups = (meta["series"].value_counts().sort_index() if meta is not None
              and "series" in meta.columns else None)
    rows = [
        ("task", "ImageNet / ResNet-50 and CIFAR-10 / WRN (H1); CelebA Blond_Hair / ResNet-18 "
         "(H2)", f"{spec.dataset} / {spec.model}"),
        ("population size K", "30 per level", str(k)),
        ("populations", "trained separately for every level",
         "independent: each level its own seeds" if impact.independent
         else "shared seeds: member k of every level has seed k (paired)"),
        ("pruning", "gradual magnitude pruning during training (Zhu & Gupta)",
         f"{runs.GRADUAL_TECHNIQUE} per layer, cubic schedule, pruned weights may "
         "regrow between mask updates"),
        ("end sparsity t", "0.3, 0.5, 0.7, 0.9 (H1); also 0.95, 0.99 (H2)",
         ", ".join(f"{t:g}" for t in levels)),
        ("quantization", "float16, dynamic-range int8, fixed-point int8 (TF Lite)",
         (", ".join(schemes) or "none") + " (PyTorch, post-training, run on the CPU: torch's "
         "int8 kernels)"),
        ("training examples per model", "all training images of the task",
         f"{n_train:,} (80% of the first {spec.train_size or 60_000:,}, split by the seed)"),
        ("epochs / optimizer", "H2: 10,000 steps, batch 256 (CelebA)",
         f"{spec.epochs} epochs, SGD lr {spec.lr:g}, batch {spec.batch_size}"),
        ("augmentation", "random crop and flip",
         "random crop (pad 2), no flip" if spec.augment else "none"),
        ("test examples", "full test set", f"{n_test:,}" + ("" if groups is None else " ("
         + ", ".join(f"{g}: {n:,}" for g, n in groups.items()) + ")")),
        ("model-epochs (dense + pruned)", f"{paper.model_epochs:,} (K = 30, 8 levels, 30 "
         f"epochs of LeNet)", f"{ours.model_epochs:,}"),
        ("training rate (CPU)", "", rate.text()),
        ("training hours at that rate", f"{paper.hours:.1f}", f"{ours.hours:.2f}"),
        ("training hours on a GPU", runs.gpu_cost_text("Study 4"), ""),
    ]
    return pd.DataFrame(rows, columns=["setting", "published", "this page"]).set_index(
        "setting")
