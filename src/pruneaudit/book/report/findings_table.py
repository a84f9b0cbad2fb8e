"""A study page's findings for people: one plain sentence per finding, then one compact table.

- :func:`sentence`: a finding in sentences, the same in the answer box, the findings table
  and the front page (:func:`pruneaudit.book.report.wording.said`: what was found, in the verdict's
  own words with our number and the paper's, then how sure).
- :func:`table_html`: one row per finding (name, the paper's value, ours with its 95% interval
  in one cell, direction first, size second, verdict as a coloured label with its stability)
  and, under each, a ``<details>`` row with the sentence, the definition, what the interval is
  over, the paper's band and margin, the power, the source and the claim's comparability; a
  legend of the verdicts follows. Styles: ``book/_static/findings.css``.
- :func:`units_of`: what a row's units are (seeds, members, classes, (dataset, class)
  clusters...) and whether more computation buys more of them.

Numbers are shown in the paper's unit (:data:`pruneaudit.audit.UNITS`: shares in %, differences
of shares in percentage points) by the book's one formatter (:mod:`pruneaudit.charts.format`).
The reading rules are in the methods page, section *Findings and verdicts*.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from pruneaudit.audit import findings as audit_findings
from pruneaudit.audit.findings import Finding
from pruneaudit.audit.intervals import TARGET_POWER
from pruneaudit.audit.rules import (
    ABOUT,
    ABSENT,
    CANT_TELL,
    EFFECT_ABSENT,
    INCONCLUSIVE,
    LARGER,
    NOT_COMPARABLE,
    NOT_REPRODUCED,
    NOT_TESTABLE,
    OPPOSITE,
    OTHER_SIGN,
    PAPERS_SIDE,
    PRESENT,
    REPRODUCED,
    SAME_DIRECTION,
    SIZE_LARGER,
    SIZE_SMALLER,
    SIZE_UNCLEAR,
    SMALLER,
)
from pruneaudit.audit.stability import STABLE
from pruneaudit.book.report import finding_ids, wording
from pruneaudit.book.report.wording import UNIT_SCALE, has_interval, shown
from pruneaudit.charts import format as fmt

MINUS = fmt.MINUS
DASH = "\u2014"
#: Where a page's findings link: the methods section and the papers' list (from a study page).
METHODS_LINK = "../methods_audit.html#findings-and-verdicts-pruneaudit-audit-findings"
PAPERS_LINK = "../intro.html"
#: What the page says of each direction (:data:`pruneaudit.audit.rules.DIRECTIONS`): the
#: direction column's short answer, then the sentence's first answer (is the effect there).
DIRECTION_SAID = {
    PAPERS_SIDE: ("yes", "the effect is there"),
    ABSENT: ("no (absent)", "the effect is absent"),
    CANT_TELL: ("can't tell", "can't tell if the effect is there"),
    OPPOSITE: ("opposite", "the effect is reversed"),
}
#: What the page says of each size (:data:`pruneaudit.audit.rules.SIZES`): the size column's
#: short answer, then the sentence's second answer (its size against the paper's number).
SIZE_SAID = {
    ABOUT: ("the paper's", "as large as the paper's"),
    SIZE_SMALLER: ("smaller", "smaller than the paper's"),
    SIZE_LARGER: ("larger", "larger than the paper's"),
    CANT_TELL: ("can't tell", "size unclear against the paper's"),
    "": ("", ""),
}
DIRECTION_LABELS = {key: said[0] for key, said in DIRECTION_SAID.items()}
SIZE_LABELS = {key: said[0] for key, said in SIZE_SAID.items()}
#: The most words of a finding's first sentence (:mod:`pruneaudit.book.report.wording`).
SENTENCE_WORDS = wording.SENTENCE_WORDS
#: How each verdict is decided, after its plain words (``wording.VERDICT_SAID``).
RULE = {
    REPRODUCED: "our whole interval lies inside the paper's band, the values a replication of "
    "the paper could give",
    SMALLER: "our interval excludes no effect and lies below the paper's band",
    LARGER: "our interval excludes no effect and lies above the paper's band",
    SIZE_UNCLEAR: "our interval excludes no effect but crosses an edge of the paper's band",
    INCONCLUSIVE: "our interval holds both no effect and effects of the paper's size",
    NOT_REPRODUCED: "our interval lies inside the negligible band, or holds no effect and lies "
    "below the paper's band",
    OPPOSITE: "our interval excludes no effect, on the other side",
    NOT_TESTABLE: "the row says why",
    NOT_COMPARABLE: "the row says how ours differs",
    SAME_DIRECTION: "an analogue (the paper's quantity on another task): our interval excludes "
    "no effect on the paper's side",
    EFFECT_ABSENT: "our interval lies inside the negligible band around no effect",
    PRESENT: "our own question, beside the paper's: our interval excludes its own null",
    OTHER_SIGN: "our own question, beside the paper's: our interval excludes its own null on "
    "the other side",
}
#: What each comparability means (:mod:`pruneaudit.audit.claims`), in the details of a row.
COMPARABILITY_SAID = {
    "same": "the paper's quantity, computed the paper's way: the paper's verdict",
    "analogue": "the paper's quantity on another task, model or data: direction only",
    "beyond": "our own question beside the paper's, judged against its own null",
    "not comparable": "our quantity is not the paper's",
    "not testable": "not testable here",
}


def _finite(value: float | None) -> bool:
    return value is not None and math.isfinite(value)


# --------------------------------------------------------------------------- numbers


def ours_text(row: Finding) -> str:
    """Ours with its interval in one string, e.g. ``−0.401 [−0.440, −0.362]`` or
    ``−40.1 pts [−44.0, −36.2]`` (the unit once, after the estimate); ``—`` without an
    estimate; ``1.00 (no interval: too few units)``, ``0 pts (every unit the same)``."""
    s = shown(row)
    if not s.ours:
        return DASH
    if s.low:
        return f"{s.ours}{s.suffix} [{s.low}, {s.high}]"
    if _finite(row.ci_low) and row.ci_low == row.ci_high:
        return f"{s.ours}{s.suffix} (every unit the same)"
    return f"{s.ours}{s.suffix} (no interval: too few units)"


def paper_text(row: Finding) -> str:
    """The paper's value in the row's unit, to the precision of ours, ``—`` when it prints
    only a direction."""
    s = shown(row)
    return f"{s.paper}{s.suffix}" if s.paper else DASH


def power_text(row: Finding) -> str:
    """The row's power with two decimals, ``—`` when unknown."""
    return f"{row.power:.2f}" if _finite(row.power) else DASH


