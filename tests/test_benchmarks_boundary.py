"""The benchmarks use the package as any user would and keep their output to themselves: they
import only public names of ``pruneaudit``, assign to no attribute of its modules, and name no
path under ``src/`` or ``book/`` to write to (the package's commands read ``benchmarks/out/``)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPTS = sorted((REPO / "benchmarks").glob("*.py"))
#: Folders of the repository a benchmark must not write to.
FORBIDDEN = ("src", "book")


def _package_aliases(tree: ast.AST) -> set[str]:
    """The local names bound to ``pruneaudit`` or one of its modules (``import pruneaudit.x as
    y``, ``from pruneaudit import audit``, ``from pruneaudit.training import stacked``)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names
                      if a.name.split(".")[0] == "pruneaudit"}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("pruneaudit"):
            names |= {a.asname or a.name for a in node.names if a.name[:1].islower()}
    return names


def _root_name(node: ast.AST) -> str | None:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def private_uses(source: str) -> list[str]:
    """Each private name taken from the package: ``from pruneaudit... import _x`` and
    ``module._x`` on a name bound to a package module."""
    tree = ast.parse(source)
    aliases = _package_aliases(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("pruneaudit"):
            found += [f"{node.lineno}: import {a.name}" for a in node.names
                      if a.name.startswith("_")]
            if any(part.startswith("_") for part in node.module.split(".")):
                found.append(f"{node.lineno}: from {node.module}")
        elif (isinstance(node, ast.Attribute) and node.attr.startswith("_")
              and not node.attr.startswith("__") and _root_name(node) in aliases):
            found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def module_assignments(source: str) -> list[str]:
    """Each assignment to an attribute of a package module (``stacked.FLAG = ...``), including
    ``setattr(module, ...)``."""
    tree = ast.parse(source)
    aliases = _package_aliases(tree)
    found = []
    for node in ast.walk(tree):
        targets: list[ast.AST] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "setattr"
              and node.args and isinstance(node.args[0], ast.Name)
              and node.args[0].id in aliases):
            found.append(f"{node.lineno}: {ast.unparse(node)}")
        found += [f"{node.lineno}: {ast.unparse(t)}" for t in targets
                  if isinstance(t, ast.Attribute) and isinstance(t.value, (ast.Name, ast.Attribute))
                  and _root_name(t) in aliases]
    return found


def forbidden_paths(source: str) -> list[str]:
    """Each path a script builds into ``src/`` or ``book/``: a string constant starting there
    (``"book/x.md"``) or a path component ``"src"``/``"book"`` joined with ``/``
    (``REPO / "book"``; not as text, ``str(REPO / "src")``, as a search path is), and the
    package's own data files (``GPU_COSTS``)."""
    tree = ast.parse(source)
    as_text = {id(n.args[0]) for n in ast.walk(tree) if isinstance(n, ast.Call)
               and getattr(n.func, "id", "") == "str" and n.args}  # str(REPO / "src"): a setting
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value.strip()
            if any(text.startswith(f"{d}/") for d in FORBIDDEN) and " " not in text:
                found.append(f"{node.lineno}: {text!r}")
        elif (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div)
              and isinstance(node.right, ast.Constant) and node.right.value in FORBIDDEN
              and id(node) not in as_text):
            found.append(f"{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, (ast.Name, ast.Attribute, ast.alias)):
            name = getattr(node, "id", None) or getattr(node, "attr", None) or node.name
            if name == "GPU_COSTS":
                found.append(f"{getattr(node, 'lineno', '?')}: {name}")
    return found


def test_the_scans_catch_each_form() -> None:
    source = ("from pruneaudit.training import stacked, _hidden\n"
              "import pruneaudit.audit as A\n"
              "stacked._FLAG = False\nx = A._private(1)\nsetattr(stacked, 'BLOCK', 4)\n"
              "A.STABLE += 1\nPAGE = HERE.parent / 'book' / 'x.md'\nopen('src/pruneaudit/a.csv')\n"
              "from pruneaudit.runs.cost import GPU_COSTS\n")
    assert len(private_uses(source)) == 3  # _hidden, stacked._FLAG, A._private
    assert len(module_assignments(source)) == 3  # stacked._FLAG, setattr, A.STABLE
    assert len(forbidden_paths(source)) == 3  # 'book', 'src/...', GPU_COSTS


def test_the_scans_pass_ordinary_code() -> None:
    source = ("from pruneaudit.training import stacked\nimport torch\n"
              "x = stacked.blocks(4, torch.device('cpu'))\nx._private = 1\ntorch._C\n"
              "OUT = HERE / 'out'\nenv = str(REPO / 'src')\n"
              "print('see book/reproducing.md for more')\n")
    assert private_uses(source) == module_assignments(source) == forbidden_paths(source) == []


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_benchmark_stays_on_its_side(script: Path) -> None:
    source = script.read_text()
    assert not private_uses(source), f"{script.name} takes private names: {private_uses(source)}"
    assert not module_assignments(source), (
        f"{script.name} assigns to the package's modules: {module_assignments(source)}")
    assert not forbidden_paths(source), (
        f"{script.name} names a path under src/ or book/: {forbidden_paths(source)}; write to "
        "benchmarks/out/ and let a package command read it")
