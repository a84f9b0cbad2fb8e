"""The book's Benchmarks appendix holds every report of ``benchmarks/out`` as it is now
(``benchmarks/appendix.py``), and the package reads no file under ``benchmarks/``."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "benchmarks" / "appendix.py"


def test_committed_appendix_holds_every_report_as_it_is_now() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    text = (REPO / "book" / "appendix_benchmarks.md").read_text()
    for report in (REPO / "benchmarks" / "out").glob("*.md"):
        assert f"## {report.stem}\n" in text, report.name


def test_appendix_pushes_headings_down_and_names_each_report(tmp_path: Path) -> None:
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import appendix
    finally:
        sys.path.remove(str(SCRIPT.parent))
    assert "No benchmark reports yet" in appendix.page(tmp_path)
    (tmp_path / "b.md").write_text("# Title\n\ntext\n## Part\n")
    (tmp_path / "a.md").write_text("one line\n")
    text = appendix.page(tmp_path)
    assert text.index("## a\n") < text.index("## b\n")
    assert "### Title\n" in text and "#### Part\n" in text and "From `benchmarks/out/b.md`." in text


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
