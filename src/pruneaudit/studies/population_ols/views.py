"""Study 1's page views, each a function of the :class:`~.run.Result` with its caption: the
protocol, class shares, coefficients, hypotheses and fit quality tables; the coefficient
explorer (the key figure), predicted vs target, residuals, class and spread curves."""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd
from pandas.io.formats.style import Styler

from pruneaudit import audit, charts
from pruneaudit.charts import format as fmt
from pruneaudit.errors import PruneAuditError

from .fits import comparison_table, hypothesis_table
from .protocol import protocol_table
from .run import Result

#: How the coefficient explorer names P's printed values.
PAPER = "P (App. D)"

# --------------------------------------------------------------------------- tables


def protocol_view(result: Result) -> Styler:
    """Table 1: :func:`~pruneaudit.studies.population_ols.protocol.protocol_table`, captioned."""
    return charts.table(protocol_table(result), "Table 1. This run's protocol beside P's "
                        "(section 3).")


def class_shares_view(result: Result) -> Styler:
    """Table 2: each class's share of the training pool (percent), one column per dataset and
    imbalance factor, from the class statistics (:func:`pruneaudit.runs.series.class_stats`)."""
    shares = result.stats.pivot_table(
        index="class", columns=["dataset", "imbalance_factor"], values="fraction"
    )
    shares = shares.rename(columns=fmt.cell, level="imbalance_factor")
    shares.columns = shares.columns.set_names([fmt.header(n) for n in shares.columns.names])
    caption = "Table 2. Share of each class in the training pool, per dataset and imbalance factor."
    return charts.table(shares, caption, index=True).format(fmt.percent, na_rep=fmt.MISSING)


def coefficients_view(result: Result) -> Styler:
    """Table 3: the coefficients beside P's
    (:func:`~pruneaudit.studies.population_ols.fits.coefficient_table`), terms by their reader
    names, each row's numbers to the precision of its interval."""
    return coefficients_table(result.coefficients, "Table 3. Every term both fits have: P's "
                              "coefficient beside ours (95% interval).")


def coefficients_table(coefficients: pd.DataFrame, caption: str) -> Styler:
    """A coefficient table (:func:`~pruneaudit.studies.population_ols.fits.coefficient_table`)
    for readers: terms by their reader names, each row's numbers to the precision of its
    interval."""
    table = fmt.interval_columns(coefficients, ["paper", "ours", "ci_low", "ci_high"])
    table = table.assign(term=table["term"].map(fmt.term),
                         paper_term=table["paper_term"].map(fmt.term))
    return charts.table(table, caption)


def hypotheses_view(result: Result) -> Styler:
    """Table 4: :func:`~pruneaudit.studies.population_ols.fits.hypothesis_table` at the page's
    ``alpha``."""
    caption = "Table 4. One-tailed tests of E > 0 and F < 0; GLM on logit scale."
    table = hypothesis_table(result.fits, result.params.alpha)
    return charts.table(table.assign(term=table["term"].map(fmt.term)), caption, pvalue=["p"],
                        decimals=["stat"])


def comparison_view(result: Result) -> Styler:
    """Table 5: :func:`~pruneaudit.studies.population_ols.fits.comparison_table`, three
    significant digits, counts in full, signs as + and −."""
    caption = "Table 5. Fit quality of OLS and GLM, linear terms and with cross terms."
    return charts.table(comparison_table(result.fits), caption, index=True).format(
        fmt.sign, subset=["sign_E", "sign_F"]
    )


# --------------------------------------------------------------------------- figures


def key_figure(result: Result) -> alt.LayerChart:
    """The key figure: the :func:`coefficient_explorer` of the coefficients beside P's."""
    return charts.key_chart(coefficient_explorer(result.coefficients))


def fit_heatmap(result: Result) -> alt.Chart:
    """Figure 2: predicted vs target of the cross-term OLS, share of each target bin."""
    bins = predicted_vs_target_bins(result.fits.ols_cross, bins=20)
    bins[["target", "predicted"]] = (100 * bins[["target", "predicted"]]).round(1)  # in %
    return charts.heatmap(
        bins,
        x="target",
        y="predicted",
        color="share",
        tooltip=["count"],
        title="Figure 2. OLS (cross terms): predicted vs measured class accuracy, share of "
        "each measured-accuracy bin",
    )


