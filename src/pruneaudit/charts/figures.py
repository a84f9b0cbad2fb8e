"""Altair chart builders for the studies, and an offline renderer for the book.

Offline rendering: :func:`enable_offline` registers the Altair renderer ``"pruneaudit"``. It emits
``text/html`` holding a ``<div>`` and a ``<script>`` that calls ``vegaEmbed`` on the spec, so charts
never load JavaScript from a CDN:

- in the static book (the book runner's kernel record says ``static``, as :mod:`pruneaudit.book`
  does while executing a notebook) the script relies on ``window.vegaEmbed``, which every book
  page loads from ``_static/vendor/vega-bundle.js`` (see ``_config.yml``);
- in a live notebook the first chart after :func:`enable_offline` also carries the bundle itself
  (about 0.9 MB, from ``vl_convert.javascript_bundle``); later charts wait for it. After clearing
  outputs, call :func:`enable_offline` again.

Live ipywidgets controls go through :func:`show_widget`, which shows nothing but a short note in
the static book, so that no broken widget appears there.

The builders take tidy frames and return Altair charts whose interactivity (legend selection,
tooltips, sliders) runs in Vega-Lite itself, so it works in the static book with no kernel.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import altair as alt
import pandas as pd

from pruneaudit.charts import format as fmt
from pruneaudit.charts import palette
from pruneaudit.charts.encodings import axis_channel
from pruneaudit.charts.encodings import book_theme as book_theme
from pruneaudit.charts.encodings import colour as colour
from pruneaudit.charts.encodings import legend_pick as legend_pick
from pruneaudit.charts.encodings import slider as range_slider
from pruneaudit.charts.fitting import FIT_JS, READABLE_JS, REFITS, SHRINK
from pruneaudit.charts.tables import SCROLL_CUE as SCROLL_CUE
from pruneaudit.charts.tables import ReaderTable as ReaderTable
from pruneaudit.charts.tables import table as table
from pruneaudit.charts.tables import table_box as table_box
from pruneaudit.errors import PruneAuditError, check_frame

#: Name of the Altair renderer registered by :func:`enable_offline`.
RENDERER = "pruneaudit"
#: Name of the layer holding the point a slider selects; the browser test reads its marks.
SELECTED = "selected"

#: The ``usermeta`` key that marks a page's key figure (:func:`key_chart`).
KEY_META = "pruneaudit_key_figure"

EMBED_OPTIONS = {
    "renderer": "svg",
    "actions": {"export": True, "source": False, "compiled": False, "editor": False},
}


def is_static() -> bool:
    """True while a notebook is executed for the static book (the book runner's
    :class:`~pruneaudit.runtime.KernelRecord` says ``static``)."""
    from pruneaudit.runtime import KernelRecord

    record = KernelRecord.read()
    return record is not None and record.static


def vega_lite_version() -> str:
    """The Vega-Lite minor version matching Altair's schema, as vl-convert names it (``v6.4``)."""
    return ".".join(alt.SCHEMA_VERSION.split(".")[:2])


@functools.lru_cache(maxsize=1)
def vega_bundle() -> str:
    """Vega, Vega-Lite (Altair's version) and Vega-Embed as one plain script defining globals.

    Built offline by ``vl_convert.javascript_bundle``; wrapped in a function so that loading it
    twice on one page does not redeclare its top-level names.
    """
    import vl_convert

    version = vega_lite_version()
    accepted = [f"v{v}" for v in vl_convert.get_vegalite_versions()]
    if version not in accepted:
        raise PruneAuditError(
            f"vl-convert cannot bundle Vega-Lite {version} (Altair {alt.__version__}); "
            f"it has {', '.join(accepted)}: install the vl-convert-python pinned in pyproject.toml"
        )
    code = vl_convert.javascript_bundle(vl_version=version)
    return f"(function () {{\n{code}\n}})();\n"


def bundle_versions() -> dict[str, str]:
    """Versions of the JavaScript libraries in :func:`vega_bundle`."""
    import vl_convert

    return {
        "vega": vl_convert.get_vega_version(),
        "vega-lite": vega_lite_version(),
        "vega-embed": vl_convert.get_vega_embed_version(),
        "vl-convert": vl_convert.__version__,
    }


def _script_json(value: object) -> str:
    """JSON safe to place inside a ``<script>`` element."""
    return json.dumps(value, separators=(",", ":")).replace("</", "<\\/")


