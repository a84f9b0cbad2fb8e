"""The book's one vocabulary for findings, and the one function that says a finding.

- :data:`VERDICT_SAID`: each verdict (:data:`pruneaudit.audit.rules.VERDICTS`) in plain words.
  The coloured labels' tooltips, the legends, the sentences and the front page all use it.
- :func:`said`: a finding in two sentences, the same in the answer box, the findings table and
  the front page. The first says *what was found*: the verdict word, what it means and our
  number with its unit and interval beside the paper's (at most :data:`SENTENCE_WORDS` words;
  the finding's name is never cut). The second says *how firm*: how often a replication with
  as many units keeps the verdict, in words with its number, and for an open question what
  more data could show ("A replication might find it there."), never a size.
- :func:`chip_html`: a verdict as a coloured label that links to its definition and says its
  meaning as a tooltip (reachable by keyboard: it is a link); :func:`legend_line`: the one-line
  legend under each answer box.
"""

from __future__ import annotations

import html
import math
import re
from dataclasses import dataclass, replace

from pruneaudit.audit import findings as audit_findings
from pruneaudit.audit.findings import Finding
from pruneaudit.audit.rules import (
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
    SIZE_UNCLEAR,
    SMALLER,
)
from pruneaudit.audit.stability import STABLE
from pruneaudit.charts import format as fmt

#: The most words of a finding's first sentence (what was found).
SENTENCE_WORDS = 30
#: Each verdict in plain words (tooltips, legends, sentences).
VERDICT_SAID = {
    REPRODUCED: "the effect is there, as large as the paper's",
    SMALLER: "the effect is there, but smaller than the paper's",
    LARGER: "the effect is there, but larger than the paper's",
    SIZE_UNCLEAR: "the effect is there; its size against the paper's is unclear",
    INCONCLUSIVE: "this build cannot tell whether the effect is there",
    NOT_REPRODUCED: "no effect as large as the paper's",
    OPPOSITE: "the effect goes the other way",
    NOT_TESTABLE: "this build cannot test it",
    NOT_COMPARABLE: "our quantity is not the paper's, so no verdict",
    SAME_DIRECTION: "the effect is on the paper's side, its size not judged on another task",
    EFFECT_ABSENT: "no effect beyond a negligible size",
    PRESENT: "the effect we asked about is there",
    OTHER_SIGN: "the effect we asked about goes the other way",
}
#: What a claim of *no material difference* says of each verdict.
NO_DIFFERENCE_SAID = {
    REPRODUCED: "no material difference, as the paper says",
    NOT_REPRODUCED: "a material difference, unlike the paper",
    INCONCLUSIVE: "this build cannot tell whether the difference is material",
}
#: Verdicts that find the effect there; verdicts that find it absent or reversed.
HOLDS = (REPRODUCED, SMALLER, LARGER, SIZE_UNCLEAR, SAME_DIRECTION, PRESENT)
FAILS = (NOT_REPRODUCED, OPPOSITE, EFFECT_ABSENT, OTHER_SIGN)
#: What a replication might find instead of an open verdict, by the likeliest other verdict.
MIGHT_FIND = {
    **{v: "it there" for v in (REPRODUCED, SAME_DIRECTION, PRESENT)},
    SMALLER: "it there, smaller than the paper's",
    LARGER: "it there, larger than the paper's",
    SIZE_UNCLEAR: "it there",
    NOT_REPRODUCED: "no effect as large as the paper's",
    EFFECT_ABSENT: "it absent",
    OPPOSITE: "it reversed",
    OTHER_SIGN: "it reversed",
    INCONCLUSIVE: "it undecided",
}
#: The methods page's legend of the verdicts, as a study page links it.
LEGEND_PAGE = "../methods_audit.html"
_SCALE = {"percent": (100.0, "%"), "points": (100.0, " pts"), "ratio": (1.0, ""), "": (1.0, "")}


def slug(verdict: str) -> str:
    """``same direction, size can't tell`` -> ``same-direction-size-can-t-tell``."""
    return re.sub(r"[^a-z]+", "-", verdict.lower()).strip("-")


def anchor(verdict: str) -> str:
    """The HTML id of ``verdict``'s definition in the legend (``verdict-reproduced``)."""
    return f"verdict-{slug(verdict)}"