# --------------------------------------------------------------------------- units


@dataclass(frozen=True)
class Units:
    """What a row's units are: ``word`` (``seeds``, ``(dataset, class) clusters``), whether
    computation buys more of them (``bought``: True, False, or None when not known), for units
    no budget raises what would (``instead``), and how many the row rests on (``count``: the
    row's ``units``, else the number its basis names, else None)."""

    word: str
    bought: bool | None
    instead: str = ""
    count: int | None = None


#: Units that more computation buys (more seeds, more members, more models), by their last word.
BOUGHT = ("seeds", "members", "models", "series", "populations", "runs", "replicates")
#: Units fixed by the task or its data, by their last word, and what would raise them.
FIXED = {
    "classes": "another task with more classes",
    "clusters": "another dataset or another task",
    "writers": "another dataset with more writers",
    "corruptions": "another benchmark with more corruptions",
}


def units_of(row: Finding) -> Units:
    """What ``row``'s units are, from its basis (``"... over 6 seeds"`` -> seeds, ``"over 9
    dense models"`` -> dense models, ``"30 (dataset, class) clusters"`` -> (dataset, class)
    clusters, ``"over writers"`` -> writers), else ``units`` (not known)."""
    basis = row.basis or ""
    count, match = row.units, None
    if row.units is not None:  # "30 (dataset, class) clusters", "9 dense models", "6 seeds"
        match = re.search(rf"(?<![\d,.]){row.units} ((?:\([^)]*\) )?(?:dense )?[a-z-]+s)\b",
                          basis)
    if match is None:  # "over the 10 classes", "over seeds", "over the members"
        match = re.search(r"\bover (?:the |our )?(?:(\d[\d,]*) )?((?:\([^)]*\) )?(?:dense )?"
                          r"[a-z-]+s)\b", basis)
        if match is not None and count is None and match.group(1):
            count = int(match.group(1).replace(",", ""))
    word = match.group(match.lastindex) if match else "units"
    last = word.split()[-1]
    if last in FIXED:
        return Units(word, False, FIXED[last], count)
    return Units(word, True if last in BOUGHT else None, count=count)


def unit_word(row: Finding) -> str:
    """What the row's units are (:func:`units_of`), e.g. ``seeds``; ``units`` when unknown."""
    return units_of(row).word


