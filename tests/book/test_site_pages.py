"""The fragments the build writes (front page, timings, findings by id, re-run), from fixtures."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import nbformat
import pytest

from pruneaudit import audit
from pruneaudit.book.profiles import Profile
from pruneaudit.book.report import finding_ids, front, pages, wording
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
    """A headline row as the front page's table says it: its sentence, jargon in plain words,
    the word linked to the glossary."""
    return wording.inline_html(wording.finding_sentence(row, plain=True), "glossary.html")


def _table_row(text: str, name: str) -> str:
    return next(line for line in text.splitlines() if line.startswith("| **") and name in line)


def test_front_page_lists_studies_with_computed_answers(studies: Path) -> None:
    text = front.write_front_page(studies).read_text()
    assert "00_template" not in text
    assert text.index("Study 2") < text.index("05_shift")
    assert ("**{doc}`Study 2 </book/studies/02_writers>`**<br>Pruning costs little. Is the loss "
            "spread evenly over writers, or not?") in text
    assert "```{image} /book/studies/02_writers.key.svg" in text
    assert ":width:" not in text  # drawn size, never wider than the column (reader.css)
    # 05_shift: no executed notebook, so no link and no figure; one finding counted.
    row = _table_row(text, "05_shift")
    assert "{doc}" not in row and "05_shift.key.svg" not in text
    assert "1 paper finding: 1 holds here." in row
    assert not re.search(r"\bD\d+\.\d+", text)  # no finding id anywhere on the front page


def test_front_page_summary_table(studies: Path) -> None:
    nb = nbformat.read(studies / "02_writers.ipynb", as_version=4)
    nb.metadata["pruneaudit"] = {"profile": "smoke", "date": "2026-11-20 10:00 UTC"}
    nbformat.write(nb, studies / "02_writers.ipynb")
    text = front.write_front_page(studies).read_text()
    assert "| Study | The answer here | How sure |" in text
    study, said, sure = _table_row(text, "{doc}").strip("| ").split(" | ")
    assert "<br>Pruning costs little. Is the loss spread evenly over writers, or not?" in study
    rows = pages.read_findings(studies / "02_writers.findings.json")
    assert said == _said(rows[0])  # the first testable paper row, as its study page says it
    assert sure.endswith("3 paper findings: 2 hold here, 1 does not hold here.</span>")
    # two builds differ (05_shift records none): each study names its own
    assert "(smoke, 2026-11-20 10:00 UTC)" in text and "(build not recorded)" in text


def test_front_page_says_a_smoke_build_is_no_evidence(studies: Path) -> None:
    for name in ("02_writers", "05_shift"):
        nb = nbformat.v4.new_notebook()
        if name == "02_writers":
            nb = nbformat.read(studies / f"{name}.ipynb", as_version=4)
        nb.metadata["pruneaudit"] = {"profile": "smoke", "date": "2026-11-20 10:00 UTC"}
        nbformat.write(nb, studies / f"{name}.ipynb")
    text = front.write_front_page(studies).read_text()
    head = text[: text.index("| Study |")]
    assert head.startswith("Computed by the smoke build of 2026-11-20 10:00 UTC.")
    assert "pipeline" in head and "not evidence" in head
    assert front.SMOKE_NOTE in (studies / front.OVERALL).read_text()
    assert "(smoke, " not in text  # one build: said once, above the table
    for name in ("02_writers", "05_shift"):
        nb = nbformat.read(studies / f"{name}.ipynb", as_version=4)
        nb.metadata["pruneaudit"]["profile"] = "quick"
        nbformat.write(nb, studies / f"{name}.ipynb")
    assert "not evidence" not in front.write_front_page(studies).read_text()
    assert front.SMOKE_NOTE not in (studies / front.OVERALL).read_text()


def test_front_page_headline_is_the_marked_row(studies: Path) -> None:
    marked = {**_row("not reproduced", finding="D2.2 gap"), "headline": True}
    _findings(studies / "02_writers.findings.json", [_row("reproduced"), marked])
    _findings(studies / "05_shift.findings.json", [marked])
    text = front.write_front_page(studies).read_text()
    assert "<b>Gap</b>" in text and "pa-v-does-not-hold-here" in text
    assert "<b>Spread</b>" not in text


def test_front_page_changes_with_the_results(studies: Path) -> None:
    before = front.write_front_page(studies).read_text()
    _findings(studies / "02_writers.findings.json", [_row("not reproduced", ours=0.01)])
    text = front.write_front_page(studies).read_text()
    assert text != before
    assert "1 paper finding: 1 does not hold here." in text


def test_front_page_counts_only_paper_rows_and_says_ours_apart(studies: Path) -> None:
    """A ``beyond`` row never counts for a paper nor answers a study; it has its own section,
    in its own words. A derived row is shown on its page, never counted."""
    paper = _row("reproduced") | {"comparability": "same", "headline": True}
    ours = _row("other sign", finding="B2.2 excess") | {"comparability": "beyond",
                                                        "headline": True}
    derived = _row("absent", finding="D2.3 lift (derived)") | {"comparability": "same"}
    _findings(studies / "02_writers.findings.json", [ours, paper, derived])
    text = front.write_front_page(studies).read_text()
    row = _table_row(text, "{doc}")
    assert "<b>Spread</b>" in row and "<b>Excess</b>" not in row
    assert "1 paper finding: 1 holds here." in row
    section = text[text.index("## Our own questions"):]
    assert "<b>Excess</b>" in section and "pa-v-does-not-hold-here" in section
    assert "Lift" not in text


def test_one_id_one_meaning_the_front_page_and_the_study_page_agree(studies: Path) -> None:
    """Each row's chip, sentence and count read its one verdict, on both pages (the old front
    page listed an id as firm when another row under the same id was)."""
    from pruneaudit.book.report import answer

    head = _row("inconclusive", finding="D5.2 relative top-1") | {
        "comparability": "same", "headline": True, "stability": 0.7}
    share = _row("reproduced", finding="D5.2 share") | {"comparability": "same",
                                                         "stability": 0.99}
    _findings(studies / "05_shift.findings.json", [head, share])
    text = front.write_front_page(studies).read_text()
    rows = pages.read_findings(studies / "05_shift.findings.json")
    box = answer.answer_html(rows, None)
    front_row = _table_row(text, "05_shift")
    for said in (front_row, box):
        assert "pa-v-can-t-tell-yet" in said and "Relative" in said
        assert "2 paper findings: 1 holds here, 1 can&#x27;t tell yet." in said
        assert "A replication would agree about 7 times in 10" in said.replace(
            "; a replication", ". A replication")
    assert "pa-v-holds-here" not in front_row.split("<br>")[0]


def test_first_screen_speaks_plainly_with_numbers_from_the_build(studies: Path) -> None:
    facts = {"sparsity": 0.9, "top1_change_points": -2.5, "dense_top1": 0.97, "pies": 120,
             "pie_share": 0.012, "test_digits": 10000, "dense_on_pies": 0.6,
             "pruned_on_pies": 0.25,
             "quantized": [{"scheme": "static_int8", "said": "8-bit integers",
                            "top1_change_points": 0.1, "pie_share": 0.004}],
             "forgotten": [{"image": "data:image/png;base64,AA", "caption": "a 4, read as 9"}],
             "ordinary": [{"image": "data:image/png;base64,BB", "caption": "a 4, kept"}]}
    (studies / "04_impact.front.json").write_text(json.dumps(facts))
    front.write_front_page(studies)
    first = (studies / front.OVERALL).read_text()
    said = re.findall(r"<p>(.*?)</p>", first)
    assert 3 <= len(said) <= 5
    assert all(len(s.split()) <= 30 for s in said)
    assert ("pruning a digit classifier to 90% zero weights changed its accuracy by \u22122.5 "
            "points on average, from 97%.") in said[1]
    assert "on the 1.2% of test digits whose answer pruning changed" in said[2]
    assert "right 25% of the time, against 60% before" in said[2]
    assert "8-bit integers" in said[3] and "+0.1 points" in said[3] and "0.4% of digits" in said[3]
    assert 'alt="a 4, read as 9"' in first and 'alt="a 4, kept"' in first
    assert not re.search(r"\bD\d+\.\d+|PIE|CIE|top-1", first)
    facts["top1_change_points"] = -7.25
    (studies / "04_impact.front.json").write_text(json.dumps(facts))
    front.write_front_page(studies)
    assert "\u22127.2 points" in (studies / front.OVERALL).read_text()  # read, not written


def test_question_keeps_math_whole(tmp_path: Path) -> None:
    _notebook(
        tmp_path / "03_q.ipynb",
        "# Pareto\n\n**Question** (P, 2020). Does $v = w_f \\cdot (-\\mathrm{u}) + w_s s$ "
        "(the value) pick a fairer net?",
    )
    _, question = pages._title_and_question(tmp_path / "03_q.ipynb")
    assert question == "Does $v = w_f \\cdot (-\\mathrm{u}) + w_s s$ pick a fairer net?"


def test_front_page_without_findings(tmp_path: Path) -> None:
    text = front.write_front_page(tmp_path).read_text()
    assert "No study page has recorded its findings yet" in text


def test_front_page_bad_json(tmp_path: Path) -> None:
    (tmp_path / "01_x.findings.json").write_text("{not json")
    with pytest.raises(PruneAuditError, match="01_x.findings.json is not valid JSON"):
        front.write_front_page(tmp_path)


def test_question_without_a_question_paragraph(tmp_path: Path) -> None:
    _notebook(tmp_path / "03_q.ipynb", "# Title\n\nSome text. Does it hold?")
    assert pages._title_and_question(tmp_path / "03_q.ipynb") == ("Title", "Does it hold?")


def test_front_page_headline_without_a_paper_value_or_a_test(studies: Path) -> None:
    """A direction-only headline is stated by its sentence; a row with no paper comparability
    (not testable) is no headline and the study says it has no paper finding yet."""
    direction = _row("reproduced") | {"paper": None}
    untestable = {"finding": "D5.4 CelebA", "verdict": "not testable here",
                  "basis": "no images here", "comparability": "not testable"}
    _findings(studies / "02_writers.findings.json", [direction])
    _findings(studies / "05_shift.findings.json", [untestable])
    text = front.write_front_page(studies).read_text()
    line = _table_row(text, "02_writers")
    assert f"| {_said(audit.from_json(direction))} |" in line
    assert "| No paper finding yet. |" in _table_row(text, "05_shift")


def test_a_row_that_is_not_a_finding_is_one_error(studies: Path) -> None:
    _findings(studies / "02_writers.findings.json", [{"finding": "D2.1", "verdict": "maybe"}])
    with pytest.raises(PruneAuditError, match=r"02_writers.findings.json: row 0 is not a finding"):
        front.write_front_page(studies)


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
    assert stated > 0
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
    # our own questions beside a paper's claim have their own letter, never the paper's id
    assert finding_ids.finding_id("B4.5 excess: the gap") == "B4.5"
    assert finding_ids.anchor("B4.5") == "finding-b4-5" != finding_ids.anchor("D4.5")
    assert finding_ids.split_id("D4.5 dense gap") == ("D4.5", "dense gap")
    assert finding_ids.split_id("spread") == ("", "spread")
    assert sorted(["B4.5", "D4.10", "D4.5"], key=finding_ids.sort_key) == ["D4.5", "B4.5",
                                                                           "D4.10"]


def test_rerun_fragment(tmp_path: Path) -> None:
    name = "00_template"
    record = {**_timing("smoke", name, 14.1, "2026-11-20T10:00:00"), "cores": 2}
    (tmp_path / "_timings.json").write_text(json.dumps([record]))
    (path,) = pages.write_rerun_pages(tmp_path, [name])
    text = path.read_text()
    assert path.name == "_rerun_00_template.md"
    assert f'make book BOOK_FLAGS="--only {name}"' in text
    assert f".venv/bin/pruneaudit run {name} --profile quick" in text
    assert "| smoke | 14 s (2026-11-20, 2 cores, CPU) |" in text
    assert "| paper | not measured yet" in text  # never invented
    # one row per declared parameter, each profile's value from its file
    declared = pages.notebook_parameters(name)
    table = [line for line in text.splitlines() if line.startswith("| ") and "`" in line]
    assert [line.split(" | ")[0][2:] for line in table] == list(declared)
    smoke = Profile.read("smoke").parameters(name)
    for key, value in smoke.items():
        row = next(line for line in table if line.startswith(f"| {key} |"))
        assert row.split(" | ")[2] == pages._value(value)


def test_the_methods_legend_defines_the_five_words_with_tooltips() -> None:
    text = front.verdicts_text()
    for word in wording.WORDS:
        assert f'id="verdict-{wording.slug(word)}"' in text
        assert f'title="{html.escape(wording.tooltip(word))}">{html.escape(word)}</span>' in text
    assert "*same direction, size can't tell*" in text  # each internal verdict under its word
