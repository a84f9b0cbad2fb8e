"""Charts of the built book in headless Chromium, at a desktop and a phone width: no text of a
chart lies past its box or is shortened, key figures fit their box, every legend of named series
responds to a click, axis titles are in reader words (one title, no joined field names)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .conftest import DESKTOP, VIEWPORTS, study_pages
from .reading_checks import CUT_TEXTS, LAYOUT, SLACK, cut_texts, legends

pytestmark = pytest.mark.browser

#: Legend labels of a quantity (a colour scale of numbers): nothing to pick, nothing promised.
NUMBER = re.compile(r"^[−-]?\d+(?:[.,]\d+)?\s?%?$")
#: Axis titles: Vega-Lite joins the titles of every field on one axis with ", "; raw field names
#: keep their underscores.
AXIS_TITLES = """() => [...document.querySelectorAll('main .pruneaudit-chart')].flatMap(
  (chart, i) => [...chart.querySelectorAll('svg.marks .role-axis-title text')].map(
    t => ({chart: `chart ${i + 1} (${chart.id})`, text: t.textContent})))"""
#: The legend labels of each chart, in order: ``[[labels of chart 1], ...]``.
LEGEND_LABELS = """() => [...document.querySelectorAll('main .pruneaudit-chart')].map(chart =>
  [...chart.querySelectorAll('svg.marks .role-legend-label text')].map(t => t.textContent))"""


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_no_chart_text_is_cut_off(shown, book_html: Path, viewport: tuple[int, int]) -> None:
    """On every study page every SVG text of every chart (titles, axis titles and labels, legend
    entries) lies inside its chart's box and is not shortened with an ellipsis."""
    problems = []
    for path in study_pages(book_html):
        problems += [
            f"{path} at {viewport[0]} px, {c['chart']}: {c['text']!r} {c['how']}"
            for c in cut_texts(shown(path, viewport).page)
        ]
    assert not problems, "chart texts cut off:\n" + "\n".join(problems)


def test_key_figures_fit_their_box(shown, book_html: Path) -> None:
    """Every study page marks one chart as its key figure, drawn no wider than its box."""
    problems = []
    for path in study_pages(book_html):
        page = shown(path, DESKTOP).page
        cut_texts(page)  # drawn again if it needed it
        layout = page.evaluate(LAYOUT)
        if not layout["keyMarked"]:
            problems.append(f"{path}: no key figure (class pa-key-chart)")
        elif layout["keyWidth"] > layout["keyBox"] + 1:
            problems.append(f"{path}: key figure {layout['keyWidth']:.0f} px in "
                            f"{layout['keyBox']} px")
    assert not problems, "\n".join(problems)


def test_legends_of_named_series_respond(shown, book_html: Path) -> None:
    """The book promises "click a legend entry to highlight" a series: on every study page,
    clicking the first entry of each legend of named series (classes, writers, techniques,
    populations) changes the drawing; legends of a number scale are not promised."""
    dead, seen = [], 0
    for path in study_pages(book_html):
        page = shown(path, DESKTOP).page
        numbers = [all(NUMBER.match(label.strip()) for label in labels)
                   for labels in page.evaluate(LEGEND_LABELS)]
        # a number scale's legend is not clicked
        for legend in legends(page, lambda legend, numbers=numbers: not numbers[legend["index"]]):
            seen += 1
            if not legend["changes"]:
                dead.append(f"{path}, {legend['chart']}: legend {legend['title']!r}")
    assert seen, "no legend of named series in this build"
    assert not dead, "clicking these legends changes nothing:\n" + "\n".join(dead)


def test_axis_titles_in_reader_words(shown, book_html: Path) -> None:
    """No axis title joins several fields' titles (``x, 95% CI low, 95% CI high``) or shows a
    raw column name (``ci_low``)."""
    problems = []
    for path in study_pages(book_html):
        for title in shown(path, DESKTOP).page.evaluate(AXIS_TITLES):
            if ", " in title["text"] or "_" in title["text"]:
                problems.append(f"{path}, {title['chart']}: axis title {title['text']!r}")
    assert not problems, "\n".join(problems)


