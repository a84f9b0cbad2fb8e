"""The book's Altair theme and the encodings every chart shares: axes titled in words with their
unit, colours from the one palette (:mod:`pruneaudit.charts.palette`).

Importing this module (the figures do) registers and enables the theme ``pruneaudit``, so that
every chart's spec carries :data:`~pruneaudit.charts.palette.CONFIG`: text of at least 12 px and
the palette as every scale's default.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence

import altair as alt
import pandas as pd

from pruneaudit.charts import format as fmt
from pruneaudit.charts import palette


@alt.theme.register("pruneaudit", enable=True)
def book_theme() -> alt.theme.ThemeConfig:
    """The book's Altair theme, enabled on import: :data:`~pruneaudit.charts.palette.CONFIG`
    (text of at least 12 px, the palette as every scale's default)."""
    return {"config": copy.deepcopy(palette.CONFIG)}  # type: ignore[return-value]


def axis_channel(column: str, type_: str = "Q", **kwargs: object) -> dict:
    """An x or y channel of ``column``: its ``title`` (words with the unit,
    :func:`~pruneaudit.charts.format.axis_title`) and, for fractions, a % axis; ``kwargs`` (a
    ``field`` computed from the column, a ``scale``...) over them."""
    axis = {"axis": alt.Axis(format="%")} if column in fmt.PERCENT_AXES and type_ == "Q" else {}
    return {"field": column, "type": {"Q": "quantitative", "N": "nominal", "O": "ordinal"}[type_],
            "title": fmt.axis_title(column), **axis, **kwargs}


def colour(field: str, values: Sequence[object], **kwargs: object) -> alt.Color:
    """A nominal colour of ``field`` in the book's palette: each value keeps its colour in every
    chart (:func:`pruneaudit.charts.palette.scale`)."""
    kwargs.setdefault("title", fmt.axis_title(field))
    if "legend" not in kwargs:  # codes with words beside them, underscores as spaces
        kwargs["legend"] = alt.Legend(labelExpr=legend_labels(fmt.LEGEND_LABELS.get(field, {})))
    elif isinstance(kwargs["legend"], alt.Legend) and kwargs["legend"].labelExpr is alt.Undefined:
        kwargs["legend"] = kwargs["legend"].copy()
        kwargs["legend"].labelExpr = legend_labels(fmt.LEGEND_LABELS.get(field, {}))
    return alt.Color(f"{field}:N", scale=alt.Scale(**palette.scale(field, values)), **kwargs)


def legend_labels(labels: dict[str, str]) -> str:
    """A Vega expression showing each legend label by ``labels`` (others with their underscores
    as spaces: ``l2_structured``: ``l2 structured``)."""
    expr = "replace(datum.label, /_/g, ' ')"
    for value, label in reversed(labels.items()):
        expr = f"datum.label === {json.dumps(value)} ? {json.dumps(label)} : {expr}"
    return expr


def legend_pick(field: str, on: float = 0.9, off: float = 0.12) -> tuple[alt.Parameter, dict]:
    """A point selection of ``field`` bound to the legend, and the opacity it gives the marks:
    clicking a legend entry highlights that entry's marks (``on``) and fades the others
    (``off``); clicking it again, or shift-clicking more, as Vega-Lite does. Add the selection to
    one layer (``add_params``); encode ``opacity`` with the condition in every layer it fades."""
    pick = alt.selection_point(fields=[field], bind="legend")
    return pick, alt.condition(pick, alt.value(on), alt.value(off))


def slider(name: str, values: pd.Series, value: float | None, step: float | None, label: str):
    """A range input named ``label`` over ``values`` (``step``: 1/100 of their range by
    default), starting at ``value`` (default their least)."""
    lo, hi = float(values.min()), float(values.max())
    step = step if step is not None else (hi - lo) / 100 or 1.0
    return alt.param(
        name=name,
        value=float(value if value is not None else lo),
        bind=alt.binding_range(min=lo, max=hi, step=step, name=label),
    )
