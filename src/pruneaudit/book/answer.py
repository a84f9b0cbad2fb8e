"""A study page's answer box, the first thing under its title: the headline findings in plain
words with their numbers, the verdict counts and the build that computed them.

- :func:`headline_findings`: the rows a page states first (``headline=True``), else its first
  testable row.
- :func:`answer_html`: the box (HTML, an admonition the book's theme styles, class
  ``pa-answer``), from the rows and the build's profile and date
  (:func:`pruneaudit.book.notebook.build_info`);
- :func:`firming_cost`: what would make a borderline headline row firm, named by the units it
  rests on: more of them and their cost when computation buys them (seeds, members), or that no
  budget raises them and what would (a task's classes, (dataset, class) clusters).
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence

from pruneaudit.audit import findings as audit_findings
from pruneaudit.audit import rules as audit_rules
from pruneaudit.audit.findings import Finding
from pruneaudit.book.findings_table import firm_text, sentence, units_of

#: The box's class (the browser test finds the answer by it).
ANSWER_CLASS = "pa-answer"
#: The class of each headline sentence in the box, and of the line under it that says what
#: would make a borderline row firm.
SENTENCE_CLASS = "pa-sentence"
COST_CLASS = "pa-cost"


def headline_findings(rows: Sequence[Finding]) -> list[Finding]:
    """The rows marked ``headline``; without any, the first testable row; without a testable
    row, the first row (none for no rows)."""
    marked = [r for r in rows if r.headline]
    if marked:
        return marked
    testable = [r for r in rows if r.verdict != audit_rules.NOT_TESTABLE]
    return (testable or list(rows))[:1]


def firming_cost(row: Finding, seconds: float | None, profile: str | None) -> str:
    """For a borderline row, one line that names its units
    (:func:`pruneaudit.book.findings_table.units_of`). Units that computation buys (seeds,
    members, models): how many would make it firm and what they cost,
    ``firm_at / units`` times the study's measured time on the profile (``seconds``, from the
    profile's ``measured`` section; training and evaluation scale about linearly in seeds and
    members, so this is a rough figure). Units no budget raises (the task's classes,
    (dataset, class) clusters, writers): that more seeds cannot make it firm, and what would.
    Units of unknown kind: how many would (``firm_at``), without a cost. Empty for firm rows
    and for rows without ``firm_at`` whose units computation buys."""
    said = firm_text(row)
    if not audit_findings.is_borderline(row) or not said:
        return ""
    units = units_of(row)
    if units.bought is not True or row.firm_at is None or not row.units:
        return f"{said[0].upper()}{said[1:]}."
    factor = row.firm_at / row.units
    said = (f"To make it firm: about {row.firm_at:,} {units.word} (this build: {row.units:,}), "
            f"about {factor:,.1f}\u00d7 this study's computation")
    if seconds:
        minutes = factor * seconds / 60
        said += (f", roughly {minutes:,.0f} min on 2 CPU cores (the {profile} profile took "
                 f"{seconds / 60:,.0f} min)")
    return said + "."


def markdown_inline(text: str) -> str:
    """The inline Markdown of a finding's sentence as HTML: escaped, ``**bold**`` and
    ``*italic*`` (what :func:`~pruneaudit.book.findings_table.sentence` writes)."""
    escaped = html.escape(text, quote=False)
    bold = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", escaped)
    return re.sub(r"\*(.+?)\*", r"<i>\1</i>", bold)


def build_line(info: Mapping[str, object] | None) -> str:
    """Which build computed the page: ``Profile smoke, built 2026-01-01 12:00 UTC.`` (the
    overridden parameters named when there are any), or that it was run by hand."""
    if info is None:
        return "Run by hand, not by the book's runner: no profile (the parameters above)."
    overrides = info.get("overrides") or {}
    changed = f" with {', '.join(map(str, overrides))} overridden" if overrides else ""
    return f"Profile {info['profile']}{changed}, built {info['date']}."


def answer_html(rows: Sequence[Finding], info: Mapping[str, object] | None,
                seconds: float | None = None) -> str:
    """The answer box: each headline finding's sentence (class :data:`SENTENCE_CLASS`) and,
    when borderline, a line under it on what would make it firm (:data:`COST_CLASS`,
    :func:`firming_cost` with the study's measured ``seconds``), the verdict counts
    (:func:`pruneaudit.audit.findings.verdict_counts`) and the build line."""
    profile = str(info["profile"]) if info else None
    items = ""
    for row in headline_findings(rows):
        cost = firming_cost(row, seconds, profile)
        cost_html = f'<br><span class="{COST_CLASS}">{html.escape(cost)}</span>' if cost else ""
        items += (f'<li><span class="{SENTENCE_CLASS}">{markdown_inline(sentence(row))}</span>'
                  f"{cost_html}</li>")
    said = f"<ul>{items}</ul>" if items else "<p>No findings on this page.</p>"
    return (
        f'<div class="admonition tip {ANSWER_CLASS}">'
        '<p class="admonition-title">The answer in short</p>'
        f"{said}"
        f"<p><b>All findings:</b> {html.escape(audit_findings.verdict_counts(rows))} "
        "The key figure and the table of every finding follow.</p>"
        f'<p class="pa-answer-build">{html.escape(build_line(info))}</p>'
        "</div>"
    )
