"""The template's page views, each a function of the :class:`~.run.Result` with its caption:
the key figure (the curves with a sparsity slider), the class explorer and the protocol."""

from __future__ import annotations

import altair as alt
from pandas.io.formats.style import Styler

from pruneaudit import charts
from pruneaudit.charts import format as fmt

from .protocol import protocol_table
from .run import Result


def key_figure(result: Result) -> alt.LayerChart:
    """The template's key figure: accuracy curves with the sparsity slider."""
    return charts.key_chart(charts.accuracy_curves(
        result.curves, tooltip=["iteration"],
        title="Accuracy of each digit class vs sparsity (mean over members)"
    ))


def class_view(result: Result) -> alt.Chart:
    """The explorer: one class's accuracy against the iteration, picked from a drop-down."""
    curves = result.curves
    chart = (
        alt.Chart(curves)
        .mark_bar()
        .encode(
            x=alt.X("iteration:O", title=fmt.axis_title("iteration")),
            y=alt.Y("accuracy:Q", title=fmt.axis_title("accuracy"), scale=alt.Scale(zero=False),
                    axis=alt.Axis(format="%")),
            tooltip=["class", "iteration", alt.Tooltip("accuracy:Q", format=".1%")],
        )
        .properties(title="Accuracy of one digit class at each pruning iteration", width=420,
                    height=240)
    )
    return charts.dropdown_view(chart, "class", sorted(curves["class"].unique()), label="class")


def protocol_view(result: Result) -> Styler:
    """Table 1: the protocol run beside the published one."""
    return charts.table(protocol_table(result), "Table 1. This run's protocol (the template "
                        "follows no paper).")
