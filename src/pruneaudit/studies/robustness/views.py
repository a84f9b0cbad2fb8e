"""Study 5's page views: every table and chart the page shows, each a function of the page's
:class:`~.run.Result` (reading its parameters) with its caption."""

from __future__ import annotations

import altair as alt

from pruneaudit import charts
from pruneaudit.charts import format as fmt
from pruneaudit.studies.robustness.frames import (
    CLEAN,
    accuracy_by_severity,
    corruption_examples,
    mean_accuracy,
    natural_adversarial,
)
from pruneaudit.studies.robustness.protocol import protocol_table
from pruneaudit.studies.robustness.run import Result
from pruneaudit.studies.robustness.tables import h1_corruption_table

#: A Vega expression that shows a corruption's name with spaces (``gaussian_noise``: ``gaussian
#: noise``).
READABLE_NAME = "replace(datum.label, /_/g, ' ')"

__all__ = [
    "key_figure", "corruption_explorer", "protocol_view", "examples_view", "severity_view",
    "corruption_table_view", "natural_view",
]


def protocol_view(result: Result) -> object:
    """Table 1: H1's protocol (section 4) beside this page's."""
    return charts.table(protocol_table(result).reset_index(),
                        "Table 1. H1's protocol (section 4) beside this page's")


def examples_view(result: Result) -> alt.Chart:
    """Figure 2: test digit ``params.example_index`` under each corruption and severity of the
    page (the page's seeded draws)."""
    p = result.params
    frame = corruption_examples(result.runs.test, p.example_index, p.corruption_names,
                                p.severities, p.corruption_seed)
    frame["caption"] = [  # the drop-down names the corruption
        "clean" if name == CLEAN else f"severity {s}"
        for name, s in zip(frame["corruption"], frame["severity"], strict=True)]
    return charts.image_gallery(frame, category="corruption", columns=6,
                                title=f"Figure 2. Test digit {p.example_index} under each "
                                "corruption and severity (pick a corruption)")


def severity_view(result: Result) -> alt.Chart:
    """Figure 3: top-1 averaged over the corruptions against severity, per population."""
    return charts.accuracy_curves(accuracy_by_severity(result.runs), x="severity", y="accuracy",
                                  series="level_name", slider=None,
                                  title="Figure 3. Top-1 accuracy of each population, averaged "
                                  "over the corruptions, vs severity (0 = clean)")


def corruption_table_view(result: Result) -> object:
    """Table 2: our relative change per corruption beside H1's ImageNet-C values."""
    table7 = h1_corruption_table(result.relative)
    return charts.table(table7, "Table 2. Relative top-1 change (%) per corruption: ours per "
                        "pruned level, H1's ImageNet-C at 70% and 90%",
                        decimals=[col for col in table7.columns if col != "corruption"])


def natural_view(result: Result) -> object:
    """Table 3: each population's top-1 on the digits the reference population gets wrong."""
    return charts.table(natural_adversarial(result.runs),
                        "Table 3. Top-1 of each population on the digits the reference "
                        "population gets wrong, on the rest and on all; relative change vs "
                        "dense in %",
                        percent=["modal_accuracy", "mean_member_accuracy"],
                        decimals=["relative_change_pct"])


def corruption_explorer(result: Result) -> alt.LayerChart:
    """Population-mean top-1 against pruning level for one corruption and severity picked by
    two drop-downs (:func:`pruneaudit.charts.dropdown_view`: works in the static page)."""
    means = mean_accuracy(result.runs)
    shifted = means[means["corruption"] != CLEAN].copy()
    clean = means[means["corruption"] == CLEAN][["level", "accuracy"]].rename(
        columns={"accuracy": "clean accuracy"})
    shifted = shifted.merge(clean, on="level")
    names = sorted(shifted["corruption"].unique())
    sev = sorted(int(s) for s in shifted["severity"].unique())
    long = shifted.melt(id_vars=["level", "level_name", "corruption", "severity", "sparsity"],
                        value_vars=["accuracy", "clean accuracy"], var_name="test set",
                        value_name="top-1")
    long["test set"] = long["test set"].map({"accuracy": "corrupted", "clean accuracy": "clean"})
    pick, opacity = charts.legend_pick("test set")
    base = alt.Chart(long).encode(
        opacity=opacity,
        x=alt.X("level:Q", title=fmt.axis_title("level"), axis=alt.Axis(format="%")),
        y=alt.Y("top-1:Q", title="Mean top-1 accuracy over members (%)",
                scale=alt.Scale(zero=False), axis=alt.Axis(format="%")),
        color=charts.colour("test set", list(long["test set"]), title="Test set"),
        tooltip=["level_name", "corruption", "severity", "test set",
                 alt.Tooltip("top-1:Q", format=".1%")],
    )
    chart = alt.layer(base.mark_line().add_params(pick), base.mark_point(filled=True))
    chart = charts.dropdown_view(chart, "corruption", names, label="corruption",
                                 name="corruption_shown")
    chart = charts.dropdown_view(chart, "severity", sev, value=sev[-1], label="severity",
                                 name="severity_shown")
    return chart.properties(
        width=420, height=260,
        title="Top-1 accuracy vs pruning level on the clean and one corrupted test set (pick "
        "the corruption and severity)")


def key_figure(result: Result) -> alt.Chart:
    """The page's key figure: relative change (%) of pruned vs dense top-1 per corruption and
    level (``result.relative``: :func:`~.run.relative_robustness`), the clean change on hover."""
    table = result.relative
    pick, opacity = charts.legend_pick("level_name", off=0.2)
    bars = alt.Chart(table).mark_bar().add_params(pick).encode(
        opacity=opacity,
        x=alt.X("relative_change_pct:Q", title="Relative change in top-1 accuracy vs dense (%)"),
        y=alt.Y("corruption:N", sort="x", title="Corruption of the test set",
                axis=alt.Axis(labelExpr=READABLE_NAME)),
        color=charts.colour("level_name", list(table["level_name"])),
        yOffset="level_name:N",
        tooltip=["corruption", "level_name", "relative_change_pct:Q", "clean_change_pct:Q"],
    )
    rows = table["corruption"].nunique() * max(1, table["level_name"].nunique())
    return charts.key_chart(bars).properties(width=420, height=22 * rows // 2 + 60,
        title="Relative change in top-1 accuracy of each pruned population vs dense, per "
        "corruption (mean over severities)")
