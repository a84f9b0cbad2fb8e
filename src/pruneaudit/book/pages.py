"""Page fragments the book computes at build time from what the executed notebooks wrote.

- :func:`write_front_page`: the intro's study list (``_front.md``): per study its question (the
  first sentence ending in ``?`` of the executed page's opening text), its answer counted from
  ``<notebook>.findings.json`` (written by ``Page.show_findings``) and its key figure
  ``<notebook>.key.svg`` (written by ``Page.show_key_figure``).
- :func:`write_timings_page`: the Reproducing page's table of measured durations
  (``_timings.md``) from ``_timings.json``, which the build writes (records with keys
  ``profile``, ``notebook``, ``seconds``, ``date``, ``cores``).

- :func:`fold_injected_parameters`: papermill's ``injected-parameters`` cell gets the
  ``hide-cell`` tag, so that the values a profile injected stay on the page, folded.

All three depend only on the studies folder; ``build`` calls :func:`prepare_pages` (all three)
before ``jupyter-book build``. The intro and Reproducing pages ``{include}`` the fragments.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from collections import Counter
from pathlib import Path

from pruneaudit import timing
from pruneaudit.audit.findings import VERDICTS, Finding
from pruneaudit.book.findings_table import sentence
from pruneaudit.book.paths import PROFILE_NAMES, STUDIES
from pruneaudit.book.paths import TIMINGS as TIMINGS_FILE
from pruneaudit.errors import PruneAuditError

FRONT = "_front.md"
TIMINGS = "_timings.md"
#: Verdicts in the order the answer line counts them (see ``pruneaudit.audit.findings``).
VERDICT_ORDER = VERDICTS
#: Where the book's source root sees the studies folder (links and images in the fragment).
SITE_STUDIES = "/book/studies"


def _write(path: Path, text: str) -> Path:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)
    return path


def _read_json(path: Path) -> object:
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as err:
        raise PruneAuditError(
            f"{path} is not valid JSON ({err}): rebuild the page that writes it"
        ) from None


def _markdown_cells(notebook: Path) -> list[str]:
    if not notebook.is_file():
        return []
    cells = _read_json(notebook).get("cells", [])  # type: ignore[union-attr]
    return [
        "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
        for c in cells
        if c.get("cell_type") == "markdown"
    ]


def _plain_text(markdown: str) -> str:
    text = re.sub(r"[*`]|^#+.*$", "", markdown, flags=re.MULTILINE)
    text = re.sub(r"\([^()]*\)", "", text)  # citations in parentheses
    text = re.sub(r"\s+", " ", text)
    return re.sub(r"\s+([,.?:;])", r"\1", text).strip()


def _title_and_question(notebook: Path) -> tuple[str, str]:
    """The page's ``# `` heading, and its question: the paragraph that opens with "Question"
    up to its first ``?`` (else the first sentence ending in ``?`` of the page's markdown)."""
    title, question, fallback = notebook.stem, "", ""
    for text in _markdown_cells(notebook):
        heading = re.search(r"^#\s+(.+)$", text, flags=re.MULTILINE)
        if heading and title == notebook.stem:
            title = heading.group(1).strip()
        for paragraph in re.split(r"\n\s*\n", text):
            plain = _plain_text(paragraph)
            opened = re.match(r"Question\b[.:]?\s*(.*?\?)", plain)
            if opened and not question:
                question = opened.group(1).strip()
            found = re.search(r"(?:^|(?<=[.!?:] ))([A-Z][^.!?]*\?)", plain)
            if found and not fallback:
                fallback = found.group(1).strip()
    return title, question or fallback


def answer_line(rows: list[dict]) -> str:
    """One line from a page's findings: the verdict counts and the first finding in one plain
    sentence (:func:`pruneaudit.book.findings_table.sentence`)."""
    if not rows:
        return "no findings recorded on this page yet"
    counts = Counter(r.get("verdict", "") for r in rows)
    order = [v for v in VERDICT_ORDER if counts[v]] + sorted(set(counts) - set(VERDICT_ORDER))
    parts = [f"{counts[v]} {v}" for v in order]
    noun = "finding" if len(rows) == 1 else "findings"
    return f"{len(rows)} {noun}: {', '.join(parts)}. First: {_first_sentence(rows[0])}"


def _first_sentence(row: dict) -> str:
    fields = {f.name for f in dataclasses.fields(Finding)}
    known = {k: v for k, v in row.items() if k in fields}
    if known.get("excess") is not None:
        known["excess"] = tuple(known["excess"])
    try:
        finding = Finding(**{"paper": None, "ours": None, "ci_low": None, "ci_high": None,
                             "source": "", **known})
    except (TypeError, PruneAuditError):
        return f"{row.get('finding', '?')}: {row.get('verdict', '?')}."
    return sentence(finding)


def write_front_page(studies_dir: str | os.PathLike = STUDIES) -> Path:
    """Write ``<studies_dir>/_front.md``, the intro's list of studies; return its path.

    One entry per ``<name>.findings.json`` (the template ``00_*`` left out), in name order:
    the title (a link when the executed notebook ``<name>.ipynb`` is there), the question, the
    computed answer, and the key figure when ``<name>.key.svg`` exists.
    """
    studies_dir = Path(studies_dir)
    studies_dir.mkdir(parents=True, exist_ok=True)
    entries = []
    for path in sorted(studies_dir.glob("*.findings.json")):
        name = path.name.removesuffix(".findings.json")
        if name.startswith("00_"):
            continue
        rows = _read_json(path)
        if not isinstance(rows, list):
            raise PruneAuditError(f"{path} must hold a list of findings: rebuild {name}")
        notebook = studies_dir / f"{name}.ipynb"
        title, question = _title_and_question(notebook)
        link = f"{{doc}}`{title} <{SITE_STUDIES}/{name}>`" if notebook.is_file() else title
        lines = [f"### {link}", ""]
        if question:
            lines += [f"**Asks.** {question}", ""]
        lines += [f"**Answers.** {answer_line(rows)}", ""]
        if (studies_dir / f"{name}.key.svg").is_file():
            lines += [
                f"```{{figure}} {SITE_STUDIES}/{name}.key.svg",
                f":alt: key figure of {title}",
                ":width: 480px",
                "",
                f"Key figure of {title} (from the built page).",
                "```",
                "",
            ]
        entries.append("\n".join(lines))
    text = "\n".join(entries) or (
        "No study page has recorded its findings yet: build the book "
        "(`make book`) and each study page writes them.\n"
    )
    return _write(studies_dir / FRONT, text)


def _duration(seconds: float) -> str:
    seconds = round(float(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes, sec = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {sec:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def load_timings(studies_dir: str | os.PathLike = STUDIES, strict: bool = True) -> list[dict]:
    """The records of ``_timings.json`` (a list, or ``{"runs": [...]}``), latest per
    (profile, notebook); ``[]`` when there is no file.

    ``strict`` (the Reproducing page): a file that is not JSON, or a record without the keys
    profile, notebook, seconds, date and cores, raises. Otherwise (the expected-duration line
    before a build) an unreadable file reads as ``[]`` and incomplete records are skipped.
    """
    path = Path(studies_dir) / TIMINGS_FILE
    if not path.is_file():
        return []
    try:
        content = _read_json(path)
    except PruneAuditError:
        if strict:
            raise
        return []
    records = content.get("runs", []) if isinstance(content, dict) else content
    needed = {"profile", "notebook", "seconds", "date", "cores"}
    latest: dict[tuple[str, str], dict] = {}
    for record in records or []:
        if not isinstance(record, dict) or not needed <= set(record):
            if not strict:
                continue
            raise PruneAuditError(
                f"{path}: each record needs keys {sorted(needed)}, got {record!r}"
            )
        key = (str(record["profile"]), str(record["notebook"]))
        if key not in latest or str(record["date"]) >= str(latest[key]["date"]):
            latest[key] = record
    return list(latest.values())


#: Column heads of the phases (:data:`pruneaudit.timing.PHASES`) in the timings table.
PHASE_HEADS = ("training", "evaluation", "pruning", "store I/O")


def _phase_cells(record: dict) -> str:
    """A record's seconds per phase and the rest ("other": kernel start-up, data loading,
    analysis, charts), or empty cells where the phases were not measured."""
    phases = record.get("phases")
    if not isinstance(phases, dict):
        return " | ".join([""] * (len(PHASE_HEADS) + 1))
    spent = [float(phases.get(k, 0.0)) for k in timing.PHASES]
    other = max(float(record["seconds"]) - sum(spent), 0.0)
    return " | ".join(f"{v:,.0f} s" for v in [*spent, other])


def write_timings_page(studies_dir: str | os.PathLike = STUDIES) -> Path:
    """Write ``<studies_dir>/_timings.md``: per profile, each notebook's measured duration
    split into phases (training, evaluation, pruning, store I/O and the rest), the runs it added
    to the results store (a notebook that added none says so), Jupyter Book's assembly of the
    pages, the total, the date and the cores of the build that measured it; return its path."""
    studies_dir = Path(studies_dir)
    studies_dir.mkdir(parents=True, exist_ok=True)
    records = load_timings(studies_dir)
    profiles = list(PROFILE_NAMES) + sorted({r["profile"] for r in records} - set(PROFILE_NAMES))
    parts = []
    for profile in profiles:
        rows = sorted((r for r in records if r["profile"] == profile), key=lambda r: r["notebook"])
        if not rows:
            parts.append(f"**{profile}**: not measured yet on this machine.\n")
            continue
        total = sum(float(r["seconds"]) for r in rows)
        dates = sorted(str(r["date"])[:10] for r in rows)
        cores = sorted({str(r["cores"]) for r in rows})
        warm = [r["notebook"] for r in rows if r.get("new_runs") == 0]
        note = (
            f" Stored no new run: {', '.join(warm)}. A notebook that trains but stored no new "
            "run found its runs in the results store, so its time measures the analysis alone, "
            "not a build from scratch."
            if warm
            else ""
        )
        lines = [
            f"**{profile}**: {_duration(total)} in all ({len(rows)} steps, measured "
            f"{dates[0]}{' to ' + dates[-1] if dates[-1] != dates[0] else ''} on "
            f"{' / '.join(cores)} cores).{note}",
            "",
            "| step | duration | " + " | ".join(PHASE_HEADS) + " | other | new runs stored "
            "| date | cores |",
            "|---|---:|" + "---:|" * (len(PHASE_HEADS) + 2) + "---|---:|",
        ]
        lines += [
            f"| {r['notebook']} | {_duration(r['seconds'])} | {_phase_cells(r)} | "
            f"{'' if r.get('new_runs') is None else r['new_runs']} | {str(r['date'])[:16]} "
            f"| {r['cores']} |"
            for r in rows
        ]
        parts.append("\n".join(lines) + "\n")
    return _write(studies_dir / TIMINGS, "\n".join(parts))


def fold_injected_parameters(studies_dir: str | os.PathLike = STUDIES) -> list[Path]:
    """Tag papermill's ``injected-parameters`` cell ``hide-cell`` in every executed notebook of
    ``studies_dir`` that lacks it (cells' metadata only); return the notebooks changed."""
    import nbformat

    changed = []
    for path in sorted(Path(studies_dir).glob("[0-9]*.ipynb")):
        if path.name.endswith((".partial.ipynb", ".failed.ipynb")):
            continue
        nb = nbformat.read(path, as_version=4)
        touched = False
        for cell in nb.cells:
            tags = cell.metadata.get("tags", [])
            if "injected-parameters" in tags and "hide-cell" not in tags:
                cell.metadata["tags"] = [*tags, "hide-cell"]
                touched = True
        if touched:
            tmp = path.with_name(path.name + ".tmp")
            nbformat.write(nb, tmp)
            os.replace(tmp, path)
            changed.append(path)
    return changed


def prepare_pages(studies_dir: str | os.PathLike = STUDIES) -> list[Path]:
    """What ``build`` runs before ``jupyter-book build``: fold the injected parameters, write the
    front page's study list and the timings table; return the two fragments."""
    fold_injected_parameters(studies_dir)
    return [write_front_page(studies_dir), write_timings_page(studies_dir)]
