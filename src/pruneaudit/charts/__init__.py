"""Altair charts rendered offline (Vega bundle from ``_static``)."""

from __future__ import annotations

from pruneaudit.charts.figures import (
    EMBED_OPTIONS,
    RENDERER,
    SELECTED,
    STATIC_ENV,
    accuracy_curves,
    bar_chart,
    bundle_versions,
    chart_html,
    enable_offline,
    group_histograms,
    group_scatter,
    heatmap,
    image_data_url,
    image_gallery,
    is_static,
    offline_renderer,
    pareto_chart,
    show_widget,
    vega_bundle,
    vega_lite_version,
)

__all__ = [
    "STATIC_ENV",
    "RENDERER",
    "SELECTED",
    "EMBED_OPTIONS",
    "is_static",
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
    "image_data_url",
    "image_gallery",
]
