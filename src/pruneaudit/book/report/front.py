"""The front page's fragments, computed at build time from what the executed notebooks wrote.

- :func:`write_front_page`: ``_overall.md``, the first screen (:func:`overall_html`): three to
  five plain sentences on what pruning and quantization did in this build, with numbers and
  units, beside a strip of real digits the pruned models forget and ordinary ones
  (:mod:`pruneaudit.book.report.front_examples`, saved by Study 4's page); and ``_front.md``:
  one row per study (its question, the plain answer and how sure we are), the paper findings
  counted, our own questions in their own short section, and the key figures as thumbnails.
- :func:`write_verdicts_page`: ``_verdicts.md``, the methods page's legend of the five words
  and the internal verdicts each covers.

Only rows that speak for a paper (``same``/``analogue``, never a derived row) are counted or
stated as answers (:func:`pruneaudit.book.report.wording.counted`); every chip, count and sentence
about a row reads from that row's one verdict, as its study page does.
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pruneaudit.audit.findings import Finding
from pruneaudit.audit.rules import VERDICTS
from pruneaudit.book.paths import STUDIES
from pruneaudit.book.report import front_examples, wording
from pruneaudit.book.report.answer import headline_findings
from pruneaudit.book.report.banner import PIPELINE_CHECK_NOTE, PIPELINE_CHECK_PROFILE
from pruneaudit.book.report.findings_table import RULE
from pruneaudit.book.report.pages import (
    FRONT,
    SITE_STUDIES,
    _cell,
    _profile_name,
    _title_and_question,
    _write,
    build_stamp_of,
    read_findings,
)
from pruneaudit.charts import format as fmt

OVERALL = "_overall.md"
VERDICTS_PAGE = "_verdicts.md"
#: Where the front page (``book/intro``) finds the study pages and the glossary.
STUDY_LINK = "studies/{name}.html"
GLOSSARY_FROM_FRONT = "glossary.html"
#: What the first screen says first of a smoke build.
SMOKE_NOTE = "Smoke build: a pipeline check on tiny data, not evidence."
#: The front page's table of studies: its columns.
SUMMARY_HEADS = ("Study", "The answer here", "How sure")
#: The class of the first screen's answer and of its strip of digits.
OVERALL_CLASS = "pa-overall"
STRIP_CLASS = "pa-strip"


@dataclass(frozen=True)
class Study:
    """One built study page as the front page reads it."""

    name: str
    title: str
    question: str
    stamp: dict
    linked: bool
    rows: list[Finding]
    key_figure: bool

    @property
    def label(self) -> str:
        """``Study 1`` (else the title)."""
        short = re.match(r"Study \d+", self.title)
        return short.group(0) if short else self.title

    @property
    def short(self) -> str:
        """A few words of the title: ``Study 1 — Population OLS: which ...`` -> ``Population
        OLS``."""
        match = re.match(r"Study \d+\s*[\u2014\u2013:-]\s*([^:?]+)", self.title)
        return match.group(1).strip() if match else ""


def read_studies(studies_dir: Path) -> list[Study]:
    """Every ``<name>.findings.json`` of ``studies_dir`` but the template's (``00_*``), in name
    order, with its page's title, question and build stamp."""
    studies = []
    for path in sorted(studies_dir.glob("*.findings.json")):
        name = path.name.removesuffix(".findings.json")
        if name.startswith("00_"):
            continue
        notebook = studies_dir / f"{name}.ipynb"
        title, question = _title_and_question(notebook)
        studies.append(Study(name, title, question, build_stamp_of(notebook),
                             notebook.is_file(), read_findings(path),
                             (studies_dir / f"{name}.key.svg").is_file()))
    return studies


# --------------------------------------------------------------------------- the first screen


def _points(value: float) -> str:
    """``−45.1 points`` / ``+0.1 points`` (signed, one decimal)."""
    return fmt.points(value / 100).replace(" pts", " points")


def plain_sentences(facts: Mapping[str, object]) -> list[str]:
    """The first screen's sentences from Study 4's saved numbers
    (:func:`pruneaudit.book.report.front_examples.front_facts`): what pruning and quantization
    do, to which digits, and by how much, with units. Every number is read from ``facts``."""
    sparsity = fmt.percent(float(facts["sparsity"]), 0)
    said = [
        "Pruning sets most of a network's weights to zero; quantization stores them in fewer "
        "bits. Both shrink a classifier.",
        f"In this build, pruning a digit classifier to {sparsity} zero weights changed its "
        f"accuracy by {_points(float(facts['top1_change_points']))} on average, from "
        f"{fmt.percent(float(facts['dense_top1']), 0)}.",
        f"The loss is not spread evenly: on the {fmt.percent(float(facts['pie_share']), 1)} of "
        "test digits whose answer pruning changed, the pruned models were right "
        f"{fmt.percent(float(facts['pruned_on_pies']), 0)} of the time, against "
        f"{fmt.percent(float(facts['dense_on_pies']), 0)} before.",
    ]
    quantized = list(facts.get("quantized") or [])
    if quantized:
        q = max(quantized, key=lambda x: float(x["pie_share"]))
        said.append(f"Storing the weights as {q['said']} instead changed accuracy by "
                    f"{_points(float(q['top1_change_points']))} and the answer on "
                    f"{fmt.percent(float(q['pie_share']), 1)} of digits.")
    return said


