"""The run and store layer reads no analysis: no module of ``pruneaudit.runs`` imports
``pruneaudit.audit``; what it keeps of the analysis' conventions agrees with them."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pandas as pd

from pruneaudit import audit
from pruneaudit.runs import series, trained

RUNS = Path(series.__file__).resolve().parent


def imported_modules(tree: ast.AST) -> set[str]:
    """Every module an ``import`` or ``from ... import`` of ``tree`` names, with the names a
    ``from`` imports joined to its module (``from pruneaudit import audit`` gives
    ``pruneaudit.audit``)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    return found


def test_imported_modules_sees_every_form() -> None:
    tree = ast.parse("import pruneaudit.audit\nfrom pruneaudit import audit as a\n"
                     "def f():\n    from pruneaudit.audit.regression import ORDER\n")
    assert {"pruneaudit.audit", "pruneaudit.audit.regression"} <= imported_modules(tree)


def test_no_runs_module_imports_audit() -> None:
    found = [
        f"{path.name}: {name}"
        for path in sorted(RUNS.glob("*.py"))
        for name in imported_modules(ast.parse(path.read_text()))
        if name == "pruneaudit.audit" or name.startswith("pruneaudit.audit.")
    ]
    assert not found, found


def test_series_row_order_is_the_regressions() -> None:
    assert series.ROW_ORDER == audit.ORDER


def test_stored_class_accuracy_matches_the_analysis() -> None:
    labels, preds = np.array([0, 0, 1, 1, 1, 3]), np.array([0, 2, 1, 1, 0, 3])
    mine = trained.class_accuracy_frame(labels, preds, 4)
    np.testing.assert_allclose(mine.accuracy, [0.5, 2 / 3, np.nan, 1.0])
    assert mine.n.tolist() == [2, 3, 0, 1]
    pd.testing.assert_frame_equal(mine, audit.class_accuracy_frame(labels, preds, 4))
