"""The fragments the build writes (front page, timings, findings by id, re-run), from fixtures."""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pytest

from pruneaudit import audit
from pruneaudit.book import finding_ids, front, pages, wording
from pruneaudit.book.profiles import Profile
from pruneaudit.errors import PruneAuditError


def _findings(path: Path, rows: list[dict]) -> None:
    path.write_text(json.dumps(rows))


def _row(verdict: str, ours: float = 0.12, finding: str = "D2.1 spread") -> dict:
    return {
        "finding": finding,
        "paper": 0.2,
        "ours": ours,
        "ci_low": ours - 0.05,
        "ci_high": ours + 0.05,
        "verdict": verdict,
        "source": "P Table 3",
    }


def _notebook(path: Path, *markdown: str) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(m) for m in markdown]
    nb.cells.append(nbformat.v4.new_code_cell("x = 1"))
    nbformat.write(nb, path)


@pytest.fixture
def studies(tmp_path: Path) -> Path:
    _notebook(
        tmp_path / "02_writers.ipynb",
        "# Study 2 — writers\n\n**Question** (P, section 4.1). Pruning costs little. Is the loss "
        "spread evenly over writers, or not?\n\nMore text. Why?",
    )
    _findings(
        tmp_path / "02_writers.findings.json",
        [
            _row("reproduced"),
            _row("not reproduced", finding="D2.2"),
            _row("reproduced", finding="D2.3"),
        ],
    )
    (tmp_path / "02_writers.key.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
    # A page whose notebook is not in the build: listed without a link or figure.
    _findings(tmp_path / "05_shift.findings.json", [_row("same direction, smaller")])
    # The template is not a study.
    _findings(tmp_path / "00_template.findings.json", [_row("reproduced")])
    return tmp_path


def _said(row: audit.Finding) -> str:
    """A finding as the front page says it: the answer box's two sentences (labels linked to
    the legend), each on its line."""
    said = wording.said(row)
    lines = [wording.inline_html(s, "methods_audit.html") for s in (said.found, said.firm) if s]
    return "<br>".join(lines[:1] + [f'<span class="pa-firm">{x}</span>' for x in lines[1:]])


def test_front_page_lists_studies_with_computed_answers(studies: Path) -> None:
    text = pages.write_front_page(studies).read_text()
    assert "00_template" not in text
    assert text.index("Study 2") < text.index("05_shift")
    assert ("**{doc}`Study 2 </book/studies/02_writers>`**<br>Pruning costs little. Is the loss "
            "spread evenly over writers, or not?") in text
    assert "**Answers.**" not in text and "Headline:" not in text  # the answer is said once
    assert "```{image} /book/studies/02_writers.key.svg" in text
    assert ":width:" not in text  # drawn size, never wider than the column (reader.css)
    # 05_shift: no executed notebook, so no link and no figure; one finding counted.
    row = next(line for line in text.splitlines() if line.startswith("| **05_shift**"))
    assert "{doc}" not in row and "05_shift.key.svg" not in text
    shift = pages.read_findings(studies / "05_shift.findings.json")
    assert audit.verdict_counts(shift) in row and "Found: 1 same direction, smaller." in row


def test_front_page_summary_table(studies: Path) -> None:
    nb = nbformat.read(studies / "02_writers.ipynb", as_version=4)
    nb.metadata["pruneaudit"] = {"profile": "smoke", "date": "2026-11-20 10:00 UTC"}
    nbformat.write(nb, studies / "02_writers.ipynb")
    text = pages.write_front_page(studies).read_text()
    table = text[: text.index(front.IDS_SENTENCE)]
    assert "| Study | Headline answer | Verdict |" in table
    row = next(line for line in table.splitlines() if line.startswith("| **{doc}"))
    study, answer, verdict = row.strip("| ").split(" | ")
    assert "<br>Pruning costs little. Is the loss spread evenly over writers, or not?<br>" in study
    rows = pages.read_findings(studies / "02_writers.findings.json")
    assert answer == _said(rows[0])  # the answer box's sentences, not a second text
    assert verdict.startswith(wording.chip_html("reproduced", "methods_audit.html"))
    assert verdict.endswith(f"{audit.verdict_counts(rows)}</span>")
    # two builds differ (05_shift records none): each study names its own
    assert "(smoke, 2026-11-20 10:00 UTC)" in table and "(build not recorded)" in table
    assert "D*study*.*number*" in text  # the ids explained once


def test_front_page_says_a_smoke_build_is_no_evidence(studies: Path) -> None:
    for name in ("02_writers", "05_shift"):
        nb = nbformat.v4.new_notebook()
        if name == "02_writers":
            nb = nbformat.read(studies / f"{name}.ipynb", as_version=4)
        nb.metadata["pruneaudit"] = {"profile": "smoke", "date": "2026-11-20 10:00 UTC"}
        nbformat.write(nb, studies / f"{name}.ipynb")
    text = pages.write_front_page(studies).read_text()
    head = text[: text.index("| Study |")]
    assert head.startswith("Computed by the smoke build of 2026-11-20 10:00 UTC.")
    assert "pipeline" in head and "not evidence" in head
    assert "(smoke, " not in text  # one build: said once, above the table
    for profile in ("quick",):
        for name in ("02_writers", "05_shift"):
            nb = nbformat.read(studies / f"{name}.ipynb", as_version=4)
            nb.metadata["pruneaudit"]["profile"] = profile
            nbformat.write(nb, studies / f"{name}.ipynb")
        assert "not evidence" not in pages.write_front_page(studies).read_text()


def test_front_page_headline_is_the_marked_row(studies: Path) -> None:
    marked = {**_row("not reproduced", finding="D2.2 gap"), "headline": True}
    _findings(studies / "02_writers.findings.json", [_row("reproduced"), marked])
    _findings(studies / "05_shift.findings.json", [marked])
    text = pages.write_front_page(studies).read_text()
    assert "<b>D2.2</b> gap" in text and "pa-v-not-reproduced" in text
    assert "<b>D2.1</b> spread" not in text


def test_front_page_changes_with_the_results(studies: Path) -> None:
    before = pages.write_front_page(studies).read_text()
    _findings(studies / "02_writers.findings.json", [_row("not reproduced", ours=0.01)])
    text = pages.write_front_page(studies).read_text()
    assert text != before
    assert "1 finding. Found: 1 not reproduced." in text and "pa-v-not-reproduced" in text


def test_question_keeps_math_whole(tmp_path: Path) -> None:
    _notebook(
        tmp_path / "03_q.ipynb",
        "# Pareto\n\n**Question** (P, 2020). Does $v = w_f \\cdot (-\\mathrm{u}) + w_s s$ "
        "(the value) pick a fairer net?",
    )
    _, question = pages._title_and_question(tmp_path / "03_q.ipynb")
    assert question == "Does $v = w_f \\cdot (-\\mathrm{u}) + w_s s$ pick a fairer net?"


def test_front_page_without_findings(tmp_path: Path) -> None:
    text = pages.write_front_page(tmp_path).read_text()
    assert "No study page has recorded its findings yet" in text


def test_front_page_bad_json(tmp_path: Path) -> None:
    (tmp_path / "01_x.findings.json").write_text("{not json")
    with pytest.raises(PruneAuditError, match="01_x.findings.json is not valid JSON"):
        pages.write_front_page(tmp_path)


def test_question_without_a_question_paragraph(tmp_path: Path) -> None:
    _notebook(tmp_path / "03_q.ipynb", "# Title\n\nSome text. Does it hold?")
    assert pages._title_and_question(tmp_path / "03_q.ipynb") == ("Title", "Does it hold?")


def test_front_page_headline_without_a_paper_value_or_a_test(studies: Path) -> None:
    """A direction-only headline and a not-testable one are stated by the answer box's sentence
    with their verdicts."""
    direction = _row("reproduced") | {"paper": None}
    untestable = {"finding": "D5.4 CelebA", "verdict": "not testable here",
                  "basis": "no images here"}
    _findings(studies / "02_writers.findings.json", [direction])
    _findings(studies / "05_shift.findings.json", [untestable])
    text = pages.write_front_page(studies).read_text()
    for name, row in (("02_writers", direction), ("05_shift", untestable)):
        said = _said(audit.from_json(row))
        line = next(x for x in text.splitlines() if x.startswith("| **") and name in x)
        assert f"| {said} |" in line
    assert "pa-v-not-testable-here" in text and "1 finding. Found: 1 not testable here." in text


def test_answer_counts_firm_and_borderline_apart(studies: Path) -> None:
    """The front page counts verdicts with the findings table's one writer
    (audit.verdict_counts): a borderline row is not counted as its verdict."""
    shaky = _row("reproduced", finding="D2.2 gap") | {"stability": 0.6,
                                                      "alternative": "inconclusive"}
    untestable = {"finding": "D2.3 x", "verdict": "not testable here", "basis": "offline"}
    _findings(studies / "02_writers.findings.json", [_row("reproduced"), shaky, untestable])
    text = pages.write_front_page(studies).read_text()
    rows = pages.read_findings(studies / "02_writers.findings.json")
    assert [r.stability for r in rows] == [None, 0.6, None]
    said = ("3 findings. Found: 2 reproduced, 1 not testable here. How firm: 1 borderline, "
            "1 without an interval to tell.")
    assert said == audit.verdict_counts(rows)
    assert f'<span class="pa-counts">{said}</span> |' in text


def test_a_row_that_is_not_a_finding_is_one_error(studies: Path) -> None:
    _findings(studies / "02_writers.findings.json", [{"finding": "D2.1", "verdict": "maybe"}])
    with pytest.raises(PruneAuditError, match=r"02_writers.findings.json: row 0 is not a finding"):
        pages.write_front_page(studies)


def _timing(profile: str, notebook: str, seconds: float, date: str) -> dict:
    return {"profile": profile, "notebook": notebook, "seconds": seconds, "date": date, "cores": 2}


def test_timings_page_from_records(tmp_path: Path) -> None:
    records = [
        _timing("smoke", "01_a", 14.1, "2026-11-20T10:00:00"),
        _timing("smoke", "02_b", 68.4, "2026-11-20T10:01:00"),
        _timing("quick", "01_a", 900, "2026-11-19T09:00:00"),
        _timing("quick", "01_a", 1325, "2026-11-21T09:00:00"),  # the later one wins
    ]
    (tmp_path / "_timings.json").write_text(json.dumps(records))
    text = pages.write_timings_page(tmp_path).read_text()
    assert "**smoke**: 1 min 22 s in all (2 steps, measured 2026-11-20 on 2 cores)." in text
    # older records: no count, no phases
    assert "| 02_b | 1 min 08 s |  |  |  |  |  |  | 2026-11-20T10:01 | 2 |" in text
    assert "**quick**: 22 min 05 s in all (1 steps" in text
    assert "15 min" not in text
    assert "**paper**: no build of it measured on this machine yet." in text
    # what the profile file states beside what this machine measured
    stated = sum(Profile.read("quick").measured.values())
    assert stated == pages.stated_total("quick") > 0
    assert f"states a measured cold build of {pages._duration(stated)} in all" in text
    assert text.index("**smoke**") < text.index("**quick**") < text.index("**paper**")


def test_timings_page_splits_a_notebook_into_phases(tmp_path: Path) -> None:
    record = _timing("quick", "01_a", 100.0, "2026-11-20T10:00:00")
    record["phases"] = {"training": 60.0, "evaluation": 10.0, "pruning": 4.6, "store": 5.0}
    (tmp_path / "_timings.json").write_text(json.dumps([record]))
    text = pages.write_timings_page(tmp_path).read_text()
    assert "| 01_a | 1 min 40 s | 60 s | 10 s | 5 s | 5 s | 20 s |" in text
    assert "| step | duration | training | evaluation | pruning | store I/O | other |" in text


def test_timings_page_says_which_notebooks_stored_no_new_run(tmp_path: Path) -> None:
    records = [
        {**_timing("quick", "01_a", 30, "2026-11-23T15:19"), "new_runs": 0},
        {**_timing("quick", "02_b", 1618, "2026-11-23T15:49"), "new_runs": 144},
    ]
    (tmp_path / "_timings.json").write_text(json.dumps(records))
    text = pages.write_timings_page(tmp_path).read_text()
    assert "Stored no new run: 01_a. A notebook that trains but stored no new run" in text
    assert "| 02_b | 26 min 58 s |  |  |  |  |  | 144 | 2026-11-23T15:49 | 2 |" in text


def test_timings_page_accepts_runs_mapping_and_checks_keys(tmp_path: Path) -> None:
    path = tmp_path / "_timings.json"
    path.write_text(json.dumps({"runs": [_timing("paper", "03_c", 7300, "2026-11-22")]}))
    assert "**paper**: 2 h 01 min in all" in pages.write_timings_page(tmp_path).read_text()
    path.write_text(json.dumps([{"profile": "smoke", "seconds": 1}]))
    with pytest.raises(PruneAuditError, match="each record needs keys"):
        pages.write_timings_page(tmp_path)


def test_timings_page_without_file(tmp_path: Path) -> None:
    text = pages.write_timings_page(tmp_path).read_text()
    assert text.count("no build of it measured on this machine yet") == 3


def test_injected_parameters_leave_the_page(tmp_path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("a: int = 1"), nbformat.v4.new_code_cell("a = 2")]
    nb.cells[0].metadata["tags"] = ["parameters", "remove-cell"]
    nb.cells[1].metadata["tags"] = ["injected-parameters", "hide-cell"]
    nbformat.write(nb, tmp_path / "01_x.ipynb")
    assert pages.remove_injected_parameters(tmp_path) == [tmp_path / "01_x.ipynb"]
    again = nbformat.read(tmp_path / "01_x.ipynb", as_version=4)
    assert again.cells[1].metadata["tags"] == ["injected-parameters", "remove-cell"]
    assert again.cells[0].metadata["tags"] == ["parameters", "remove-cell"]
    assert pages.remove_injected_parameters(tmp_path) == []  # idempotent


def test_definitions_page_one_anchor_per_id(studies: Path) -> None:
    rows = [
        {**_row("reproduced", finding="D2.10 late"), "definition": "the tenth"},
        {**_row("reproduced", finding="D2.2 gap"), "definition": "a gap; H1: -59.80%"},
        {**_row("reproduced", finding="D2.2 trend: gap grows")},
        _row("reproduced", finding="no id"),
    ]
    _findings(studies / "02_writers.findings.json", rows)
    text = pages.write_definitions_page(studies).read_text()
    ids = re.findall(r'<span id="([^"]+)"></span>\*\*(D[\d.]+)\*\*', text)
    assert ids == [("finding-d2-1", "D2.1"), ("finding-d2-2", "D2.2"),
                   ("finding-d2-10", "D2.10")]
    assert "  - gap: a gap; H1: \u221259.80%\n  - trend: gap grows\n" in text  # true minus
    assert "{doc}`02_writers </book/studies/02_writers>`" in text
    assert "no id" not in text


def test_finding_ids() -> None:
    assert finding_ids.finding_id("D4.10 compressed top-1") == "D4.10"
    assert finding_ids.finding_id("spread") == ""
    assert finding_ids.link("D4.1") == "../methods_audit.html#finding-d4-1"
    with pytest.raises(PruneAuditError, match="not a finding id"):
        finding_ids.anchor("D4")


def test_rerun_fragment(tmp_path: Path) -> None:
    name = "00_template"
    record = {**_timing("smoke", name, 14.1, "2026-11-20T10:00:00"), "cores": 2}
    (tmp_path / "_timings.json").write_text(json.dumps([record]))
    (path,) = pages.write_rerun_pages(tmp_path, [name])
    text = path.read_text()
    assert path.name == "_rerun_00_template.md"
    assert f'make book BOOK_FLAGS="--only {name}"' in text
    assert f".venv/bin/python -m pruneaudit.book run {name} --profile quick" in text
    assert "| smoke | 14 s (2026-11-20, 2 cores, CPU) |" in text
    assert "| paper | not measured yet" in text  # never invented
    # one row per declared parameter, each profile's value from its file
    declared = pages.declared_parameters(name)
    table = [line for line in text.splitlines() if line.startswith("| ") and "`" in line]
    assert [line.split(" | ")[0][2:] for line in table] == list(declared)
    smoke = Profile.read("smoke").parameters(name)
    for key, value in smoke.items():
        row = next(line for line in table if line.startswith(f"| {key} |"))
        assert row.split(" | ")[2] == pages._value(value)
