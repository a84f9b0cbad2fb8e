"""A study page's answer box, the first thing under its title: the headline findings in plain
words with their numbers, the verdict counts and the build that computed them.

- :func:`headline_findings`: the rows a page states first (``headline=True``), else its first
  testable row.
- :func:`answer_html`: the box (HTML, an admonition the book's theme styles, class
  ``pa-answer``), from the rows and the build's profile and date
  (:func:`pruneaudit.book.notebook.build_info`): each headline finding said by
  :func:`said_html` (:func:`pruneaudit.book.wording.said`: what was found, then how firm, each
  verdict a labelled link with its meaning as a tooltip), the counts and a one-line legend;
- :func:`overall_html`: the front page's overall answer across the studies, in the same words:
  what firmly holds, what firmly does not, what this build cannot tell, the counts with the
  legend and a linked line per study;
- :func:`firming_cost`: what would make a borderline headline row firm, named by the units it
  rests on: more of them and their cost when computation buys them (seeds, members), or that no
  budget raises them and what would (a task's classes, (dataset, class) clusters).
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pruneaudit.audit import findings as audit_findings
from pruneaudit.audit import rules as audit_rules
from pruneaudit.audit.findings import Finding
from pruneaudit.book import finding_ids, wording
from pruneaudit.book.findings_table import firm_text, units_of

#: The box's class (the browser test finds the answer by it).
ANSWER_CLASS = "pa-answer"
#: The class of each headline sentence in the box, and of the line under it that says what
#: would make a borderline row firm.
SENTENCE_CLASS = "pa-sentence"
COST_CLASS = "pa-cost"
#: The class of the sentence on how firm a headline finding is, and of the box's legend line.
FIRM_CLASS = "pa-firm"
LEGEND_CLASS = "pa-answer-legend"


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


def markdown_inline(text: str, page: str = wording.LEGEND_PAGE) -> str:
    """The inline Markdown of a finding's sentences as HTML: escaped, ``**bold**``, each
    ``*verdict*`` as its coloured label with its meaning as a tooltip and a link to ``page``'s
    legend (:func:`pruneaudit.book.wording.inline_html`), other ``*italic*`` in italics."""
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
    """One finding as the answer box and the front page say it: what was found (class
    :data:`SENTENCE_CLASS`), then how firm (class :data:`FIRM_CLASS`)."""
    said = wording.said(row)
    firm = (f' <span class="{FIRM_CLASS}">{markdown_inline(said.firm, page)}</span>'
            if said.firm else "")
    return f'<span class="{SENTENCE_CLASS}">{markdown_inline(said.found, page)}</span>{firm}'


def answer_html(rows: Sequence[Finding], info: Mapping[str, object] | None,
                seconds: float | None = None) -> str:
    """The answer box: each headline finding in sentences (:func:`said_html`) and, when
    borderline, a line under it on what would make it firm (:data:`COST_CLASS`,
    :func:`firming_cost` with the study's measured ``seconds``; a line said once when several
    rows share it), the verdict counts (:func:`pruneaudit.audit.findings.verdict_counts`), the
    one-line legend (:func:`pruneaudit.book.wording.legend_line`) and the build line."""
    profile = str(info["profile"]) if info else None
    items, costs = "", []
    for row in headline_findings(rows):
        cost = firming_cost(row, seconds, profile)
        shared = bool(cost) and sum(
            firming_cost(r, seconds, profile) == cost for r in headline_findings(rows)) > 1
        cost_html = (f'<br><span class="{COST_CLASS}">{html.escape(cost)}</span>'
                     if cost and not shared else "")
        if shared and cost not in costs:
            costs.append(cost)
        items += f"<li>{said_html(row)}{cost_html}</li>"
    said = f"<ul>{items}</ul>" if items else "<p>No findings on this page.</p>"
    shared_html = "".join(
        f'<p class="{COST_CLASS}">For each of these: {html.escape(c[0].lower() + c[1:])}</p>'
        for c in costs)
    return (
        f'<div class="admonition tip {ANSWER_CLASS}">'
        '<p class="admonition-title">The answer in short</p>'
        f"{said}{shared_html}"
        f"<p><b>All findings:</b> {html.escape(audit_findings.verdict_counts(rows))}</p>"
        f'<p class="{LEGEND_CLASS}">{wording.legend_line()}</p>'
        f'<p class="pa-answer-build">{html.escape(build_line(info))}</p>'
        "</div>"
    )


# --------------------------------------------------------------------------- the front page


#: The class of the front page's overall answer, and of its lines per study.
OVERALL_CLASS = "pa-overall"


@dataclass(frozen=True)
class StudyAnswer:
    """One study as the front page's overall answer names it: ``label`` (``Study 1``), a few
    words of its title, the link to its page (empty without one) and its findings."""

    label: str
    short: str
    href: str
    rows: Sequence[Finding]


def _firmly(row: Finding, verdicts: Sequence[str]) -> bool:
    return (row.verdict in verdicts and row.stability is not None
            and not audit_findings.is_borderline(row))


def _ids(studies: Sequence[StudyAnswer], verdicts: Sequence[str]) -> tuple[int, str]:
    """How many rows firmly have one of ``verdicts``, and their ids, each linked to its study
    with its sentence as a tooltip."""
    count, links, seen = 0, [], set()
    for study in studies:
        for row in study.rows:
            if not _firmly(row, verdicts):
                continue
            count += 1
            ident = finding_ids.finding_id(row.finding) or row.finding
            if ident in seen:
                continue
            seen.add(ident)
            tip = html.escape(wording.said(row).found.replace("*", ""))
            links.append(f'<a href="{study.href}" title="{tip}">{html.escape(ident)}</a>'
                         if study.href else html.escape(ident))
    return count, ", ".join(links)


def overall_sentences(studies: Sequence[StudyAnswer]) -> list[str]:
    """Three sentences (HTML) across the studies, in the answer boxes' words
    (:mod:`pruneaudit.book.wording`): which findings firmly hold here (the effect is there), which
    firmly do not (absent or reversed), and how many this build cannot tell (open, borderline,
    or not testable here)."""
    rows = [r for s in studies for r in s.rows]
    held, held_ids = _ids(studies, wording.HOLDS)
    failed, failed_ids = _ids(studies, wording.FAILS)
    untested = sum(r.verdict in audit_findings.UNTESTED for r in rows)
    open_ = len(rows) - held - failed - untested
    said = [
        f"Across {len(studies)} studies and {len(rows)} findings, "
        + (f"{held} firmly hold here: the effect is on the paper's side ({held_ids})."
           if held else "no finding firmly holds here.")
    ]
    said.append(f"{failed} firmly {'does' if failed == 1 else 'do'} not: the effect is absent "
                f"or reversed ({failed_ids})."
                if failed else "None is firmly absent or reversed.")
    said.append(f"This build cannot tell the other {open_ + untested}: {open_} are open "
                f"(inconclusive, borderline or without an interval) and {untested} cannot be "
                "tested here; more seeds, models or data might settle the open ones.")
    return said


def _study_line(study: StudyAnswer, page: str) -> str:
    rows = study.rows
    held = sum(_firmly(r, wording.HOLDS) for r in rows)
    failed = sum(_firmly(r, wording.FAILS) for r in rows)
    name = f"<b>{html.escape(study.label)}</b> {html.escape(study.short)}"
    link = f'<a href="{study.href}">{name}</a>' if study.href else name
    heads = " ".join(wording.chip_html(r.verdict, page) for r in headline_findings(rows))
    return (f"<li>{link}: of {len(rows)} findings {held} firmly there, {failed} firmly absent "
            f"or reversed; headline {heads}</li>")


def overall_html(studies: Sequence[StudyAnswer], page: str = "methods_audit.html",
                 note: str = "") -> str:
    """The front page's overall answer (class :data:`OVERALL_CLASS`): the sentences across the
    studies (:func:`overall_sentences`, after ``note`` when given), the verdict counts of all
    their findings with the one-line legend, and a line per study linked to its page."""
    rows = [r for s in studies for r in s.rows]
    counts = audit_findings.verdict_counts(rows)
    lines = "".join(_study_line(s, page) for s in studies)
    note_html = f"<b>{html.escape(note)}</b> " if note else ""
    return (
        f'<div class="{OVERALL_CLASS}"><p class="pa-overall-title">What this build found</p>'
        f'<p class="pa-overall-said">{note_html}{" ".join(overall_sentences(studies))}</p>'
        f'<p class="pa-overall-counts"><b>Verdicts:</b> {html.escape(counts)}</p>'
        f'<p class="{LEGEND_CLASS}">{wording.legend_line(page)}</p>'
        f'<ul class="pa-overall-studies">{lines}</ul></div>'
    )
