"""A study page's answer box, the first thing under its title: the headline findings in plain
words with their numbers, the verdict counts and the build that computed them.

- :func:`headline_findings`: the rows a page states first (``headline=True``), else its first
  testable row.
- :func:`answer_html`: the box (HTML, an admonition the book's theme styles, class
  ``pa-answer``), from the rows and the build's profile and date
  (:func:`pruneaudit.book.notebook.build_info`);
- :func:`firming_cost`: what a borderline headline row would cost to make firm.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence

from pruneaudit.audit import findings as audit_findings
from pruneaudit.audit.findings import Finding
from pruneaudit.book.findings_table import sentence, unit_word

#: The box's class (the browser test finds the answer by it).
ANSWER_CLASS = "pa-answer"


def headline_findings(rows: Sequence[Finding]) -> list[Finding]:
    """The rows marked ``headline``; without any, the first testable row; without a testable
    row, the first row (none for no rows)."""
    marked = [r for r in rows if r.headline]
    if marked:
        return marked
    testable = [r for r in rows if r.verdict != audit_findings.NOT_TESTABLE]
    return (testable or list(rows))[:1]


def firming_cost(row: Finding, seconds: float | None, profile: str | None) -> str:
    """For a borderline row with ``firm_at`` (units that would make it firm), what the
    units that would make it firm cost: ``firm_at / units`` times the study's measured time on
    the profile (``seconds``, from the profile's ``measured`` section; training and evaluation
    scale about linearly in seeds and members, so this is a rough figure), or that no budget
    raises them (classes of a task); empty otherwise."""
    if not audit_findings.is_borderline(row) or row.firm_at is None or not row.units:
        return ""
    unit = unit_word(row)
    if unit == "classes" or unit.endswith(" classes"):
        return (f"It rests on the task's {row.units} classes, which no budget raises: "
                "it stays borderline here.")
    factor = row.firm_at / row.units
    said = (f"Those {row.firm_at:,} {unit} would cost about {factor:.1f} times this study's "
            "computation")
    if seconds:
        minutes = factor * seconds / 60
        said += (f", roughly {minutes:,.0f} min on 2 CPU cores where the {profile} profile "
                 f"took {seconds / 60:,.0f} min")
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
    """The answer box: each headline finding's plain sentence (and, when borderline, what would
    make it firm at what cost, :func:`firming_cost` with the study's measured ``seconds``), the
    verdict counts (firm and borderline apart,
    :func:`pruneaudit.audit.findings.verdict_counts`) and the build line."""
    profile = str(info["profile"]) if info else None
    said_of = [" ".join(filter(None, (sentence(r), firming_cost(r, seconds, profile))))
               for r in headline_findings(rows)]
    items = "".join(f"<li>{markdown_inline(text)}</li>" for text in said_of)
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
