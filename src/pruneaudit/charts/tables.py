"""The book's tables: a pandas ``Styler`` for readers, in a box that scrolls sideways with a cue
when the table is wider than the page (``book/_static/reader.css``)."""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Mapping, Sequence

import pandas as pd
from pandas.io.formats.style import Styler

from pruneaudit.charts import format as fmt
from pruneaudit.errors import check_frame

#: What a chart or table wider than the page says above itself (CSS shows it only then).
SCROLL_CUE = "Wider than the page: scroll sideways to see all of it."

_ids = itertools.count()


class ReaderTable(Styler):
    """A ``Styler`` whose HTML sits in a box that scrolls sideways when the table is wider than
    the page, with a visible cue then (``book/_static/reader.css``); otherwise a ``Styler``."""

    def _repr_html_(self) -> str:
        return table_box(self.to_html())


def table_box(inner_html: str) -> str:
    """``inner_html`` (a table) in the scrolling box of :class:`ReaderTable`: a script marks the
    box ``pa-scrolls`` while its table is wider than it, which shows :data:`SCROLL_CUE`."""
    box = f"pa-table-{next(_ids)}"
    return (
        f'<div class="pa-table-scroll" id="{box}" data-scroll-cue="{SCROLL_CUE}">'
        f"{inner_html}</div>\n<script>(function () {{ var el = document.getElementById("
        f'"{box}"); if (!el) return; var cue = function () {{ el.classList.toggle('
        '"pa-scrolls", el.scrollWidth > el.clientWidth + 1); }; cue(); '
        'window.addEventListener("resize", cue); window.addEventListener("load", cue); })();'
        "</script>"
    )


def table(
    df: pd.DataFrame,
    caption: str,
    *,
    percent: Sequence[str] = (),
    points: Sequence[str] = (),
    pvalue: Sequence[str] = (),
    decimals: Sequence[str] | Mapping[str, int] = (),
    formats: Mapping[str, str | Callable[[object], str]] | None = None,
    index: bool | None = False,
) -> ReaderTable:
    """``df`` as a captioned table for readers (a :class:`ReaderTable`, i.e. a pandas
    ``Styler``), the book's one table formatter (:mod:`pruneaudit.charts.format`): column
    headers as reader labels (``ci_low`` -> "95% CI low"); fractions in ``percent`` as
    percent with one decimal; differences of fractions in ``points`` as signed percentage
    points (``-5.0 pts``); ``pvalue`` columns as ``< 0.001`` or two significant digits;
    ``decimals`` with two decimals (a mapping: its own places per column); ``formats`` any
    other format strings or functions by column (a signed percent:
    ``functools.partial(format.percent, sign=True)``); every other cell by
    :func:`~pruneaudit.charts.format.cell` (three significant digits, counts in full, yes/no,
    raw floats inside text rewritten); missing values "n/a". ``index``: show it (True), hide
    it (False), or show it only when it is named or a MultiIndex (None)."""
    places = dict(decimals) if isinstance(decimals, Mapping) else dict.fromkeys(decimals, 2)
    check_frame(
        "chart data", df,
        [*percent, *points, *pvalue, *places, *(formats or {})],
        allow_empty=True,
    )
    spec: dict[str, object] = {c: fmt.cell for c in df.columns}
    spec |= {c: fmt.percent for c in percent}
    spec |= {c: fmt.points for c in points}
    spec |= {c: fmt.pvalue for c in pvalue}
    spec |= {c: functools.partial(fmt.fixed, decimals=d) for c, d in places.items()}
    spec |= dict(formats or {})
    styler = ReaderTable(df).format(spec, na_rep=fmt.MISSING).set_caption(caption)
    styler = styler.format_index(fmt.cell, axis="index")
    styler = styler.format_index(fmt.header, axis="columns")
    if index is None:
        index = isinstance(df.index, pd.MultiIndex) or df.index.name is not None
    return styler if index else styler.hide(axis="index")
