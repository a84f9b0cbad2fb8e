"""The one formatter: hand-computed cases, and properties over any float."""

from __future__ import annotations

import math
import re

import altair as alt
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pruneaudit import charts
from pruneaudit.charts import format as fmt

RAW = re.compile(r"\d\.\d{6}|e-0")


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (0.0416666666667, "0.0417"),
        (0.9900990099009901, "0.990"),
        (2.19345, "2.19"),
        (-12.345, "-12.3"),
        (123.456, "123"),
        (12345.6, "12,300"),
        (0.9996, "1.00"),
        (99.96, "100"),
        (170.0, "170"),
        (2193.0, "2,193"),
        (1.79e-04, "1.79 × 10⁻⁴"),
        (-2.5e-07, "-2.5 × 10⁻⁷"),
        (0.0, "0"),
        (float("nan"), "n/a"),
        (None, "n/a"),
    ],
)
def test_number_by_hand(value: float | None, shown: str) -> None:
    assert fmt.number(value) == shown


def test_units_pvalues_and_booleans() -> None:
    assert fmt.percent(0.1234) == "12.3%"
    assert fmt.percent(0.1234, sign=True) == "+12.3%"
    assert fmt.points(-0.05) == "-5.0 pts"
    assert fmt.pvalue(1.79e-4) == "< 0.001"
    assert fmt.pvalue(0.0321) == "0.032"
    assert (fmt.yes_no(True), fmt.yes_no(False), fmt.cell(True)) == ("yes", "no", "yes")
    assert fmt.cell(2193) == "2,193"


def test_raw_floats_inside_text() -> None:
    assert fmt.clean_text("170.000000 / 2193.000000") == "170 / 2,193"
    assert fmt.clean_text("0.000000 / 0.500000") == "0 / 0.500"
    assert fmt.clean_text("w = 0.9900990099009901, p 1.79e-04") == "w = 0.990, p 1.79 × 10⁻⁴"
    # short numbers, versions and dates are left as written
    kept = "v3.2.2 on 2026-11-20, 0.95 and 12"
    assert fmt.clean_text(kept) == kept


def test_headers() -> None:
    assert fmt.header("ci_low") == "95% CI low"
    assert fmt.header("intercept_se") == "intercept SE"
    assert fmt.header("over_index_train") == "over-index (train)"
    assert fmt.header("accuracy_change") == "accuracy change"
    assert fmt.header("top-1 (ours)") == "top-1 (ours)"
    assert fmt.header(3) == "3"


def _significant(text: str) -> int:
    digits = re.sub(r"[^\d.]", "", text.split("×")[0])
    whole, _, frac = digits.partition(".")
    if not frac:
        return len(whole.strip("0")) or 1
    return len((whole + frac).lstrip("0"))


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_no_float_shows_more_than_three_digits(value: float) -> None:
    shown = fmt.number(value)
    assert not RAW.search(shown), shown
    if math.isfinite(value) and not value.is_integer():
        assert _significant(shown) <= 3, (value, shown)
        if fmt.TINY <= abs(value) < fmt.HUGE:  # the value to three digits
            assert float(shown.replace(",", "")) == pytest.approx(value, rel=5e-3)


@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=1, max_size=5))
def test_tables_show_no_raw_float(values: list[float]) -> None:
    frame = pd.DataFrame({"ci_low": values, "p": [abs(v) for v in values]})
    html = charts.table(frame, "cap", pvalue=["p"]).to_html()
    cells = re.sub(r"<style.*?</style>|<[^>]+>", " ", html, flags=re.S)
    assert not RAW.search(cells), cells


def test_table_headers_scroll_box_and_cue() -> None:
    frame = pd.DataFrame({"ci_low": [0.1], "flag": [True], "n": [170.0]})
    html = charts.table(frame, "cap")._repr_html_()
    assert "95% CI low" in html and "ci_low" not in html
    assert ">yes<" in html and ">170<" in html
    assert html.startswith('<div class="pa-table-scroll"') and charts.SCROLL_CUE in html


def test_chart_titles_are_reader_labels() -> None:
    frame = pd.DataFrame({"accuracy_change": [0.1, 0.2], "ci_low": [1.0, 2.0]})
    spec = alt.Chart(frame).mark_point().encode(
        x="accuracy_change:Q", y=alt.Y("ci_low:Q", title="kept"), tooltip=["ci_low:Q"]
    ).to_dict()
    fixed = fmt.readable_titles(spec)
    assert fixed["encoding"]["x"]["title"] == "accuracy change"
    assert fixed["encoding"]["y"]["title"] == "kept"
    assert fixed["encoding"]["tooltip"][0]["title"] == "95% CI low"
    assert "title" not in spec["encoding"]["x"]  # the input is not changed


def test_chart_html_formats_tooltips_and_slider_values() -> None:
    html = charts.chart_html({"mark": "point"})
    assert "formatTooltip: paTooltip" in html and "function paNumber" in html
    assert "input[type=range]" in html
