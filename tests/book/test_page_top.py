"""A study page's top and end: the answer first (a smoke build says just above it that its
numbers are a pipeline check), the build note and provenance at the end, in "Re-run this page"."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from pruneaudit import audit, book
from pruneaudit.book.builder import notebook
from pruneaudit.book.builder.notebook import Page
from pruneaudit.book.report import banner

SMOKE = {"profile": "smoke", "overrides": {}, "date": "2026-01-01 00:00 UTC"}


def _row() -> audit.Finding:
    claim = audit.Claim("D4.5", "D4.5 PIE accuracy minus all", says="PIEs are hard",
                        source="H1; Table 6", quantity="dense top-1 on PIEs minus on all",
                        comparability="same", paper=-0.3694, paper_noise="30 models",
                        paper_units=30, margin=0.09, margin_reason="a quarter", unit="points",
                        headline=True)
    return audit.judge(claim, audit.Estimate(-0.401, -0.440, -0.362,
                                             "K = 16 members per population", units=16))


def _record() -> dict:
    return {"parameters": {"epochs": 2, "seeds": [0, 1]}, "versions": {"python": "3.11.7"},
            "data_root": "/data", "store_root": "/store", "protocol_version": 3,
            "platform": "Linux-x86_64"}


def test_only_a_smoke_build_says_its_numbers_are_a_pipeline_check() -> None:
    note = banner.pipeline_check_html(SMOKE)
    assert note.startswith('<p class="pa-pipeline-check">') and "not evidence" in note
    assert banner.pipeline_check_html({**SMOKE, "profile": "quick"}) == ""
    assert banner.pipeline_check_html(None) == ""  # run by hand: no profile


def _shown(monkeypatch: pytest.MonkeyPatch, info: dict | None) -> list[str]:
    shown: list[str] = []
    monkeypatch.setattr("IPython.display.display",
                        lambda *objs: shown.extend(o.data for o in objs))
    monkeypatch.setattr(notebook, "build_info", lambda: info)
    return shown


@pytest.mark.parametrize("profile", ["smoke", "quick"])
def test_the_answer_box_says_smoke_just_above_it(
    monkeypatch: pytest.MonkeyPatch, profile: str
) -> None:
    shown = _shown(monkeypatch, {**SMOKE, "profile": profile})
    page = Page(params=None, store=None, data_root=Path("."), provenance={})  # type: ignore[arg-type]
    page.show_answer([_row()])
    (out,) = shown
    box = out.index('class="admonition tip pa-answer"')
    if profile == "smoke":
        assert 0 <= out.index("pa-pipeline-check") < box
    else:
        assert "pa-pipeline-check" not in out


def test_provenance_is_folded_with_the_build_parameters_and_versions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    shown = _shown(monkeypatch, SMOKE)
    page = Page(params=None, store=None, data_root=Path("."),  # type: ignore[arg-type]
                provenance=_record())
    page.show_provenance()
    (out,) = shown
    assert out.startswith('<details class="pa-provenance"><summary>')
    body = out[out.index("<pre>") + 5: out.index("</pre>")]
    assert body.splitlines() == [
        "Profile smoke, overrides: none, built 2026-01-01 00:00 UTC.",
        "Parameters", "  epochs = 2", "  seeds = [0, 1]",
        "Versions", "  python 3.11.7",
        "Data root: /data", "Results store: /store",
        "Protocol version: 3  Platform: Linux-x86_64",
    ]


def test_provenance_by_hand_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    shown = _shown(monkeypatch, None)
    Page(params=None, store=None, data_root=Path("."),  # type: ignore[arg-type]
         provenance=_record()).show_provenance()
    assert "Run by hand" in shown[0]


def test_print_provenance_prints_its_text(capsys: pytest.CaptureFixture[str]) -> None:
    record = book.print_provenance({"epochs": 1, "data_root": "/some/where"})
    assert capsys.readouterr().out == notebook.provenance_text(record) + "\n"


def _page_notebook(path: Path, *sources: str) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(s) if s.startswith("#")
                else nbformat.v4.new_code_cell(s) for s in sources]
    nbformat.write(nb, path)


def test_banner_goes_to_the_rerun_section_not_the_top(tmp_path: Path) -> None:
    path = tmp_path / "01_x.ipynb"
    _page_notebook(path, "# Study", "page.show_answer(rows)", "## Findings",
                   "## Re-run this page\n\n```{include} _rerun_01_x.md\n```",
                   "page.show_provenance()")
    book.add_banner(path, book.build_stamp("smoke", {}, "2026-01-01 00:00 UTC"), {"a": 1})
    cells = nbformat.read(path, as_version=4).cells
    assert [c.source.split("\n")[0] for c in cells] == [
        "# Study", "page.show_answer(rows)", "## Findings", "## Re-run this page", ":::{note}",
        "page.show_provenance()"]
    assert cells[4].metadata["tags"] == ["pruneaudit-banner"]
    assert "Profile smoke, overrides: none" in cells[4].source


def test_banner_at_the_end_of_a_page_without_a_rerun_section(tmp_path: Path) -> None:
    path = tmp_path / "01_x.ipynb"
    _page_notebook(path, "# Study", "page.show_answer(rows)")
    book.add_banner(path, book.build_stamp("quick", {}, "2026-01-01 00:00 UTC"), {})
    cells = nbformat.read(path, as_version=4).cells
    assert cells[-1].source.startswith(":::{note}\nProfile quick") and len(cells) == 3


def test_every_study_notebook_opens_with_its_answer() -> None:
    """In nbs/: the title alone, then only removed cells, then the answer, then the one-line
    question; "Re-run this page" ends with the provenance."""
    from pruneaudit.book.paths import NBS

    for path in sorted(NBS.glob("[0-9][0-9]_*.ipynb")):
        cells = nbformat.read(path, as_version=4).cells
        assert cells[0].cell_type == "markdown" and cells[0].source.startswith("# "), path.name
        assert "\n" not in cells[0].source.strip(), f"{path.name}: the title cell holds more"
        answer = next(i for i, c in enumerate(cells) if "page.show_answer(" in c.source)
        for cell in cells[1:answer]:
            assert "remove-cell" in cell.metadata.get("tags", []), (path.name, cell.source[:40])
        assert cells[answer + 1].source.startswith("**Question.**"), path.name
        first_line = cells[answer + 1].source.split("\n\n")[0]
        assert first_line.endswith("?") and "\n" not in first_line, path.name
        rerun = max(i for i, c in enumerate(cells) if "## Re-run this page" in c.source)
        assert [c.source for c in cells[rerun + 1:]] == ["page.show_provenance()"], path.name