def chart_html(spec: dict, embed_options: dict | None = None, *, bundle: str = "",
               serial: int = 0) -> str:
    """HTML that renders a Vega-Lite ``spec`` with ``window.vegaEmbed``, waiting for it to load.
    Its element's id is the spec's digest and ``serial`` (the renderer's count of its charts).

    A chart whose texts lie past its box is drawn again to fit it (``charts.fitting``); a key
    figure (:func:`key_chart`) gets the class ``pa-key-chart``. The view is kept in
    ``window.pruneauditViews[id]``; a failure is shown in place and logged to the console.
    """
    digest = hashlib.sha256(_script_json(spec).encode()).hexdigest()[:10]
    div = f"pa-vega-{digest}-{serial}"
    options = {**EMBED_OPTIONS, **(embed_options or {})}
    loader = f"<script>{bundle}</script>\n" if bundle else ""
    key = " pa-key-chart" if (spec.get("usermeta") or {}).get(KEY_META) else ""
    return f"""<div id="{div}" class="pruneaudit-chart{key}" data-scroll-cue="{SCROLL_CUE}"></div>
{loader}<script>
(function () {{
  var id = {_script_json(div)}, spec = {_script_json(spec)}, opt = {_script_json(options)};
  var tries = 0;
{READABLE_JS}{FIT_JS}
  function fail(err) {{
    var el = document.getElementById(id);
    if (el) {{ el.textContent = "Chart could not be drawn: " + err; }}
    console.error(err);
  }}
  function show() {{
    if (!window.vegaEmbed) {{
      if (++tries < 200) {{ setTimeout(show, 50); return; }}
      fail("Vega JavaScript is not loaded (in a notebook: run charts.enable_offline() again)");
      return;
    }}
    opt.tooltip = {{formatTooltip: paTooltip}};
    if (window.innerWidth < 700) {{
      opt.config = {{legend: {{orient: "bottom", columns: 3}}}};
    }}
    spec = paFitBox(spec, document.getElementById(id));  // a narrow box: drawn for its width
    draw(spec, opt, 0);
  }}
  function refit(result, el, options, refits) {{  // drawn again, narrower each time
    var fit = paRefit(spec, el, options.config, Math.pow({SHRINK}, refits));
    result.finalize();
    draw(fit.spec, Object.assign({{}}, options, {{config: fit.config}}), refits + 1);
  }}
  function draw(drawn, options, refits) {{
    window.vegaEmbed("#" + id, drawn, options).then(function (result) {{
      var el = document.getElementById(id);
      if (refits < {REFITS} && paCutOff(el)) {{  // a text past the box: drawn again to fit
        refit(result, el, options, refits);
        return;
      }}
      (window.pruneauditViews = window.pruneauditViews || {{}})[id] = result.view;
      readable(el);
      if (!refits) {{  // drawn folded (a closed details): fitted when it opens
        document.addEventListener("toggle", function again(event) {{
          if (!event.target.open || !event.target.contains(el) || !paCutOff(el)) return;
          document.removeEventListener("toggle", again, true);
          refit(result, el, options, 0);
        }}, true);
      }}
    }}).catch(fail);
  }}
  show();
}})();
</script>"""


def key_chart(chart: alt.Chart | alt.LayerChart) -> alt.Chart | alt.LayerChart:
    """``chart`` marked as its page's key figure: drawn in a ``div`` of class ``pa-key-chart``."""
    return chart.properties(usermeta={KEY_META: True})


class OfflineRenderer:
    """The Altair renderer: ``text/html`` that needs no network (see the module docstring). It
    keeps what it has sent to its kernel's page: whether the bundle went with a chart (a live
    page gets it once), and how many charts (their ids)."""

    def __init__(self) -> None:
        self.bundle_sent = False
        self._serials = itertools.count()

    def __call__(self, spec: dict, **embed_options: object) -> dict[str, str]:
        bundle = ""
        if not is_static() and not self.bundle_sent:
            bundle, self.bundle_sent = vega_bundle(), True
        html = chart_html(fmt.readable_titles(spec), dict(embed_options), bundle=bundle,
                          serial=next(self._serials))
        return {"text/html": html, "text/plain": "<Vega-Lite chart>"}