def tooltip(verdict: str) -> str:
    """``inconclusive: this build cannot tell whether the effect is there``."""
    return f"{verdict}: {VERDICT_SAID.get(verdict, verdict)}"


def chip_html(verdict: str, page: str = LEGEND_PAGE) -> str:
    """``verdict`` as a coloured label (class ``pa-verdict``): a link to its definition on
    ``page``, with its meaning as a tooltip."""
    return (f'<a class="pa-verdict pa-v-{slug(verdict)}" href="{page}#{anchor(verdict)}" '
            f'title="{html.escape(tooltip(verdict))}">{html.escape(verdict)}</a>')


def legend_line(page: str = LEGEND_PAGE) -> str:
    """The one-line legend under an answer box (HTML)."""
    return (f"<b>Firm</b>: a replication keeps the verdict at least {STABLE:.0%} of the time; "
            f'<b>borderline</b>: less often. <a href="{page}#verdict-words">Verdict words</a> '
            "(or hover one).")


def _finite(value: float | None) -> bool:
    return value is not None and math.isfinite(value)


def _count_noun(row: Finding) -> str:
    """What a unitless count counts (``number of techniques`` -> ``techniques``), else ``""``."""
    match = re.search(r"\bnumber of ([a-z]+s)\b", row.definition or "")
    return match.group(1) if match and not row.unit else ""


def numbers(row: Finding) -> str:
    """Ours with its unit and interval beside the paper's number: ``ours −3.8 pts [−9.6, 1.9];
    the paper's −36.9 pts``; a count says what it counts (``ours 1.0 techniques``)."""
    from pruneaudit.book.findings_table import shown  # the table's one precision

    s = shown(row)
    noun = _count_noun(row)
    unit = f" {noun}" if noun else s.suffix
    if noun and not s.low and _finite(row.ours) and float(row.ours).is_integer():
        s = replace(s, ours=f"{int(row.ours):,}")
        unit = f" {noun[:-1]}" if int(row.ours) == 1 else unit
    if s.low:
        said = f"ours {s.ours}{unit} [{s.low}, {s.high}]"
    elif _finite(row.ci_low) and row.ci_low == row.ci_high:
        said = f"ours {s.ours}{unit}, every unit the same"
    else:
        said = f"ours {s.ours}{unit}, too few units for an interval"
    if s.paper and row.verdict != NOT_COMPARABLE:
        said += f"; the paper's {s.paper}{unit}"
    return said


def name_of(row: Finding) -> str:
    """The finding's name as a sentence opens with it: ``**D4.5** dense top-1 on PIEs``, up
    to its first `` (`` or, after two words or more, its first ``:`` (the table has the
    rest); never cut inside a phrase."""
    match = re.match(r"(D\d+\.\d+)\s*(.*)", row.finding)
    ident, label = (match.group(1), match.group(2)) if match else ("", row.finding)
    label = re.split(r"\s+\(", label, maxsplit=1)[0]
    head, colon, _ = label.partition(": ")
    label = (head if colon and len(head.split()) >= 2 else label.replace(": ", ", "))
    label = label.strip(" ;,:")
    return f"**{ident}** {label}" if ident else f"**{label}**"


def _is_no_difference(row: Finding) -> bool:
    return not row.direction and bool(row.margin) and row.paper is None


def _meaning(row: Finding) -> str:
    if _is_no_difference(row):
        return NO_DIFFERENCE_SAID.get(row.verdict, VERDICT_SAID[INCONCLUSIVE])
    if row.verdict == REPRODUCED and row.paper is None:
        return "the effect is there, on the paper's side"
    return VERDICT_SAID.get(row.verdict, "")


def _words(text: str) -> int:
    return len(text.split())


