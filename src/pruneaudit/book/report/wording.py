"""The book's one vocabulary for findings, and the one function that says a finding.

- :data:`READER_WORD`: the one table that maps every internal verdict
  (:data:`pruneaudit.audit.rules.VERDICTS`, and ``negligible`` where the rules give it) onto the
  five words a reader meets (:data:`WORDS`): *holds here*, *does not hold here*, *negligible*,
  *can't tell yet*, *not testable here*. :data:`WORD_MEANS` defines each; every chip carries
  its definition as a tooltip and links to the glossary.
- :func:`said`: a finding in two sentences, the same in the answer box, the findings table and
  the front page. The first says *what was found*: the plain name, the reader's word, the size
  against the paper's in words and our number with its unit beside the paper's (at most
  :data:`SENTENCE_WORDS` words). The second says how sure: "A replication would agree about N
  times in 10." (:func:`agree_text`).
- :func:`chip_html`: a verdict as a coloured label; :func:`legend_line`: the definitions of the
  words a box uses, said where they first appear.
- :func:`shown`: a row's numbers to one precision in its unit (:data:`UNIT_SCALE`), which
  the sentences here and the findings table (:mod:`pruneaudit.book.report.findings_table`)
  both show.
- :func:`counts_text`: how many paper findings hold, do not, and so on, in the five words; a
  derived row (:func:`is_derived`) is shown but never counted as a second finding.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from pruneaudit.audit import claims as audit_claims
from pruneaudit.audit import rules as audit_rules
from pruneaudit.audit.findings import Finding
from pruneaudit.audit.rules import (
    ABOUT,
    EFFECT_ABSENT,
    INCONCLUSIVE,
    LARGER,
    NOT_COMPARABLE,
    NOT_REPRODUCED,
    NOT_TESTABLE,
    OPPOSITE,
    OTHER_SIGN,
    PRESENT,
    REPRODUCED,
    SAME_DIRECTION,
    SIZE_LARGER,
    SIZE_SMALLER,
    SIZE_UNCLEAR,
    SMALLER,
)
from pruneaudit.charts import format as fmt

#: The most words of any sentence the book writes about a finding.
SENTENCE_WORDS = 30
#: The five words a reader meets.
HOLDS_HERE = "holds here"
DOES_NOT_HOLD = "does not hold here"
NEGLIGIBLE = "negligible"
CANT_TELL_YET = "can't tell yet"
NOT_TESTABLE_HERE = "not testable here"
WORDS = (HOLDS_HERE, DOES_NOT_HOLD, NEGLIGIBLE, CANT_TELL_YET, NOT_TESTABLE_HERE)
#: Each word defined in one plain sentence (tooltips, the boxes' legends, the glossary).
WORD_MEANS = {
    HOLDS_HERE: "our interval shows the effect, on the side the claim says",
    DOES_NOT_HOLD: "our interval shows no effect as large as the claim's, or one the other way",
    NEGLIGIBLE: "our whole interval lies inside the band of effects too small to matter",
    CANT_TELL_YET: "our interval is too wide to tell; more seeds or data might settle it",
    NOT_TESTABLE_HERE: "our data or our quantity cannot test this claim",
}
#: The internal verdict 'negligible', where the rules define it (negligible first).
_NEGLIGIBLE_VERDICT = getattr(audit_rules, "NEGLIGIBLE", "negligible")
#: The one table: every internal verdict -> the reader's word. A ``beyond`` row's *present* /
#: *other sign* are *holds here* / *does not hold here* for our own question.
READER_WORD = {
    REPRODUCED: HOLDS_HERE,
    SMALLER: HOLDS_HERE,
    LARGER: HOLDS_HERE,
    SIZE_UNCLEAR: HOLDS_HERE,
    SAME_DIRECTION: HOLDS_HERE,
    PRESENT: HOLDS_HERE,
    NOT_REPRODUCED: DOES_NOT_HOLD,
    OPPOSITE: DOES_NOT_HOLD,
    OTHER_SIGN: DOES_NOT_HOLD,
    EFFECT_ABSENT: NEGLIGIBLE,
    _NEGLIGIBLE_VERDICT: NEGLIGIBLE,
    INCONCLUSIVE: CANT_TELL_YET,
    NOT_TESTABLE: NOT_TESTABLE_HERE,
    NOT_COMPARABLE: NOT_TESTABLE_HERE,
}
#: What each internal verdict adds to its word (the chip's tooltip, the row's details).
VERDICT_SAID = {
    REPRODUCED: "as large as the paper's",
    SMALLER: "smaller than the paper's",
    LARGER: "larger than the paper's",
    SIZE_UNCLEAR: "its size against the paper's is unclear",
    INCONCLUSIVE: "the interval holds both no effect and the claim's",
    NOT_REPRODUCED: "no effect as large as the paper's",
    OPPOSITE: "the effect goes the other way",
    NOT_TESTABLE: "this build cannot test it",
    NOT_COMPARABLE: "our quantity is not the paper's",
    SAME_DIRECTION: "on the paper's side; its size is not judged on another task",
    EFFECT_ABSENT: "no effect beyond a negligible size",
    _NEGLIGIBLE_VERDICT: "no effect beyond a negligible size",
    PRESENT: "the effect we asked about is there",
    OTHER_SIGN: "the effect we asked about goes the other way",
}
#: The size against the paper's, in words, for a row that holds with a paper number.
SIZE_SAID = {ABOUT: "as large as the paper's", SIZE_SMALLER: "smaller than the paper's",
             SIZE_LARGER: "larger than the paper's",
             audit_rules.CANT_TELL: "size against the paper's unclear"}
#: Where a chip links: the glossary's entry of its word, from a study page and from the front.
GLOSSARY_PAGE = "../glossary.html"
LEGEND_PAGE = GLOSSARY_PAGE
#: Each unit's scale and suffix: shares shown in %, differences of shares in points.
UNIT_SCALE = {"percent": (100.0, "%"), "points": (100.0, " pts"), "ratio": (1.0, ""),
              "": (1.0, "")}


def word_of(verdict: str) -> str:
    """The reader's word of an internal verdict (:data:`READER_WORD`); a word passes as is."""
    if verdict in WORDS:
        return verdict
    return READER_WORD[verdict]


