"""Study 1's charts' frames: predicted vs target, residuals, class and spread curves."""

from __future__ import annotations

import pandas as pd

from pruneaudit import audit
from pruneaudit.errors import PruneAuditError

# --------------------------------------------------------------------------- charts' frames


def predicted_vs_target_bins(fit: audit.ModelFit, bins: int = 20) -> pd.DataFrame:
    """:func:`pruneaudit.audit.predicted_vs_target` with bin centres (rounded) for a heatmap."""
    table = audit.predicted_vs_target(fit, bins)
    return pd.DataFrame(
        {
            "target": ((table["target_low"] + table["target_high"]) / 2).round(3),
            "predicted": ((table["pred_low"] + table["pred_high"]) / 2).round(3),
            "count": table["count"],
            "share": table["share"],
        }
    )


def residual_bars(fit: audit.ModelFit, bins: int = 30) -> pd.DataFrame:
    """:func:`pruneaudit.audit.residual_histogram` with the bin centre as ``residual``."""
    table = audit.residual_histogram(fit, bins)
    return pd.DataFrame(
        {"residual": ((table["low"] + table["high"]) / 2).round(3), "count": table["count"]}
    )


def class_curves(
    classes: pd.DataFrame,
    dataset: str,
    model: str,
    technique: str,
    treatment: str,
    imbalance_factor: float | None = None,
) -> pd.DataFrame:
    """Per-class accuracy vs sparsity of one series configuration (the largest imbalance factor
    when None), averaged over seeds, with the dense class accuracy ``a0`` for the colour."""
    factor = classes["imbalance_factor"].max() if imbalance_factor is None else imbalance_factor
    keep = (
        (classes["dataset"] == dataset)
        & (classes["model"] == model)
        & (classes["technique"] == technique)
        & (classes["treatment"] == treatment)
        & (classes["imbalance_factor"] == factor)
    )
    part = classes[keep]
    if part.empty:
        raise PruneAuditError(
            f"no series for dataset={dataset!r}, model={model!r}, technique={technique!r}, "
            f"treatment={treatment!r}, imbalance factor {factor:g} in the frame"
        )
    out = part.groupby(["class", "iteration"])[["sparsity", "accuracy"]].mean().reset_index()
    a0 = out[out["iteration"] == 0].set_index("class")["accuracy"]
    out["a0"] = out["class"].map(a0)
    out["class"] = out["class"].astype(str)
    return out


def spread_curves(classes: pd.DataFrame, dataset: str, model: str) -> pd.DataFrame:
    """Seed-mean max − min spread of class accuracies vs sparsity, one ``series`` (technique /
    treatment / imbalance factor) per line, for one (dataset, model)."""
    part = classes[(classes["dataset"] == dataset) & (classes["model"] == model)]
    per_seed = (
        part.groupby(["technique", "treatment", "imbalance_factor", "seed", "iteration"])
        .agg(
            sparsity=("sparsity", "mean"),
            accuracy=("accuracy", "mean"),
            spread=("accuracy", lambda a: a.max() - a.min()),
        )
        .reset_index()
    )
    out = (
        per_seed.groupby(["technique", "treatment", "imbalance_factor", "iteration"])[
            ["sparsity", "accuracy", "spread"]
        ]
        .mean()
        .reset_index()
    )
    out["series"] = (
        out["technique"]
        + " / "
        + out["treatment"]
        + " / x"
        + out["imbalance_factor"].map("{:g}".format)
    )
    return out
