"""The package stays readable: no module of ``src/pruneaudit`` over 600 lines, no function over
80 lines (the verdict engine's tighter limits: ``tests/audit/test_engine_size.py``)."""

from __future__ import annotations

import ast
from pathlib import Path

import pruneaudit

PACKAGE = Path(pruneaudit.__file__).parent
MAX_MODULE, MAX_FUNCTION = 600, 80


def too_large(root: Path) -> list[str]:
    """Each module over :data:`MAX_MODULE` lines and function over :data:`MAX_FUNCTION`."""
    said = []
    for path in sorted(root.rglob("*.py")):
        text, name = path.read_text(), path.relative_to(root)
        if len(text.splitlines()) > MAX_MODULE:
            said.append(f"{name}: {len(text.splitlines())} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_FUNCTION:
                    said.append(f"{name}:{node.name}: {lines} lines")
    return said


def test_modules_and_functions_keep_to_the_limits() -> None:
    assert too_large(PACKAGE) == []


def test_the_check_finds_a_long_function(tmp_path: Path) -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION))
    (tmp_path / "long.py").write_text(f"def f():\n{body}\n")
    (tmp_path / "big.py").write_text("x = 1\n" * (MAX_MODULE + 1))
    assert too_large(tmp_path) == ["big.py: 601 lines", "long.py:f: 81 lines"]
