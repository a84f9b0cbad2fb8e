"""A study page's answer box: its headline rows, the verdict counts and the build line (hand
cases), and the Page methods that show the answer, the findings and the key figure once."""

from __future__ import annotations

import html
import re
from dataclasses import replace
from pathlib import Path

import pytest

from pruneaudit import audit
from pruneaudit.audit.claims import NOT_TESTABLE, SAME, Claim
from pruneaudit.book.builder.notebook import Page
from pruneaudit.book.report import answer, findings_table, wording

from . import prose

#: Where a test paper measures; an analogue's paper measured on another task.
HERE = audit.Setting("QMNIST", "LeNet", "global magnitude pruning", "a test quantity")


def _settings(kind: str) -> dict:
    """The settings a claim of ``kind`` declares: the same for ``same``, another dataset for an
    analogue (other kinds declare none)."""
    paper = HERE if kind != "analogue" else replace(HERE, dataset="ImageNet")
    return {"paper_setting": paper, "our_setting": HERE}


def _claim(name: str, comparability: str = SAME, **kw) -> Claim:
    """A claim whose id is the name's first word (``D4.5``)."""
    fields = dict(says="the paper says so", source="H1; Table 6", quantity="a test quantity",
                  comparability=comparability, paper=-0.3694, paper_noise="30 models",
                  margin=0.0, margin_reason="none: the band is the paper's own spread")
    merged = {**fields, **kw}
    return Claim(name.split()[0], name, **{**_settings(merged["comparability"]), **merged})


def _row(name: str = "D4.5 PIE accuracy minus all", *, headline: bool = False,
         basis: str = "K = 16 members per population") -> audit.Finding:
    claim = audit.register("99_test", [_claim(name, headline=headline)])[name.split()[0]]
    return audit.judge(claim, audit.Estimate(-0.401, -0.440, -0.362, basis))


def _untestable(name: str = "D4.9 celeba") -> audit.Finding:
    return audit.untested(_claim(name, NOT_TESTABLE, paper=0.1, source="H2",
                                 why="no images offline"))


def test_headline_rows_are_the_marked_ones_in_order() -> None:
    rows = [_row("D4.1 a"), _row("D4.2 b", headline=True), _row("D4.3 c", headline=True)]
    assert [r.finding for r in answer.headline_findings(rows)] == ["D4.2 b", "D4.3 c"]
    assert [r.claim for r in answer.headline_findings(rows)] == ["D4.2", "D4.3"]


def test_an_analogue_may_be_a_headline_in_its_own_words() -> None:
    claim = _claim("D4.1 share", "analogue", why="another task", paper_noise="", margin=None,
                   margin_reason="", headline=True)
    row = audit.judge(audit.register("99_test", [claim])["D4.1"],
                      audit.Estimate(-0.401, -0.440, -0.362, "b"))
    assert answer.headline_findings([_row("D4.2 b"), row]) == [row]
    assert row.verdict == audit.SAME_DIRECTION
    assert "reproduced" not in answer.answer_html([row], None).split("All findings")[0]


def test_without_marks_the_first_testable_row_is_the_headline() -> None:
    rows = [_untestable(), _row("D4.2 b"), _row("D4.3 c")]
    assert [r.finding for r in answer.headline_findings(rows)] == ["D4.2 b"]
    assert answer.headline_findings([_untestable()]) == []  # not a paper row that counts
    assert answer.headline_findings([]) == []


def test_a_beyond_or_derived_row_is_never_a_headline() -> None:
    beyond = _claim("D4.5 excess", "beyond", why="our own", paper=None, paper_noise="",
                    margin=None, margin_reason="", side=-1, smallest=0.05, headline=False)
    ours = audit.judge(audit.register("99_test", [beyond])["D4.5"],
                       audit.Estimate(-0.401, -0.440, -0.362, "b"))
    derived = replace(_row("D4.6 lift (derived)"), headline=True)
    marked = _row("D4.5 gap", headline=True)
    assert answer.headline_findings([ours, derived, marked]) == [marked]
    assert answer.headline_findings([ours, derived]) == []


def test_inline_markdown_becomes_escaped_html() -> None:
    assert answer.markdown_inline("**Name** a < b: *holds here*, *other*") == (
        f"<b>Name</b> a &lt; b: {wording.chip_html('holds here')}, <i>other</i>"
    )
    assert answer.markdown_inline("no marks") == "no marks"


