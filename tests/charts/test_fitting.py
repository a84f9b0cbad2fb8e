"""Key figures and legend highlighting in the chart specs; the fitting script in the chart HTML
(its behaviour in a browser: ``tests/book/test_browser_charts.py``)."""

from __future__ import annotations

import altair as alt
import pandas as pd

from pruneaudit import charts
from pruneaudit.charts import fitting

FRAME = pd.DataFrame({"x": [0.0, 1.0, 0.0, 1.0], "y": [1.0, 2.0, 2.0, 3.0], "g": list("aabb")})


def _params(spec: dict) -> list[dict]:
    found = list(spec.get("params", []))
    for layer in spec.get("layer", []):
        found += _params(layer)
    return found


def test_key_chart_marks_the_div_and_only_it() -> None:
    chart = alt.Chart(FRAME).mark_point().encode(x="x", y="y")
    key = charts.chart_html(charts.key_chart(chart).to_dict())
    plain = charts.chart_html(chart.to_dict())
    assert 'class="pruneaudit-chart pa-key-chart"' in key
    assert "pa-key-chart" not in plain.split("</div>")[0]


def test_legend_pick_binds_a_selection_and_fades_the_rest() -> None:
    pick, opacity = charts.legend_pick("g", on=0.8, off=0.1)
    spec = alt.Chart(FRAME).mark_point().add_params(pick).encode(
        x="x", y="y", color="g:N", opacity=opacity).to_dict()
    (param,) = _params(spec)
    assert param["bind"] == "legend" and param["select"]["fields"] == ["g"]
    assert spec["encoding"]["opacity"]["condition"] == {"param": param["name"], "value": 0.8}
    assert spec["encoding"]["opacity"]["value"] == 0.1


def test_builders_with_a_colour_legend_bind_it() -> None:
    """Bars by colour and the Pareto chart's candidates highlight the clicked legend entry."""
    bars = charts.bar_chart(FRAME.assign(k=list("pqpq")), x="k", y="y", color="g").to_dict()
    frame = FRAME.assign(pareto=[True, False, True, False])
    pareto = charts.pareto_chart(frame, x="x", y="y", label="g", frontier="pareto").to_dict()
    for spec in (bars, pareto):
        assert any(p.get("bind") == "legend" for p in _params(spec))


def test_chart_html_carries_the_fitting_script() -> None:
    html = charts.chart_html(alt.Chart(FRAME).mark_point().encode(x="x", y="y").to_dict())
    for name in ("function paCutOff", "function paRefit", "paCutOff(el)"):
        assert name in html
    assert "AXIS_ROOM" not in fitting.FIT_JS and str(fitting.AXIS_ROOM) in fitting.FIT_JS