def enable_offline(max_rows: int | None = 20_000) -> None:
    """Render Altair charts with a fresh :class:`OfflineRenderer`; allow up to ``max_rows`` rows
    inline (None: no limit; specs grow with the data: aggregate first)."""
    alt.renderers.register(RENDERER, OfflineRenderer())  # a fresh one: the bundle sent again
    alt.renderers.enable(RENDERER)
    if max_rows is None:
        alt.data_transformers.disable_max_rows()
    else:
        alt.data_transformers.enable("default", max_rows=max_rows)


def show_widget(make: Callable[[], object], note: str = "") -> None:
    """Display the ipywidgets control ``make()`` builds, in a live kernel; in the static book
    show only ``note``, and build nothing.

    A static page cannot run a kernel, so instead of a broken widget it states (in italics) what
    the live control does. No widget is even built there (a widget opens a channel to a front
    end that the book's executor would have to follow). ``note`` empty: nothing is shown.
    """
    from IPython.display import Markdown, display

    if is_static():
        if note:
            display(Markdown(f"*Live control, in the notebook only: {note}*"))
        return
    display(make())


# ---------------------------------------------------------------------------------------------
# Chart builders


def _require(df: pd.DataFrame, columns: Sequence[str | None]) -> None:
    check_frame("chart data", df, columns, allow_empty=True)


@dataclass(frozen=True)
class Slider:
    """The range input of :func:`accuracy_curves` over the x values: where it starts (None: at
    their least)."""

    start: float | None = None


def accuracy_curves(
    df: pd.DataFrame,
    *,
    x: str = "sparsity",
    y: str = "accuracy",
    series: str = "class",
    color: str | None = None,
    tooltip: Sequence[str] = (),
    slider: Slider | None = Slider(),
    title: str = "",
) -> alt.LayerChart:
    """One line per ``series`` (e.g. class) of ``y`` against ``x``.

    Clicking a legend entry (or a line) highlights that series. ``color`` colours lines by a
    quantitative field (e.g. the unpruned class accuracy) instead of by series. With a
    ``slider`` (None: none), a range input moves a rule along ``x`` and marks each series' point
    nearest to it (layer :data:`SELECTED`, tooltips with the values).
    """
    _require(df, [x, y, series, color, *tooltip])
    data = df[list(dict.fromkeys([x, y, series, *([color] if color else []), *tooltip]))]
    pick = alt.selection_point(fields=[series], **({"bind": "legend"} if color is None else {}))
    colours = (
        colour(series, list(data[series]))
        if color is None
        else alt.Color(f"{color}:Q", title=fmt.axis_title(color),
                       scale=alt.Scale(scheme=palette.SEQUENTIAL),
                       legend=alt.Legend(format="%") if color in fmt.PERCENT_AXES else {})
    )
    tips = [f"{series}:N", f"{x}:Q", f"{y}:Q"]  # numbers by the book's formatter (paText)
    tips += [f"{t}" for t in tooltip]
    shape = {}
    if palette.MEANINGS.get(series) == "class":  # classes told by shape too, not colour alone
        shape = {"shape": alt.Shape(f"{series}:N", title=fmt.axis_title(series),
                                    scale=alt.Scale(**palette.shapes(list(data[series]))))}
    base = alt.Chart(data).encode(
        x=alt.X(**axis_channel(x)),
        y=alt.Y(**axis_channel(y, scale=alt.Scale(zero=False))),
        color=colours,
        detail=f"{series}:N",
        **shape,
    )
    lines = (
        base.mark_line(point=True)
        .encode(opacity=alt.condition(pick, alt.value(0.95), alt.value(0.12)), tooltip=tips)
        .add_params(pick)
    )
    layers: list[alt.Chart] = [lines]
    if slider is not None:
        at = range_slider(f"{x}_at", data[x], slider.start, None, f"{fmt.axis_title(x)} ")
        rule = (
            alt.Chart(pd.DataFrame({"one": [1]}))
            .transform_calculate(at=at.name)
            .mark_rule(color=palette.REFERENCE, strokeDash=[4, 3])
            .encode(x=alt.X(**axis_channel(x, field="at")))
        )
        nearest = (
            base.transform_calculate(distance=f"abs(datum[{x!r}] - {at.name})")
            .transform_joinaggregate(best="min(distance)", groupby=[series])
            .transform_filter("datum.distance == datum.best")
            .mark_point(size=90, filled=True)
            .encode(opacity=alt.condition(pick, alt.value(1.0), alt.value(0.15)), tooltip=tips)
            .properties(name=SELECTED)
        )
        layers = [lines.add_params(at), rule, nearest]
    return alt.layer(*layers).properties(title=title, width=520, height=320)