def slug(verdict: str) -> str:
    """``can't tell yet`` -> ``can-t-tell-yet``."""
    return re.sub(r"[^a-z]+", "-", verdict.lower()).strip("-")


def glossary_anchor(term: str) -> str:
    """The HTML id Sphinx gives a glossary term (``term-can-t-tell-yet``, ``term-PIE``)."""
    return "term-" + re.sub(r"[^a-zA-Z0-9._]+", "-", term).strip("-")


def anchor(verdict: str) -> str:
    """The glossary anchor of ``verdict``'s word."""
    return glossary_anchor(word_of(verdict))


def tooltip(verdict: str) -> str:
    """``holds here: our interval shows the effect ... (smaller than the paper's)``."""
    word = word_of(verdict)
    extra = f" ({VERDICT_SAID[verdict]})" if verdict in VERDICT_SAID else ""
    return f"{word}: {WORD_MEANS[word]}{extra}"


def has_glossary() -> bool:
    """Whether the book has its glossary page (``book/glossary.md``)."""
    from pruneaudit.book.paths import BOOK

    return (BOOK / "glossary.md").is_file()


def definition_link(word: str, page: str = LEGEND_PAGE) -> str:
    """Where ``word`` is defined: its glossary entry on ``page`` (``../glossary.html#term-
    holds-here``); without a glossary page in the book, its entry in the methods page's legend
    (``../methods_audit.html#verdict-holds-here``), so that no link is dead."""
    if page.endswith("glossary.html") and not has_glossary():
        return f"{page.removesuffix('glossary.html')}methods_audit.html#verdict-{slug(word)}"
    return f"{page}#{glossary_anchor(word)}"


