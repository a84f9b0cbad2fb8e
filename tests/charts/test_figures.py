"""Chart builders (valid Vega-Lite, selections computed by Vega itself) and offline rendering."""

from __future__ import annotations

import base64
import io
import re

import altair as alt
import numpy as np
import pandas as pd
import PIL.Image
import pytest
import vl_convert

from pruneaudit import charts
from pruneaudit.charts import figures
from pruneaudit.errors import PruneAuditError
from pruneaudit.runtime import KERNEL_ENV, KernelRecord

STATIC = KernelRecord(static=True).environ()[KERNEL_ENV]

RNG = np.random.default_rng(0)


def _curves() -> pd.DataFrame:
    rows = [
        {"class": f"c{c}", "sparsity": 1 - 0.8**k, "accuracy": 0.9 - 0.05 * c * k, "a0": 0.9}
        for c in range(3)
        for k in range(6)
    ]
    return pd.DataFrame(rows)


def _candidates(n: int = 15) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "sparsity": RNG.uniform(0.2, 0.99, n),
            "unfairness": RNG.uniform(0.01, 0.3, n),
            "technique": [f"t{i}" for i in range(n)],
            "pareto": RNG.random(n) < 0.4,
        }
    )


def _selected_labels(chart: alt.TopLevelMixin) -> list[str]:
    """aria-labels of the marks in the chart's 'selected' layer, rendered by Vega (vl-convert)."""
    svg = vl_convert.vegalite_to_svg(chart.to_dict(), vl_version=charts.vega_lite_version())
    group = re.search(r'<g class="[^"]*selected_marks"[^>]*>(.*?)</g>', svg, re.S)
    assert group, "no 'selected' layer in the rendered chart"
    return re.findall(r'aria-label="([^"]*)"', group.group(1))


def _field(label: str, name: str) -> str:
    return re.search(rf"{name}: ([^;]*)", label).group(1)


def test_every_builder_gives_a_valid_spec() -> None:
    df = _curves()
    scatter = pd.DataFrame(
        {"writer": range(20), "series": ["hsf0", "hsf4"] * 10, "u": RNG.random(20)}
    ).assign(p=lambda d: d.u * 0.9)
    images = pd.DataFrame(
        {
            "image": [charts.image_data_url(np.zeros((28, 28), np.uint8))] * 6,
            "caption": ["true 1\nbaseline 1\ncompressed 7"] * 6,
            "kind": ["a", "b"] * 3,
        }
    )
    built = [
        charts.accuracy_curves(df),
        charts.accuracy_curves(df, color="a0", slider=None),
        charts.group_scatter(
            scatter, x="u", y="p", group="series", tooltip=["writer"], diagonal=True
        ),
        charts.pareto_chart(_candidates()),
        charts.group_histograms(scatter, value="u", group="series"),
        charts.heatmap(scatter.assign(k=scatter.writer % 4), x="k", y="series", color="p"),
        charts.bar_chart(scatter, x="series", y="p", color="writer"),
        charts.image_gallery(images, category="kind", columns=2),
    ]
    for chart in built:
        spec = chart.to_dict(validate=True)
        assert spec["$schema"].endswith(f"{alt.SCHEMA_VERSION}.json")
        vl_convert.vegalite_to_vega(spec, vl_version=charts.vega_lite_version())


@pytest.mark.parametrize("weight", [0.0, 0.3, 100 / 101, 1.0])
def test_pareto_selected_point_is_the_value_argmax(weight: float) -> None:
    cands = _candidates()
    value = weight * -cands.unfairness + (1 - weight) * cands.sparsity
    best = cands.loc[value.idxmax(), "technique"]
    labels = _selected_labels(charts.pareto_chart(cands, weight=weight))
    assert [_field(label, "technique") for label in labels] == [best]


def test_curves_slider_marks_nearest_point_per_series() -> None:
    df = _curves()
    at = 0.5
    labels = _selected_labels(charts.accuracy_curves(df, slider=charts.Slider(at)))
    nearest = df.sparsity.iloc[(df.sparsity - at).abs().argmin()]
    assert sorted(_field(label, "class") for label in labels) == ["c0", "c1", "c2"]
    assert {float(_field(label, "sparsity")) for label in labels} == {round(nearest, 3)}


def test_missing_column_is_named() -> None:
    with pytest.raises(PruneAuditError, match="lacks column.*'writer'"):
        charts.group_scatter(_curves(), x="sparsity", y="accuracy", group="writer")


def test_image_data_url_round_trip() -> None:
    grey = RNG.integers(0, 256, (28, 28), dtype=np.uint8)
    colour = RNG.integers(0, 256, (3, 32, 32), dtype=np.uint8)
    for image, shape in [(grey, (56, 56)), (grey[None], (56, 56)), (colour, (64, 64, 3))]:
        url = charts.image_data_url(image)
        assert url.startswith("data:image/png;base64,")
        decoded = np.asarray(PIL.Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))))
        assert decoded.shape == shape
        first = image if image.ndim == 2 else image[0]
        assert (
            decoded[::2, ::2, ...][..., 0] if decoded.ndim == 3 else decoded[::2, ::2]
        ).tolist() == (first.tolist())
    with pytest.raises(PruneAuditError, match="uint8"):
        charts.image_data_url(np.zeros((28, 28)))


