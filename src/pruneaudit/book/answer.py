"""A study page's answer box, the first thing under its title: the headline findings in plain
words with their numbers, the verdict counts and the build that computed them.

- :func:`headline_findings`: the rows a page states first (``headline=True``), else its first
  testable row.
- :func:`answer_html`: the box (HTML, an admonition the book's theme styles, class
  ``pa-answer``), from the rows and the build's profile and date
  (:func:`pruneaudit.book.notebook.build_info`).
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence

from pruneaudit.audit import findings as audit_findings
from pruneaudit.audit.findings import Finding
from pruneaudit.book.findings_table import sentence

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


def answer_html(rows: Sequence[Finding], info: Mapping[str, object] | None) -> str:
    """The answer box: each headline finding's plain sentence, the verdict counts (firm and
    borderline apart, :func:`pruneaudit.audit.findings.verdict_counts`) and the build line."""
    items = "".join(f"<li>{markdown_inline(sentence(r))}</li>" for r in headline_findings(rows))
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
