"""A study page's findings for people: plain sentences first, then one compact table.

- :func:`sentences`: one sentence per finding, generated from the row (what we found, beside the
  paper's number, and what the verdict means).
- :func:`table_html`: one row per finding (name, the paper's value, ours with its 95% interval in
  one cell, direction first, size second, power, verdict as a coloured label with its stability:
  *firm* or *borderline* between two verdicts) and, under each, a ``<details>`` row with the
  plain sentence, the definition, what the interval is over, the source and the excess over a
  noise null; a legend of the verdicts follows. Styles: ``book/_static/findings.css``.

Numbers are shown in the paper's unit (:data:`pruneaudit.audit.UNITS`: shares in %, differences
of shares in percentage points) and rounded to the precision the interval supports: the
interval's half-width keeps two significant digits (at most four decimals). The reading rules
are in the methods page, section *Findings and verdicts*.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Sequence

from pruneaudit.audit import findings as audit_findings
from pruneaudit.audit.findings import Finding
from pruneaudit.book import finding_ids

MINUS = "\u2212"
#: Where a page's findings link: the methods section and the papers' list (from a study page).
METHODS_LINK = "../methods_audit.html#findings-and-verdicts-pruneaudit-audit-findings"
#: The direction column's short answers (:data:`pruneaudit.audit.findings.DIRECTIONS`).
DIRECTION_LABELS = {
    audit_findings.PAPERS_SIDE: "yes",
    audit_findings.CANT_TELL: "can't tell",
    audit_findings.OPPOSITE: "opposite",
}
PAPERS_LINK = "../intro.html"
MEANING = {
    audit_findings.REPRODUCED: "our interval excludes no effect and contains the paper's value",
    audit_findings.SMALLER: "same direction as the paper, but smaller",
    audit_findings.LARGER: "same direction as the paper, but larger",
    audit_findings.INCONCLUSIVE: "too few units to tell: our interval holds both no effect and "
    "the paper's value",
    audit_findings.NOT_REPRODUCED: "our interval holds no effect and excludes the paper's value",
    audit_findings.OPPOSITE: "the effect goes the other way",
    audit_findings.NOT_TESTABLE: "it cannot be tested here",
}
_SCALE = {"percent": (100.0, "%"), "points": (100.0, " pts"), "ratio": (1.0, ""), "": (1.0, "")}


def _finite(value: float | None) -> bool:
    return value is not None and math.isfinite(value)


def decimals(ci_low: float | None, ci_high: float | None, unit: str = "") -> int:
    """Decimals that show the interval's half-width (in the display unit) to two significant
    digits, between 0 and 4; 3 when there is no interval of positive width."""
    scale = _SCALE[unit][0]
    if not (_finite(ci_low) and _finite(ci_high)) or ci_high <= ci_low:
        return 3
    half = (ci_high - ci_low) / 2 * scale
    return int(min(4, max(0, 1 - math.floor(math.log10(half)))))


def number(value: float | None, unit: str = "", places: int = 3, suffix: bool = True) -> str:
    """``value`` in the display unit with ``places`` decimals and a true minus sign (the unit's
    suffix unless ``suffix`` is False), ``—`` if missing."""
    if not _finite(value):
        return "\u2014"
    scale, end = _SCALE[unit]
    text = f"{value * scale:.{places}f}"
    if float(text) == 0:
        text = text.lstrip("-")
    return text.replace("-", MINUS) + (end if suffix else "")


def paper_text(row: Finding) -> str:
    """The paper's value in the row's unit (four significant digits), ``—`` when it prints
    only a direction."""
    if not _finite(row.paper):
        return "\u2014"
    scale, suffix = _SCALE[row.unit]
    return f"{row.paper * scale:.4g}".replace("-", MINUS) + suffix


def ours_text(row: Finding) -> str:
    """Ours with its interval in one string, e.g. ``−0.39 [−0.45, −0.33]`` or
    ``−40.1 pts [−44.0, −36.2]`` (the unit once, after the estimate)."""
    if not _finite(row.ours):
        return "\u2014"
    places = decimals(row.ci_low, row.ci_high, row.unit)
    ours = number(row.ours, row.unit, places)
    if not (_finite(row.ci_low) and _finite(row.ci_high)):
        return f"{ours} [no interval]"
    low = number(row.ci_low, row.unit, places, suffix=False)
    high = number(row.ci_high, row.unit, places, suffix=False)
    return f"{ours} [{low}, {high}]"


def power_text(row: Finding) -> str:
    """The row's power with two decimals, ``—`` when unknown."""
    return f"{row.power:.2f}" if _finite(row.power) else "\u2014"