def test_static_renderer_has_no_bundle_and_no_remote_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KERNEL_ENV, STATIC)
    chart = charts.accuracy_curves(_curves(), title="</script><b>")
    bundle = charts.OfflineRenderer()(chart.to_dict())
    html = bundle["text/html"]
    assert len(html) < 100_000 and "vegaEmbed" in html
    # The $schema URL only names the version; nothing fetches it (see test_browser.py).
    urls = set(re.findall(r"https?://[^\"' ]+", html))
    assert urls == {f"https://vega.github.io/schema/vega-lite/{alt.SCHEMA_VERSION}.json"}
    assert "</script><b>" not in html  # escaped inside the script element
    assert html.count("<script>") == 1


def test_live_renderer_sends_the_bundle_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(KERNEL_ENV, raising=False)
    monkeypatch.setattr(figures, "vega_bundle", lambda: "/*BUNDLE*/")
    charts.enable_offline()
    spec = charts.accuracy_curves(_curves()).to_dict()
    first, second = (alt.renderers.get()(spec)["text/html"] for _ in range(2))
    assert "/*BUNDLE*/" in first and "/*BUNDLE*/" not in second
    ids = [re.search(r'id="(pa-vega-[^"]+)"', html).group(1) for html in (first, second)]
    assert ids[0] != ids[1]  # one spec shown twice: two elements
    charts.enable_offline()
    assert "/*BUNDLE*/" in alt.renderers.get()(spec)["text/html"]
    assert alt.renderers.active == charts.RENDERER


def test_vega_bundle_defines_globals() -> None:
    code = charts.vega_bundle()
    assert "window.vegaEmbed=" in code.replace(" ", "")
    assert code.lstrip().startswith("(function")
    assert set(charts.bundle_versions()) == {"vega", "vega-lite", "vega-embed", "vl-convert"}


def test_show_widget_static_shows_note_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """In the static book only the note, and the widget is never built; live, the widget."""
    shown, built = [], []

    def make() -> str:
        built.append(1)
        return "WIDGET"

    monkeypatch.setattr("IPython.display.display", lambda obj: shown.append(obj))
    monkeypatch.setenv(KERNEL_ENV, STATIC)
    charts.show_widget(make, note="pick a level")
    charts.show_widget(make)
    assert len(shown) == 1 and "pick a level" in shown[0].data and built == []
    monkeypatch.setenv(KERNEL_ENV, KernelRecord(static=False).environ()[KERNEL_ENV])
    charts.show_widget(make)
    assert shown[-1] == "WIDGET" and built == [1]


def test_heatmap_scale_is_centred_on_zero_only_for_signed_values():
    grid = pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 1, 0, 1], "v": [-2.0, 1.0, 3.0, 0.5]})
    signed = charts.heatmap(grid, x="a", y="b", color="v").to_dict()["encoding"]["color"]["scale"]
    assert signed == {"scheme": "blueorange", "domainMid": 0}
    plain = charts.heatmap(grid.assign(v=grid.v.abs()), x="a", y="b", color="v").to_dict()
    assert plain["encoding"]["color"]["scale"] == {"scheme": "viridis"}


def _with_value(spec: dict, name: str, value: object) -> dict:
    """``spec`` with parameter ``name`` (at the top or in a layer) started at ``value``."""
    layers = [spec, *spec.get("layer", [])]
    for params in [layer.get("params", []) for layer in layers]:
        for param in params:
            if param["name"] == name:
                param["value"] = value
    return spec


def _marks(spec: dict) -> int:
    svg = vl_convert.vegalite_to_svg(spec, vl_version=charts.vega_lite_version())
    return len(re.findall(r'<path[^>]*aria-roledescription="circle"', svg)) + len(
        re.findall(r'aria-roledescription="(?:bar|line mark)"', svg)
    )


def test_dropdown_view_binds_a_select_and_filters() -> None:
    df = pd.DataFrame({"writer": [1] * 3 + [2] * 5, "x": range(8), "y": range(8)})
    chart = charts.dropdown_view(
        alt.Chart(df).mark_circle().encode(x="x:Q", y="y:Q"), "writer", [1, 2], label="writer"
    )
    spec = chart.to_dict()
    (param,) = spec["params"]
    assert param["bind"] == {"input": "select", "options": ["1", "2"], "name": "writer "}
    assert param["value"] == "1"
    # Vega itself filters: the drawing shows 3 points for writer 1, 5 for writer 2.
    assert _marks(spec) == 3
    assert _marks(_with_value(spec, param["name"], "2")) == 5


def test_dropdown_view_filters_every_layer() -> None:
    df = pd.DataFrame({"g": list("aabbb"), "x": range(5), "y": range(5)})
    base = alt.Chart(df).encode(x="x:Q", y="y:Q")
    chart = charts.dropdown_view(alt.layer(base.mark_circle(), base.mark_line()), "g", "ab")
    spec = chart.to_dict()
    name = next(p["name"] for p in spec.get("params", []))
    assert _marks(spec) == 2 + 1
    assert _marks(_with_value(spec, name, "b")) == 3 + 1


def test_dropdown_view_bad_input() -> None:
    chart = alt.Chart(pd.DataFrame({"g": ["a"]})).mark_point()
    with pytest.raises(PruneAuditError, match="at least one option"):
        charts.dropdown_view(chart, "g", [])
    with pytest.raises(PruneAuditError, match="'z' is not one of the options"):
        charts.dropdown_view(chart, "g", ["a"], value="z")
    other = alt.Chart(pd.DataFrame({"g": ["b"]})).mark_point()
    with pytest.raises(PruneAuditError, match="have their own data"):
        charts.dropdown_view(alt.layer(chart, other), "g", ["a"])
