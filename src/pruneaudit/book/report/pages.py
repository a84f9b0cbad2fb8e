"""Page fragments the book computes at build time from what the executed notebooks wrote.

- :func:`write_timings_page`: the Reproducing page's table of measured durations
  (``_timings.md``) from ``_timings.json``, which the build writes (records with keys
  ``profile``, ``notebook``, ``seconds``, ``date``, ``cores``), beside what each profile file
  states as its measured cold build.
- :func:`write_measured_page`: the Reproducing page's stated cold builds (``_measured.md``),
  generated from each profile's ``measured:`` section (the evidence behind them:
  ``benchmarks/out/profile_evidence.md``).
- :func:`write_definitions_page`: the methods page's *Findings by id* (``_definitions.md``), one
  anchor per finding id (:mod:`pruneaudit.book.report.finding_ids`).
- :func:`write_rerun_pages`: per notebook, "Re-run this page" (``_rerun_<name>.md``): the
  commands, the measured time per profile and the parameters per profile.
- :func:`remove_injected_parameters`: papermill's ``injected-parameters`` cell gets the
  ``remove-cell`` tag (the page's "Re-run this page" section prints the parameters).

All depend only on the studies folder (and ``nbs/``); ``build`` calls :func:`prepare_pages`
before ``jupyter-book build``, and the front page's writers
(:mod:`pruneaudit.book.report.front`: the intro's overall answer and studies at a glance,
``_overall.md`` and ``_front.md``, and the methods page's legend of the verdict words,
``_verdicts.md``), which read this module's helpers. The intro, Reproducing and methods pages
``{include}`` the fragments; a study page may include its ``_rerun_<name>.md``.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from pruneaudit import timing
from pruneaudit.audit.findings import Finding
from pruneaudit.audit.findings_file import from_json
from pruneaudit.book.paths import PROFILE_NAMES, STUDIES
from pruneaudit.book.paths import TIMINGS as TIMINGS_FILE
from pruneaudit.book.profiles import Profile, notebook_parameters
from pruneaudit.book.report import finding_ids
from pruneaudit.charts import format as fmt
from pruneaudit.errors import PruneAuditError
from pruneaudit.studies.registry import PAGES

FRONT = "_front.md"
TIMINGS = "_timings.md"
MEASURED_PAGE = "_measured.md"
#: Where the measurements behind the profiles' settings and stated builds are kept.
EVIDENCE = "benchmarks/out/profile_evidence.md"
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


#: Inline or display math in Markdown, kept as written by :func:`_plain_text`.
MATH = re.compile(r"(\$\$.+?\$\$|\$[^$\n]+\$)", flags=re.S)


def _plain_text(markdown: str) -> str:
    """Markdown as one plain line: no emphasis, code marks, headings or parenthesised
    citations, except inside ``$...$`` math, which is kept whole."""
    parts = MATH.split(markdown)
    for i in range(0, len(parts), 2):  # the text between math spans
        text = re.sub(r"[*`]|^#+.*$", "", parts[i], flags=re.MULTILINE)
        parts[i] = re.sub(r"\([^()]*\)", "", text)  # citations in parentheses
    text = re.sub(r"\s+", " ", "".join(parts))
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


def read_findings(path: Path) -> list[Finding]:
    """The findings of ``<notebook>.findings.json`` (:func:`pruneaudit.audit.findings.from_json`);
    a file that is not a list of findings is one error naming it."""
    rows = _read_json(path)
    name = path.name.removesuffix(".findings.json")
    if not isinstance(rows, list):
        raise PruneAuditError(f"{path} must hold a list of findings: rebuild {name}")
    out = []
    for i, row in enumerate(rows):
        try:
            out.append(from_json(row))
        except (TypeError, AttributeError, PruneAuditError) as err:
            raise PruneAuditError(
                f"{path}: row {i} is not a finding ({err}): rebuild {name}"
            ) from None
    return out


def _cell(text: str) -> str:
    """Text safe in a Markdown table cell (one line, pipes escaped)."""
    return re.sub(r"\s+", " ", text).replace("|", "\\|").strip()


#: The key executed notebooks record their build under (``pruneaudit.book.builder.runner``).
STAMP_KEY = "pruneaudit"


def build_stamp_of(notebook: Path) -> dict:
    """The profile and date an executed notebook records (``metadata.pruneaudit``); ``{}``."""
    if not notebook.is_file():
        return {}
    meta = _read_json(notebook).get("metadata", {})  # type: ignore[union-attr]
    stamp = meta.get(STAMP_KEY) if isinstance(meta, dict) else None
    return stamp if isinstance(stamp, dict) else {}


def _profile_name(label: object) -> str:
    text = str(label or "")
    return Path(text).stem if text.endswith((".yml", ".yaml")) else text


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


def read_profiles(names: Sequence[str] = PROFILE_NAMES) -> dict[str, Profile | None]:
    """Each named profile read once (:class:`~pruneaudit.book.profiles.Profile`); None for one
    that cannot be read (its pages then say it states nothing)."""
    read: dict[str, Profile | None] = {}
    for name in names:
        try:
            read[name] = Profile.read(name)
        except PruneAuditError:
            read[name] = None
    return read


def _stated(profile: str, read: Mapping[str, Profile | None]) -> dict[str, float]:
    got = read.get(profile)
    return dict(got.measured) if got is not None else {}


def _stated_text(profile: str, read: Mapping[str, Profile | None]) -> str:
    """What the profile file states as its measured cold build (``measured:``), or that it
    states none."""
    stated = _stated(profile, read)
    if not stated:
        return f"The profile file (`nbs/profiles/{profile}.yml`) states no measured build."
    return (
        f"The profile file (`nbs/profiles/{profile}.yml`, section `measured`) states a measured "
        f"cold build of {_duration(sum(stated.values()))} in all (how and on what machine: "
        f"`{EVIDENCE}`)."
    )


def write_timings_page(
    studies_dir: str | os.PathLike = STUDIES,
    profiles: Mapping[str, Profile | None] | None = None,
) -> Path:
    """Write ``<studies_dir>/_timings.md``: per profile, each notebook's measured duration
    split into phases (training, evaluation, pruning, store I/O and the rest), the runs it added
    to the results store (a notebook that added none says so), Jupyter Book's assembly of the
    pages, the total, the date and the cores of the build that measured it; return its path.
    ``profiles``: the profiles already read (:func:`read_profiles`)."""
    studies_dir = Path(studies_dir)
    profiles_read = read_profiles() if profiles is None else profiles
    studies_dir.mkdir(parents=True, exist_ok=True)
    records = load_timings(studies_dir)
    profiles = list(PROFILE_NAMES) + sorted({r["profile"] for r in records} - set(PROFILE_NAMES))
    parts = []
    for profile in profiles:
        rows = sorted((r for r in records if r["profile"] == profile), key=lambda r: r["notebook"])
        stated = _stated_text(profile, profiles_read)
        if not rows:
            parts.append(f"**{profile}**: no build of it measured on this machine yet. {stated}\n")
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
            f"{' / '.join(cores)} cores).{note} {stated}".rstrip(),
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


def write_measured_page(
    studies_dir: str | os.PathLike = STUDIES,
    profiles: Mapping[str, Profile | None] | None = None,
) -> Path:
    """Write ``<studies_dir>/_measured.md``: each profile's stated cold build, seconds per
    notebook and in all, from its ``measured:`` section (a profile that states none says so);
    return its path."""
    studies_dir = Path(studies_dir)
    studies_dir.mkdir(parents=True, exist_ok=True)
    read = read_profiles() if profiles is None else profiles
    stating = [p for p in PROFILE_NAMES if _stated(p, read)]
    none = [p for p in PROFILE_NAMES if p not in stating]
    lines = []
    if stating:
        steps = list(dict.fromkeys(n for p in stating for n in _stated(p, read)))
        lines += [
            "| step | " + " | ".join(stating) + " |",
            "|---|" + "---:|" * len(stating),
        ]
        for step in steps:
            cells = [_stated(p, read).get(step) for p in stating]
            lines.append(f"| {step} | "
                         + " | ".join("" if c is None else _duration(c) for c in cells) + " |")
        totals = [_duration(sum(_stated(p, read).values())) for p in stating]
        lines += ["| **in all** | " + " | ".join(f"**{t}**" for t in totals) + " |", ""]
    if none:
        lines.append(f"No measured cold build stated by: {', '.join(none)}.")
    lines.append(f"How, when and on what machine each was measured: `{EVIDENCE}`.")
    return _write(studies_dir / MEASURED_PAGE, "\n".join(lines) + "\n")


RERUN = "_rerun_{name}.md"
DEFINITIONS = "_definitions.md"


def _value(value: object) -> str:
    """A parameter value as the profile's YAML would write it (in code marks)."""
    import yaml

    text = yaml.safe_dump(value, default_flow_style=True, width=10**6).strip()
    text = text.removesuffix("...").strip()
    return f"`{text}`"


