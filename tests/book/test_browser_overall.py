"""The book says what it found where it is read (Chromium at 1400×900 and 390×844): the front
page's overall answer on its first screen, verdict labels that explain themselves and link to
their definitions, key figures as thumbnails that open their studies, and numbers a reader can
take at their word (bounded intervals, no scientific notation, no code in prose)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .conftest import DESKTOP, PHONE, VIEWPORTS
from .reading_checks import SCIENTIFIC

#: The overall answer ends within the first screen at 1400×900 (px from the page's top).
FIRST_SCREEN = DESKTOP[1]
#: A thumbnail is readable as a link at 390 px: at least this wide.
THUMB_MIN = 300
#: An interval in points: ``−71 pts [−166, 23]``.
POINTS_INTERVAL = re.compile(r"pts \[([−-]?\d+(?:\.\d+)?), ([−-]?\d+(?:\.\d+)?)\]")


def _studies(book_html: Path) -> list[str]:
    return sorted(p.relative_to(book_html).as_posix()
                  for p in (book_html / "book/studies").glob("0[1-9]*.html"))


def test_the_first_screen_answers_in_plain_words_beside_real_digits(shown) -> None:
    """Three to five plain sentences with numbers and units, at least one real example image,
    no finding id and no jargon, all on the first screen at 1400×900."""
    page = shown("index.html", DESKTOP).page
    box = page.locator(".pa-overall")
    assert box.count() == 1
    bottom = page.evaluate(
        "() => document.querySelector('.pa-overall').getBoundingClientRect().bottom"
        " + window.scrollY")
    assert bottom <= FIRST_SCREEN, f".pa-overall ends at {bottom:.0f} px"
    said = [p for p in box.locator(".pa-overall-said p").all_inner_texts()
            if not p.startswith("Smoke build")]
    assert 3 <= len(said) <= 5, said
    assert sum(bool(re.search(r"\d.*\b(points|%)", s)) for s in said) >= 2, said
    assert not re.search(r"\b[DB]\d+\.\d+|\bPIEs?\b|\bCIEs?\b|top-1", " ".join(said))
    images = page.eval_on_selector_all(
        ".pa-strip img", "es => es.map(e => [e.naturalWidth, e.getBoundingClientRect().top"
        " + window.scrollY])")
    assert images and all(w > 0 for w, _ in images), images
    assert min(top for _, top in images) < FIRST_SCREEN
    citations = page.evaluate(
        "() => [...document.querySelectorAll('main a[href*=\"arxiv.org\"]')]"
        ".map(a => a.getBoundingClientRect().top + window.scrollY)")
    assert citations and min(citations) > bottom


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_every_verdict_label_has_a_tooltip_and_a_link(shown, book_html: Path,
                                                       viewport: tuple[int, int]) -> None:
    """On the front page and every study page, every ``.pa-verdict`` has a title and is
    reachable by keyboard (a link to its definition); each answer box has its legend line."""
    problems = []
    for path in ["index.html", *_studies(book_html)]:
        page = shown(path, viewport).page
        chips = page.eval_on_selector_all(
            ".pa-verdict",
            "es => es.map(e => [e.textContent, e.getAttribute('title') || '', e.tagName,"
            " e.getAttribute('href') || '', e.getAttribute('tabindex')])")
        assert chips, f"{path}: no verdict label"
        for text, title, tag, href, tabindex in chips:
            if not title.replace("'", "\u2019").startswith(text.strip().replace("'", "\u2019")):
                problems.append(f"{path}: {text!r} has no tooltip")
            if not (tag == "A" and ("#verdict-" in href or "#term-" in href)) and tabindex != "0":
                problems.append(f"{path}: {text!r} is not reachable by keyboard")
        if path != "index.html":
            legend = page.locator(".pa-answer .pa-answer-legend")
            if legend.count() != 1:
                problems.append(f"{path}: the answer box has no legend line")
    words = {text.strip() for path in ["index.html", *_studies(book_html)]
             for text in shown(path, viewport).page.eval_on_selector_all(
                 ".pa-verdict", "es => es.map(e => e.textContent)")}
    assert len(words) <= 5, words
    assert not problems, "\n".join(problems[:20])


def test_a_verdict_link_reaches_its_definition(shown, book_html: Path) -> None:
    page = shown(_studies(book_html)[0], DESKTOP).page
    href = page.locator(".pa-answer .pa-verdict").first.get_attribute("href")
    linked, target = href.split("#")
    defined = (book_html / "book/studies" / linked).resolve().read_text()
    assert f'id="{target}"' in defined


def test_key_figures_are_thumbnails_that_open_their_studies(shown) -> None:
    page = shown("index.html", PHONE).page
    thumbs = page.eval_on_selector_all(
        ".pa-thumb img",
        "es => es.map(e => [e.closest('a') ? e.closest('a').getAttribute('href') : '',"
        " e.getBoundingClientRect().width])")
    assert thumbs, "no key figure thumbnail"
    for href, width in thumbs:
        assert href.startswith("studies/") and href.endswith(".html"), href
        assert width >= THUMB_MIN, f"a thumbnail {width:.0f} px wide at 390 px"
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE[0]


#: What the findings say on a page: the front page's overall answer and summary, the answer
#: boxes and the findings tables.
FINDINGS = ".pa-overall, .pa-summary, .pa-answer, .pa-findings"


def test_numbers_stay_in_bounds_without_scientific_notation(shown, book_html: Path) -> None:
    """Where each page says its findings: no scientific notation, no interval in points beyond
    ±100, and the answer boxes' sentences never cut with an ellipsis."""
    problems = []
    for path in ["index.html", *_studies(book_html)]:
        page = shown(path, DESKTOP).page
        text = "\n".join(page.eval_on_selector_all(FINDINGS, "es => es.map(e => e.innerText)"))
        problems += [f"{path}: scientific notation {m.group(0)!r}"
                     for m in SCIENTIFIC.finditer(text)]
        for m in POINTS_INTERVAL.finditer(text):
            low, high = (float(v.replace("−", "-")) for v in m.groups())
            if low < -100 or high > 100:
                problems.append(f"{path}: interval beyond ±100 pts {m.group(0)!r}")
        said = page.eval_on_selector_all(".pa-answer .pa-sentence",
                                         "es => es.map(e => e.innerText)")
        problems += [f"{path}: cut sentence {s!r}" for s in said if "\u2026" in s]
    assert not problems, "\n".join(problems[:20])