def chip_html(verdict: str, page: str = LEGEND_PAGE) -> str:
    """``verdict`` as its reader's word on a coloured label (class ``pa-verdict``): a link to
    the word's definition (:func:`definition_link`), with its meaning as a tooltip."""
    word = word_of(verdict)
    return (f'<a class="pa-verdict pa-v-{slug(word)}" href="{definition_link(word, page)}" '
            f'title="{html.escape(tooltip(verdict))}">{html.escape(word)}</a>')


def legend_line(words: Sequence[str] = WORDS, page: str = LEGEND_PAGE) -> str:
    """Each of ``words`` defined where it first appears (HTML), one short sentence each."""
    said = [f"<b>{html.escape(w.capitalize())}</b>: {html.escape(WORD_MEANS[w])}."
            for w in dict.fromkeys(map(word_of, words))]
    if page.endswith("glossary.html") and not has_glossary():
        return " ".join(said)
    return " ".join(said) + f' <a href="{page}">Glossary</a>.'


def agree_text(row: Finding) -> str:
    """How sure: ``A replication would agree about 7 times in 10.``; empty without a
    stability or for an untested row."""
    if row.verdict in audit_rules.UNTESTED or not _finite(row.stability):
        return ""
    return f"A replication would agree about {round(10 * row.stability)} times in 10."


def is_derived(row: Finding) -> bool:
    """Whether ``row`` follows from other rows (its name or definition says *derived*): shown,
    never counted as a finding of its own."""
    return bool(re.search(r"\bderived\b", f"{row.finding} {row.definition}", re.I))


def is_paper(row: Finding) -> bool:
    """Whether ``row`` speaks for a paper (``same`` or ``analogue``,
    :data:`pruneaudit.audit.claims.HEADLINE_KINDS`; a row written before comparabilities
    existed, with none, counts as the paper's)."""
    return row.comparability in (*audit_claims.HEADLINE_KINDS, "")


def counted(rows: Sequence[Finding]) -> list[Finding]:
    """The paper rows that count as findings: ``same``/``analogue``, derived rows left out."""
    return [r for r in rows if is_paper(r) and not is_derived(r)]


def counts_text(rows: Sequence[Finding]) -> str:
    """``5 paper findings: 2 hold here, 1 negligible, 2 can't tell yet.`` over
    :func:`counted` rows, in the order of :data:`WORDS`."""
    kept = counted(rows)
    noun = "paper finding" if len(kept) == 1 else "paper findings"
    tally = {w: sum(word_of(r.verdict) == w for r in kept) for w in WORDS}
    said = ", ".join(f"{n} {_plural(w, n)}" for w, n in tally.items() if n)
    return f"{len(kept)} {noun}" + (f": {said}." if said else ".")


def _plural(word: str, n: int) -> str:
    if n == 1:
        return word
    return {HOLDS_HERE: "hold here", DOES_NOT_HOLD: "do not hold here"}.get(word, word)


def _finite(value: float | None) -> bool:
    return value is not None and math.isfinite(value)


def has_interval(row: Finding) -> bool:
    """Whether ``row`` has a finite 95% interval of positive width."""
    return _finite(row.ci_low) and _finite(row.ci_high) and row.ci_high > row.ci_low


@dataclass(frozen=True)
class Shown:
    """A row's numbers as text, all in its unit and to one precision: ours, the interval's
    ends (empty without an interval) and the paper's value (empty without one); ``suffix`` is
    the unit's (``%``, `` pts`` or empty)."""

    ours: str
    low: str
    high: str
    paper: str
    suffix: str


def shown(row: Finding) -> Shown:
    """``row``'s numbers to one precision (:func:`pruneaudit.charts.format.same_precision` of
    ours, its interval and the paper's value), in the row's unit."""
    scale, suffix = UNIT_SCALE[row.unit]
    interval = has_interval(row)
    low, high = (row.ci_low, row.ci_high) if interval else (None, None)
    values = [row.ours, low, high, row.paper]
    texts = fmt.same_precision([v if _finite(v) else None for v in values], low, high, scale)
    ours, lo, hi, paper = (t if _finite(v) else "" for t, v in zip(texts, values, strict=True))
    return Shown(ours, lo if interval else "", hi if interval else "", paper, suffix)