def rerun_text(
    name: str,
    studies_dir: str | os.PathLike = STUDIES,
    profiles: Mapping[str, Profile | None] | None = None,
) -> str:
    """The "Re-run this page" fragment of notebook ``name``: the commands (from the
    repository's root, with the environment ``make setup`` makes), its parameters per profile
    (its study ``Params``' defaults and each profile's values) and the measured duration
    per profile (``_timings.json``; "not measured yet" when absent). ``profiles``: the profiles
    already read (:func:`read_profiles`)."""
    read = read_profiles() if profiles is None else profiles
    declared = notebook_parameters(name)
    values: dict[str, dict[str, object]] = {}
    for profile in PROFILE_NAMES:
        got = read.get(profile)
        try:
            values[profile] = got.parameters(name) if got is not None else {}
        except PruneAuditError:
            values[profile] = {}
    lines = [
        "From the repository's root, in the environment `make setup` created (`.venv`):",
        "",
        "```bash",
        f'make book BOOK_FLAGS="--only {name}"                 # quick profile, then the book',
        f'make book PROFILE=smoke BOOK_FLAGS="--only {name}"   # tiny subsets, seconds',
        f".venv/bin/pruneaudit run {name} --profile quick   # this notebook only",
        "```",
        "",
        "`-p key=value` changes one parameter of the table below (e.g. `-p epochs=2`).",
        "",
        "| profile | measured here |",
        "|---|---|",
    ]
    records = {
        r["profile"]: r for r in load_timings(studies_dir, strict=False) if r["notebook"] == name
    }
    for profile in PROFILE_NAMES:
        record = records.get(profile)
        stated = _stated(profile, read).get(name)
        if record is None:
            measured = "not measured yet"
        else:
            device = f", {record['device']}" if record.get("device") else ", CPU"
            measured = (
                f"{_duration(record['seconds'])} ({str(record['date'])[:10]}, "
                f"{record['cores']} cores{device})"
            )
        if stated is not None:
            measured += f"; the profile states {_duration(stated)} (cold build)"
        lines.append(f"| {profile} | {measured} |")
    lines += [
        "",
        ":::{dropdown} Parameters per profile",
        "",
        "| parameter | default | " + " | ".join(PROFILE_NAMES) + " |",
        "|---|---|" + "---|" * len(PROFILE_NAMES),
    ]
    for key, parameter in declared.items():
        default = parameter.default
        shown = _value(default) if default is not None or key in values["quick"] else "`null`"
        cells = [
            _value(values[p][key]) if key in values[p] else "default" for p in PROFILE_NAMES
        ]
        lines.append(f"| {key} | {_cell(shown)} | " + " | ".join(map(_cell, cells)) + " |")
    lines += ["", ":::", ""]
    return "\n".join(lines)