def budget_text(row: Finding) -> str:
    """For a row below the target power with a computable fix: ``about 12 seeds (this build:
    6) would give power 0.8``; else empty."""
    if row.needed is None or row.units is None:
        return ""
    return (
        f"about {row.needed:,} {unit_word(row)} (this build: {row.units}) would give power "
        f"{TARGET_POWER:g}"
    )


# --------------------------------------------------------------------------- the sentence


def short_name(row: Finding) -> tuple[str, str]:
    """The finding's id (``D4.5``, or empty) and the rest of its name."""
    return finding_ids.split_id(row.finding)


def sentence(row: Finding) -> str:
    """The finding in sentences (Markdown), the same in the answer box, this table and the
    front page: what was found, then how sure (:func:`pruneaudit.book.report.wording.said`)."""
    return wording.said(row).text


def sentences(rows: Sequence[Finding]) -> str:
    """The answer first: one sentence per finding, as a Markdown list."""
    return "\n".join(f"- {sentence(r)}" for r in rows)


# --------------------------------------------------------------------------- the table


def stability_text(row: Finding) -> str:
    """The stability in words with its number
    (:func:`pruneaudit.book.report.wording.stability_words`):
    ``a replication would agree about 9 times in 10``; ``—`` when unknown."""
    return wording.stability_words(row)


def _label(verdict: str, page: str = wording.LEGEND_PAGE) -> str:
    return wording.chip_html(verdict, page)


def verdict_html(row: Finding, page: str = wording.LEGEND_PAGE) -> str:
    """The verdict cell: the reader's word as a coloured label (a link to its glossary entry,
    its meaning as a tooltip), then how often a replication would agree."""
    label = _label(row.verdict, page)
    if not _finite(row.stability):
        return label
    return f'{label}<br><span class="pa-stability">{html.escape(stability_text(row))}</span>'


def source_html(source: str) -> str:
    """``source`` with each paper's abbreviation (P, H1, H2, SBD) linked to the list of papers."""
    escaped = html.escape(source)
    return re.sub(
        r"\b(P|H1|H2|SBD)\b(?=[;, )]|$)",
        lambda m: f'<a href="{PAPERS_LINK}">{m.group(1)}</a>',
        escaped,
    )


def band_text(row: Finding) -> str:
    """The paper's band in the row's unit and precision, with its margin and reason, e.g.
    ``−44.5 to −29.4 pts (margin 5.0 pts: ...)``; empty without a band."""
    if row.paper_band is None or not all(map(_finite, row.paper_band)):
        return ""
    scale, suffix = UNIT_SCALE[row.unit]
    interval = has_interval(row)
    low, high = (row.ci_low, row.ci_high) if interval else (None, None)
    a, b, margin = fmt.same_precision([*row.paper_band, row.margin or 0.0], low, high, scale)
    said = f"{a} to {b}{suffix}"
    if row.margin:
        reason = f": {fmt.clean_text(row.margin_reason)}" if row.margin_reason else ""
        said += f" (margin {margin}{suffix}{reason})"
    return said


def _details(row: Finding) -> str:
    parts = [wording.inline_html(sentence(row))]
    ident = short_name(row)[0]
    if ident:
        parts.append(f'<b>Id:</b> <a href="{finding_ids.link(ident)}">{html.escape(ident)}</a>'
                     f"; internal verdict: {html.escape(row.verdict)}")
    if wording.is_derived(row):
        parts.append("<b>Derived</b> from other rows: shown, not counted as a finding")
    if row.definition:
        parts.append(f"<b>Definition:</b> {html.escape(fmt.clean_text(row.definition))}")
    if row.basis:
        said = "Why" if row.verdict in audit_findings.UNTESTED else "Interval over"
        parts.append(f"<b>{said}:</b> {html.escape(fmt.clean_text(row.basis))}")
    band = band_text(row)
    if band:
        parts.append(f"<b>The paper's band:</b> {html.escape(band)}")
    if _finite(row.stability) or _finite(row.power):
        said = [html.escape(stability_text(row))] if _finite(row.stability) else []
        if _finite(row.power):
            said.append(f"power {power_text(row)} (the chance that an interval this wide shows "
                        "the paper's effect if it is real)")
            if (row.direction == CANT_TELL
                    and row.power >= TARGET_POWER):
                said[-1] += (": an effect of the paper's size would likely have shown, so "
                             "any effect here is likely smaller")
        budget = budget_text(row)
        if budget:
            said.append(html.escape(budget))
        if audit_findings.is_borderline(row) and firm_text(row):
            said.append(html.escape(firm_text(row)))
        parts.append("<b>Stability and power:</b> " + "; ".join(said))
    if row.source:
        parts.append(f"<b>Source:</b> {source_html(row.source)}")
    if row.comparability:
        kind = COMPARABILITY_SAID.get(row.comparability, row.comparability)
        parts.append(f"<b>Claim {html.escape(row.claim)}:</b> {html.escape(kind)}")
    return "<br>".join(parts)


