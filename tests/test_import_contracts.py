"""The import contracts of ``pyproject.toml`` (``[tool.importlinter]``: the layers, ``audit``
and ``charts`` never importing back, ``errors`` and ``config`` importing nothing of the package,
no circles), checked by import-linter's ``lint-imports`` as ``make lint`` runs it, on this tree's
``src``."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

from pruneaudit.config import REPO


def lint_imports(*args: str) -> subprocess.CompletedProcess:
    """``lint-imports ARGS`` in the repository, importing the package from its ``src``."""
    command = Path(sys.executable).with_name("lint-imports")
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    return subprocess.run([str(command), "--no-cache", "--no-logo", *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120)


def test_every_contract_of_pyproject_is_kept() -> None:
    contracts = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"][
        "contracts"]
    done = lint_imports()
    assert done.returncode == 0, done.stdout + done.stderr
    for contract in contracts:
        assert f"{contract['name']} KEPT" in done.stdout
    assert f"Contracts: {len(contracts)} kept, 0 broken." in done.stdout


def test_an_import_against_a_contract_breaks_it(tmp_path: Path) -> None:
    """The check can fail: ``book.report.front`` imports ``book.report.pages``, so a contract
    forbidding it is broken (exit 1, the import named)."""
    config = tmp_path / "contracts.toml"
    config.write_text('[tool.importlinter]\nroot_package = "pruneaudit"\n\n'
                      "[[tool.importlinter.contracts]]\n"
                      'name = "front never imports pages"\ntype = "forbidden"\n'
                      'source_modules = ["pruneaudit.book.report.front"]\n'
                      'forbidden_modules = ["pruneaudit.book.report.pages"]\n')
    done = lint_imports(str(config))
    assert done.returncode == 1
    assert "front never imports pages BROKEN" in done.stdout
    assert "pruneaudit.book.report.front -> pruneaudit.book.report.pages" in done.stdout