#: What a claim of *no material difference* adds to each verdict.
NO_DIFFERENCE_SAID = {
    REPRODUCED: "no material difference, as the paper says",
    NOT_REPRODUCED: "a material difference, unlike the paper",
    INCONCLUSIVE: "the interval reaches past the margin",
}


def _count_noun(row: Finding) -> str:
    """What a unitless count counts (``number of techniques`` -> ``techniques``), else ``""``."""
    match = re.search(r"\bnumber of ([a-z]+s)\b", row.definition or "")
    return match.group(1) if match and not row.unit else ""


def numbers(row: Finding, interval: bool = True) -> str:
    """Ours with its unit (and, with ``interval``, its 95% interval) beside the paper's number:
    ``ours −3.8 pts [−9.6, 1.9]; the paper's −36.9 pts``; a count says what it counts."""
    s = shown(row)
    noun = _count_noun(row)
    unit = f" {noun}" if noun else s.suffix
    if noun and not s.low and _finite(row.ours) and float(row.ours).is_integer():
        s = replace(s, ours=f"{int(row.ours):,}")
        unit = f" {noun[:-1]}" if int(row.ours) == 1 else unit
    if s.low and interval:
        said = f"ours {s.ours}{unit} [{s.low}, {s.high}]"
    elif interval and not s.low:
        same = _finite(row.ci_low) and row.ci_low == row.ci_high
        said = (f"ours {s.ours}{unit}, "
                + ("every unit the same" if same else "too few units for an interval"))
    else:
        said = f"ours {s.ours}{unit}"
    if s.paper and row.verdict != NOT_COMPARABLE:
        said += f"; the paper's {s.paper}{unit}"
    return said


#: Jargon in a finding's name and the plain words the front page says instead.
PLAIN_TERMS = (
    (r"\btop-1\b", "accuracy"), (r"\bPIEs\b", "forgotten digits"),
    (r"\bPIE\b", "forgotten-digit"), (r"\bTaxicab\s+", ""), (r"\bCIEs\b", "hardest digits"),
    (r"\bCIE\b", "hardest-digit"), (r"\bnatural-adversarial\b", "hard-digit"),
    (r"\bPareto set\b", "best trade-off set"), (r"\bhsf4\b", "high-school"),
    (r"\bhsf0\b", "census"),
)


def plain_name(row: Finding, plain: bool = False) -> str:
    """The finding's name without its id, its ``ours:`` mark or its parentheses, capitalised:
    ``D4.5 dense top-1 on PIEs minus on all`` -> ``Dense top-1 on PIEs minus on all``; with
    ``plain``, jargon in plain words (:data:`PLAIN_TERMS`: ``Dense accuracy on forgotten
    digits minus on all``)."""
    from pruneaudit.book.report.finding_ids import split_id

    label = split_id(row.finding)[1]
    if plain:
        for pattern, said in PLAIN_TERMS:
            label = re.sub(pattern, said, label)
    label = re.sub(r"^(ours|trend)\s*:\s*", "", label, flags=re.I)
    label = re.sub(r"\s*\([^)]*\)", "", label)
    head, colon, _ = label.partition(": ")
    label = head if colon and len(head.split()) >= 2 else label.replace(": ", ", ")
    label = label.strip(" ;,:")
    return label[:1].upper() + label[1:]


def name_of(row: Finding, plain: bool = False) -> str:
    """The finding's plain name in bold (Markdown), as a sentence opens with it."""
    return f"**{plain_name(row, plain)}**"


def _is_no_difference(row: Finding) -> bool:
    return not row.direction and bool(row.margin) and row.paper is None


def detail(row: Finding) -> str:
    """What the verdict adds to its word, when it says more: the size against the paper's
    (*holds here*, with a paper number), what a no-difference claim found; else empty."""
    if _is_no_difference(row):
        return NO_DIFFERENCE_SAID.get(row.verdict, "")
    if word_of(row.verdict) == HOLDS_HERE and row.paper is not None and row.size in SIZE_SAID:
        return SIZE_SAID[row.size]
    return ""