def finding_sentence(row: Finding) -> str:
    """What was found (Markdown): ``**D4.5** dense top-1 on PIEs minus on all: *not
    reproduced*, no effect as large as the paper's (ours −3.8 pts [−9.6, 1.9]; the paper's
    −36.9 pts).`` Over :data:`SENTENCE_WORDS` words, the verdict's meaning gives way (its
    label's tooltip says it), never the name."""
    name, verdict = name_of(row), f"*{row.verdict}*"
    if row.verdict == NOT_TESTABLE:
        why = fmt.clean_text(re.split(r"[;(]|:\s", row.basis, maxsplit=1)[0].strip().rstrip("."))
        full = f"{name}: {verdict}, {why}."
        short = f"{name}: {verdict} (the table says why)."
        return full if _words(full) <= SENTENCE_WORDS else short
    if not _finite(row.ours):
        return f"{name}: {verdict}, {VERDICT_SAID[INCONCLUSIVE]} (no estimate)."
    said = numbers(row)
    if _is_no_difference(row) and row.margin:
        scale, suffix = _SCALE[row.unit]
        places = fmt.places(row.ci_low, row.ci_high, scale) if _finite(row.ci_low) else None
        margin = (fmt.fixed(row.margin, places, scale) if places is not None
                  else fmt.number(row.margin * scale))
        said += f"; margin ±{margin}{suffix}"
    full = f"{name}: {verdict}, {_meaning(row)} ({said})."
    return full if _words(full) <= SENTENCE_WORDS else f"{name}: {verdict} ({said})."


def firmness_sentence(row: Finding) -> str:
    """How firm (Markdown): ``A replication keeps this verdict 89% of the time.``; for a
    borderline row the likeliest other verdict; for an open verdict what a replication might
    find (``A replication stays undecided 55% of the time and might find it there.``), never a
    size or *reproduced*. Empty without a stability."""
    if row.verdict in audit_findings.UNTESTED or not _finite(row.stability):
        return ""
    share = f"{row.stability:.0%}"
    other = row.alternative
    if row.verdict in audit_findings.UNDECIDED:
        kept = ("keeps the size unclear" if row.verdict == SIZE_UNCLEAR else "stays undecided")
        if audit_findings.is_borderline(row) and other in MIGHT_FIND:
            return f"A replication {kept} {share} of the time and might find {MIGHT_FIND[other]}."
        return f"A replication {kept} {share} of the time: more units are needed to tell."
    said = f"A replication keeps this verdict {share} of the time"
    if audit_findings.is_borderline(row) and other:
        return f"{said}; otherwise it says *{other}*."
    return f"{said}."


@dataclass(frozen=True)
class Said:
    """A finding in sentences: what was found, then how firm (empty when unknown)."""

    found: str
    firm: str

    @property
    def text(self) -> str:
        """Both sentences, one after the other."""
        return " ".join(filter(None, (self.found, self.firm)))


def said(row: Finding) -> Said:
    """The finding's two sentences (module doc): :func:`finding_sentence` and
    :func:`firmness_sentence`."""
    return Said(finding_sentence(row), firmness_sentence(row))


def stability_words(row: Finding) -> str:
    """The stability in words with its number: ``firm: a replication keeps this 89% of the
    time``, ``borderline: ... 63% ...``, ``stays undecided: ... 97% ...``; ``—`` unknown."""
    if not _finite(row.stability):
        return "\u2014"
    if audit_findings.is_borderline(row):
        word = "borderline"
    else:
        word = "stays undecided" if row.verdict in audit_findings.UNDECIDED else "firm"
    return f"{word}: a replication keeps this {row.stability:.0%} of the time"


def inline_html(text: str, page: str = LEGEND_PAGE) -> str:
    """A sentence's Markdown as HTML: escaped, ``**bold**``, and each ``*verdict*`` as its
    label (:func:`chip_html`); other ``*italic*`` as ``<i>``."""
    escaped = html.escape(text, quote=False)
    bold = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", escaped)
    known = {html.escape(v, quote=False): v for v in VERDICT_SAID}

    def chip(match: re.Match) -> str:
        word = match.group(1)
        return chip_html(known[word], page) if word in known else f"<i>{word}</i>"

    return re.sub(r"\*(.+?)\*", chip, bold)


__all__ = [
    "SENTENCE_WORDS", "VERDICT_SAID", "HOLDS", "FAILS", "Said", "said", "finding_sentence",
    "firmness_sentence", "numbers", "name_of", "stability_words", "chip_html", "tooltip",
    "legend_line", "inline_html", "slug", "anchor",
]
