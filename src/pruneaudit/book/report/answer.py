"""A study page's answer box, the first thing under its title: the answer to the page's question
in one or two sentences, from the paper's own rows only.

- :func:`headline_findings`: the rows a page states first: those marked ``headline`` among the
  rows that speak for a paper (``same``/``analogue``,
  :data:`pruneaudit.audit.claims.HEADLINE_KINDS`; never a derived row), else the first
  testable such row.
- :func:`box_sentence`: one headline row in one sentence of at most
  :data:`pruneaudit.book.report.wording.SENTENCE_WORDS` words: its plain name, the reader's
  word, our number with its unit beside the paper's and how often a replication would agree.
- :func:`answer_html`: the box (HTML, class ``pa-answer``): the sentences, the definitions of
  the words they use, and folded details (the ids, the counts, what would make a shaky row
  sure, the build line).
- :func:`firming_cost`: what would make a shaky headline row one a replication agrees with
  at least :data:`pruneaudit.audit.stability.STABLE` of the time, named by its units.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

from pruneaudit.audit import findings as audit_findings
from pruneaudit.audit import rules as audit_rules
from pruneaudit.audit.findings import Finding
from pruneaudit.audit.stability import STABLE
from pruneaudit.book.report import finding_ids, wording
from pruneaudit.book.report.findings_table import firm_text, units_of

#: The box's class (the browser test finds the answer by it).
ANSWER_CLASS = "pa-answer"
#: The class of each headline sentence in the box, and of the line that says what would make
#: a shaky row sure.
SENTENCE_CLASS = "pa-sentence"
COST_CLASS = "pa-cost"
#: The class of the box's legend line (the words it uses, defined).
LEGEND_CLASS = "pa-answer-legend"
#: The most headline sentences a box holds.
MOST_SENTENCES = 2


def headline_findings(rows: Sequence[Finding]) -> list[Finding]:
    """The paper rows (:func:`pruneaudit.book.report.wording.counted`) marked ``headline``; without
    any, the first testable paper row; without one, none."""
    paper = wording.counted(rows)
    marked = [r for r in paper if r.headline]
    if marked:
        return marked[:MOST_SENTENCES]
    testable = [r for r in paper if r.verdict not in audit_rules.UNTESTED]
    return (testable or paper)[:1]


def _agree_clause(row: Finding) -> str:
    said = wording.agree_text(row)
    return f"; {said[0].lower()}{said[1:-1]}" if said else ""


def box_sentence(row: Finding) -> str:
    """One headline row in one sentence (Markdown) of at most
    :data:`pruneaudit.book.report.wording.SENTENCE_WORDS` words: ``**Dense top-1 on PIEs minus on
    all**: *holds here*, larger than the paper's (ours −42.3 pts; the paper's −36.9 pts); a
    replication would agree about 8 times in 10.`` Too long, the size words go, then the
    agreement (it stays in the details), then
    :func:`pruneaudit.book.report.wording.finding_sentence`."""
    name, word = wording.name_of(row), f"*{wording.word_of(row.verdict)}*"
    if row.verdict in audit_rules.UNTESTED or not wording._finite(row.ours):
        return wording.finding_sentence(row)
    extra = wording.detail(row)
    numbers = wording.numbers(row, interval=False)
    agree = _agree_clause(row)
    options = [f"{name}: {word}{', ' + extra if extra else ''} ({numbers}){agree}.",
               f"{name}: {word} ({numbers}){agree}.",
               f"{name}: {word} ({numbers})."]
    for text in options:
        if wording._words(text) <= wording.SENTENCE_WORDS:
            return text
    return wording.finding_sentence(row)


def firming_cost(row: Finding, seconds: float | None, profile: str | None) -> str:
    """For a row a replication would agree with less than :data:`STABLE` of the time, one line
    that names its units (:func:`pruneaudit.book.report.findings_table.units_of`): units computation
    buys (seeds, members): how many would do and what they cost, ``firm_at / units`` times
    the study's measured ``seconds`` (a rough figure); units no budget raises: what would.
    Empty otherwise."""
    said = firm_text(row)
    if not audit_findings.is_borderline(row) or not said:
        return ""
    units = units_of(row)
    if units.bought is not True or row.firm_at is None or not row.units:
        return f"{said[0].upper()}{said[1:]}."
    factor = row.firm_at / row.units
    said = (f"About {row.firm_at:,} {units.word} (this build: {row.units:,}) would make a "
            f"replication agree {round(10 * STABLE)} times in 10: {factor:,.1f}\u00d7 "
            "this study's computation")
    if seconds:
        minutes = factor * seconds / 60
        said += (f", roughly {minutes:,.0f} min on 2 CPU cores ({profile}: "
                 f"{seconds / 60:,.0f} min)")
    return said + "."


def markdown_inline(text: str, page: str = wording.LEGEND_PAGE) -> str:
    """Inline Markdown as HTML (:func:`pruneaudit.book.report.wording.inline_html`)."""
    return wording.inline_html(text, page)


def build_line(info: Mapping[str, object] | None) -> str:
    """Which build computed the page: ``Profile smoke, built 2026-01-01 12:00 UTC.`` (the
    overridden parameters named when there are any), or that it was run by hand."""
    if info is None:
        return "Run by hand, not by the book's runner: no profile (the parameters above)."
    overrides = info.get("overrides") or {}
    changed = f" with {', '.join(map(str, overrides))} overridden" if overrides else ""
    return f"Profile {info['profile']}{changed}, built {info['date']}."


def said_html(row: Finding, page: str = wording.LEGEND_PAGE) -> str:
    """One headline row as the box and the front page say it (class :data:`SENTENCE_CLASS`)."""
    return f'<span class="{SENTENCE_CLASS}">{markdown_inline(box_sentence(row), page)}</span>'


def _details(rows: Sequence[Finding], info: Mapping[str, object] | None,
             seconds: float | None) -> str:
    """The box's folded details: each headline row's id, the counts, the costs, the build."""
    profile = str(info["profile"]) if info else None
    heads = headline_findings(rows)
    ids = [finding_ids.split_id(r.finding)[0] for r in heads]
    linked = ", ".join(f'<a href="{finding_ids.link(i)}">{html.escape(i)}</a>'
                       for i in ids if i)
    costs = list(dict.fromkeys(filter(None, (firming_cost(r, seconds, profile)
                                             for r in heads))))
    parts = [f"<p>Headline rows: {linked}.</p>" if linked else "",
             f"<p><b>All paper findings:</b> {html.escape(wording.counts_text(rows))}</p>",
             *(f'<p class="{COST_CLASS}">{html.escape(c)}</p>' for c in costs),
             f'<p class="pa-answer-build">{html.escape(build_line(info))}</p>']
    return ('<details class="pa-answer-details"><summary>Details</summary>'
            + "".join(parts) + "</details>")


def answer_html(rows: Sequence[Finding], info: Mapping[str, object] | None,
                seconds: float | None = None) -> str:
    """The answer box: each headline row in one sentence (:func:`box_sentence`), the words it
    uses defined (:func:`pruneaudit.book.report.wording.legend_line`), then the folded details."""
    heads = headline_findings(rows)
    said = "".join(f"<p>{said_html(r)}</p>" for r in heads) or (
        "<p>No paper finding on this page.</p>")
    words = [wording.word_of(r.verdict) for r in heads]
    legend = (f'<p class="{LEGEND_CLASS}">{wording.legend_line(words)}</p>' if words else "")
    return (
        f'<div class="admonition tip {ANSWER_CLASS}">'
        '<p class="admonition-title">The answer in short</p>'
        f"{said}{legend}{_details(rows, info, seconds)}</div>"
    )


__all__ = ["headline_findings", "box_sentence", "answer_html", "firming_cost", "build_line",
           "said_html", "markdown_inline", "ANSWER_CLASS", "SENTENCE_CLASS", "COST_CLASS",
           "LEGEND_CLASS"]
