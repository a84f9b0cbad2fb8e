"""Study pipelines: the runs, tidy frames and derived tables each study notebook shows."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Mapping
from typing import Any

#: What a study package imports on first use: they draw with Altair, which a study's ``run``
#: does without (the ``compute`` command, :mod:`pruneaudit.book.builder.compute`).
LAZY = ("views", "key_figure")


def lazy_views(
    package: str, namespace: Mapping[str, object]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A study package's module ``__getattr__`` and ``__dir__`` (PEP 562): ``views`` and
    ``key_figure`` imported from ``<package>.views`` on first use."""

    def getattr_(name: str) -> Any:
        if name not in LAZY:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        views = importlib.import_module(f"{package}.views")
        return views if name == "views" else views.key_figure

    def dir_() -> list[str]:
        return sorted({*namespace, *LAZY})

    return getattr_, dir_


def study_packages() -> list[str]:
    """The study packages, the template's included, in name order: every subpackage of
    ``pruneaudit.studies`` (a new study is found without being listed anywhere)."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if m.ispkg)
