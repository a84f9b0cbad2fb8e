"""Altair charts rendered offline (Vega bundle from ``_static``)."""

from __future__ import annotations

from pruneaudit.charts import format
from pruneaudit.charts.figures import (
    RENDERER,
    SCROLL_CUE,
    SELECTED,
    STATIC_ENV,
    accuracy_curves,
    bar_chart,
    bundle_versions,
    chart_html,
    dropdown_view,
    enable_offline,
    group_histograms,
    group_scatter,
    heatmap,
    image_data_url,
    image_gallery,
    offline_renderer,
    pareto_chart,
    show_widget,
    table,
    vega_bundle,
    vega_lite_version,
)
from pruneaudit.charts.figures import (
    ReaderTable as ReaderTable,  # type hints; kept out of __all__ (the API page)
)

__all__ = [
    "format",
    "table",
    "SCROLL_CUE",
    "STATIC_ENV",
    "RENDERER",
    "SELECTED",
    "vega_lite_version",
    "vega_bundle",
    "bundle_versions",
    "chart_html",
    "offline_renderer",
    "enable_offline",
    "show_widget",
    "accuracy_curves",
    "group_scatter",
    "pareto_chart",
    "group_histograms",
    "heatmap",
    "bar_chart",
    "dropdown_view",
    "image_data_url",
    "image_gallery",
]
