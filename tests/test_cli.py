"""The one command line: one parser in :mod:`pruneaudit.cli` with a subcommand per task, short
help, and defaults that name the modules holding the code (no re-export shims)."""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import re
from pathlib import Path

import pytest

from pruneaudit import cli
from pruneaudit.errors import PruneAuditError
from pruneaudit.runs import grid

SRC = Path(cli.__file__).resolve().parent
#: Every subcommand of ``pruneaudit``.
COMMANDS = ("build", "run", "compute", "plan", "live", "grid", "store", "appendix", "pooled",
            "accounting", "claims-log", "params", "gpu-rates", "between-builds")


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


def _sources() -> dict[Path, str]:
    return {path: path.read_text() for path in SRC.rglob("*.py")}


def test_one_parser_and_one_main_in_the_source_tree():
    """``pruneaudit.cli`` holds the package's only ``ArgumentParser`` and ``main``; no module
    runs as a script (``python -m pruneaudit`` is the command, through ``__main__``)."""
    parsers = {p.relative_to(SRC).as_posix(): text.count("argparse.ArgumentParser(")
               for p, text in _sources().items() if "ArgumentParser(" in text}
    assert parsers == {"cli.py": 1}
    mains = [p.relative_to(SRC).as_posix() for p, text in _sources().items()
             if re.search(r"^def main\b", text, flags=re.MULTILINE)]
    assert mains == ["cli.py"]
    scripts = [p.relative_to(SRC).as_posix() for p, text in _sources().items()
               if "__name__ == \"__main__\"" in text or "__name__ == '__main__'" in text]
    assert scripts == []
    assert importlib.util.find_spec("pruneaudit.book.__main__") is None  # the older name is gone


def test_the_parser_has_every_command():
    (sub,) = [a for a in cli._parser()._actions if isinstance(a, argparse._SubParsersAction)]
    assert sorted(sub.choices) == sorted(COMMANDS)


def test_top_level_help_fits_one_screen_and_lists_every_command(capsys):
    assert cli.main(["--help"]) == 0
    text = capsys.readouterr().out
    assert len(text.splitlines()) <= 40 and not any(r in text for r in ROLES)
    assert text.startswith("usage: pruneaudit <command>") and "examples:" in text
    for command in COMMANDS:
        assert re.search(rf"^    {re.escape(command)}  +\w", text, flags=re.MULTILINE), command
    assert "grid run" in text and "store ls" in text
    assert cli.main([]) == 2  # no command: the usage, and a failure status


@pytest.mark.parametrize("command", COMMANDS)
def test_each_command_has_short_help(command, capsys):
    text = _help([command, "--help"], capsys)
    assert text.startswith(f"usage: pruneaudit {command}")
    assert len(text.splitlines()) <= 35 and not any(r in text for r in ROLES)
    if command in cli.EXAMPLES:
        assert f"examples:\n  pruneaudit {command}" in text


def test_the_version(capsys):
    assert _help(["--version"], capsys).startswith("pruneaudit ")


def test_python_m_pruneaudit_is_the_same_command():
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "pruneaudit", "--help"], capture_output=True,
                          text=True, check=True)
    assert done.stdout.startswith("usage: python -m pruneaudit <command>")
    assert all(f"    {command} " in done.stdout for command in COMMANDS)
    old = subprocess.run([sys.executable, "-m", "pruneaudit.book", "--help"],
                         capture_output=True, text=True)
    assert old.returncode != 0  # the older name is gone


def test_a_page_command_calls_its_module(monkeypatch, capsys):
    """``pruneaudit pooled BUILDS --check`` is :func:`pruneaudit.book.report.pooled.write_page`."""
    from pruneaudit.book.report import pooled

    seen = []
    monkeypatch.setattr(pooled, "write_page", lambda builds, check: seen.append((builds, check))
                        or 1)
    assert cli.main(["pooled", "some/builds", "--check"]) == 1
    assert seen == [("some/builds", True)]


def test_an_error_is_one_line(capsys):
    assert cli.main(["params", "--cell", "pareto"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: unknown study 'pareto'") and err.count("\n") == 1


def test_the_runs_commands_are_kept(capsys):
    text = _help(["grid", "run", "--help"], capsys)
    assert "grid.yaml" in text and len(text.splitlines()) <= 35
    assert all(flag in text for flag, _, _ in cli._AXES)
    assert "--where" in _help(["store", "ls", "--help"], capsys)


def test_compute_waits_passively_unless_told(monkeypatch: pytest.MonkeyPatch) -> None:
    """``pruneaudit compute`` sets ``OMP_WAIT_POLICY=PASSIVE`` before torch loads, keeping a
    value the user set; other commands leave it alone."""
    import os

    monkeypatch.setattr(cli, "_book", lambda args: 0)
    for command, given, expected in (("plan", None, None), ("compute", None, "PASSIVE"),
                                     ("compute", "ACTIVE", "ACTIVE")):
        monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
        if given:
            monkeypatch.setenv("OMP_WAIT_POLICY", given)
        assert cli.main([command, "--profile", "smoke"]) == 0
        assert os.environ.get("OMP_WAIT_POLICY") == expected, command