def strip_html(facts: Mapping[str, object]) -> str:
    """The strip of real digits (class :data:`STRIP_CLASS`): those the pruned models forget
    (the dense models right, the pruned wrong), then ordinary ones of the same classes that
    both keep, each captioned."""
    def row(title: str, items: Sequence[Mapping[str, str]]) -> str:
        cells = "".join(
            f'<figure><img src="{html.escape(i["image"])}" alt="{html.escape(i["caption"])}" '
            f'width="56" height="56"><figcaption>{html.escape(i["caption"])}</figcaption>'
            "</figure>" for i in items)
        return f'<p class="pa-strip-title">{html.escape(title)}</p><div>{cells}</div>'

    forgotten = list(facts.get("forgotten") or [])
    ordinary = list(facts.get("ordinary") or [])
    if not forgotten:
        return ""
    parts = [row("Digits the pruned models forget", forgotten)]
    if ordinary:
        parts.append(row("Ordinary digits, kept", ordinary))
    return f'<div class="{STRIP_CLASS}">{"".join(parts)}</div>'


def overall_html(facts: Mapping[str, object] | None, note: str = "") -> str:
    """The first screen (class :data:`OVERALL_CLASS`): ``note`` (a smoke build says so), the
    plain sentences (:func:`plain_sentences`) and the strip beside them (:func:`strip_html`);
    without Study 4's numbers, that they are not in this build."""
    if facts is None:
        text = ("<p>This build has no Study 4 numbers yet: the studies below answer one "
                "question each.</p>")
        strip = ""
    else:
        text = "".join(f"<p>{html.escape(s)}</p>" for s in plain_sentences(facts))
        strip = strip_html(facts)
    note_html = f'<p class="pa-overall-note"><b>{html.escape(note)}</b></p>' if note else ""
    return (f'<div class="{OVERALL_CLASS}"><div class="pa-overall-said">{note_html}{text}'
            f"</div>{strip}</div>")


# --------------------------------------------------------------------------- the studies


def _study_cell(study: Study) -> str:
    """The study column: a link named "Study N" (else the page's title) and its question."""
    link = (f"{{doc}}`{study.label} <{SITE_STUDIES}/{study.name}>`" if study.linked
            else study.label)
    return f"**{link}**<br>{study.question}" if study.question else f"**{link}**"


def _build_sentence(stamps: Sequence[dict]) -> str:
    """Which build computed the table: one profile and date for all studies, else per study;
    with the smoke profile, that its numbers are a pipeline check, not evidence."""
    said = {(_profile_name(s.get("profile")), str(s.get("date", ""))) for s in stamps if s}
    if not said:
        text = "The build that computed these rows is not recorded."
    elif len(said) == 1:
        profile, date = next(iter(said))
        text = f"Computed by the {profile} build of {date}.".replace(" of .", ".")
    else:
        text = "Computed by builds of different profiles or dates (each named under its study)."
    if any(_profile_name(s.get("profile")) == PIPELINE_CHECK_PROFILE for s in stamps if s):
        text += f" {PIPELINE_CHECK_NOTE}"
    return text


def _answer_cell(rows: Sequence[Finding]) -> str:
    heads = headline_findings(rows)
    said = [wording.inline_html(wording.finding_sentence(r, plain=True), GLOSSARY_FROM_FRONT)
            for r in heads]
    return "<br>".join(said) or "No paper finding yet."


def _sure_cell(rows: Sequence[Finding]) -> str:
    heads = headline_findings(rows)
    said = [wording.agree_text(r) or "Not measured." for r in heads]
    counts = f'<span class="pa-counts">{html.escape(wording.counts_text(rows))}</span>'
    return "<br>".join(map(html.escape, said)) + f"<br>{counts}"


def _row_of(study: Study, mixed: bool) -> str:
    """The table's line of one study: its question, the plain answer of its headline rows
    (the answer box's words) and how sure, with its paper findings counted."""
    cell = _study_cell(study)
    if mixed:  # each study names its build
        built = (f"{_profile_name(study.stamp.get('profile'))}, {study.stamp.get('date', '')}"
                 if study.stamp else "build not recorded")
        cell += f"<br>({built})"
    cells = (cell, _answer_cell(study.rows), _sure_cell(study.rows))
    return "| " + " | ".join(map(_cell, cells)) + " |"