def unit_word(row: Finding) -> str:
    """What the row's units are, from its basis ("... over 6 seeds" -> "seeds", "over 9 dense
    models" -> "dense models"), else "units"."""
    match = re.search(rf"\bover {row.units} ((?:[a-z-]+ )?[a-z-]+s)\b", row.basis or "")
    return match.group(1) if match else "units"


def budget_text(row: Finding) -> str:
    """For a row below the target power with a computable fix: ``about 12 seeds (this build:
    6) would give power 0.8``; else empty."""
    if row.needed is None or row.units is None:
        return ""
    return (
        f"about {row.needed:,} {unit_word(row)} (this build: {row.units}) would give power "
        f"{audit_findings.TARGET_POWER:g}"
    )


def short_name(row: Finding) -> tuple[str, str]:
    """The finding's id (``D4.5``, or empty) and the rest of its name."""
    match = re.match(r"(D\d+\.\d+)\s*(.*)", row.finding)
    return (match.group(1), match.group(2)) if match else ("", row.finding)


DIRECTION_WORDS = {
    audit_findings.PAPERS_SIDE: "the effect is there, on the paper's side",
    audit_findings.CANT_TELL: "we cannot tell whether the effect is there",
    audit_findings.OPPOSITE: "the effect goes the other way",
}
SIZE_WORDS = {
    audit_findings.ABOUT: "about the paper's size",
    audit_findings.SIZE_SMALLER: "smaller than the paper's",
    audit_findings.SIZE_LARGER: "larger than the paper's",
}


def stability_text(row: Finding) -> str:
    """``firm (0.93)`` or ``borderline (0.64)``: the share of replications with as many units
    that keep the verdict (:func:`pruneaudit.audit.findings.stability`); ``—`` when unknown."""
    if not _finite(row.stability):
        return "—"
    said = "borderline" if audit_findings.is_borderline(row) else "firm"
    return f"{said} ({row.stability:.2f})"


def _direction_and_size(row: Finding) -> str:
    """``the effect is there, on the paper's side (firm); smaller than the paper's``."""
    if not row.direction:
        return ""
    text = DIRECTION_WORDS[row.direction]
    if _finite(row.direction_stability):
        text += " (firm)" if row.direction_stability >= audit_findings.STABLE else (
            f" (a replication would say otherwise {1 - row.direction_stability:.0%} of the time)"
        )
    if row.size and row.direction != audit_findings.OPPOSITE:
        text += f"; {SIZE_WORDS[row.size]}"
        if row.paper_se:
            text += " (allowing for the paper's own standard error)"
    return text


def sentence(row: Finding) -> str:
    """One plain sentence (Markdown) for ``row``: what we found, the paper's value, direction
    first and size second, the verdict and what it means, and whether a replication would keep
    it."""
    ident, label = short_name(row)
    head = f"**{ident}** {label}" if ident else f"**{label}**"
    if row.verdict == audit_findings.NOT_TESTABLE:
        return f"{head}: not testable here ({row.basis.rstrip('.')})."
    paper = (
        f"the paper: {paper_text(row)}" if _finite(row.paper) else "the paper states a direction"
    )
    said = f"{head}: ours {ours_text(row)} ({paper})."
    parts = _direction_and_size(row)
    if parts:
        said += f" {parts[0].upper()}{parts[1:]}."
    said += f" *{audit_findings.verdict_label(row)}*: {MEANING[row.verdict]}"
    if audit_findings.is_borderline(row):
        said += (
            f"; a replication with as many units would keep this verdict only "
            f"{row.stability:.0%} of the time (else most likely *{row.alternative}*)"
        )
        if row.firm_at is not None and row.units is not None:
            said += (
                f"; about {row.firm_at:,} {unit_word(row)} (this build: {row.units}) would make "
                "it firm if the estimate held"
            )
    budget = budget_text(row)
    if row.verdict == audit_findings.INCONCLUSIVE and budget:
        return f"{said} at this budget; {budget}."
    return f"{said}."


def sentences(rows: Sequence[Finding]) -> str:
    """The answer first: one sentence per finding, as a Markdown list."""
    return "\n".join(f"- {sentence(r)}" for r in rows)


def _slug(verdict: str) -> str:
    return re.sub(r"[^a-z]+", "-", verdict.lower()).strip("-")


def _label(verdict: str) -> str:
    return f'<span class="pa-verdict pa-v-{_slug(verdict)}">{html.escape(verdict)}</span>'


