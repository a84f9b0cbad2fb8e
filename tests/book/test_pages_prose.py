"""The built pages' prose as a reader meets it (no browser: the HTML of the smoke build, or of
``$PRUNEAUDIT_BOOK_HTML``): no sentence over 30 words on the front page and the study pages, at
most five verdict words across them, each with a tooltip, no finding id on the front page's
first screens, and the front page and each study page saying the same of every headline row.
The prose reader itself is checked on hand-written HTML."""

from __future__ import annotations

import html
import re
from pathlib import Path

from pruneaudit.book.report import wording

from .conftest import study_pages
from .prose import MOST_WORDS, long_sentences, page_prose, sentences, verdict_chips, words

#: The front page (``index.html`` only redirects to it).
FRONT = "book/intro.html"


def reader_pages(html: Path) -> list[str]:
    """The front page and every study page."""
    return [FRONT, *study_pages(html)]


def test_the_prose_reader_by_hand() -> None:
    page = ("<main><h1>Title</h1><p>One short sentence. Another one, e.g. this, stays one.</p>"
            "<pre>code is not prose at all</pre><table><tr><td>a cell. Not prose.</td></tr>"
            "</table><ul><li>An item with " + "word " * 31 + "end.</li></ul>"
            '<p>Chip <a class="pa-verdict" title="holds here: shown">holds here</a>.</p>'
            '<p>Math <span class="math">a = b. c</span> stays one word. Next.</p></main>')
    blocks = page_prose(page)
    assert blocks[0] == "Title" and "code" not in " ".join(blocks) and "cell" not in str(blocks)
    assert sentences(blocks[1]) == ["One short sentence.", "Another one, e.g. this, stays one."]
    assert words("A − b [1, 2] — c.") == 5
    assert [words(s) for s in long_sentences(page)] == [35]
    assert verdict_chips(page) == [("holds here", "holds here: shown")]
    assert sentences(page_prose(page)[-1]) == ["Math X stays one word.", "Next."]
    assert verdict_chips('<a class="pa-verdict" title="can\u2019t: x">can\u2019t</a>') == [
        ("can't", "can't: x")]


def test_no_sentence_over_thirty_words(book_html: Path) -> None:
    problems = [f"{path}: {words(s)} words: {s[:140]!r}"
                for path in reader_pages(book_html)
                for s in long_sentences((book_html / path).read_text())]
    assert not problems, f"sentences over {MOST_WORDS} words:\n" + "\n".join(problems)


def test_at_most_five_verdict_words_each_with_a_tooltip(book_html: Path) -> None:
    seen, problems = set(), []
    for path in reader_pages(book_html):
        for word, title in verdict_chips((book_html / path).read_text()):
            seen.add(word)
            if not title.startswith(f"{word}: "):
                problems.append(f"{path}: {word!r} has no tooltip")
    assert seen and seen <= set(wording.WORDS), seen
    assert not problems, "\n".join(problems[:20])


def _front(book_html: Path) -> str:
    return (book_html / FRONT).read_text()


def test_the_front_page_first_screens_hold_no_id_and_no_jargon(book_html: Path) -> None:
    text = " ".join(page_prose(_front(book_html).split("Our own questions")[0]))
    assert not re.search(r"\b[DB]\d+\.\d+\b", text), re.findall(r"\b[DB]\d+\.\d+\b", text)
    overall = _front(book_html).split('class="pa-overall"')[1].split('id="what-each-study')[0]
    said = " ".join(page_prose(f"<main><div {overall}</main>"))
    assert not re.search(r"\bPIEs?\b|\bCIEs?\b|top-1|analogue|beyond", said), said
    assert re.search(r"\d+(\.\d+)?% zero weights", said) and "points" in said
    assert overall.count("<img") >= 2  # real digits from the build


def _plain(text: str) -> str:
    return html.unescape(text).replace("\u2019", "'")


def _chips(fragment: str) -> list[str]:
    return [w for w, _ in verdict_chips(f"<main>{fragment}</main>")]


def test_the_front_page_and_each_study_page_say_the_same(book_html: Path) -> None:
    """Each study's row on the front page and its page's answer box name the same headline
    rows with the same words (both read each row's one verdict)."""
    front = _front(book_html)
    checked = 0
    for path in study_pages(book_html):
        name = Path(path).stem
        if name.startswith("00_"):
            continue
        row = re.search(rf'<tr[^>]*>(?:(?!</tr>).)*{name}\.html(?:(?!</tr>).)*</tr>', front,
                        flags=re.S)
        assert row, f"no front page row links {name}"
        page = (book_html / path).read_text()
        box = page.split('class="admonition tip pa-answer"')[1].split("</details>")[0]
        box_said = box.split("<details")[0]
        assert _chips(row.group(0)) == _chips(box_said), name
        counts = _plain(re.search(r"\d+ paper findings?[^<]*", box).group(0))
        assert counts in _plain(row.group(0)), (name, counts)
        checked += 1
    assert checked >= 1
