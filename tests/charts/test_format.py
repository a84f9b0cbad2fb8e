"""The one formatter: hand-computed cases, and properties over any float."""

from __future__ import annotations

import functools
import math
import re

import altair as alt
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pruneaudit import charts
from pruneaudit.charts import format as fmt

M = fmt.MINUS


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (0.0416666666667, "0.0417"),
        (0.9900990099009901, "0.990"),
        (2.19345, "2.19"),
        (-12.345, "\u221212.3"),
        (-0.0004, "\u22120.000400"),
        (-2193.0, "\u22122,193"),
        (123.456, "123"),
        (12345.6, "12,300"),
        (0.9996, "1.00"),
        (99.96, "100"),
        (170.0, "170"),
        (2193.0, "2,193"),
        (1.79e-04, "0.000179"),  # no power of ten a reader must decode
        (-2.5e-07, "\u22120.000000250"),
        (3e-10, "3 × 10⁻¹⁰"),  # below 10⁻⁹: no page shows one
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
    assert fmt.points(-0.05) == f"{M}5.0 pts" and fmt.points(0.025) == "+2.5 pts"
    assert fmt.points(-0.0001) == "+0.0 pts"  # no minus zero
    assert fmt.percent(-0.1234) == f"{M}12.3%" and fmt.percent(-0.0001) == "0.0%"
    assert fmt.pvalue(1.79e-4) == "< 0.001"
    assert fmt.pvalue(0.0321) == "0.032"
    assert (fmt.yes_no(True), fmt.yes_no(False), fmt.cell(True)) == ("yes", "no", "yes")
    assert fmt.cell(2193) == "2,193"


def test_raw_floats_inside_text() -> None:
    assert fmt.clean_text("170.000000 / 2193.000000") == "170 / 2,193"
    assert fmt.clean_text("0.000000 / 0.500000") == "0 / 0.500"
    assert fmt.clean_text("w = 0.9900990099009901, p 1.79e-04") == "w = 0.990, p 0.000179"
    assert fmt.clean_text("b -0.18270001 and 9.0000") == f"b {M}0.183 and 9"
    assert fmt.clean_text("0.09034 and 0.00012345") == "0.0903 and 0.000123"
    # short numbers, four chosen decimals, versions and dates are left as written
    kept = "v3.2.2 on 2026-11-20, 0.95, \u22120.0075, 0.000179 and 12"
    assert fmt.clean_text(kept) == kept


def test_powers_of_ten_written_plainly() -> None:
    """The same digits, no power of ten; a product of whole numbers is no power of ten."""
    text = "1.11 × 10⁻⁴ [-0.00157, 0.00171], \u22123.87 × 10⁻⁴, 6.55 × 10⁻⁵, 2 × 10³, 10 × 10 cm"
    assert fmt.plain_powers(text) == (
        f"0.000111 [-0.00157, 0.00171], {M}0.000387, 0.0000655, 2,000, 10 × 10 cm")


def test_headers() -> None:
    assert fmt.header("ci_low") == "95% CI low"
    assert fmt.header("intercept_se") == "intercept SE"
    assert fmt.header("over_index_train") == "over-index (train)"
    assert fmt.header("accuracy_change") == "accuracy change"
    assert fmt.header("top-1 (ours)") == "top-1 (ours)"
    assert fmt.header(3) == "3"
    assert fmt.header("rsquared_adj") == "adjusted R²" and fmt.header("rmse") == "RMSE"
    assert fmt.header("sign_E") == "sign of E"


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("np.exp(sparsity)", "e^sparsity"),
        ("np.exp(sparsity):accuracy0", "e^sparsity × accuracy0"),
        ("accuracy0:weight_treatment[T.rewind]", "accuracy0 × weight treatment = rewind"),
        ("a0:C(treatment)[T.rewind]", "a0 × treatment = rewind"),
        ("C(technique)[T.l1_structured]", "technique = l1_structured"),
        ("class_entropy", "class entropy"),
        ("exp_sparsity:a0", "e^sparsity × a0"),
        ("Intercept", "intercept"),
        ("np.log(n)", "log n"),
    ],
)
def test_model_terms_get_reader_names(raw: str, shown: str) -> None:
    assert fmt.term(raw) == shown
    assert "np." not in shown and "C(" not in shown and "[T." not in shown


def test_model_terms_inside_text_get_reader_names() -> None:
    said = fmt.clean_text("coefficient of np.exp(sparsity):accuracy0 in the OLS (P: 0.09034)")
    assert said == "coefficient of e^sparsity × accuracy0 in the OLS (P: 0.0903)"
    assert fmt.clean_text("the term accuracy0:weight_treatment[T.rewind] of P") == (
        "the term accuracy0 × weight treatment = rewind of P")
    assert fmt.clean_text("raw gap -0.123 [-0.2, -0.05], clipped to [-1, 1]") == (
        f"raw gap {M}0.123 [{M}0.2, {M}0.05], clipped to [{M}1, 1]")
    kept = "P: its whole population; e^sparsity; top-1 (%), K-1, +/- 1.96, 2026-11-20"
    assert fmt.clean_text(kept) == kept


def test_places_show_the_half_width_to_two_significant_digits() -> None:
    assert fmt.places(-0.440, -0.362) == 3  # half-width 0.039
    assert fmt.places(-0.440, -0.362, 100) == 1  # 3.9 points
    assert fmt.places(0.0075, 0.0119) == 4  # 0.0022: capped at four decimals
    assert fmt.places(0.0, 40.0) == 0  # 20
    assert fmt.places(math.nan, 1.0) is None and fmt.places(1.0, 1.0) is None
    assert fmt.places(None, None) is None