def residual_figure(result: Result) -> alt.Chart:
    """Figure 3: histogram of the cross-term OLS residuals."""
    bars = residual_bars(result.fits.ols_cross, bins=24)
    bars["residual"] = (100 * bars["residual"]).round(1)  # in percentage points
    return charts.bar_chart(
        bars,
        x="residual",
        y="count",
        title="Figure 3. OLS residuals: measured − predicted class accuracy",
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
        curves.rename(columns={"a0": "unpruned_accuracy", "class": "label"}),  # not only digits
        series="label",
        color="unpruned_accuracy",
        tooltip=["iteration"],
        title=f"Figure 4. Accuracy of each class vs sparsity ({p.appendix_dataset}, {model}, "
        f"{p.appendix_technique} / {p.appendix_treatment}), coloured by its accuracy before "
        "pruning",
    )


def spread_figure(result: Result) -> alt.LayerChart:
    """Figure 5: :func:`spread_curves` of the page's ``appendix_dataset`` and first model."""
    p = result.params
    model = p.models[0]
    return charts.accuracy_curves(
        spread_curves(result.classes, p.appendix_dataset, model).rename(
            columns={"series": "configuration"}),
        y="spread",
        series="configuration",
        tooltip=["iteration", "accuracy"],
        slider=None,
        title=f"Figure 5. Best − worst class accuracy vs sparsity ({p.appendix_dataset}, "
        f"{model}), per configuration",
    )


def coefficient_explorer(table: pd.DataFrame) -> alt.LayerChart:
    """Explorer: pick a term in the drop-down ('all' shows every term); ours (dot, 95% interval)
    beside P's printed coefficient (red diamond). Works in the static page (a Vega parameter)."""
    table = table.assign(paper_term=table["paper_term"].map(fmt.term))
    long = pd.concat(
        [
            table.assign(source="ours", coef=table["ours"]),
            table.assign(source=PAPER, coef=table["paper"], ci_low=np.nan, ci_high=np.nan),
        ],
        ignore_index=True,
    )[["paper_term", "source", "coef", "ci_low", "ci_high"]]
    options = ["all", *table["paper_term"]]
    pick = alt.param(
        name="term", value="all", bind=alt.binding_select(options=options, name="term ")
    )
    base = alt.Chart(long).transform_filter("term == 'all' || datum.paper_term == term")
    # an interaction's label on two lines, broken after its "×" (a phone's plot keeps its room)
    y = alt.Y("paper_term:N", title=None, sort=list(table["paper_term"]),
              axis=alt.Axis(labelExpr="split(replace(datum.label, ' × ', ' ×|'), '|')"))
    title = "OLS coefficient (class accuracy per unit of the term)"
    chosen, opacity = charts.legend_pick("source")
    dots = base.mark_point(filled=True, size=70).add_params(chosen).encode(
        x=alt.X("coef:Q", title=title),
        y=y,
        opacity=opacity,
        color=charts.colour("source", list(long["source"]), legend=alt.Legend(orient="bottom")),
        shape=alt.Shape("source:N", title=fmt.axis_title("source"),
                        # the colour's order (charts.colour): one legend, not two
                        scale=alt.Scale(domain=[PAPER, "ours"], range=["diamond", "circle"]),
                        legend=alt.Legend(orient="bottom")),
        tooltip=[
            "paper_term",
            "source",
            "coef:Q",  # the book's formatter writes the numbers (charts.format)
            "ci_low:Q",
            "ci_high:Q",
        ],
    )
    bars = (
        base.transform_filter("datum.source == 'ours'")
        .mark_rule()
        .encode(x=alt.X("ci_low:Q", title=title), x2=alt.X2("ci_high:Q", title=title), y=y,
                opacity=opacity)
    )
    zero = alt.Chart(pd.DataFrame({"x": [0.0]})).mark_rule(
        strokeDash=[3, 3], color=charts.palette.REFERENCE).encode(
        x=alt.X("x:Q", title=title))
    return (
        (zero + bars + dots)
        .add_params(pick)
        .properties(
            width=420,
            height=alt.Step(34),  # room for a label on two lines
            title=["OLS coefficients: ours (95% interval,", "clustered) beside P's App. D"],
        )
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
