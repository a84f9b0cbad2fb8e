"""The packages whose names are imported on first use (PEP 562): every public name resolves to
its module's object, and the book's runner starts without torch."""

from __future__ import annotations

import importlib
import subprocess
import sys
import types

import pytest

from pruneaudit import audit, book, runs


@pytest.mark.parametrize("package", [audit, runs, book], ids=lambda p: p.__name__)
def test_every_public_name_is_its_modules_object(package) -> None:
    assert set(package.__all__) == set(package._HOMES)
    for name, home in package._HOMES.items():
        module = importlib.import_module(home if "." in home else f"{package.__name__}.{home}")
        assert getattr(package, name) is getattr(module, name), name


def test_functions_named_as_their_module_stay_functions() -> None:
    """``audit.stability`` is the function even after the module of that name was imported
    (which sets the package's attribute to the module)."""
    for name in audit._FUNCTIONS_NAMED_AS_MODULES:
        module = importlib.import_module(f"pruneaudit.audit.{name}")
        setattr(audit, name, module)  # what the import system does
        assert isinstance(getattr(audit, name), types.FunctionType), name
        assert getattr(audit, name) is getattr(module, name)


def test_the_runner_starts_without_torch() -> None:
    """The book's runner (the build's first process) imports no torch: each study's kernel
    imports its own, and the build starts seconds earlier."""
    code = "import sys, pruneaudit.book.builder.runner; print('torch' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


@pytest.mark.parametrize("package", [audit, runs, book], ids=lambda p: p.__name__)
def test_submodules_resolve_and_dunder_probes_import_nothing(package) -> None:
    """A submodule is an attribute once asked for; a dunder name (``__main__``, which would run
    the command line) is never imported."""
    submodule = {audit: "intervals", runs: "cost", book: "paths"}[package]
    assert getattr(package, submodule) is importlib.import_module(f"{package.__name__}.{submodule}")
    with pytest.raises(AttributeError):
        package.__main__  # noqa: B018
    assert f"{package.__name__}.__main__" not in sys.modules
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        package.nothing_here  # noqa: B018
