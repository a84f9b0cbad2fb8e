"""Study pages on a phone (390 x 844) beside a desktop (1400 x 900), in headless Chromium: the
whole answer box on the first screen, the key figure within 1.5 screens, a page at most 1.6 times
as tall as at the desktop width (long secondary sections folded), code that wraps at both widths.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import DESKTOP, PHONE, VIEWPORTS
from .reading_checks import LAYOUT, cut_texts
from .test_browser import _study_paths

pytestmark = pytest.mark.browser

#: The key figure starts within this many phone screens.
KEY_SCREENS = 1.5
#: A page at the phone width is at most this many times its height at the desktop width.
TALLER = 1.6


def phone_problems(path: str, layout: dict) -> list[str]:
    """What a phone reader misses on ``path``'s first screens (``layout``: :data:`LAYOUT` at
    :data:`PHONE`)."""
    height = PHONE[1]
    problems = []
    if layout["answerBottom"] is None or layout["answerBottom"] > height:
        problems.append(f"{path}: the answer box ends at {layout['answerBottom']} px, below the "
                        f"first {height} px")
    if layout["keyTop"] is None or layout["keyTop"] > KEY_SCREENS * height:
        problems.append(f"{path}: the key figure starts at {layout['keyTop']} px, after "
                        f"{KEY_SCREENS} screens ({KEY_SCREENS * height:.0f} px)")
    return problems


def test_phone_problems_name_each_miss() -> None:
    fits = {"answerBottom": 800.0, "keyTop": 1200.0}
    assert phone_problems("a", fits) == []
    assert phone_problems("a", {**fits, "answerBottom": 845.0}) == [
        "a: the answer box ends at 845.0 px, below the first 844 px"]
    assert phone_problems("a", {**fits, "keyTop": 1267.0}) == [
        "a: the key figure starts at 1267.0 px, after 1.5 screens (1266 px)"]


def test_answer_and_key_figure_come_first_on_a_phone(shown, book_html: Path) -> None:
    """At 390 x 844 every study page's whole answer box is on the first screen and its key
    figure starts within 1.5 screens."""
    problems = []
    for path in _study_paths(book_html):
        problems += phone_problems(path, shown(path, PHONE).page.evaluate(LAYOUT))
    assert not problems, "\n".join(problems)


def test_pages_on_a_phone_are_at_most_1_6_times_as_tall(shown, book_html: Path) -> None:
    """Each study page at 390 px is at most 1.6 times as tall as at 1400 px. In the page group,
    whose process has the pages open already: elsewhere it opened every page at both widths
    (about 35 s instead of 12-16 s of a run)."""
    problems = []
    for path in _study_paths(book_html):
        desktop = shown(path, DESKTOP).page.evaluate(LAYOUT)["height"]
        phone = shown(path, PHONE).page.evaluate(LAYOUT)["height"]
        if phone > TALLER * desktop:
            problems.append(f"{path}: {phone} px at 390 px, {phone / desktop:.2f} times its "
                            f"{desktop} px at 1400 px (at most {TALLER})")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_code_wraps(shown, book_html: Path, viewport: tuple[int, int]) -> None:
    """No visible code block of a study page (the "Re-run this page" commands, the provenance
    line) scrolls sideways, and the page itself never does."""
    problems = []
    for path in _study_paths(book_html):
        layout = shown(path, viewport).page.evaluate(LAYOUT)
        if layout["codeScrolls"]:
            problems.append(f"{path} at {viewport[0]} px: {layout['codeScrolls']} code blocks "
                            f"scroll sideways (widest {layout['widestCode']} px)")
        if layout["pageScrolls"]:
            problems.append(f"{path} at {viewport[0]} px: the page scrolls sideways")
    assert not problems, "\n".join(problems)


#: Opens the closed folded sections of a page, marked so that :data:`CLOSE_FOLDS` closes just
#: them again; returns how many the page folds.
OPEN_FOLDS = """() => { const all = [...document.querySelectorAll('details.pa-fold')];
    all.filter(d => !d.open).forEach(d => { d.dataset.paOpened = '1'; d.open = true; });
    return all.length; }"""
CLOSE_FOLDS = """() => document.querySelectorAll('details.pa-fold[data-pa-opened]')
    .forEach(d => { d.open = false; delete d.dataset.paOpened; })"""


def test_folded_sections_open_with_charts_that_fit(shown, book_html: Path) -> None:
    """On a phone, long secondary sections are folded under their heading; opened, every chart
    in them fits the screen (no text cut off) and the page still never scrolls sideways. On the
    page group's open phone pages (opening them again was about 20 s of a run), whose sections it
    closes again after."""
    folded, problems = 0, []
    for path in _study_paths(book_html):
        page = shown(path, PHONE).page
        folded += page.evaluate(OPEN_FOLDS)
        try:
            problems += [f"{path}, opened: {c['chart']}: {c['text']!r} {c['how']}"
                         for c in cut_texts(page)]
            if page.evaluate(LAYOUT)["pageScrolls"]:
                problems.append(f"{path}, opened: the page scrolls sideways")
        finally:
            page.evaluate(CLOSE_FOLDS)
    assert folded, "no section folded on a phone"
    assert not problems, "\n".join(problems)
