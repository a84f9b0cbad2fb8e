"""The book's pages made from the benchmarks' reports (``pruneaudit appendix``)
hold every report of ``benchmarks/out`` as it is now, the GPU hours the package states are the
GPU benchmark's (``pruneaudit gpu-rates``), and the package reads no file under
``benchmarks/`` but the folder it is given."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pandas as pd
import pytest

from pruneaudit import cli
from pruneaudit.book.report import appendix
from pruneaudit.errors import PruneAuditError
from pruneaudit.runs import gpu_rates

REPO = Path(__file__).resolve().parents[1]
REPORTS = REPO / "benchmarks" / "out"


def test_committed_pages_hold_every_report_as_it_is_now(capsys) -> None:
    assert cli.main(["appendix", str(REPORTS), "--check"]) == 0, capsys.readouterr().out
    text = appendix.APPENDIX.read_text()
    for report in REPORTS.glob("*.md"):
        assert f"## {report.stem}\n" in text, report.name
    assert appendix.PAPER_COST.read_text() == (REPORTS / "paper_gpu_cost.md").read_text()


def test_appendix_pushes_headings_down_and_names_each_report(tmp_path: Path) -> None:
    assert "No benchmark reports yet" in appendix.page(tmp_path)
    (tmp_path / "b.md").write_text("# Title\n\ntext\n## Part\n")
    (tmp_path / "a.md").write_text("one line\n")
    text = appendix.page(tmp_path)
    assert text.index("## a\n") < text.index("## b\n")
    assert "### Title\n" in text and "#### Part\n" in text and "From `benchmarks/out/b.md`." in text
    (tmp_path / "c.md").write_text("| D2.5 | −3.87 × 10⁻⁴ [−0.00157, 6.55 × 10⁻⁵] |\n")
    assert "| D2.5 | \u22120.000387 [\u22120.00157, 0.0000655] |" in appendix.page(tmp_path)
    assert set(appendix.pages(tmp_path)) == {appendix.APPENDIX}  # no paper-cost report: no page
    (tmp_path / "paper_gpu_cost.md").write_text("| a |\n")
    assert appendix.pages(tmp_path)[appendix.PAPER_COST] == "| a |\n"
    with pytest.raises(PruneAuditError, match="not a folder"):
        appendix.pages(tmp_path / "missing")


def test_a_pipe_inside_a_cell_is_escaped_and_columns_stay() -> None:
    row = "| D2.5 slope on |activation − mean|, per unit | 0.1 |"
    assert appendix.cell_pipes(row) == "| D2.5 slope on \\|activation − mean\\|, per unit | 0.1 |"
    for kept in ["|:---|---:|", "| a | b |", "text | not a row", "| a \\| b |"]:
        assert appendix.cell_pipes(kept) == kept
    assert appendix.cell_pipes(appendix.cell_pipes(row)) == appendix.cell_pipes(row)


def _columns(row: str) -> int:
    return len(re.split(r"(?<!\\)\|", row)) - 2


def test_every_appendix_table_row_has_its_headers_columns() -> None:
    """A row with more columns than its table's header breaks the table a reader sees."""
    header, broken = None, []
    for number, line in enumerate(appendix.APPENDIX.read_text().splitlines(), start=1):
        if not line.startswith("|"):
            header = None
        elif header is None:
            header = _columns(line)
        elif _columns(line) != header:
            broken.append(number)
    assert not broken, f"rows with another column count than their header: lines {broken[:10]}"


def test_package_gpu_hours_are_the_benchmarks(capsys) -> None:
    source = REPORTS / "gpu_training_cuda_costs.csv"
    assert cli.main(["gpu-rates", str(source), "--check"]) == 0, capsys.readouterr().out


def test_gpu_rates_installs_a_checked_table(tmp_path: Path) -> None:
    good = pd.DataFrame({"protocol": ["Study 2 (P 4.1, LeNet)"], "configuration": ["(a) x"],
                         "model_epochs": [10], "hours": [1.5]})
    good.to_csv(tmp_path / "costs.csv", index=False)
    gpu_rates.install(tmp_path / "costs.csv", tmp_path / "installed.csv")
    assert (tmp_path / "installed.csv").read_bytes() == (tmp_path / "costs.csv").read_bytes()
    for bad, message in [(good.drop(columns="hours"), "hours"),
                         (good.assign(protocol="P 4.1"), "Study N"),
                         (good.assign(hours=0.0), "positive")]:
        bad.to_csv(tmp_path / "bad.csv", index=False)
        with pytest.raises(PruneAuditError, match=message):
            gpu_rates.install(tmp_path / "bad.csv", tmp_path / "never.csv")
    assert not (tmp_path / "never.csv").exists()
    with pytest.raises(PruneAuditError, match="not a file"):
        gpu_rates.read_costs(tmp_path / "missing.csv")


def _reads_benchmarks(node: ast.AST) -> bool:
    """A path component ``"benchmarks"`` (``REPO / "benchmarks"``), or a ``Path``, ``open`` or
    ``read_csv`` of a string under ``benchmarks/``."""
    if isinstance(node, ast.Constant) and node.value == "benchmarks":
        return True
    if isinstance(node, ast.Call) and node.args:
        name = getattr(node.func, "id", getattr(node.func, "attr", ""))
        first = node.args[0]
        return (name in {"Path", "open", "read_csv", "read_text"}
                and isinstance(first, ast.Constant) and isinstance(first.value, str)
                and first.value.startswith("benchmarks/"))
    return False


def test_reads_benchmarks_pattern() -> None:
    assert _reads_benchmarks(ast.parse('REPO / "benchmarks" / "out"').body[0].value.left.right)
    assert _reads_benchmarks(ast.parse('pd.read_csv("benchmarks/out/x.csv")').body[0].value)
    assert not _reads_benchmarks(ast.parse('"see benchmarks/out/x.md"').body[0].value)


def test_the_package_reads_no_file_under_benchmarks() -> None:
    """No path in the package's code leads under ``benchmarks/`` (its text may say where a
    figure was measured)."""
    found = [
        f"{path.relative_to(REPO)}:{node.lineno}"
        for path in (REPO / "src" / "pruneaudit").rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if _reads_benchmarks(node)
    ]
    assert not found, found
