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


ROLES = (":class:`", ":func:`", ":mod:`", ":meth:`")


def _help(argv: list[str], capsys) -> str:
    with pytest.raises(SystemExit) as done:
        cli.main(argv)
    assert done.value.code == 0
    return capsys.readouterr().out


def test_top_level_help_is_short_usage_and_examples(capsys):
    assert cli.main(["--help"]) == 0
    text = capsys.readouterr().out
    assert len(text.splitlines()) <= 25 and not any(r in text for r in ROLES)
    assert text.startswith("usage: pruneaudit <command>") and "examples:" in text
    for command in ("build", "run", "compute", "plan", "live", "grid run", "store ls"):
        assert f"\n  {command} " in text
    assert cli.main([]) == 2  # no command: the usage, and a failure status


@pytest.mark.parametrize("command", ["build", "run", "plan", "live", "compute"])
def test_each_book_command_has_short_help(command, capsys):
    text = _help([command, "--help"], capsys)
    assert text.startswith(f"usage: pruneaudit {command}")
    assert len(text.splitlines()) <= 35 and not any(r in text for r in ROLES)
    if command != "compute":
        assert f"examples:\n  pruneaudit {command} " in text


@pytest.mark.parametrize("module", ["pruneaudit", "pruneaudit.book"])
def test_both_module_commands_give_the_same_help(module):
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True,
                          text=True, check=True)
    assert done.stdout.startswith(f"usage: python -m {module} <command>")
    assert "plan" in done.stdout and not any(r in done.stdout for r in ROLES)


def test_the_runs_commands_are_kept(capsys):
    text = _help(["grid", "run", "--help"], capsys)
    assert "grid.yaml" in text and len(text.splitlines()) <= 35
    assert all(flag in text for flag, _, _ in cli._AXES)
    assert "--where" in _help(["store", "ls", "--help"], capsys)


def test_compute_waits_passively_unless_told(monkeypatch: pytest.MonkeyPatch) -> None:
    """``pruneaudit compute`` sets ``OMP_WAIT_POLICY=PASSIVE`` before torch loads, keeping a
    value the user set; other commands leave it alone."""
    import os

    monkeypatch.setattr(cli, "_book", lambda args, argv: 0)
    for command, given, expected in (("plan", None, None), ("compute", None, "PASSIVE"),
                                     ("compute", "ACTIVE", "ACTIVE")):
        monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
        if given:
            monkeypatch.setenv("OMP_WAIT_POLICY", given)
        assert cli.main([command, "--profile", "smoke"]) == 0
        assert os.environ.get("OMP_WAIT_POLICY") == expected, command
