"""The built book as a reader meets it, in headless Chromium: no raw float in any visible text
or widget label, no page wider than a 390 px phone screen; on every study page no chart (the key
figure included) shown twice, no visible code and the "Re-run this page" section (the answer on
the first screen and the front page's summary: ``test_browser.py``).

The book is the smoke build of ``conftest.smoke_book``, or the HTML folder named by
``$PRUNEAUDIT_BOOK_HTML``; Chromium is the one ``tests/browsers.py`` finds.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from pruneaudit.charts import format as fmt

from .conftest import DESKTOP, PHONE, study_pages
from .reading_checks import SCIENTIFIC

pytestmark = pytest.mark.browser

#: The text a reader sees: the page's main column less code, scripts and styles.
VISIBLE_TEXT = """() => {
    const main = document.querySelector('main') || document.body;
    const copy = main.cloneNode(true);
    copy.querySelectorAll('.cell_input, pre, code, script, style, mjx-container, .math')
        .forEach(e => e.remove());
    return copy.innerText;
}"""
#: Each widget's label and shown value (Vega bindings: name, select options, slider value).
WIDGET_TEXT = """() => [...document.querySelectorAll('.vega-bind')].map(b => b.innerText)"""


def reader_pages(html: Path) -> list[str]:
    """The front page, the book's own pages and every study page."""
    return ["index.html", *sorted(p.relative_to(html).as_posix()
                                  for p in (html / "book").rglob("*.html"))]


def test_no_raw_float_in_visible_text_or_widgets(shown, book_html: Path) -> None:
    """No raw float and no power of ten in any page's visible text (the Benchmarks appendix's
    archived reports included) or widget."""
    problems = []
    for path in reader_pages(book_html):
        if path.endswith(("genindex.html", "search.html", "api.html")):
            continue
        page = shown(path, DESKTOP).page
        text = page.evaluate(VISIBLE_TEXT)
        widgets = page.evaluate(WIDGET_TEXT)
        for where, said in [("text", text), *(("widget", w) for w in widgets)]:
            for line in said.splitlines():
                if fmt.RAW_FLOAT.search(line) or SCIENTIFIC.search(line):
                    problems.append(f"{path} ({where}): {line.strip()[:120]!r}")
    assert not problems, "raw floats a reader sees:\n" + "\n".join(problems)


def test_no_page_wider_than_a_phone(shown, book_html: Path) -> None:
    problems = []
    for path in reader_pages(book_html):
        page = shown(path, PHONE).page
        width = page.evaluate("() => document.documentElement.scrollWidth")
        if width > PHONE[0]:
            culprits = page.evaluate(
                """() => [...document.querySelectorAll('main *')]
                    .filter(e => e.getBoundingClientRect().right > 392 &&
                                 ![...e.children].some(
                                     c => c.getBoundingClientRect().right > 392))
                    .slice(0, 3).map(e => e.tagName + '.' + e.className)"""
            )
            problems.append(f"{path}: {width} px wide ({culprits})")
    assert not problems, "pages wider than a 390 px screen:\n" + "\n".join(problems)


def test_scientific_pattern() -> None:
    assert SCIENTIFIC.search("1.79 × 10⁻⁴") and SCIENTIFIC.search("4.27e-05")
    assert not SCIENTIFIC.search("top-1 at 10-90%, 2,193 × 10 images")


PARITY_VALUES = [0.0416666666667, 0.9900990099009901, 2.19345, -12.345, 123.456, 12345.6,
                 0.9996, 99.96, 170.0, 2193.0, 1.79e-04, -2.5e-07, 1e-05, 3e-10, 0.0, 0.5, 3e20]


def test_browser_formats_numbers_like_python(browser) -> None:
    """Tooltips and slider values (JS_FORMAT) show what tables (format.number) show."""
    page = browser.new_page()
    try:
        page.set_content(f"<script>{fmt.JS_FORMAT}</script>")
        shown = page.evaluate("vs => vs.map(paNumber)", PARITY_VALUES)
        texts = page.evaluate(
            "() => [paText('0.0416666666667'), paText('w 0.9900990099009901 and 12'), paText(5),"
            " paText('0.09034 or 0.000179')]"
        )
    finally:
        page.close()
    assert shown == [fmt.number(v) for v in PARITY_VALUES]
    assert texts == ["0.0417", "w 0.990 and 12", "5", "0.0903 or 0.000179"]


# ---------------------------------------------------------------------------------------------
# Study pages: answer first, each chart once, no code in the reader's way

#: What a study page shows a reader at 1400 px: the ids of its charts and the visible code inputs
#: (not in a closed <details>, not hidden). Where its answer box sits: test_browser.py.
STUDY_VIEW = """() => ({
    charts: [...document.querySelectorAll('.pruneaudit-chart')].map(e => e.id),
    code: [...document.querySelectorAll('.cell_input')].filter(
        e => !e.closest('details:not([open])') && e.checkVisibility()).map(
        e => e.innerText.trim().split('\\n')[0].slice(0, 80)),
})"""


@pytest.fixture(scope="module")
def study_views(shown, book_html: Path) -> dict[str, dict]:
    """Each study page as :data:`STUDY_VIEW` reads it at 1400 px."""
    views = {path: shown(path, DESKTOP).page.evaluate(STUDY_VIEW)
             for path in study_pages(book_html)}
    assert views, "no study page in this build"
    return views


def repeated_charts(ids: list[str]) -> list[str]:
    """The chart ids whose spec digest (``pa-vega-<digest>-<n>``, pruneaudit.charts) occurs
    more than once: the same chart shown twice."""
    digests = [re.sub(r"-\d+$", "", i) for i in ids]
    return sorted({i for i, d in zip(ids, digests, strict=True) if digests.count(d) > 1})


def test_repeated_chart_pattern() -> None:
    assert repeated_charts(["pa-vega-ab12-1", "pa-vega-cd34-2", "pa-vega-ab12-3"]) == [
        "pa-vega-ab12-1", "pa-vega-ab12-3"]
    assert repeated_charts(["pa-vega-ab12-1", "pa-vega-cd34-2"]) == []


def test_no_chart_shown_twice(study_views: dict[str, dict]) -> None:
    twice = {p: repeated_charts(v["charts"]) for p, v in study_views.items()}
    assert not {p: t for p, t in twice.items() if t}, f"charts shown twice: {twice}"
    assert all(v["charts"] for v in study_views.values()), "a study page shows no chart"


def test_no_visible_code_on_study_pages(study_views: dict[str, dict]) -> None:
    shown = {p: v["code"] for p, v in study_views.items() if v["code"]}
    assert not shown, f"code cells a reader sees (tag them remove-input or hide-cell): {shown}"


def test_study_pages_end_with_how_to_rerun_them(book_html: Path) -> None:
    """Each study page includes its "Re-run this page" fragment: its own command."""
    missing = []
    for path in study_pages(book_html):
        text = html.unescape(re.sub(r"<[^>]+>", "", (book_html / path).read_text()))
        name = Path(path).stem
        if "Re-run this page" not in text or f"pruneaudit run {name}" not in text:
            missing.append(path)
    assert not missing, f"no Re-run section with the page's own command: {missing}"