@pytest.mark.parametrize(
    ("info", "expected"),
    [
        ({"profile": "smoke", "overrides": {}, "date": "2026-01-01 12:00 UTC"},
         "Profile smoke, built 2026-01-01 12:00 UTC."),
        ({"profile": "quick", "overrides": {"seeds": [1], "epochs": 2}, "date": "d"},
         "Profile quick with seeds, epochs overridden, built d."),
    ],
)
def test_build_line_names_the_profile_and_date(info: dict, expected: str) -> None:
    assert answer.build_line(info) == expected


def test_build_line_by_hand() -> None:
    assert answer.build_line(None).startswith("Run by hand")


def test_the_box_states_the_headline_the_counts_and_the_build() -> None:
    headline = _row("D4.5 PIE accuracy minus all", headline=True)
    rows = [_row("D4.1 classes"), headline, _untestable()]
    box = answer.answer_html(rows, {"profile": "smoke", "overrides": {}, "date": "today"})
    assert box.startswith('<div class="admonition tip pa-answer">')
    said = re.findall(r'<span class="pa-sentence">(.*?)</span>', box)
    assert said == [answer.markdown_inline(answer.box_sentence(headline))]
    assert said[0].startswith('<b>PIE accuracy minus all</b>: <a class="pa-verdict')
    assert "a replication would agree about" in said[0]  # how sure, in the same sentence
    assert "D4.5" not in box.split("<details")[0]  # the id sits in the folded details
    assert '<a href="../methods_audit.html#finding-d4-5">D4.5</a>' in box
    assert html.escape(wording.counts_text(rows)) in box and "2 paper findings" in box
    assert wording.legend_line(["holds here"]) in box
    assert "Profile smoke, built today." in box


def test_the_box_answers_in_at_most_two_sentences_of_at_most_thirty_words() -> None:
    rows = [_row(f"D4.{i} a rather long name of a finding with many words in it today",
                 headline=True) for i in (1, 2, 3)]
    box = answer.answer_html(rows, None)
    said = re.findall(r'<span class="pa-sentence">(.*?)</span>', box)
    assert len(said) == 2
    for sentence in said:
        plain = html.unescape(re.sub(r"<[^>]+>", "", sentence))
        assert len(plain.split()) <= wording.SENTENCE_WORDS and re.search(r"\d", plain)


def test_a_box_without_findings_says_so() -> None:
    box = answer.answer_html([], None)
    assert "No paper finding on this page." in box and "pa-sentence" not in box


def _page(tmp_path: Path | None = None) -> Page:
    return Page(params=None, store=None, data_root=Path("."), provenance={},  # type: ignore[arg-type]
                page_dir=tmp_path, notebook="01_x" if tmp_path else None)


