"""Packages whose public names are imported on first use (PEP 562): ``pruneaudit.audit``,
``pruneaudit.runs``, ``pruneaudit.book`` and each study's views, so that a module needing one
part of a package does not import all of it (the book's runner starts without torch)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def attach(
    package: str, homes: Mapping[str, str], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A package's ``__getattr__`` and ``__dir__``. ``__getattr__``: a public name imported
    from its home (a module of ``package``, or a module's full name) on first use and kept in
    ``namespace``; any other name, a submodule of ``package`` (never a dunder name such as
    ``__main__``, which tools probe), else AttributeError. ``__dir__``: the names in
    ``namespace`` and the public names, imported or not."""

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            if name.startswith("__"):
                raise AttributeError(f"module {package!r} has no attribute {name!r}")
            try:
                return importlib.import_module(f"{package}.{name}")
            except ModuleNotFoundError:
                raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        value = getattr(importlib.import_module(home if "." in home else f"{package}.{home}"),
                        name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *homes})

    return __getattr__, __dir__