def _words(text: str) -> int:
    return len(re.findall(r"\S*[\w\d]\S*", text))


def finding_sentence(row: Finding, plain: bool = False) -> str:
    """What was found (Markdown), at most :data:`SENTENCE_WORDS` words: ``**Dense top-1 on
    PIEs minus on all**: *holds here*, smaller than the paper's (ours −3.8 pts [−9.6, −1.9];
    the paper's −36.9 pts).`` Too long, the size words go, then the interval, then the name
    is cut at a word. With ``plain``, the name's jargon in plain words (:func:`plain_name`)."""
    name, word = name_of(row, plain), f"*{word_of(row.verdict)}*"
    if row.verdict in audit_rules.UNTESTED:
        why = fmt.clean_text(re.split(r"[;(]|:\s", row.basis, maxsplit=1)[0].strip().rstrip("."))
        options = [f"{name}: {word}: {why}.", f"{name}: {word} (the details say why)."]
    elif not _finite(row.ours):
        options = [f"{name}: {word} (no estimate)."]
    else:
        extra = detail(row)
        extra = f", {extra}" if extra else ""
        options = [f"{name}: {word}{extra} ({numbers(row)}).",
                   f"{name}: {word}{extra} ({numbers(row, interval=False)}).",
                   f"{name}: {word} ({numbers(row, interval=False)})."]
    for text in options:
        if _words(text) <= SENTENCE_WORDS:
            return text
    text = options[-1]
    over = _words(text) - SENTENCE_WORDS
    label = plain_name(row, plain).split()
    short = " ".join(label[:max(2, len(label) - over - 1)]) + "\u2026"
    return text.replace(name, f"**{short}**", 1)


@dataclass(frozen=True)
class Said:
    """A finding in sentences: what was found, then how sure (empty when unknown)."""

    found: str
    firm: str

    @property
    def text(self) -> str:
        """Both sentences, one after the other."""
        return " ".join(filter(None, (self.found, self.firm)))


def said(row: Finding) -> Said:
    """The finding's two sentences (module doc): :func:`finding_sentence` and
    :func:`agree_text`."""
    return Said(finding_sentence(row), agree_text(row))


def stability_words(row: Finding) -> str:
    """The stability in words: ``a replication would agree about 9 times in 10``; ``—``
    unknown."""
    if not _finite(row.stability):
        return "\u2014"
    return f"a replication would agree about {round(10 * row.stability)} times in 10"


def inline_html(text: str, page: str = LEGEND_PAGE) -> str:
    """A sentence's Markdown as HTML: escaped, ``**bold**``, and each ``*word*`` of
    :data:`WORDS` (or an internal verdict) as its label (:func:`chip_html`); other
    ``*italic*`` as ``<i>``."""
    escaped = html.escape(text, quote=False)
    bold = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", escaped)
    known = {html.escape(v, quote=False): v for v in (*WORDS, *READER_WORD)}

    def chip(match: re.Match) -> str:
        word = match.group(1)
        return chip_html(known[word], page) if word in known else f"<i>{word}</i>"

    return re.sub(r"\*(.+?)\*", chip, bold)


__all__ = [
    "SENTENCE_WORDS", "WORDS", "WORD_MEANS", "READER_WORD", "VERDICT_SAID",
    "HOLDS_HERE", "DOES_NOT_HOLD", "NEGLIGIBLE", "CANT_TELL_YET", "NOT_TESTABLE_HERE",
    "Said", "said", "finding_sentence", "agree_text", "numbers", "name_of", "plain_name",
    "stability_words", "chip_html", "tooltip", "legend_line", "inline_html", "slug", "anchor",
    "glossary_anchor", "definition_link", "has_glossary", "word_of", "is_derived", "is_paper",
    "counted", "counts_text", "detail", "UNIT_SCALE", "Shown", "shown",
    "has_interval",
]
