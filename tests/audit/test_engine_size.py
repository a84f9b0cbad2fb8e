"""The verdict engine stays readable: no module of ``pruneaudit.audit`` over 400 lines, no
function over 80 lines or with more than 8 parameters."""

from __future__ import annotations

import ast
from pathlib import Path

import pruneaudit.audit

AUDIT = Path(pruneaudit.audit.__file__).parent
MAX_MODULE, MAX_FUNCTION, MAX_PARAMETERS = 400, 80, 8


def _too_large() -> list[str]:
    said = []
    for path in sorted(AUDIT.glob("*.py")):
        text = path.read_text()
        if len(text.splitlines()) > MAX_MODULE:
            said.append(f"{path.name}: {len(text.splitlines())} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = node.end_lineno - node.lineno + 1
                a = node.args
                params = len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs)
                params -= 1 if a.args and a.args[0].arg in ("self", "cls") else 0
                if lines > MAX_FUNCTION or params > MAX_PARAMETERS:
                    said.append(f"{path.name}:{node.name}: {lines} lines, {params} parameters")
    return said


def test_the_verdict_engine_is_in_small_parts() -> None:
    assert _too_large() == []