def write_rerun_pages(
    studies_dir: str | os.PathLike = STUDIES,
    names: list[str] | None = None,
    profiles: Mapping[str, Profile | None] | None = None,
) -> list[Path]:
    """Write ``_rerun_<name>.md`` (:func:`rerun_text`) for every study page (or
    ``names``) into ``studies_dir``, for its page to ``{include}``; return the paths. Each
    profile is read once (``profiles``, else :func:`read_profiles`)."""
    studies_dir = Path(studies_dir)
    studies_dir.mkdir(parents=True, exist_ok=True)
    read = read_profiles() if profiles is None else profiles
    return [
        _write(studies_dir / RERUN.format(name=name), rerun_text(name, studies_dir, read))
        for name in (PAGES if names is None else names)
    ]


def write_definitions_page(studies_dir: str | os.PathLike = STUDIES) -> Path:
    """Write ``<studies_dir>/_definitions.md``, the methods page's *Findings by id*: per id of
    the built pages' ``<name>.findings.json`` (in id order), an anchor
    (:func:`pruneaudit.book.report.finding_ids.anchor`), its rows' names and definitions
    (numbers and minus signs as the study pages write them:
    :func:`pruneaudit.charts.format.clean_text`) and the page it is on; return its path."""
    studies_dir = Path(studies_dir)
    studies_dir.mkdir(parents=True, exist_ok=True)
    by_id: dict[str, list[tuple[str, dict]]] = {}
    for path in sorted(studies_dir.glob("*.findings.json")):
        name = path.name.removesuffix(".findings.json")
        rows = _read_json(path)
        for row in rows if isinstance(rows, list) else []:
            ident = finding_ids.finding_id(str(row.get("finding", "")))
            if ident:
                by_id.setdefault(ident, []).append((name, row))
    if not by_id:
        return _write(studies_dir / DEFINITIONS, "No study page has recorded findings yet.\n")
    items = []
    for ident in sorted(by_id, key=finding_ids.sort_key):
        name = by_id[ident][0][0]
        page = f"{{doc}}`{name} <{SITE_STUDIES}/{name}>`" if (
            studies_dir / f"{name}.ipynb").is_file() else name
        rows = []
        for _, row in by_id[ident]:
            label = fmt.clean_text(str(row.get("finding", "")).removeprefix(ident).strip(" :"))
            definition = fmt.clean_text(str(row.get("definition") or "").strip())
            rows.append(f"  - {label}" + (f": {definition}" if definition else ""))
        items.append(
            f'- <span id="{finding_ids.anchor(ident)}"></span>**{ident}** ({page})\n'
            + "\n".join(rows)
        )
    return _write(studies_dir / DEFINITIONS, "\n".join(items) + "\n")


