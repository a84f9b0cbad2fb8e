"""Sphinx extension of the API reference: a reference to something that does not exist fails.

The book is built with ``nitpicky`` and warnings as errors, so every cross-reference Sphinx
cannot link is an error. Docstrings also name implementation objects that the API page does
not document (``pruneaudit.runs.grid.worker_devices``, the module ``pruneaudit.training.device``,
a module's private helper): those exist, so this extension lets them stand as unlinked text
(:func:`resolve_existing`). A reference to a module or object that cannot be imported
(``pruneaudit.poptrain``, a misspelt function) still warns, and fails the build. The
``nitpick_ignore`` pairs of ``_config.yml`` arrive as YAML lists; :func:`pairs_as_tuples` makes
them the tuples Sphinx compares with.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

#: Python-domain roles whose targets are looked up by import.
ROLES = ("func", "meth", "class", "mod", "data", "attr", "exc", "obj", "const")


def find_object(target: str, module: str | None = None, cls: str | None = None) -> bool:
    """Whether ``target`` names an importable object of the package: as written, relative to
    ``module`` (the docstring's module, then its parents) or to ``cls`` in it."""
    target = target.lstrip("~.")
    candidates = [target]
    if module:
        parts = module.split(".")
        scopes = [".".join(parts[:i]) for i in range(len(parts), 0, -1)]
        if cls:
            candidates.append(f"{module}.{cls}.{target}")
        candidates += [f"{scope}.{target}" for scope in scopes]
    if any(_importable(c) for c in candidates if c.split(".")[0] == "pruneaudit"):
        return True
    # a bare name from a signature: the documented package re-exports a submodule's function,
    # whose annotation names what that submodule imports (``Runtime`` in ``training.loop``)
    return bool(module) and "." not in target and any(
        hasattr(mod, target) for name, mod in list(sys.modules.items())
        if name.startswith(f"{module}.") and name.split(".")[0] == "pruneaudit")


def _importable(name: str) -> bool:
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def resolve_existing(app, env, node, contnode):
    """``missing-reference`` handler: unlinked text for an existing package object, else None
    (Sphinx then warns: ``py:func reference target not found``)."""
    if node.get("refdomain") != "py" or node.get("reftype") not in ROLES:
        return None
    if find_object(node["reftarget"], node.get("py:module"), node.get("py:class")):
        return contnode
    return None


def pairs_as_tuples(app, config) -> None:
    """``config-inited`` handler: ``nitpick_ignore`` entries as ``(type, target)`` tuples."""
    config.nitpick_ignore = [tuple(pair) for pair in config.nitpick_ignore]


def setup(app) -> dict[str, Any]:
    app.connect("config-inited", pairs_as_tuples)
    app.connect("missing-reference", resolve_existing)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
