"""The package stays readable: no module of ``src/pruneaudit`` over 600 lines, no function over
80 lines or over 8 parameters (``self`` and ``cls`` not counted; STYLE.md principle 2: a study's
``Params`` or a ``RunSpec``, not long keyword lists); the verdict engine's tighter limits:
``tests/audit/test_engine_size.py``."""

from __future__ import annotations

import ast
from pathlib import Path

import pruneaudit

PACKAGE = Path(pruneaudit.__file__).parent
MAX_MODULE, MAX_FUNCTION, MAX_PARAMETERS = 600, 80, 8


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


def parameters(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> list[str]:
    """The names of a function's parameters (positional, keyword-only, ``*args``, ``**kwargs``),
    without a leading ``self`` or ``cls``."""
    args = node.args
    names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    names += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    return names[1:] if names[:1] in (["self"], ["cls"]) else names


def too_many_parameters(root: Path) -> list[str]:
    """Each function (lambdas too) of more than :data:`MAX_PARAMETERS` parameters."""
    said = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                names = parameters(node)
                if len(names) > MAX_PARAMETERS:
                    name = getattr(node, "name", "<lambda>")
                    said.append(f"{path.relative_to(root)}:{node.lineno}:{name}: "
                                f"{len(names)} parameters ({', '.join(names)})")
    return said


def test_modules_and_functions_keep_to_the_limits() -> None:
    assert too_large(PACKAGE) == []


def test_functions_take_at_most_eight_parameters() -> None:
    assert too_many_parameters(PACKAGE) == []


def test_the_check_counts_every_kind_of_parameter(tmp_path: Path) -> None:
    (tmp_path / "wide.py").write_text(
        "def ok(a, b, c, d, e, f, g, h): pass\n"
        "def wide(a, /, b, *c, d, e, f, g, h, **i): pass\n"
        "class K:\n"
        "    def method(self, a, b, c, d, e, f, g, h): pass\n"
        "    def wider(self, a, b, c, d, e, f, g, h, i): pass\n"
    )
    assert too_many_parameters(tmp_path) == [
        "wide.py:2:wide: 9 parameters (a, b, d, e, f, g, h, c, i)",
        "wide.py:5:wider: 9 parameters (a, b, c, d, e, f, g, h, i)",
    ]


def test_the_check_finds_a_long_function(tmp_path: Path) -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION))
    (tmp_path / "long.py").write_text(f"def f():\n{body}\n")
    (tmp_path / "big.py").write_text("x = 1\n" * (MAX_MODULE + 1))
    assert too_large(tmp_path) == ["big.py: 601 lines", "long.py:f: 81 lines"]
