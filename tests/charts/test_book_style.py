"""The book's chart style: one colour-blind-safe palette with one colour per meaning, text of at
least 12 px, axis and legend titles in words with units (``tests/chart_style.py`` checks a
spec; the study tests run it on every chart their views build)."""

from __future__ import annotations

import itertools

import altair as alt
import numpy as np
import pandas as pd
import pytest
import vl_convert
from chart_style import check, meanings, problems, seen_distance

from pruneaudit import charts
from pruneaudit.charts import format as fmt
from pruneaudit.charts import palette
from pruneaudit.studies.compression_impact.views import key_title

#: Vega's default categorical scheme, the book's before its palette.
CATEGORY10 = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
              "#7f7f7f", "#bcbd22", "#17becf"]


def _min_distance(colours: list[str], deficiency: str) -> float:
    return min(seen_distance(a, b, deficiency) for a, b in itertools.combinations(colours, 2))


@pytest.mark.parametrize("deficiency", ["deuteranopia", "protanopia", "tritanopia"])
def test_the_ten_class_colours_stay_apart_under_colour_blindness(deficiency: str) -> None:
    assert len(set(palette.CLASSES)) == 10 and set(palette.CLASSES) <= set(palette.PALETTE)
    assert _min_distance(list(palette.CLASSES), deficiency) >= 14
    assert seen_distance(palette.CLASSES[2], palette.CLASSES[4], deficiency) >= 40
    assert len(set(palette.CLASS_SHAPES)) == 10  # and a shape each, never colour alone


def test_the_simulation_tells_a_confusable_palette() -> None:
    # Vega's category10 (the book's classes before): orange and olive (1, 8) nearly merge under
    # deuteranopia, blue and orange (0, 1) under protanopia; red and green differ for most eyes
    assert _min_distance(CATEGORY10, "deuteranopia") < 10
    assert seen_distance(CATEGORY10[1], CATEGORY10[2], None) > 40
    assert seen_distance("#D55E00", "#D55E00", "deuteranopia") == 0


def test_a_value_keeps_its_colour_whatever_else_the_chart_shows() -> None:
    alone = palette.colours("class", ["2", "4"])
    assert alone == {"2": "#56B4E9", "4": "#D55E00"}
    every = palette.colours("class_name", [str(c) for c in range(10)])
    assert every["2"] == alone["2"] and every["4"] == alone["4"]
    assert palette.colours("class", ["digit 4"]) == {"digit 4": "#D55E00"}  # template's names
    assert palette.scale("class", np.array([4, 2])) == {"domain": [2, 4],
                                                        "range": ["#56B4E9", "#D55E00"]}
    assert palette.colours("kind", ["quantization", "pruning"]) == {
        "quantization": palette.KINDS["quantization"], "pruning": palette.KINDS["pruning"]}
    # populations: dense blue, the sparsest pruned level vermillion (the pruning colour)
    levels = palette.colours("level_name", ["pruned 50%", "dense", "pruned 90%"])
    assert levels == {"pruned 50%": "#CC79A7", "dense": "#0072B2", "pruned 90%": "#D55E00"}
    assert palette.colours("variant", ["pruned 90%", "float16"]) == {
        "pruned 90%": "#D55E00", "float16": "#009E73"}
    assert palette.colours("series", ["hsf4", "all"]) == {"hsf4": "#D55E00", "all": "#000000"}
    assert palette.colours("source", ["ours", "P (App. D)"]) == {"ours": "#000000",
                                                                 "P (App. D)": "#E69F00"}
    assert palette.shapes(["3", "0"]) == {"domain": ["3", "0"], "range": ["diamond", "circle"]}
    assert set(palette.VERDICTS.values()) <= set(palette.PALETTE)


def _frames() -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(0)
    curves = pd.DataFrame([{"class": str(c), "sparsity": 1 - 0.8**k,
                            "accuracy": 0.9 - 0.05 * c * k, "unpruned_accuracy": 0.9 - 0.01 * c}
                           for c in range(10) for k in range(4)])
    writers = pd.DataFrame({"writer": range(12), "series": ["hsf0", "hsf1", "hsf4"] * 4,
                            "abs_tilt": rng.random(12), "accuracy": rng.random(12)})
    cands = pd.DataFrame({"sparsity": rng.uniform(0.2, 0.99, 9),
                          "unfairness_max_min": rng.uniform(0.01, 0.3, 9),
                          "technique": ["global", "layer", "random"] * 3,
                          "pareto": [True, False, False] * 3})
    images = pd.DataFrame({"image": [charts.image_data_url(np.zeros((28, 28), np.uint8))] * 4,
                           "caption": ["true 1\nbase 1\ncomp 7"] * 4, "kind": ["a", "b"] * 2})
    return {"curves": curves, "writers": writers, "cands": cands, "images": images}