def group_scatter(
    df: pd.DataFrame,
    *,
    x: str,
    y: str,
    group: str,
    tooltip: Sequence[str] = (),
    regression: bool = True,
    diagonal: bool = False,
    title: str = "",
) -> alt.LayerChart:
    """Points coloured by ``group`` with tooltips; a least-squares line per group.

    Clicking a legend entry highlights that group's points and line; ``diagonal`` adds y = x.
    """
    _require(df, [x, y, group, *tooltip])
    data = df[list(dict.fromkeys([x, y, group, *tooltip]))]
    pick = alt.selection_point(fields=[group], bind="legend")
    highlight = alt.condition(pick, alt.value(0.85), alt.value(0.1))
    base = alt.Chart(data).encode(
        x=alt.X(**axis_channel(x, scale=alt.Scale(zero=False))),
        y=alt.Y(**axis_channel(y, scale=alt.Scale(zero=False))),
        color=colour(group, list(data[group])),
    )
    tips = [f"{t}" for t in dict.fromkeys([*tooltip, group, x, y])]
    layers: list[alt.Chart] = [
        base.mark_circle(size=45).encode(opacity=highlight, tooltip=tips).add_params(pick)
    ]
    if regression:
        layers.append(
            base.transform_regression(x, y, groupby=[group])
            .mark_line(strokeWidth=2.5)
            .encode(opacity=highlight)
        )
    if diagonal:
        lo = float(min(data[x].min(), data[y].min()))
        hi = float(max(data[x].max(), data[y].max()))
        line = pd.DataFrame({x: [lo, hi], y: [lo, hi]})
        layers.append(
            alt.Chart(line)
            .mark_line(color=palette.REFERENCE, strokeDash=[4, 3])
            .encode(x=alt.X(**axis_channel(x)), y=alt.Y(**axis_channel(y)))
        )
    return alt.layer(*layers).properties(title=title, width=420, height=380)


#: The step of :func:`pareto_chart`'s fairness-weight slider.
WEIGHT_STEP = 0.001


def pareto_chart(
    df: pd.DataFrame,
    *,
    x: str = "sparsity",
    y: str = "unfairness",
    label: str = "technique",
    frontier: str = "pareto",
    tooltip: Sequence[str] = (),
    weight: float = 100 / 101,
    title: str = "",
) -> alt.LayerChart:
    """Candidates in the (``x``, ``y``) plane, the Pareto frontier, and the point a weight picks;
    clicking a legend entry highlights that ``label``'s candidates.

    ``frontier`` names a boolean column marking Pareto-optimal rows (computed by the package).
    The slider sets the fairness weight ``w`` in [0, 1] in steps of :data:`WEIGHT_STEP`;
    Vega-Lite itself computes ``value = w * (-y) + (1 - w) * x`` for every candidate and marks
    the one with the largest value (ties: the sparser one) in layer :data:`SELECTED`. The
    default ``w = 100/101`` is a fairness weight 100x the sparsity weight.
    """
    _require(df, [x, y, label, frontier, *tooltip])
    data = df[list(dict.fromkeys([x, y, label, frontier, *tooltip]))]
    w = alt.param(
        name="fairness_weight",
        value=float(weight),
        bind=alt.binding_range(min=0, max=1, step=WEIGHT_STEP, name="fairness weight w "),
    )
    tips = [f"{t}" for t in dict.fromkeys([label, x, y, *tooltip])]
    enc = {"x": alt.X(**axis_channel(x)), "y": alt.Y(**axis_channel(y))}
    pick, opacity = legend_pick(label, on=0.7, off=0.08)
    points = (
        alt.Chart(data)
        .mark_circle(size=60)
        .encode(**enc, color=colour(label, list(data[label]),
                                    legend=alt.Legend(orient="bottom", columns=2)),
                tooltip=tips, opacity=opacity)
        .add_params(w, pick)
    )
    front = (
        alt.Chart(data)
        .transform_filter(f"datum[{frontier!r}]")
        .mark_line(color=palette.ANNOTATION, strokeDash=[5, 3],
                   point=alt.OverlayMarkDef(color=palette.ANNOTATION))
        .encode(**enc, order=alt.Order(f"{x}:Q"))
    )
    chosen = (
        alt.Chart(data)
        .transform_calculate(value=f"{w.name} * -datum[{y!r}] + (1 - {w.name}) * datum[{x!r}]")
        .transform_window(
            rank="row_number()",
            sort=[alt.SortField("value", order="descending"), alt.SortField(x, order="descending")],
        )
        .transform_filter("datum.rank == 1")
    )
    marker = chosen.mark_point(size=400, shape="diamond", filled=False, strokeWidth=3,
                               color=palette.ANNOTATION).encode(**enc, tooltip=[*tips, "value:Q"])
    # the pick's name beside it, on the side with room (never past the plot's right edge)
    right = f"scale('x', datum[{x!r}]) > width / 2"
    text = chosen.mark_text(
        dx=alt.expr(f"{right} ? -12 : 12"), dy=-12, align=alt.expr(f"{right} ? 'right' : 'left'"),
        color=palette.ANNOTATION, fontWeight="bold",
    ).encode(**enc, text=f"{label}:N")
    return alt.layer(points, front, marker.properties(name=SELECTED), text).properties(
        title=title, width=520, height=360
    )


