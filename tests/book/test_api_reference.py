"""The API reference (book/api.md): every wing on the page, references checked (nitpicky).

A tiny Sphinx project with the book's own reference settings (read from ``_config.yml``) shows
that a reference to a module that does not exist fails a warnings-as-errors build, while
references to existing package objects and the listed third-party names pass.
"""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import pruneaudit
from pruneaudit.book.report import sphinx_refs

REPO = Path(__file__).resolve().parents[2]
SRC = Path(pruneaudit.__file__).resolve().parents[1]
WINGS = ["data", "training", "compress", "runs", "audit", "charts", "book"]


def test_every_wing_is_on_the_api_page_and_in_the_toc():
    page = (REPO / "book" / "api.md").read_text()
    assert re.findall(r"automodule:: pruneaudit\.(\w+)", page) == [*WINGS, "errors", "config"]
    assert "book/api" in (REPO / "_toc.yml").read_text()


@pytest.mark.parametrize(
    ("target", "module", "found"),
    [
        ("pruneaudit.runs.grid.worker_devices", None, True),  # exists, not on the API page
        ("~pruneaudit.training.device", None, True),
        ("prune_to", "pruneaudit.compress", True),  # relative to the docstring's module
        ("_check_technique", "pruneaudit.compress.prune", True),
        ("pruneaudit.poptrain.train_population", None, False),  # the module is gone
        ("pruneaudit.train", None, False),
        ("prune_tp", "pruneaudit.compress", False),  # misspelt
        ("torch.Tensor", None, False),  # not the package's: nitpick_ignore or nothing
        ("Runtime", "pruneaudit.training", True),  # what a re-exported function's module imports
        ("Runtim", "pruneaudit.training", False),
    ],
)
def test_find_object(target, module, found):
    importlib.import_module("pruneaudit.training.loop")
    assert sphinx_refs.find_object(target, module) is found


def _sphinx(tmp_path: Path, body: str) -> subprocess.CompletedProcess:
    """Build ``body`` as index.rst with the book's reference settings, warnings as errors."""
    book = yaml.safe_load((REPO / "_config.yml").read_text())["sphinx"]["config"]
    assert book["nitpicky"] is True
    extensions = [e for e in book["extensions"] if e.startswith(("sphinx.ext.", "pruneaudit."))]
    assert extensions == ["sphinx.ext.autodoc", "pruneaudit.book.report.sphinx_refs",
                          "pruneaudit.book.report.sphinx_minus"]
    keys = ("nitpicky", "nitpick_ignore", "autodoc_inherit_docstrings")
    conf = [f"extensions = {extensions!r}"] + [f"{k} = {book[k]!r}" for k in keys]
    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text("\n".join(conf) + "\n")
    (src / "index.rst").write_text("Test\n====\n\n" + body + "\n")
    path = os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])
    env = {**os.environ, "PYTHONPATH": path}
    command = ["-m", "sphinx", "-b", "dummy", "-W", "-q", str(src), str(tmp_path / "out")]
    return subprocess.run([sys.executable, *command], capture_output=True, text=True, env=env)


GOOD = """.. autofunction:: pruneaudit.compress.prune_to

See :func:`pruneaudit.compress.prune_to`, :func:`pruneaudit.runs.grid.worker_devices` and
:mod:`pruneaudit.training.device`."""


@pytest.mark.slow
def test_existing_references_and_listed_third_party_names_pass(tmp_path):
    done = _sphinx(tmp_path, GOOD)  # prune_to's signature names nn.Module (nitpick_ignore)
    assert done.returncode == 0, done.stderr[-2000:]


@pytest.mark.slow
def test_a_reference_to_a_missing_module_fails_the_build(tmp_path):
    done = _sphinx(tmp_path, GOOD + "\nAlso :func:`pruneaudit.poptrain.train_population`.")
    assert done.returncode != 0
    assert "py:func reference target not found: pruneaudit.poptrain.train_population" in (
        done.stderr
    )
