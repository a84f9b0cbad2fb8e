"""Forest plots: each build's estimate and 95% interval of a claim, with the pooled one below.

:func:`forest_chart` takes the long frame of :func:`pruneaudit.audit.pooled.forest_frame` and
draws one panel per claim (its own axis, in the claim's unit), stacked: a point and a rule per
build, the pooled estimate last, and the claim's null as a dashed line. Colours are Okabe and
Ito's (distinguishable with any colour vision), each source also with its own shape.
"""

from __future__ import annotations

import math
import textwrap

import altair as alt
import pandas as pd

from pruneaudit.errors import PruneAuditError, check_frame

#: Okabe-Ito colours per source of an estimate (orange, blue, vermillion), and a shape each.
SOURCES = {
    "default build": ("#E69F00", "circle"),
    "other build": ("#0072B2", "square"),
    "pooled": ("#D55E00", "diamond"),
}
#: Okabe-Ito grey-black for the null line.
NULL_COLOUR = "#000000"
#: A claim's unit, the factor that shows it and the axis title's words.
UNITS = {
    "percent": (100.0, "estimate (percent)"),
    "points": (100.0, "estimate (percentage points)"),
    "ratio": (1.0, "estimate (ratio, no unit)"),
    "": (1.0, "estimate (in the row's own quantity)"),
}
#: The smallest text a reader meets, in pixels.
FONT = 12
WIDTH = 420
ROW_HEIGHT = 20
COLUMNS = ("claim", "finding", "unit", "build", "source", "estimate", "low", "high", "null")


def _panel(rows: pd.DataFrame) -> alt.LayerChart:
    """One claim's panel: its builds and pooled estimate, on the claim's unit."""
    unit = str(rows.unit.iloc[0] or "")
    scale, title = UNITS.get(unit, UNITS[""])
    shown = rows.assign(**{c: rows[c] * scale for c in ("estimate", "low", "high", "null")})
    order = list(dict.fromkeys(shown.build))
    y = alt.Y("build:N", sort=order, title=None, axis=alt.Axis(labelLimit=200))
    x = alt.X("estimate:Q", title=title, scale=alt.Scale(zero=False))
    ends = alt.X("low:Q", title=title, scale=alt.Scale(zero=False))
    colour = alt.Color("source:N", title="estimate from",
                       scale=alt.Scale(domain=list(SOURCES),
                                       range=[c for c, _ in SOURCES.values()]))
    shape = alt.Shape("source:N", title="estimate from",
                      scale=alt.Scale(domain=list(SOURCES),
                                      range=[s for _, s in SOURCES.values()]))
    tooltip = [alt.Tooltip("build:N", title="build"),
               alt.Tooltip("estimate:Q", title="estimate"),
               alt.Tooltip("low:Q", title="95% interval, low"),
               alt.Tooltip("high:Q", title="95% interval, high")]
    base = alt.Chart(shown)
    rule = base.mark_rule(strokeWidth=2).encode(x=ends, x2="high:Q", y=y, color=colour)
    point = base.mark_point(filled=True, size=70, opacity=1).encode(
        x=x, y=y, color=colour, shape=shape, tooltip=tooltip)
    layers: list[alt.Chart] = [rule, point]
    null = shown.null.iloc[0]
    if math.isfinite(null):
        layers.insert(0, alt.Chart(pd.DataFrame({"null": [null]})).mark_rule(
            strokeDash=[4, 3], color=NULL_COLOUR).encode(x="null:Q"))
    name = textwrap.wrap(str(rows.finding.iloc[0]), 60)
    return alt.layer(*layers).properties(
        width=WIDTH, height=ROW_HEIGHT * len(order),
        title=alt.TitleParams(name, anchor="start", fontSize=FONT + 1))


def forest_chart(frame: pd.DataFrame) -> alt.VConcatChart:
    """One panel per claim of ``frame`` (columns :data:`COLUMNS`, one row per build and one for
    the pooled estimate), stacked in the frame's order, text at least :data:`FONT` px."""
    check_frame("forest frame", frame, COLUMNS)
    unknown = set(frame.source) - set(SOURCES)
    if unknown:
        raise PruneAuditError(f"forest frame: unknown source(s) {sorted(unknown)}; "
                              f"expected {list(SOURCES)}")
    panels = [_panel(rows) for _, rows in frame.groupby("claim", sort=False)]
    return alt.vconcat(*panels, spacing=24).resolve_scale(x="independent", y="independent") \
        .configure_axis(labelFontSize=FONT, titleFontSize=FONT) \
        .configure_legend(labelFontSize=FONT, titleFontSize=FONT, orient="top") \
        .configure_title(fontSize=FONT + 1) \
        .configure_view(stroke=None)


__all__ = ["FONT", "NULL_COLOUR", "SOURCES", "UNITS", "forest_chart"]
