"""A study page's findings for people: one plain sentence per finding, then one compact table.

- :func:`sentence`: the one sentence of a finding, the same in the answer box, the findings table
  and the front page. At most :data:`SENTENCE_WORDS` words, in this order: is the effect there
  (*there*, *absent*, *reversed*, or *can't tell*), its size against the paper's number (ours
  and the paper's in the same unit and to the same precision,
  :func:`pruneaudit.charts.format.same_precision`), and whether a replication with as many
  units would keep the verdict (*a replication could say X* when it is borderline). Power, the
  paper's band, the units that would make a row firm and what they cost stay in the row's
  details.
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
    VERDICTS,
)
from pruneaudit.audit.stability import STABLE
from pruneaudit.book import finding_ids
from pruneaudit.charts import format as fmt

MINUS = fmt.MINUS
DASH = "\u2014"
#: Where a page's findings link: the methods section and the papers' list (from a study page).
METHODS_LINK = "../methods_audit.html#findings-and-verdicts-pruneaudit-audit-findings"
PAPERS_LINK = "../intro.html"
#: The most words of a sentence (its finding's name included: a name is cut to fit, with ``…``,
#: down to :data:`NAME_WORDS` words; the table shows it whole).
SENTENCE_WORDS = 30
NAME_WORDS = 4
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
DIRECTION_WORDS = {key: said[1] for key, said in DIRECTION_SAID.items()}
SIZE_LABELS = {key: said[0] for key, said in SIZE_SAID.items()}
SIZE_WORDS = {key: said[1] for key, said in SIZE_SAID.items()}
#: What each verdict means (the legend under the table).
MEANING = {
    REPRODUCED: "the effect is there and our whole interval lies inside the "
    "paper's band (the values a replication of the paper could give)",
    SMALLER: "the effect is there, but our interval lies below the paper's band",
    LARGER: "the effect is there, but our interval lies above the paper's band",
    SIZE_UNCLEAR: "the effect is there, but our interval crosses an edge of the "
    "paper's band: more units would tell its size",
    INCONCLUSIVE: "too few units to tell: our interval holds both no effect and "
    "effects of the paper's size",
    NOT_REPRODUCED: "no effect, or one smaller than the paper's band: our "
    "interval holds no effect and lies below the band",
    OPPOSITE: "the effect goes the other way",
    NOT_TESTABLE: "it cannot be tested here",
    NOT_COMPARABLE: "our quantity is not the paper's: no size verdict",
    SAME_DIRECTION: "an analogue (the paper's quantity on another task): the effect is on the "
    "paper's side; no size is judged",
    EFFECT_ABSENT: "our interval lies inside the negligible band around no effect",
    PRESENT: "our own question, beside the paper's: the effect is there against its own null",
    OTHER_SIGN: "our own question, beside the paper's: the effect goes the other way",
}
#: What each comparability means (:mod:`pruneaudit.audit.claims`), in the details of a row.
COMPARABILITY_SAID = {
    "same": "the paper's quantity, computed the paper's way: the paper's verdict",
    "analogue": "the paper's quantity on another task, model or data: direction only",
    "beyond": "our own question beside the paper's, judged against its own null",
    "not comparable": "our quantity is not the paper's",
    "not testable": "not testable here",
}
#: A verdict in a word or two, for "a replication could say ...".
SHORT_VERDICT = {
    REPRODUCED: "reproduced",
    SMALLER: "smaller",
    LARGER: "larger",
    SIZE_UNCLEAR: "there, size unclear",
    INCONCLUSIVE: "can't tell",
    NOT_REPRODUCED: "not reproduced",
    OPPOSITE: "reversed",
    SAME_DIRECTION: "same direction",
    EFFECT_ABSENT: "absent",
    PRESENT: "present",
    OTHER_SIGN: "other sign",
}
_SCALE = {"percent": (100.0, "%"), "points": (100.0, " pts"), "ratio": (1.0, ""), "": (1.0, "")}


def _finite(value: float | None) -> bool:
    return value is not None and math.isfinite(value)


def has_interval(row: Finding) -> bool:
    """Whether ``row`` has a finite 95% interval of positive width."""
    return _finite(row.ci_low) and _finite(row.ci_high) and row.ci_high > row.ci_low


# --------------------------------------------------------------------------- numbers


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
    scale, suffix = _SCALE[row.unit]
    interval = has_interval(row)
    low, high = (row.ci_low, row.ci_high) if interval else (None, None)
    values = [row.ours, low, high, row.paper]
    texts = fmt.same_precision([v if _finite(v) else None for v in values], low, high, scale)
    ours, lo, hi, paper = (t if _finite(v) else "" for t, v in zip(texts, values, strict=True))
    return Shown(ours, lo if interval else "", hi if interval else "", paper, suffix)


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
    match = re.match(r"(D\d+\.\d+)\s*(.*)", row.finding)
    return (match.group(1), match.group(2)) if match else ("", row.finding)


def sentence_name(row: Finding, words: int = SENTENCE_WORDS) -> str:
    """The name a sentence repeats: up to the first `` (`` or, after two words or more, the
    first ``:`` (the table has the rest), at most ``words`` words with the id (``…`` where
    cut)."""
    ident, label = short_name(row)
    label = re.split(r"\s+\(", label, maxsplit=1)[0]
    head, colon, _ = label.partition(": ")
    label = (head if colon and len(head.split()) >= 2 else label.replace(": ", ", "))
    label = label.strip(" ;,:")
    kept = label.split()
    room = max(words, 1) - (1 if ident else 0)
    if len(kept) > room:
        label = " ".join(kept[:room]) + "\u2026"
    return f"**{ident}** {label}" if ident else f"**{label}**"


def _size(row: Finding, s: Shown) -> str:
    """The size clause with the paper's number: ``smaller than the paper's −19.0 pts``, or for
    an absent or reversed effect ``unlike the paper's −19.0 pts``; empty when the paper prints
    no number, when there is no interval, or when the direction is undecided and the size too
    (the numbers then say the paper's value)."""
    if not (s.paper and s.low):
        return ""
    paper = f"{s.paper}{s.suffix}"
    if row.direction in (ABSENT, OPPOSITE):
        return f"unlike the paper's {paper}"
    if row.direction == CANT_TELL and row.size != SIZE_SMALLER:
        return ""
    words = SIZE_WORDS.get(row.size, "")
    return f"{words} {paper}" if words else ""


def _ours(row: Finding, s: Shown, paper_said: bool) -> str:
    """``ours −3.8 [−9.0, 1.4]`` (the unit only where the paper's number has not said it,
    which then follows: ``ours −5.0 pts [−12.0, 2.0]; the paper's −6.0 pts``)."""
    if s.low:
        said = f"ours {s.ours}{'' if paper_said else s.suffix} [{s.low}, {s.high}]"
    elif _finite(row.ci_low) and row.ci_low == row.ci_high:
        said = f"ours {s.ours}{s.suffix}, every unit the same"
    else:
        said = f"ours {s.ours}{s.suffix}, too few units to tell"
    if s.paper and not paper_said:
        said += f"; the paper's {s.paper}{s.suffix}"
    return said


def replication(row: Finding) -> str:
    """Whether a replication with as many units would keep the verdict: ``A replication could
    say *smaller*.`` when borderline (``could leave it undecided`` when the other verdict is
    *inconclusive*), ``A replication would likely agree.`` when firm, ``More units
    are needed to tell.`` when it would stay undecided; empty when unknown."""
    if not _finite(row.stability):
        return ""
    if audit_findings.is_borderline(row):
        if row.alternative == INCONCLUSIVE:
            return "A replication could leave it undecided."
        other = SHORT_VERDICT.get(row.alternative, "")
        return f"A replication could say *{other}*." if other else ""
    if row.verdict in audit_findings.UNDECIDED:
        return "More units are needed to tell."
    return "A replication would likely agree."


def _claim(row: Finding, s: Shown) -> str:
    """The answer of a row with an estimate: direction, size and the numbers."""
    if not row.direction and row.margin and row.paper is None:  # a claim of no difference
        margin = fmt.fixed(row.margin, fmt.places(row.ci_low, row.ci_high)) if s.low else \
            fmt.number(row.margin)
        said = {
            REPRODUCED: "no material difference, as the paper says",
            NOT_REPRODUCED: "a material difference, unlike the paper",
        }.get(row.verdict, "can't tell if the difference is material")
        return f"{said} ({_ours(row, s, False)}; margin ±{margin})"
    direction = DIRECTION_WORDS.get(row.direction or CANT_TELL)
    size = "" if row.verdict == NOT_COMPARABLE else _size(row, s)
    joint = "; " if row.direction == CANT_TELL else ", "
    said = f"{direction}{joint}{size}" if size else direction
    if row.verdict == NOT_COMPARABLE:
        s = Shown(s.ours, s.low, s.high, "", s.suffix)  # no size beside the paper's number
        return f"{said} ({_ours(row, s, False)}); not comparable with the paper's number"
    return f"{said} ({_ours(row, s, bool(size))})"


def sentence(row: Finding) -> str:
    """The one sentence (Markdown) of ``row``, e.g. ``**D2.1** test accuracy falls at ~98.6%
    sparsity: can't tell if the effect is there; smaller than the paper's −19.0 pts (ours −3.8
    [−9.0, 1.4]). A replication could say *smaller*.`` (module doc). A row not testable here
    says why."""
    if row.verdict == NOT_TESTABLE:
        why = fmt.clean_text(re.split(r"[;(]|:\s", row.basis, maxsplit=1)[0].strip().rstrip("."))
        rest = f"not testable here ({why})."
    else:
        s = shown(row)
        if not s.ours:
            rest = f"{DIRECTION_WORDS[CANT_TELL]} (no estimate)."
        else:
            rest = " ".join(filter(None, (f"{_claim(row, s)}.", replication(row))))
    room = max(NAME_WORDS, SENTENCE_WORDS - len(rest.split()))
    return f"{sentence_name(row, room)}: {rest}"


def sentences(rows: Sequence[Finding]) -> str:
    """The answer first: one sentence per finding, as a Markdown list."""
    return "\n".join(f"- {sentence(r)}" for r in rows)


# --------------------------------------------------------------------------- the table


def stability_text(row: Finding) -> str:
    """``firm (0.93)``, ``borderline (0.64)``, or for a firm undecided verdict ``stays
    undecided (0.97)`` (never *firm* beside *can't tell*): the share of replications with as
    many units that keep the verdict (:func:`pruneaudit.audit.stability.stability`); ``—`` when
    unknown."""
    if not _finite(row.stability):
        return DASH
    if audit_findings.is_borderline(row):
        said = "borderline"
    else:
        said = "stays undecided" if row.verdict in audit_findings.UNDECIDED else "firm"
    return f"{said} ({row.stability:.2f})"


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


def band_text(row: Finding) -> str:
    """The paper's band in the row's unit and precision, with its margin and reason, e.g.
    ``−44.5 to −29.4 pts (margin 5.0 pts: ...)``; empty without a band."""
    if row.paper_band is None or not all(map(_finite, row.paper_band)):
        return ""
    scale, suffix = _SCALE[row.unit]
    interval = has_interval(row)
    low, high = (row.ci_low, row.ci_high) if interval else (None, None)
    a, b, margin = fmt.same_precision([*row.paper_band, row.margin or 0.0], low, high, scale)
    said = f"{a} to {b}{suffix}"
    if row.margin:
        reason = f": {fmt.clean_text(row.margin_reason)}" if row.margin_reason else ""
        said += f" (margin {margin}{suffix}{reason})"
    return said


def _details(row: Finding) -> str:
    parts = [html.escape(sentence(row).replace("**", "").replace("*", ""))]
    if row.definition:
        parts.append(f"<b>Definition:</b> {html.escape(fmt.clean_text(row.definition))}")
    if row.basis:
        said = "Why" if row.verdict in audit_findings.UNTESTED else "Interval over"
        parts.append(f"<b>{said}:</b> {html.escape(fmt.clean_text(row.basis))}")
    band = band_text(row)
    if band:
        parts.append(f"<b>The paper's band:</b> {html.escape(band)}")
    if _finite(row.stability) or _finite(row.power):
        said = [f"replications with as many units keep this verdict: "
                f"{html.escape(stability_text(row))}"] if _finite(row.stability) else []
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
    """What would make a borderline row firm, named by its units: ``about 142 seeds (this
    build: 16) would make it firm if the estimate held`` (empty without ``firm_at``), or for
    units no budget raises (the task's classes, (dataset, class) clusters) that more
    computation cannot and what would."""
    units = units_of(row)
    if units.bought is False and units.count is not None:
        return (f"it rests on {units.count:,} {units.word}, which no budget raises (more seeds "
                f"cannot make it firm); {units.instead} would")
    if row.firm_at is None or row.units is None:
        return ""
    return (f"about {row.firm_at:,} {units.word} (this build: {row.units:,}) would make it "
            "firm if the estimate held")


def table_html(rows: Sequence[Finding]) -> str:
    """The findings table (HTML) with a details row under each finding and a verdict legend."""
    head = (
        "<thead><tr><th>Finding</th><th>Paper</th><th>Ours [95% interval]</th>"
        "<th>Effect there?</th><th>Size vs paper</th><th>Verdict</th></tr>"
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
            f'<td data-label="Paper">{html.escape(paper_text(row))}</td>'
            f'<td data-label="Ours [95% interval]">{html.escape(ours_text(row))}</td>'
            f'<td data-label="Effect there?">{direction}</td>'
            f'<td data-label="Size vs paper">{html.escape(SIZE_LABELS.get(row.size, ""))}</td>'
            f'<td data-label="Verdict">{verdict_html(row)}</td></tr>'
        )
        body.append(
            '<tr class="pa-details"><td colspan="6"><details><summary>In plain words, and '
            f"how this row is computed</summary>{_details(row)}</details></td></tr>"
        )
    legend = " ".join(
        f"{_label(v)} {html.escape(MEANING[v])}." for v in VERDICTS
    ) + (
        f" <b>firm</b> / <b>borderline</b>: a replication with as many units (another seed "
        f"set, another device) keeps the verdict with at least / less than "
        f"{STABLE:.0%} probability; a borderline row names both verdicts; an "
        "undecided verdict that a replication would keep <b>stays undecided</b>."
    )
    return (
        '<div class="pa-findings"><table class="pa-findings-table">'
        f"{head}<tbody>{''.join(body)}</tbody></table>"
        f'<p class="pa-legend">{legend}</p></div>'
    )


def method_note() -> str:
    """The short note under the table: how verdicts are read, with the methods link."""
    return (
        "How to read it: first, is the effect there on the paper's side (our 95% interval "
        "excludes no effect)? Then its size against the paper's band (the values a replication "
        "of the paper could give): *reproduced* needs our whole interval inside it. *Firm* or "
        "*borderline* says whether a replication with as many units would keep the verdict; "
        "each row's details give its band, power and what more units would settle. Details: "
        f"[methods, Findings and verdicts]({METHODS_LINK})."
    )
