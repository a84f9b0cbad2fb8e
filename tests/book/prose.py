"""The prose a reader reads on a built page, cut into sentences, and the verdict words on it.

- :func:`page_prose`: the text of a page's paragraphs, list items and summaries in its main
  column, less code, math, scripts, styles, chart output and table cells (a table's cells are
  not sentences; its folded details are, as ``<details>`` paragraphs);
- :func:`sentences`: that text cut into sentences; :func:`words` counts a sentence's words;
- :func:`verdict_chips`: each verdict label on the page (``.pa-verdict``): its word and its
  tooltip.
"""

from __future__ import annotations

import re

from bs4 import BeautifulSoup

#: The most words of a sentence.
MOST_WORDS = 30
#: What is not prose: code, math, scripts, styles, chart and widget output, tables' cells.
SKIP = ("pre", "code", "script", "style", "svg", "table", "figure", "img", "nav", "form")
SKIP_CLASSES = ("cell_input", "vega-embed", "pruneaudit-chart", "jupyter-widgets",
                "output_png", "bd-toc", "headerlink")
#: Where a sentence ends: ., ! or ? then space and a capital, a quote, a bracket or a digit.
_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[A-Z0-9\"'(*\u2212\u2014])")
#: Abbreviations a sentence does not end at.
_ABBREV = re.compile(r"\b(e\.g|i\.e|et al|vs|cf|Fig|Eq|No|App|Sec|approx)\.$")


def _soup(html: str) -> BeautifulSoup:
    return BeautifulSoup(html, "html.parser")


def _main(soup: BeautifulSoup):
    return soup.find("main") or soup.find("article") or soup.body or soup


def page_prose(html: str) -> list[str]:
    """The prose blocks of a page (module doc), each as one line of text."""
    main = _main(_soup(html))
    for tag in [*main.find_all(["math", "mjx-container"]), *main.find_all(class_="math")]:
        tag.replace_with("X")  # a formula reads as one word
    for tag in main.find_all(SKIP):
        tag.decompose()
    for cls in SKIP_CLASSES:
        for tag in main.find_all(class_=cls):
            tag.decompose()
    blocks = []
    for tag in main.find_all(["p", "li", "summary", "dd", "dt", "h1", "h2", "h3", "h4"]):
        if tag.find(["p", "li", "ul", "ol"]):  # a list item holding paragraphs: read those
            continue
        text = " ".join(tag.get_text(" ").split())
        if text:
            blocks.append(text)
    return blocks


def sentences(block: str) -> list[str]:
    """A block cut into sentences (:data:`_END`, never after an abbreviation)."""
    out, start = [], 0
    for match in _END.finditer(block):
        piece = block[start:match.start()].strip()
        if _ABBREV.search(piece):
            continue
        out.append(piece)
        start = match.end()
    tail = block[start:].strip()
    return [s for s in [*out, tail] if s]


def words(sentence: str) -> int:
    """The words of a sentence: runs with a letter or a digit (a lone dash or bracket is
    not a word)."""
    return sum(bool(re.search(r"[A-Za-z0-9]", w)) for w in sentence.split())


def long_sentences(html: str, most: int = MOST_WORDS) -> list[str]:
    """The sentences of a page over ``most`` words."""
    return [s for b in page_prose(html) for s in sentences(b) if words(s) > most]


def _plain_quotes(text: str) -> str:
    return " ".join(text.replace("\u2019", "'").split())


def verdict_chips(html: str) -> list[tuple[str, str]]:
    """Each verdict label of the page (class ``pa-verdict``): its text and its tooltip, with
    typographic apostrophes read as plain ones (Sphinx's smart quotes turn ``can't`` into
    ``can’t`` in Markdown, never in a notebook's HTML output: one word either way)."""
    main = _main(_soup(html))
    return [(_plain_quotes(t.get_text(" ")), _plain_quotes(t.get("title", "")))
            for t in main.find_all(class_="pa-verdict")]