def verdict_html(row: Finding) -> str:
    """The verdict cell: the coloured label, or for a borderline row both labels it sits
    between; then its stability."""
    if audit_findings.is_borderline(row) and row.alternative:
        labels = (
            f'<span class="pa-borderline">borderline:</span> {_label(row.verdict)} / '
            f"{_label(row.alternative)}"
        )
    else:
        labels = _label(row.verdict)
    if not _finite(row.stability):
        return labels
    return f'{labels}<br><span class="pa-stability">{html.escape(stability_text(row))}</span>'


def source_html(source: str) -> str:
    """``source`` with each paper's abbreviation (P, H1, H2, SBD) linked to the list of papers."""
    escaped = html.escape(source)
    return re.sub(
        r"\b(P|H1|H2|SBD)\b(?=[;, )]|$)",
        lambda m: f'<a href="{PAPERS_LINK}">{m.group(1)}</a>',
        escaped,
    )


def _details(row: Finding) -> str:
    parts = [sentence(row).replace("**", "").replace("*", "")]
    if row.definition:
        parts.append(f"<b>Definition:</b> {html.escape(row.definition)}")
    if row.basis:
        said = "Why" if row.verdict == audit_findings.NOT_TESTABLE else "Interval over"
        parts.append(f"<b>{said}:</b> {html.escape(row.basis)}")
    if row.source:
        parts.append(f"<b>Source:</b> {source_html(row.source)}")
    budget = budget_text(row)
    if budget:
        parts.append(f"<b>Power:</b> {power_text(row)}; {html.escape(budget)}")
    if row.excess is not None and all(map(_finite, row.excess)):
        est, low, high = row.excess
        places = decimals(low, high, row.unit)
        parts.append(
            "<b>Beyond dense-vs-dense noise:</b> "
            f"{number(est, row.unit, places)} [{number(low, row.unit, places, False)}, "
            f"{number(high, row.unit, places, False)}]"
        )
    return "<br>".join(parts)


def table_html(rows: Sequence[Finding]) -> str:
    """The findings table (HTML) with a details row under each finding and a verdict legend."""
    head = (
        "<thead><tr><th>Finding</th><th>Paper</th><th>Ours [95% interval]</th>"
        "<th>Effect there?</th><th>Size vs paper</th><th>Power</th><th>Verdict</th></tr>"
        "</thead>"
    )
    body = []
    for row in rows:
        ident, label = short_name(row)
        direction = html.escape(DIRECTION_LABELS.get(row.direction, ""))
        name = (
            f'<a href="{finding_ids.link(ident)}">{html.escape(ident)}</a> {html.escape(label)}'
            if ident
            else html.escape(label)
        )
        body.append(
            "<tr class=\"pa-row\">"
            f'<td data-label="Finding">{name}</td>'
            f'<td data-label="Paper">{paper_text(row)}</td>'
            f'<td data-label="Ours [95% interval]">{ours_text(row)}</td>'
            f'<td data-label="Effect there?">{direction}</td>'
            f'<td data-label="Size vs paper">{html.escape(row.size or "")}</td>'
            f'<td data-label="Power">{power_text(row)}</td>'
            f'<td data-label="Verdict">{verdict_html(row)}</td></tr>'
        )
        details = _details(row)
        if details:
            body.append(
                '<tr class="pa-details"><td colspan="7"><details><summary>In plain words, and '
                f"how this row is computed</summary>{details}</details></td></tr>"
            )
    legend = " ".join(
        f"{_label(v)} {html.escape(MEANING[v])}." for v in audit_findings.VERDICTS
    ) + (
        f" <b>firm</b> / <b>borderline</b>: a replication with as many units (another seed "
        f"set, another device) keeps the verdict with at least / less than "
        f"{audit_findings.STABLE:.0%} probability; a borderline row names both verdicts."
    )
    return (
        '<div class="pa-findings"><table class="pa-findings-table">'
        f"{head}<tbody>{''.join(body)}</tbody></table>"
        f'<p class="pa-legend">{legend}</p></div>'
    )


def method_note() -> str:
    """The short note under the table: how verdicts and power are read, with the methods link."""
    return (
        "How to read it: first, is the effect there on the paper's side (our 95% interval "
        "excludes no effect)? Then its size against the paper's value. The verdict joins both; "
        "*firm* or *borderline* says whether a replication with as many units would keep it; "
        "the power is the chance that an interval as wide as ours would show the paper's effect "
        "if it were real. Details: "
        f"[methods, Findings and verdicts]({METHODS_LINK})."
    )
