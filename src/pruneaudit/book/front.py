"""The front page's fragments, computed at build time from what the executed notebooks wrote.

- :func:`write_front_page`: ``_overall.md``, the overall answer on the first screen
  (:func:`pruneaudit.book.answer.overall_html`: what holds, what does not and what this build
  cannot tell, across the studies, with the verdict counts, the one-line legend and a linked
  line per study), and ``_front.md``, the studies at a glance: the build that computed them, a
  summary table (each study's question, headline sentences and verdicts) and the key figures
  as thumbnails that open their studies.
- :func:`write_verdicts_page`: ``_verdicts.md``, the methods page's legend of the verdict words
  (one anchor per verdict, the target of every coloured label's link).

Both read ``<notebook>.findings.json`` (written by ``Page.show_findings``) and the executed
notebook's ``metadata.pruneaudit``; :func:`pruneaudit.book.pages.prepare_pages` writes them.
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pruneaudit.audit.findings import Finding, verdict_counts
from pruneaudit.audit.rules import VERDICTS
from pruneaudit.audit.stability import STABLE
from pruneaudit.book import wording
from pruneaudit.book.answer import StudyAnswer, headline_findings, overall_html
from pruneaudit.book.banner import PIPELINE_CHECK_NOTE, PIPELINE_CHECK_PROFILE
from pruneaudit.book.findings_table import RULE, verdict_html
from pruneaudit.book.pages import (
    FRONT,
    SITE_STUDIES,
    _cell,
    _profile_name,
    _title_and_question,
    _write,
    build_stamp_of,
    read_findings,
)
from pruneaudit.book.paths import STUDIES

OVERALL = "_overall.md"
VERDICTS_PAGE = "_verdicts.md"
#: Where the front page (``book/intro``) finds the study pages and the legend.
STUDY_LINK = "studies/{name}.html"
LEGEND_FROM_FRONT = "methods_audit.html"
#: What the overall answer says first of a smoke build (the build sentence says more).
SMOKE_NOTE = "Smoke build: a pipeline check, not evidence."
#: The sentence that says what a finding id is (front page).
IDS_SENTENCE = (
    "Each finding has an id, D*study*.*number* (D4.5 is Study 4's fifth finding taken from a "
    "paper); it links to its definition in {doc}`methods_audit`, section *Findings by id*."
)
#: The front page's summary table: its columns (the headline answer gets the space).
SUMMARY_HEADS = ("Study", "Headline answer", "Verdict")


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


def _study_cell(study: Study) -> str:
    """The study column: a link named "Study N" (else the page's title) and its question."""
    link = (f"{{doc}}`{study.label} <{SITE_STUDIES}/{study.name}>`" if study.linked
            else study.label)
    return f"**{link}**<br>{study.question}" if study.question else f"**{link}**"


def _build_sentence(stamps: Sequence[dict]) -> str:
    """Which build computed the table: one profile and date for all studies, else per study
    (each study's cell then names its own); with the smoke profile, that its numbers are a
    pipeline check, not evidence."""
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


def _said(row: Finding) -> str:
    """A headline finding as the answer box says it, each sentence on its own line: what was
    found, then how firm (class ``pa-firm``)."""
    said = wording.said(row)
    found = wording.inline_html(said.found, LEGEND_FROM_FRONT)
    if not said.firm:
        return found
    firm = wording.inline_html(said.firm, LEGEND_FROM_FRONT)
    return f'{found}<br><span class="pa-firm">{firm}</span>'


def _row_of(study: Study, mixed: bool) -> str:
    """The summary table's line of one study: its cell, its headline sentences (as the answer
    box says them, verdicts as labels with their tooltips) and its headline verdicts."""
    headline = headline_findings(study.rows)
    answer = "<br>".join(_said(r) for r in headline) or "none yet"
    verdict = "<br>".join(verdict_html(r, LEGEND_FROM_FRONT) for r in headline) or "none yet"
    if study.rows:
        verdict += f'<br><span class="pa-counts">{verdict_counts(study.rows)}</span>'
    cell = _study_cell(study)
    if mixed:  # each study names its build
        built = (f"{_profile_name(study.stamp.get('profile'))}, {study.stamp.get('date', '')}"
                 if study.stamp else "build not recorded")
        cell += f"<br>({built})"
    return f"| {_cell(cell)} | {_cell(answer)} | {_cell(verdict)} |"


def _thumbnail(study: Study) -> str:
    """A study's key figure as a thumbnail that opens the study, under its linked name."""
    named = (f"{{doc}}`{study.label}: {study.short or study.title} <{SITE_STUDIES}/{study.name}>`"
             if study.linked else study.title)
    target = f":target: {STUDY_LINK.format(name=study.name)}\n" if study.linked else ""
    return (f":::{{container}} pa-thumb\n**{named}**\n\n```{{image}} "
            f"{SITE_STUDIES}/{study.name}.key.svg\n:alt: key figure of {study.title}; opens "
            f"the study\n{target}:class: pa-key-figure\n```\n:::\n")


def write_front_page(studies_dir: str | os.PathLike = STUDIES) -> Path:
    """Write ``<studies_dir>/_overall.md`` and ``<studies_dir>/_front.md`` (module doc);
    return the path of ``_front.md``.

    ``_front.md``: which build computed it (smoke: a pipeline check, not evidence), then the
    summary table, one line per study in name order (a link when the executed notebook
    ``<name>.ipynb`` is there, its question in a few words, the sentences of each headline row
    as the page's answer box says them and its verdicts with the page's verdict counts), the
    sentence on the ids, and the key figures ``<name>.key.svg`` as linked thumbnails.
    """
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
    answers = [StudyAnswer(s.label, s.short, STUDY_LINK.format(name=s.name) if s.linked else "",
                           s.rows) for s in studies]
    note = SMOKE_NOTE if smoke else ""
    _write(studies_dir / OVERALL, overall_html(answers, LEGEND_FROM_FRONT, note) + "\n")
    mixed = len({(_profile_name(s.get("profile")), s.get("date")) for s in stamps}) > 1
    table = ["| " + " | ".join(SUMMARY_HEADS) + " |", "|---|---|---|"]
    table += [_row_of(s, mixed) for s in studies]
    text = (f"{_build_sentence(stamps)}\n\n:::{{container}} pa-summary\n" + "\n".join(table)
            + f"\n:::\n\n{IDS_SENTENCE}\n")
    thumbs = [_thumbnail(s) for s in studies if s.key_figure]
    if thumbs:
        text += ("\n### Key figures\n\nEach opens its study, where it is drawn for the screen's "
                 "width and shows its values under the pointer.\n\n::::{container} pa-thumbs\n"
                 + "\n".join(thumbs) + "::::\n")
    return _write(studies_dir / FRONT, text)


def verdicts_text() -> str:
    """The legend of the verdict words (Markdown with HTML anchors): each verdict's label,
    plain words and rule (:data:`pruneaudit.book.wording.VERDICT_SAID`,
    :data:`pruneaudit.book.findings_table.RULE`), then *firm* and *borderline*."""
    items = [
        f'- <span id="{wording.anchor(v)}"></span><span class="pa-verdict pa-v-{wording.slug(v)}">'
        f"{html.escape(v)}</span>: {wording.VERDICT_SAID[v]} ({RULE[v]})." for v in VERDICTS
    ]
    items += [
        f'- <span id="verdict-firm"></span>**firm**: a replication with as many units (another '
        f"seed set, another device) keeps the verdict at least {STABLE:.0%} of the time; "
        "**stays undecided**: an open verdict (*inconclusive*, *same direction, size can't "
        "tell*) that a replication keeps as often: more units are needed to tell.",
        f'- <span id="verdict-borderline"></span>**borderline**: a replication keeps the verdict '
        f"less than {STABLE:.0%} of the time; the row names the likeliest other verdict.",
    ]
    return "\n".join(items) + "\n"


def write_verdicts_page(studies_dir: str | os.PathLike = STUDIES) -> Path:
    """Write ``<studies_dir>/_verdicts.md`` (:func:`verdicts_text`); return its path."""
    studies_dir = Path(studies_dir)
    studies_dir.mkdir(parents=True, exist_ok=True)
    return _write(studies_dir / VERDICTS_PAGE, verdicts_text())


__all__ = ["write_front_page", "write_verdicts_page", "verdicts_text", "read_studies",
           "IDS_SENTENCE", "SUMMARY_HEADS", "OVERALL", "VERDICTS_PAGE"]
