"""The packages whose names are imported on first use (PEP 562): every public name resolves to
its module's object, and the book's runner starts without torch."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from pruneaudit import audit, book, runs


@pytest.mark.parametrize("package", [audit, runs, book], ids=lambda p: p.__name__)
def test_every_public_name_is_its_modules_object(package) -> None:
    assert set(package.__all__) == set(package._HOMES)
    for name, home in package._HOMES.items():
        module = importlib.import_module(home if "." in home else f"{package.__name__}.{home}")
        assert getattr(package, name) is getattr(module, name), name


def test_functions_named_as_their_module_stay_functions() -> None:
    """``audit.stability`` is the function even after another module imported the module of
    that name (which sets the package's attribute)."""
    code = ("import pruneaudit.audit.stability, pruneaudit.audit.published\n"
            "import pruneaudit.audit.image_properties\n"
            "from pruneaudit import audit\n"
            "print(all(callable(f) and not hasattr(f, '__path__') and f.__module__ != f.__name__"
            " for f in (audit.stability, audit.published, audit.image_properties)))\n"
            "import types; print(isinstance(audit.stability, types.FunctionType))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True"]


def test_the_runner_starts_without_torch() -> None:
    """The book's runner (the build's first process) imports no torch: each study's kernel
    imports its own, and the build starts seconds earlier."""
    code = "import sys, pruneaudit.book.runner; print('torch' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
