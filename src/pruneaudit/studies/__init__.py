"""Study pipelines: the runs, tidy frames and derived tables each study notebook shows."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pruneaudit.lazy import attach

#: What a study package imports on first use: they draw with Altair, which a study's ``run``
#: does without (the ``compute`` command, :mod:`pruneaudit.book.builder.compute`).
LAZY = ("views", "key_figure")


def lazy_views(
    package: str, namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A study package's module ``__getattr__`` and ``__dir__`` (PEP 562, through
    :func:`pruneaudit.lazy.attach`, the package's one lazy-import mechanism): the module
    ``views`` and its ``key_figure`` imported on first use."""
    getattr_, dir_ = attach(package, {"key_figure": "views"}, namespace)
    return getattr_, lambda: sorted({*dir_(), *LAZY})