def test_fixed_and_same_precision_by_hand() -> None:
    assert fmt.fixed(-0.401, 1, 100) == f"{M}40.1"
    assert fmt.fixed(-0.0001, 2) == "0.00"  # no negative zero
    assert fmt.fixed(12345.678, 1) == "12,345.7"
    assert fmt.fixed(None, 2) == "n/a" and fmt.fixed(0.123456, None) == "0.123"
    assert fmt.fixed(0.0, 4) == "0" and fmt.fixed(0.0, 3) == "0.000"
    # the paper's -36.94 points shown as precisely as ours, not more
    assert fmt.same_precision([-0.401, -0.440, -0.362, -0.3694], -0.440, -0.362, 100) == [
        f"{M}40.1", f"{M}44.0", f"{M}36.2", f"{M}36.9"]
    # a small value keeps one significant digit beside a wide interval
    assert fmt.same_precision([5.2, -10.0, 20.0, 0.02], -10.0, 20.0) == [
        "5.20", f"{M}10.00", "20.00", "0.02"]
    # without an interval, three significant digits of the first value
    assert fmt.same_precision([1.0, None, 0.753], None, None) == ["1.00", "n/a", "0.75"]
    # below the last decimal shown: a power of ten rather than a false 0
    assert fmt.same_precision([0.5, 0.00001], 0.0, 1.0) == ["0.50", "0.0000100"]
    assert fmt.same_precision([0.0, 0.0], None, None) == ["0", "0"]


def test_signs() -> None:
    assert [fmt.sign(v) for v in (2.0, -0.5, 0.0, None)] == ["+", M, "0", "n/a"]


def _significant(text: str) -> int:
    digits = re.sub(r"[^\d.]", "", text.split("×")[0])
    whole, _, frac = digits.partition(".")
    if not frac:
        return len(whole.strip("0")) or 1
    return len((whole + frac).lstrip("0"))


def test_raw_float_pattern() -> None:
    """What the tests read as a number nobody formatted (the pattern every reader check uses)."""
    for raw in ["0.9900990099009901", "1.79e-04", "170.000000 / 2193.000000", "0.09034"]:
        assert fmt.RAW_FLOAT.search(raw), raw
    assert not fmt.RAW_FLOAT.search("0.990, 0.000179, 12.3%, 2,193, 0.0417, −0.0075")


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_no_float_shows_more_than_three_digits(value: float) -> None:
    shown = fmt.number(value)
    assert not fmt.RAW_FLOAT.search(shown), shown
    assert "-" not in shown, shown  # a true minus sign, never a hyphen
    if value < 0 and shown not in ("0", "n/a"):
        assert shown.startswith(M)
    if math.isfinite(value) and not value.is_integer():
        assert _significant(shown) <= 3, (value, shown)
        if fmt.TINY <= abs(value) < fmt.HUGE:  # the value to three digits
            back = float(shown.replace(",", "").replace(M, "-"))
            assert back == pytest.approx(value, rel=5e-3)


@settings(deadline=None)  # a loaded machine takes its time; the property is what counts
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=1, max_size=5))
def test_tables_show_no_raw_float(values: list[float]) -> None:
    frame = pd.DataFrame({"ci_low": values, "p": [abs(v) for v in values]})
    html = charts.table(frame, "cap", pvalue=["p"]).to_html()
    cells = re.sub(r"<style.*?</style>|<[^>]+>", " ", html, flags=re.S)
    assert not fmt.RAW_FLOAT.search(cells), cells


def test_tables_write_minus_signs_in_every_kind_of_column() -> None:
    frame = pd.DataFrame({"relative_change_pct": [-12.345], "c": [-0.05], "s": [-0.25],
                          "v": [-0.5]})
    html = charts.table(frame, "cap", decimals=["relative_change_pct"], points=["c"],
                        formats={"s": functools.partial(fmt.percent, sign=True)}).to_html()
    cells = re.sub(r"<style.*?</style>|<[^>]+>", " ", html, flags=re.S)
    for shown in (f"{M}12.35", f"{M}5.0 pts", f"{M}25.0%", f"{M}0.500"):
        assert shown in cells, (shown, cells)
    assert not re.search(r"(?<![\w.])-\d", cells)


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


def _shown_as_decimals(value: float) -> bool:
    return value == 0 or abs(value) >= 10.0**-fmt.MAX_PLACES


@given(st.floats(-1e6, 1e6).filter(_shown_as_decimals), st.floats(1e-4, 1e6),
       st.floats(-1e6, 1e6).filter(_shown_as_decimals), st.sampled_from([1.0, 100.0]))
def test_numbers_beside_an_interval_share_their_decimals(centre, half, paper, scale) -> None:
    low, high = centre - half, centre + half
    if not all(_shown_as_decimals(v) for v in (low, high)):
        return
    shown = fmt.same_precision([centre, low, high, paper], low, high, scale)
    decimals = {len(s.partition(".")[2]) for s, v in zip(shown, [centre, low, high, paper],
                                                       strict=True) if v != 0}
    assert len(decimals) == 1, shown  # one precision for ours, its interval and the paper's
    assert all("-" not in s and not re.search(r"\.\d{5}|e[-+]", s) for s in shown), shown
