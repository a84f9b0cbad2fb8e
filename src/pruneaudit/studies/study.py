"""A study as one declared object: :class:`Study`.

Each study package declares its ``STUDY`` once, in its ``__init__``: the page it builds, its
``Params`` (with their defaults), the values the book's profiles give that differ from those
defaults, its claims, ``run``, ``findings``, ``numbers``, protocol table and workload ``cost``;
its views are the package's module ``views``, imported on first use (they draw with Altair,
which a ``run`` does without). :mod:`pruneaudit.studies.registry` lists the registered studies;
the book, ``compute``, ``plan`` and the claims log ask it for a study and read only this object.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from pruneaudit.errors import PruneAuditError
from pruneaudit.studies.params import StudyParams, plain
from pruneaudit.studies.registry import PROFILE_NAMES


@dataclass(frozen=True, kw_only=True)
class Study:
    """One study: what its page runs and shows, declared once in its package."""

    #: The page: ``nbs/<page>.ipynb``, its book page and its name in a profile (``04_...``).
    page: str
    #: The package that declares it (its ``__name__``): where its views are.
    package: str
    #: The page's parameters, with their defaults: the one declaration of each.
    params: type[StudyParams]
    #: ``run(params, store, *, progress, runtime)``: the study's runs, as its ``Result``.
    run: Callable[..., Any]
    #: ``claims()``: every row the page tests, declared before any estimate.
    claims: Callable[[], Mapping[str, Any]]
    #: ``findings(result)``: the rows judged; ``numbers(result)``: the numbers the prose cites.
    findings: Callable[[Any], list]
    numbers: Callable[[Any], dict]
    #: ``protocol_table(result)``: the protocol run beside the published one.
    protocol_table: Callable[[Any], Any]
    #: ``cost(params)``: the workload it trains.
    cost: Callable[[Any], list]
    #: Per book profile, the values that differ from the defaults (a missing profile: none).
    profiles: Mapping[str, Mapping[str, object]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        unknown = sorted(set(self.profiles) - set(PROFILE_NAMES))
        if unknown:
            raise PruneAuditError(f"study {self.page} declares values for {unknown}; the book's "
                                  f"profiles are {', '.join(PROFILE_NAMES)}")

    @property
    def name(self) -> str:
        """How the pages name it (``Study 4``): its ``Params.STUDY``."""
        return self.params.STUDY

    @property
    def views(self) -> ModuleType:
        """The package's module ``views``: every table and chart of the page."""
        return importlib.import_module(f"{self.package}.views")

    def values(self, profile: str) -> dict[str, object]:
        """The values book profile ``profile`` gives this study (a copy; ``{}``: its
        defaults)."""
        return {k: plain(v) for k, v in self.profiles.get(profile, {}).items()}


__all__ = ["Study"]