def _builders() -> list[alt.TopLevelMixin]:
    f = _frames()
    curves, writers = f["curves"], f["writers"]
    return [
        charts.accuracy_curves(curves),
        charts.accuracy_curves(curves[curves["class"].isin(["2", "4"])], slider=None),
        charts.accuracy_curves(curves, color="unpruned_accuracy", slider=None),
        charts.group_scatter(writers, x="abs_tilt", y="accuracy", group="series",
                             tooltip=["writer"], diagonal=True),
        charts.pareto_chart(f["cands"], y="unfairness_max_min"),
        charts.group_histograms(writers, value="abs_tilt", group="series"),
        charts.heatmap(curves, x="class", y="sparsity", color="accuracy"),
        charts.heatmap(curves.assign(accuracy=curves["accuracy"] - 0.5), x="class",
                       y="sparsity", color="accuracy"),
        charts.bar_chart(writers.assign(n=1), x="series", y="n", color="series"),
        charts.image_gallery(f["images"], category="kind", columns=2),
    ]


def test_every_builder_keeps_the_book_style() -> None:
    specs = check(*_builders())
    seen = meanings(specs)
    assert seen[("class", "2")] == {palette.CLASSES[2]}  # in both class charts
    assert seen[("class", "4")] == {palette.CLASSES[4]}
    assert all(len(colours) == 1 for colours in seen.values()), seen
    config = specs[0]["config"]
    assert config["axis"]["labelFontSize"] >= 12 and config["range"]["category"] == list(
        palette.CATEGORIES)


def test_axis_titles_are_words_with_units() -> None:
    spec = charts.group_scatter(_frames()["writers"], x="abs_tilt", y="accuracy",
                                group="series").to_dict()
    layer = spec["layer"][0]["encoding"]
    assert layer["x"]["title"] == "Mean absolute tilt of the writer's digits (columns per row)"
    assert layer["y"]["title"] == "Top-1 accuracy (%)" and layer["y"]["axis"]["format"] == "%"
    assert layer["color"]["title"] == "Writer series"
    assert fmt.axis_title("Change in top-1 accuracy (points)") == (
        "Change in top-1 accuracy (points)")
    assert fmt.axis_title("mean_change") == "mean change"  # no entry: the general rule


def test_the_checker_names_what_breaks_the_style() -> None:
    frame = pd.DataFrame({"abs_tilt": [0.1, 0.2], "hsf4": [1, 2], "fnr": ["a", "b"]})
    bare = (alt.Chart(frame).mark_text(fontSize=10, color="red")
            .encode(x="abs_tilt:Q", y=alt.Y("hsf4:Q", title="hsf4"), color="fnr:N", text="fnr:N"))
    with alt.theme.enable("default"):
        found = problems(bare.to_dict())
    text = "\n".join(found)
    assert "config axis.labelFontSize unset" in text
    assert "fontSize = 10 px" in text
    assert "'red' is not in the palette" in text
    assert "'abs_tilt': no title" in text and "'hsf4' reads as an identifier" in text
    assert "'fnr': no fixed colour per value" in text and "'fnr': no title" in text
    wrong = charts.accuracy_curves(_frames()["curves"], slider=None).to_dict()
    wrong["layer"][0]["encoding"]["color"]["scale"]["range"][2] = palette.CLASSES[4]
    assert any("are not the palette's" in p for p in problems(wrong))


def test_the_study_4_key_title_states_its_numbers() -> None:
    # top-1 changes of -22.3 and +0.1 points; PIEs 30% and 5% of the test digits
    table = pd.DataFrame({"top1_change": [-0.223, 0.001], "pie_share": [0.3, 0.05]})
    assert key_title(table) == (
        "Top-1 accuracy changes by \u221222.3 to 0.1 points; 5.0 to 30.0% of test digits are PIEs "
        "(compressed and dense populations disagree)")
    one = pd.DataFrame({"top1_change": [-0.004], "pie_share": [0.021]})
    assert key_title(one).startswith("Top-1 accuracy changes by \u22120.4 points; 2.1% of")


def test_writer_series_legends_say_who_wrote_them() -> None:
    frame = _frames()["writers"]
    spec = charts.group_scatter(frame, x="abs_tilt", y="accuracy", group="series").to_dict()
    expr = spec["layer"][0]["encoding"]["color"]["legend"]["labelExpr"]
    svg = vl_convert.vegalite_to_svg(spec, vl_version=charts.vega_lite_version())
    assert "hsf4 (high-school students)" in svg and "hsf0 (NIST employees)" in svg
    assert expr.endswith(": replace(datum.label, /_/g, ' ')")  # others: their own name
    cands = charts.pareto_chart(_frames()["cands"].assign(technique="l2_structured"),
                                y="unfairness_max_min")
    assert "l2 structured" in vl_convert.vegalite_to_svg(cands.to_dict(),
                                                         vl_version=charts.vega_lite_version())