def group_histograms(
    df: pd.DataFrame, *, value: str, group: str, bins: int = 30, title: str = ""
) -> alt.Chart:
    """Overlaid histograms of ``value`` per ``group`` (normalized), legend selection."""
    _require(df, [value, group])
    data = df[[value, group]]
    pick = alt.selection_point(fields=[group], bind="legend")
    return (
        alt.Chart(data)
        .transform_bin("bin_start", value, bin=alt.Bin(maxbins=bins))
        .transform_joinaggregate(total="count()", groupby=[group])
        .transform_aggregate(n="count()", total="max(total)", groupby=["bin_start", group])
        .transform_calculate(share="datum.n / datum.total")
        .mark_bar(binSpacing=0)
        .encode(
            x=alt.X(**axis_channel(value, field="bin_start", bin="binned")),
            y=alt.Y("share:Q", title="Share of the group (%)", stack=None,
                    axis=alt.Axis(format="%")),
            color=colour(group, list(data[group])),
            opacity=alt.condition(pick, alt.value(0.55), alt.value(0.05)),
            tooltip=[f"{group}:N", alt.Tooltip("bin_start:Q", title=fmt.axis_title(value)),
                     "n:Q"],
        )
        .add_params(pick)
        .properties(title=title, width=420, height=260)
    )


def heatmap(
    df: pd.DataFrame, *, x: str, y: str, color: str, tooltip: Sequence[str] = (),
    title: str | list[str] = "",
) -> alt.Chart:
    """A ``color``-valued grid over two categorical axes, with tooltips.

    Values of both signs get a diverging scale centred on 0 (no colour implies good or bad);
    others a sequential one."""
    _require(df, [x, y, color, *tooltip])
    data = df[list(dict.fromkeys([x, y, color, *tooltip]))]
    values = pd.to_numeric(data[color], errors="coerce")
    if values.min() < 0 < values.max():
        scale = alt.Scale(scheme=palette.DIVERGING, domainMid=0)
    else:
        scale = alt.Scale(scheme=palette.SEQUENTIAL)
    return (
        alt.Chart(data)
        .mark_rect()
        .encode(
            x=alt.X(**axis_channel(x, "O")),
            y=alt.Y(**axis_channel(y, "O")),
            color=alt.Color(f"{color}:Q", title=fmt.axis_title(color), scale=scale,
                            legend=alt.Legend(format="%") if color in fmt.PERCENT_AXES else {}),
            tooltip=[f"{t}" for t in dict.fromkeys([x, y, color, *tooltip])],
        )
        .properties(title=title)
    )


def bar_chart(
    df: pd.DataFrame,
    *,
    x: str,
    y: str,
    color: str | None = None,
    tooltip: Sequence[str] = (),
    title: str = "",
) -> alt.Chart:
    """Bars of quantitative ``y`` per category ``x`` (grouped side by side by ``color``; clicking
    a legend entry highlights its bars)."""
    _require(df, [x, y, color, *tooltip])
    data = df[list(dict.fromkeys([x, y, *([color] if color else []), *tooltip]))]
    enc: dict = {
        "x": alt.X(**axis_channel(x, "N")),
        "y": alt.Y(**axis_channel(y)),
        "tooltip": [f"{t}" for t in dict.fromkeys([x, y, *([color] if color else []), *tooltip])],
    }
    chart = alt.Chart(data).mark_bar()
    if color:
        pick, opacity = legend_pick(color, off=0.2)
        enc |= {"color": colour(color, list(data[color])), "xOffset": f"{color}:N",
                "opacity": opacity}
        chart = chart.add_params(pick)
    return chart.encode(**enc).properties(title=title)