def remove_injected_parameters(studies_dir: str | os.PathLike = STUDIES) -> list[Path]:
    """Tag papermill's ``injected-parameters`` cell ``remove-cell`` (no longer ``hide-cell``)
    in every executed notebook of ``studies_dir`` that lacks it (cells' metadata only): the top
    of a page is its answer, and the page's "Re-run this page" section prints the parameters
    (:meth:`pruneaudit.book.builder.notebook.Page.show_provenance`); return the notebooks
    changed."""
    import nbformat

    changed = []
    for path in sorted(Path(studies_dir).glob("[0-9]*.ipynb")):
        if path.name.endswith((".partial.ipynb", ".failed.ipynb")):
            continue
        nb = nbformat.read(path, as_version=4)
        touched = False
        for cell in nb.cells:
            tags = cell.metadata.get("tags", [])
            if "injected-parameters" in tags and "remove-cell" not in tags:
                cell.metadata["tags"] = [*(t for t in tags if t != "hide-cell"), "remove-cell"]
                touched = True
        if touched:
            tmp = path.with_name(path.name + ".tmp")
            nbformat.write(nb, tmp)
            os.replace(tmp, path)
            changed.append(path)
    return changed


def prepare_pages(studies_dir: str | os.PathLike = STUDIES) -> list[Path]:
    """What ``build`` runs before ``jupyter-book build`` (beside the front page's fragments,
    :mod:`pruneaudit.book.report.front`): remove the injected parameters from the pages, write the
    timings table, the stated cold builds, the methods page's findings by id and each
    notebook's "Re-run this page" fragment (each profile read once); return the fragments."""
    remove_injected_parameters(studies_dir)
    read = read_profiles()
    return [
        write_timings_page(studies_dir, read),
        write_measured_page(studies_dir, read),
        write_definitions_page(studies_dir),
        *write_rerun_pages(studies_dir, profiles=read),
    ]
