"""Altair charts rendered offline (Vega bundle from ``_static``).

- :mod:`~pruneaudit.charts.format`: how every number and name reaches a reader.
- :mod:`~pruneaudit.charts.palette`: the book's one palette (Okabe-Ito), one colour per meaning,
  and its text sizes (the Altair theme ``pruneaudit``, enabled with the figures).
- :mod:`~pruneaudit.charts.images`: images as PNG data URLs (:func:`image_data_url`).
- :mod:`~pruneaudit.charts.figures`: the chart builders, tables and the offline renderer.

The names of :mod:`~pruneaudit.charts.figures` are imported when first used (PEP 562), so that
a study's ``run``, which needs only the formatter and the data URLs, loads neither Altair nor
vl-convert (the ``compute`` command, :mod:`pruneaudit.book.builder.compute`).
"""

from __future__ import annotations

import importlib
from typing import Any

from pruneaudit.charts import format, palette
from pruneaudit.charts.images import image_data_url

#: Public names of :mod:`~pruneaudit.charts.figures`, imported from it on first use;
#: ``ReaderTable`` (for type hints) is kept out of ``__all__`` (the API page).
_FIGURES = frozenset({
    "table", "SCROLL_CUE", "RENDERER", "SELECTED", "vega_lite_version",
    "vega_bundle", "bundle_versions", "chart_html", "OfflineRenderer", "enable_offline",
    "show_widget", "accuracy_curves", "group_scatter", "pareto_chart", "group_histograms",
    "heatmap", "bar_chart", "dropdown_view", "image_gallery", "ReaderTable", "key_chart",
    "KEY_META", "legend_pick", "colour", "book_theme", "Slider",
})

__all__ = [
    "format",
    "palette",
    "colour",
    "book_theme",
    "table",
    "SCROLL_CUE",
    "RENDERER",
    "SELECTED",
    "vega_lite_version",
    "vega_bundle",
    "bundle_versions",
    "chart_html",
    "key_chart",
    "KEY_META",
    "legend_pick",
    "OfflineRenderer",
    "enable_offline",
    "show_widget",
    "accuracy_curves",
    "Slider",
    "group_scatter",
    "pareto_chart",
    "group_histograms",
    "heatmap",
    "bar_chart",
    "dropdown_view",
    "image_data_url",
    "image_gallery",
]


def __getattr__(name: str) -> Any:
    """A name of :mod:`~pruneaudit.charts.figures` (or the module itself), imported on first
    use (then kept here)."""
    if name != "figures" and name not in _FIGURES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    figures = importlib.import_module(f"{__name__}.figures")
    value = figures if name == "figures" else getattr(figures, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_FIGURES})