def image_gallery(
    df: pd.DataFrame,
    *,
    image: str = "image",
    caption: str = "caption",
    category: str | None = None,
    tooltip: Sequence[str] = (),
    columns: int = 8,
    cell: int = 70,
    title: str = "",
) -> alt.LayerChart:
    """A grid of images (data URLs, see :func:`image_data_url`) with a caption under each.

    ``caption`` may hold several lines separated by ``\\n`` (e.g. true / baseline / compressed
    labels). With ``category``, a drop-down shows one category at a time. Rows are laid out in
    Vega-Lite, so the grid refills after filtering.
    """
    _require(df, [image, caption, category, *tooltip])
    if columns < 1:
        raise PruneAuditError(f"columns must be a positive integer, got {columns!r}")
    keep = [image, caption, *([category] if category else []), *tooltip]
    data = df[list(dict.fromkeys(keep))].reset_index(drop=True)
    per_category = data.groupby(category).size().max() if category else len(data)
    rows = max(1, -(-int(per_category) // columns))
    chart = alt.Chart(data)
    if category:
        options = sorted(data[category].astype(str).unique())
        pick = alt.param(
            name=f"{category}_shown",
            value=options[0],
            bind=alt.binding_select(options=options, name=f"{fmt.header(category)} "),
        )
        chart = chart.add_params(pick).transform_filter(
            f"toString(datum[{category!r}]) == {pick.name}"
        )
    grid = chart.transform_window(index="row_number()").transform_calculate(
        col=f"(datum.index - 1) % {columns}", row=f"floor((datum.index - 1) / {columns})"
    )
    x = alt.X("col:Q", axis=None, scale=alt.Scale(domain=[-0.5, columns - 0.5]))
    y_img = alt.Y("row:Q", axis=None, scale=alt.Scale(domain=[-0.35, rows - 0.35], reverse=True))
    tips = [f"{t}" for t in dict.fromkeys([caption, *tooltip])]
    pics = grid.mark_image(width=cell * 0.7, height=cell * 0.7).encode(
        x=x, y=y_img, url=f"{image}:N", tooltip=tips
    )
    text = grid.mark_text(baseline="top", lineBreak="\n", fontSize=palette.MIN_FONT,
                          dy=cell * 0.38).encode(
        x=x, y=y_img, text=f"{caption}:N"
    )
    return alt.layer(pics, text).properties(
        title=title, width=columns * cell, height=rows * int(cell * 1.5)
    )


def dropdown_view(
    chart: alt.Chart | alt.LayerChart,
    field: str,
    options: Sequence[object],
    *,
    value: object | None = None,
    label: str | None = None,
    name: str | None = None,
) -> alt.Chart | alt.LayerChart:
    """``chart`` showing one value of ``field`` at a time, picked from a drop-down.

    An explorer that works in the static book: a Vega parameter bound to a ``<select>`` of
    ``options`` (compared as strings) filters the rows; ``value`` (default the first option) is
    shown first. A layered chart is filtered as a whole: its layers must share its data
    (``alt.layer(a, b)`` of charts on one frame does that).
    """
    shown = [str(o) for o in dict.fromkeys(options)]
    if not shown:
        raise PruneAuditError(f"dropdown_view needs at least one option for {field!r}")
    first = str(value) if value is not None else shown[0]
    if first not in shown:
        raise PruneAuditError(f"dropdown_view: value {first!r} is not one of the options {shown}")
    pick = alt.param(
        name=name or f"{''.join(c if c.isalnum() else '_' for c in field)}_picked",
        value=first,
        bind=alt.binding_select(options=shown, name=f"{label or fmt.header(field)} "),
    )
    keep = f"toString(datum[{field!r}]) == {pick.name}"
    if isinstance(chart, alt.LayerChart) and chart.data is alt.Undefined:
        raise PruneAuditError(
            "dropdown_view: the layers of this chart have their own data; build them on one "
            "frame (alt.layer(a, b) with a and b on the same DataFrame) or filter each layer"
        )
    return chart.transform_filter(keep).add_params(pick)