def test_page_shows_the_answer_then_the_table_without_a_sentence_list(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    shown: list[str] = []
    monkeypatch.setattr("IPython.display.display",
                        lambda *objs: shown.extend(o.data for o in objs))
    rows = [_row("D4.1 classes", headline=True), replace(_row("D4.2 b"), headline=False)]
    page = _page(tmp_path)
    page.show_answer(rows)
    assert len(shown) == 1 and 'class="admonition tip pa-answer"' in shown[0]
    assert page.show_findings(rows) is None  # a cell ending with it shows no frame
    table = [s for s in shown[1:] if "pa-findings-table" in s]
    assert len(table) == 1
    sentences = findings_table.sentences(rows)
    assert not any(sentences in s for s in shown[1:]), "the sentence list is shown again"
    assert (tmp_path / "01_x.findings.json").is_file()


def test_show_key_figure_displays_once_and_returns_nothing(monkeypatch) -> None:
    shown: list[object] = []
    monkeypatch.setattr("IPython.display.display", lambda *objs: shown.extend(objs))
    chart = object()
    assert _page().show_key_figure(chart) is None
    assert shown == [chart]


def _borderline(basis: str, units: int, firm_at: int | None) -> audit.Finding:
    row = replace(_row(basis=basis), units=units, stability=0.6, firm_at=firm_at,
                  alternative="same direction, smaller")
    assert audit.is_borderline(row)
    return row


def test_firming_cost_names_the_units_and_scales_the_measured_time() -> None:
    row = _borderline("Student t over 8 seeds", 8, 20)
    assert answer.firming_cost(row, 600.0, "quick") == (
        "About 20 seeds (this build: 8) would make a replication agree 8 times in 10: "
        "2.5\u00d7 this study's computation, roughly 25 min on 2 CPU cores (quick: 10 min)."
    )
    assert prose.words(answer.firming_cost(row, 600.0, "quick")) <= prose.MOST_WORDS
    assert answer.firming_cost(row, None, None).endswith("computation.")  # nothing measured
    members = _borderline("Welch interval over the members (16 pruned and 16 dense models)", 16,
                          40)
    assert answer.firming_cost(members, 60.0, "smoke").startswith(
        "About 40 dense models (this build: 16) would make a replication agree")


def test_firming_cost_is_empty_for_firm_rows() -> None:
    firm = replace(_row(), units=16, stability=0.95, firm_at=None)
    assert answer.firming_cost(firm, 600.0, "quick") == ""
    assert answer.firming_cost(_borderline("over 8 seeds", 8, None), 600.0, "quick") == ""


@pytest.mark.parametrize(
    ("basis", "units", "rests_on", "instead"),
    [
        ("Clopper-Pearson over the 10 classes", 10, "10 classes", "another task with more "
         "classes"),
        # D1.2: its units are (dataset, class) clusters, which more seeds cannot buy
        ("95% interval of the OLS coefficient (pruned rows, errors clustered by (dataset, "
         "class): CV3 jackknife, Student t on 29 df): 30 clusters, 1,234 rows", 30,
         "30 clusters", "another dataset or another task"),
        ("cluster jackknife over the 30 (dataset, class) clusters", 30,
         "30 (dataset, class) clusters", "another dataset or another task"),
    ],
)
def test_rows_on_classes_or_clusters_say_no_budget_raises_them(basis, units, rests_on,
                                                                instead) -> None:
    row = _borderline(basis, units, 1_123)
    said = answer.firming_cost(row, 60.0, "quick")
    assert said == (f"It rests on {rests_on}, which no budget raises (more seeds cannot settle "
                    f"it); {instead} would.")
    assert "min" not in said and "\u00d7" not in said and "1,123" not in said  # no cost offered


def test_a_share_over_the_task_classes_says_so_without_a_unit_count() -> None:
    # D4.4: a Clopper-Pearson share over the classes has no units count of its own
    row = replace(_row(basis="Clopper-Pearson over the 10 classes; null = alpha = 0.05"),
                  units=None, firm_at=None, stability=0.6, alternative="inconclusive")
    assert answer.firming_cost(row, 60.0, "quick") == (
        "It rests on 10 classes, which no budget raises (more seeds cannot settle it); "
        "another task with more classes would.")


def test_units_of_unknown_kind_get_no_cost() -> None:
    row = _borderline("a statistic of its own", 6, 20)
    said = answer.firming_cost(row, 600.0, "quick")
    assert said == ("About 20 units (this build: 6) would make a replication agree 8 times in 10 "
                    "if the estimate held.")


def test_the_box_puts_the_cost_in_its_details_not_in_the_sentence() -> None:
    row = replace(_borderline("Student t over 8 seeds", 8, 20), headline=True)
    box = answer.answer_html([row], {"profile": "quick", "overrides": {}, "date": "d"}, 600.0)
    sentence = re.findall(r'<span class="pa-sentence">(.*?)</span>', box)[0]
    assert not re.search(r"\b(seeds|min)\b", sentence)  # the sentence names no cost
    cost = re.findall(r'<p class="pa-cost">(.*?)</p>', box)
    assert cost == [html.escape(answer.firming_cost(row, 600.0, "quick"))]
    assert "About 20 seeds (this build: 8)" in cost[0] and "(quick: 10 min)" in box
    assert box.index("pa-cost") > box.index("<details")


def test_a_row_without_an_estimate_says_so_and_shows_no_empty_number() -> None:
    row = replace(_row("D2.2 writer collapses", headline=True), ours=float("nan"),
                  ci_low=float("nan"), ci_high=float("nan"))
    said = answer.box_sentence(row)
    assert said.endswith("(no estimate).") and " pts)" not in said