CUT_PAGE = """<main><div class="pruneaudit-chart" id="c" style="width: 100px; overflow-x: auto">
<svg class="marks" width="160" height="40"><g class="role-title">
<text x="5" y="15">inside</text><text x="90" y="30">past the box</text>
<text x="5" y="38">shortened…</text></g></svg></div></main>"""


def test_cut_texts_names_each_cut_text(browser) -> None:
    """The check itself: a text past the chart's box and a shortened one are named; a text
    inside is not."""
    page = browser.new_page()
    try:
        page.set_content(CUT_PAGE)
        found = {c["text"]: c for c in page.evaluate(CUT_TEXTS, SLACK)}
        assert set(found) == {"past the box", "shortened…"}
        assert found["past the box"]["how"].startswith("past its box right by")
        assert found["past the box"]["chart"] == "chart 1 (c)"
        assert found["shortened…"]["how"] == "shortened"
    finally:
        page.close()


def test_a_chart_too_wide_for_its_box_is_drawn_again_to_fit(browser) -> None:
    """A chart drawn wider than its 360 px box (a long title, long legend labels) is drawn again:
    legend below, title in lines, plot fitted; then no text of it is cut off."""
    import altair as alt
    import pandas as pd

    from pruneaudit import charts

    frame = pd.DataFrame({"x": [0, 1, 2, 3], "y": [1, 3, 2, 4],
                          "series": [f"random_structured / finetune / x{i}" for i in range(4)]})
    chart = alt.Chart(frame).mark_point().encode(x="x:Q", y="y:Q", color="series:N").properties(
        width=520, title="A title much longer than a phone is wide, which must break into lines")
    css = (Path(__file__).resolve().parents[2] / "book/_static/reader.css").read_text()
    page = browser.new_page()
    try:
        # The bundle comes before the chart's script, as in the book: a chart that polls for a
        # bundle added later gives up after 10 s, which a busy CI machine can exceed.
        html = charts.chart_html(chart.to_dict(), bundle=charts.vega_bundle())
        page.set_content(f"<!DOCTYPE html><style>{css} main {{ width: 360px; }}</style>"
                         f"<main>{html}</main>")
        page.wait_for_selector(".pruneaudit-chart svg.marks", timeout=15_000)
        assert cut_texts(page) == []
        assert page.evaluate("() => document.querySelector('svg.marks').getBoundingClientRect()"
                             ".width") <= 361
    finally:
        page.close()


def test_side_by_side_views_and_facets_stack_in_a_narrow_box(browser) -> None:
    """In a 360 px box (a phone), views side by side and facets in columns are drawn one under
    the other, each no wider than the box, before the first drawing (``paFitBox``)."""
    import altair as alt
    import pandas as pd

    from pruneaudit import charts

    frame = pd.DataFrame({"x": [0, 1, 2, 3], "y": [1, 3, 2, 4], "g": ["a", "a", "b", "b"]})
    base = alt.Chart(frame).mark_line().encode(x="x:Q", y="y:Q")
    specs = [alt.hconcat(base.properties(width=300), base.properties(width=300)).to_dict(),
             base.encode(column="g:N").properties(width=300).to_dict()]
    css = (Path(__file__).resolve().parents[2] / "book/_static/reader.css").read_text()
    page = browser.new_page()
    try:
        html = "".join(charts.chart_html(spec, bundle=charts.vega_bundle() if not i else "")
                       for i, spec in enumerate(specs))
        page.set_content(f"<!DOCTYPE html><style>{css} main {{ width: 360px; }}</style>"
                         f"<main>{html}</main>")
        page.wait_for_function("document.querySelectorAll('svg.marks').length === 2",
                               timeout=15_000)
        boxes = page.evaluate("() => [...document.querySelectorAll('svg.marks')].map(s => {"
                              "const r = s.getBoundingClientRect(); return [r.width, r.height]; })")
        assert all(width <= 361 for width, _ in boxes), boxes
        assert all(height > width for width, height in boxes), boxes  # stacked: taller than wide
        assert cut_texts(page) == []
    finally:
        page.close()

