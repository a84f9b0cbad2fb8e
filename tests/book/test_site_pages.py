"""The intro's study list and the Reproducing page's timings, computed from fixture files."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from pruneaudit.book import pages
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


def test_front_page_lists_studies_with_computed_answers(studies: Path) -> None:
    text = pages.write_front_page(studies).read_text()
    assert "00_template" not in text
    assert text.index("Study 2 — writers") < text.index("05_shift")
    assert "{doc}`Study 2 — writers </book/studies/02_writers>`" in text
    assert "**Asks.** Pruning costs little. Is the loss spread evenly over writers, or not?" in text
    assert "3 findings: 2 reproduced, 1 not reproduced." in text
    assert (
        "First: **D2.1** spread: ours 0.120 [0.070, 0.170] (the paper: 0.2). *reproduced*: our "
        "interval excludes no effect and contains the paper's value." in text
    )
    assert "```{figure} /book/studies/02_writers.key.svg" in text
    # 05_shift: no executed notebook, so no link and no figure; one finding counted.
    entry = text[text.index("### 05_shift") :]
    assert "{doc}" not in entry and "figure" not in entry
    assert "1 finding: 1 same direction, smaller." in entry


def test_front_page_changes_with_the_results(studies: Path) -> None:
    _findings(studies / "02_writers.findings.json", [_row("not reproduced", ours=0.01)])
    text = pages.write_front_page(studies).read_text()
    assert "1 finding: 1 not reproduced. First: **D2.1** spread: ours 0.010 [" in text


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


def test_answer_line_direction_only() -> None:
    row = _row("reproduced") | {"paper": None}
    assert "(the paper states a direction). *reproduced*" in pages.answer_line([row])


def test_answer_line_not_testable() -> None:
    row = {"finding": "D5.4 CelebA", "verdict": "not testable here"}
    assert pages.answer_line([row]) == (
        "1 finding: 1 not testable here. First: D5.4 CelebA: not testable here."
    )


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
    assert "**paper**: not measured yet on this machine." in text
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
    assert text.count("not measured yet") == 3


def test_fold_injected_parameters(tmp_path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("a: int = 1"), nbformat.v4.new_code_cell("a = 2")]
    nb.cells[0].metadata["tags"] = ["parameters", "hide-cell"]
    nb.cells[1].metadata["tags"] = ["injected-parameters"]
    nbformat.write(nb, tmp_path / "01_x.ipynb")
    assert pages.fold_injected_parameters(tmp_path) == [tmp_path / "01_x.ipynb"]
    again = nbformat.read(tmp_path / "01_x.ipynb", as_version=4)
    assert again.cells[1].metadata["tags"] == ["injected-parameters", "hide-cell"]
    assert again.cells[0].metadata["tags"] == ["parameters", "hide-cell"]
    assert pages.fold_injected_parameters(tmp_path) == []  # idempotent