def own_questions(studies: Sequence[Study]) -> str:
    """The short section on our own questions (``beyond`` rows), in their own words: one line
    each, never counted for a paper; empty without any."""
    lines = []
    for study in studies:
        for row in study.rows:
            if row.comparability != "beyond":
                continue
            text = " ".join(filter(None, (wording.finding_sentence(row, plain=True),
                                          wording.agree_text(row))))
            said = wording.inline_html(text, GLOSSARY_FROM_FRONT)
            lines.append(f"- {study.label}: {said}")
    if not lines:
        return ""
    return ("\n## Our own questions\n\nBeside the papers' claims, we asked a few questions of "
            "our own. They never count for a paper.\n\n" + "\n".join(lines) + "\n")


def _thumbnail(study: Study) -> str:
    """A study's key figure as a thumbnail that opens the study, under its linked name."""
    named = (f"{{doc}}`{study.label}: {study.short or study.title} <{SITE_STUDIES}/{study.name}>`"
             if study.linked else study.title)
    target = f":target: {STUDY_LINK.format(name=study.name)}\n" if study.linked else ""
    return (f":::{{container}} pa-thumb\n**{named}**\n\n```{{image}} "
            f"{SITE_STUDIES}/{study.name}.key.svg\n:alt: key figure of {study.title}; opens "
            f"the study\n{target}:class: pa-key-figure\n```\n:::\n")


def write_front_page(studies_dir: str | os.PathLike = STUDIES) -> Path:
    """Write ``<studies_dir>/_overall.md`` (:func:`overall_html`) and ``<studies_dir>/_front.md``
    (module doc); return the path of ``_front.md``."""
    studies_dir = Path(studies_dir)
    studies_dir.mkdir(parents=True, exist_ok=True)
    studies = read_studies(studies_dir)
    if not studies:
        none = ("No study page has recorded its findings yet: build the book "
                "(`make book`) and each study page writes them.\n")
        _write(studies_dir / OVERALL, none)
        return _write(studies_dir / FRONT, none)
    stamps = [s.stamp for s in studies]
    smoke = any(_profile_name(s.get("profile")) == PIPELINE_CHECK_PROFILE for s in stamps if s)
    facts = front_examples.read_facts(studies_dir)
    _write(studies_dir / OVERALL, overall_html(facts, SMOKE_NOTE if smoke else "") + "\n")
    mixed = len({(_profile_name(s.get("profile")), s.get("date")) for s in stamps}) > 1
    table = ["| " + " | ".join(SUMMARY_HEADS) + " |", "|---|---|---|"]
    table += [_row_of(s, mixed) for s in studies]
    rows = [r for s in studies for r in s.rows]
    words = sorted({wording.word_of(r.verdict) for r in rows}, key=wording.WORDS.index)
    text = (f"{_build_sentence(stamps)}\n\n:::{{container}} pa-summary\n" + "\n".join(table)
            + f"\n:::\n\nAcross the studies, {wording.counts_text(rows)}\n\n"
            f'<p class="pa-answer-legend">{wording.legend_line(words, GLOSSARY_FROM_FRONT)}'
            "</p>\n" + own_questions(studies))
    thumbs = [_thumbnail(s) for s in studies if s.key_figure]
    if thumbs:
        text += ("\n## Key figures\n\nEach opens its study.\n\n::::{container} pa-thumbs\n"
                 + "\n".join(thumbs) + "::::\n")
    return _write(studies_dir / FRONT, text)


def verdicts_text() -> str:
    """The legend of the five words (Markdown with HTML anchors): each word, its meaning and
    the internal verdicts it covers with their rules
    (:data:`pruneaudit.book.report.wording.READER_WORD`,
    :data:`pruneaudit.book.report.findings_table.RULE`)."""
    items = []
    for word in wording.WORDS:
        covered = [v for v in VERDICTS if wording.READER_WORD.get(v) == word]
        rules = "; ".join(f"*{v}*: {RULE.get(v, wording.VERDICT_SAID.get(v, v))}"
                          for v in covered)
        items.append(
            f'- <span id="verdict-{wording.slug(word)}"></span><span class="pa-verdict '
            f'pa-v-{wording.slug(word)}" title="{html.escape(wording.tooltip(word))}">'
            f"{html.escape(word)}</span>: "
            f"{wording.WORD_MEANS[word]}. Internal verdicts: {rules}.")
    return "\n".join(items) + "\n"


def write_verdicts_page(studies_dir: str | os.PathLike = STUDIES) -> Path:
    """Write ``<studies_dir>/_verdicts.md`` (:func:`verdicts_text`); return its path."""
    studies_dir = Path(studies_dir)
    studies_dir.mkdir(parents=True, exist_ok=True)
    return _write(studies_dir / VERDICTS_PAGE, verdicts_text())


__all__ = ["write_front_page", "write_verdicts_page", "verdicts_text", "read_studies",
           "overall_html", "plain_sentences", "strip_html", "own_questions", "SUMMARY_HEADS",
           "OVERALL", "VERDICTS_PAGE"]