def firm_text(row: Finding) -> str:
    """What would make a replication agree more often with a shaky row, named by its units:
    ``about 142 seeds (this build: 16) would make a replication agree 8 times in 10 if the
    estimate held`` (empty without ``firm_at``), or for units no budget raises (the task's
    classes, (dataset, class) clusters) that more computation cannot and what would."""
    units = units_of(row)
    if units.bought is False and units.count is not None:
        return (f"it rests on {units.count:,} {units.word}, which no budget raises (more seeds "
                f"cannot settle it); {units.instead} would")
    if row.firm_at is None or row.units is None:
        return ""
    return (f"about {row.firm_at:,} {units.word} (this build: {row.units:,}) would make a "
            f"replication agree {round(10 * STABLE)} times in 10 if the estimate held")


def table_html(rows: Sequence[Finding]) -> str:
    """The findings table (HTML): the paper's rows, then our own questions (``beyond``) under
    their own heading; a details row under each finding holds its id and how it is computed;
    a legend of the five words follows."""
    paper = [r for r in rows if r.comparability != "beyond"]
    ours = [r for r in rows if r.comparability == "beyond"]
    parts = [_table(paper)] if paper else []
    if ours:
        parts.append('<p class="pa-own-questions"><b>Our own questions</b>, beside the '
                     "papers' (they never count for a paper):</p>" + _table(ours))
    words = sorted({wording.word_of(r.verdict) for r in rows}, key=wording.WORDS.index)
    return ('<div class="pa-findings">' + "".join(parts)
            + f'<p class="pa-legend">{wording.legend_line(words)}</p></div>')


def _table(rows: Sequence[Finding]) -> str:
    head = (
        "<thead><tr><th>Finding</th><th>Paper</th><th>Ours [95% interval]</th>"
        "<th>Effect there?</th><th>Size vs paper</th><th>Answer</th></tr>"
        "</thead>"
    )
    body = []
    for row in rows:
        direction = html.escape(DIRECTION_LABELS.get(row.direction, ""))
        name = html.escape(wording.plain_name(row))
        if wording.is_derived(row):
            name += " (derived: not counted)"
        body.append(
            "<tr class=\"pa-row\">"
            f'<td data-label="Finding">{name}</td>'
            f'<td data-label="Paper">{html.escape(paper_text(row))}</td>'
            f'<td data-label="Ours [95% interval]">{html.escape(ours_text(row))}</td>'
            f'<td data-label="Effect there?">{direction}</td>'
            f'<td data-label="Size vs paper">{html.escape(SIZE_LABELS.get(row.size, ""))}</td>'
            f'<td data-label="Answer">{verdict_html(row)}</td></tr>'
        )
        body.append(
            '<tr class="pa-details"><td colspan="6"><details><summary>Details: id, '
            f"definition, interval</summary>{_details(row)}</details></td></tr>"
        )
    return (f'<table class="pa-findings-table">{head}<tbody>{"".join(body)}</tbody>'
            "</table>")


def method_note() -> str:
    """The short note above the table: how its answers are read, with the methods link."""
    return (
        "How to read it: each row asks whether the paper's effect shows in our 95% interval. "
        "The answer is one of five words; hover one for its meaning. "
        f"Details: [methods, Findings and verdicts]({METHODS_LINK})."
    )


def summary_text(rows: Sequence[Finding], profile: str | None = None) -> str:
    """One short paragraph under the table: the counts in the five words
    (:func:`pruneaudit.book.report.wording.counts_text`) and, for a smoke build, that its agreement
    figures over-state how sure it is."""
    text = wording.counts_text(rows)
    ours = [r for r in rows if r.comparability == "beyond"]
    if ours:
        text += f" {len(ours)} more rows answer our own questions."
    if profile == "smoke" and any(r.stability is not None for r in rows):
        text += (" This is a smoke build with one to three models per population. "
                 "Its agreement figures over-state how sure it is.")
    return text
