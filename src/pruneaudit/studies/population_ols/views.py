"""Study 1's tables and charts: the protocol, class shares, coefficients, hypotheses and fit
quality tables; predicted vs target, residuals, class and spread curves."""

from __future__ import annotations

import altair as alt
import pandas as pd
from pandas.io.formats.style import Styler

from pruneaudit import audit, charts
from pruneaudit.errors import PruneAuditError

from .fits import Fits, comparison_table, hypothesis_table
from .params import Params, protocol_table
from .pipeline import Result

# --------------------------------------------------------------------------- tables


def protocol_view(params: Params) -> Styler:
    """Table 1: :func:`~pruneaudit.studies.population_ols.protocol_table`, captioned."""
    return charts.table(protocol_table(params), "Table 1. This run's protocol beside P's "
                        "(section 3).")


def class_shares_view(stats: pd.DataFrame) -> Styler:
    """Table 2: each class's share of the training pool (percent), one column per dataset and
    imbalance factor, from :func:`pruneaudit.runs.series.class_stats`."""
    shares = stats.pivot_table(
        index="class", columns=["dataset", "imbalance_factor"], values="fraction"
    )
    caption = "Table 2. Share of each class in the training pool, per dataset and imbalance factor."
    return charts.table(shares, caption, index=True).format("{:.1%}", na_rep="n/a")


def coefficients_view(coefficients: pd.DataFrame) -> Styler:
    """Table 3: :func:`~pruneaudit.studies.population_ols.coefficient_table`, four decimals."""
    caption = "Table 3. Every term both fits have: P's coefficient beside ours (95% interval)."
    return charts.table(coefficients, caption).format(
        "{:.4f}", subset=["paper", "ours", "ci_low", "ci_high"], na_rep="n/a"
    )


def hypotheses_view(fits: Fits, alpha: float) -> Styler:
    """Table 4: :func:`~pruneaudit.studies.population_ols.hypothesis_table` at ``alpha``."""
    caption = "Table 4. One-tailed tests of E > 0 and F < 0; GLM on logit scale."
    table = hypothesis_table(fits, alpha)
    return charts.table(table, caption, pvalue=["p"], decimals=["stat"]).format(
        "{:.4g}", subset=["coef"], na_rep="n/a"
    )


def comparison_view(fits: Fits) -> Styler:
    """Table 5: :func:`~pruneaudit.studies.population_ols.comparison_table`, four decimals."""
    caption = "Table 5. Fit quality of OLS and GLM, linear terms and with cross terms."
    return charts.table(comparison_table(fits), caption, index=True).format(
        "{:.4f}", na_rep="n/a"
    )


# --------------------------------------------------------------------------- figures


def fit_heatmap(fits: Fits) -> alt.Chart:
    """Figure 2: predicted vs target of the cross-term OLS, share of each target bin."""
    return charts.heatmap(
        predicted_vs_target_bins(fits.ols_cross, bins=20),
        x="target",
        y="predicted",
        color="share",
        tooltip=["count"],
        title="Figure 2. OLS (cross terms): predicted vs target, share of each target bin",
    )


def residual_figure(fits: Fits) -> alt.Chart:
    """Figure 3: histogram of the cross-term OLS residuals."""
    return charts.bar_chart(
        residual_bars(fits.ols_cross, bins=24),
        x="residual",
        y="count",
        title="Figure 3. OLS residuals (target − predicted)",
    )


def class_figure(result: Result) -> alt.LayerChart:
    """Figure 4: :func:`class_curves` of the page's ``appendix_*`` configuration and first
    model, coloured by the dense class accuracy."""
    p = result.params
    model = p.models[0]
    curves = class_curves(
        result.classes, p.appendix_dataset, model, p.appendix_technique, p.appendix_treatment
    )
    return charts.accuracy_curves(
        curves,
        color="a0",
        tooltip=["iteration", "a0"],
        title=f"Figure 4. {p.appendix_dataset}, {model}, {p.appendix_technique} / "
        f"{p.appendix_treatment}",
    )


def spread_figure(result: Result) -> alt.LayerChart:
    """Figure 5: :func:`spread_curves` of the page's ``appendix_dataset`` and first model."""
    p = result.params
    model = p.models[0]
    return charts.accuracy_curves(
        spread_curves(result.classes, p.appendix_dataset, model),
        y="spread",
        series="series",
        tooltip=["iteration", "accuracy"],
        slider=False,
        title=f"Figure 5. Max − min class accuracy vs sparsity, {p.appendix_dataset}, {model}",
    )


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
