"""The command line's defaults name the modules that hold the code (no re-export shims)."""

from __future__ import annotations

import importlib

import pytest

from pruneaudit import cli
from pruneaudit.errors import PruneAuditError
from pruneaudit.runs import grid


def _default_task() -> str:
    args = cli._parser().parse_args(["grid", "run", "--dataset", "mnist"])
    return args.task


def test_default_task_is_the_runs_grid_function():
    assert _default_task() == "pruneaudit.runs.grid:train_and_evaluate"
    assert cli._load_task(_default_task()) is grid.train_and_evaluate


@pytest.mark.parametrize("name", ["pruneaudit.store", "pruneaudit.grid"])
def test_the_old_top_level_names_are_gone(name):
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(name)


def test_a_task_that_does_not_import_names_the_module():
    with pytest.raises(PruneAuditError, match="cannot import task 'pruneaudit.grid:"):
        cli._load_task("pruneaudit.grid:train_and_evaluate")
