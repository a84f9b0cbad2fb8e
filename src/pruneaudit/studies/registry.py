"""The registered studies: the one place a study is added to the book.

:data:`PAGES` lists every study page in book order. Page ``NN_<package>`` is the study that
package :mod:`pruneaudit.studies.<package>` declares as its ``STUDY`` (a
:class:`~pruneaudit.studies.study.Study`); its notebook is ``nbs/NN_<package>.ipynb``. To add a
study: copy the template's package and notebook under the new name, add its page here and to
``_toc.yml``, declare its claims and log them (``pruneaudit claims-log --log ...``).
"""

from __future__ import annotations

import importlib
import re
from typing import TYPE_CHECKING

from pruneaudit.errors import PruneAuditError, check_choice

if TYPE_CHECKING:  # the registry stays light: a study is imported when it is asked for
    from pruneaudit.studies.study import Study

#: Every study page, in book order; the first is the template, the shape of a study page.
PAGES = (
    "00_template",
    "01_population_ols",
    "02_qmnist_writers",
    "03_pareto_selection",
    "04_compression_impact",
    "05_robustness",
)
#: The book's profiles, whose values each study declares (``quick``: its defaults, unless it
#: states others).
PROFILE_NAMES = ("smoke", "quick", "paper")
#: The template's page: a study's shape, built and tested, not a study of the papers.
TEMPLATE = PAGES[0]


def package(page: str) -> str:
    """The package of study page ``page`` (``04_compression_impact`` ->
    ``pruneaudit.studies.compression_impact``)."""
    return f"{__package__}.{short(page)}"


def short(page: str) -> str:
    """The page's name without its number (``04_compression_impact`` ->
    ``compression_impact``)."""
    return re.sub(r"^\d+_", "", page)


def study(page: str) -> Study:
    """The :class:`~pruneaudit.studies.study.Study` of registered page ``page`` (or its package's
    short name, ``compression_impact``); anything else is one error naming the pages."""
    pages = {**{p: p for p in PAGES}, **{short(p): p for p in PAGES}}
    page = pages[check_choice("study", page, list(pages))]
    declared = getattr(importlib.import_module(package(page)), "STUDY", None)
    if declared is None or declared.page != page:
        raise PruneAuditError(
            f"{package(page)} must declare STUDY = Study(page={page!r}, ...) in its __init__ "
            "(copy studies/template/__init__.py)")
    return declared


def studies() -> list[Study]:
    """Every registered study, in book order (the template first)."""
    return [study(p) for p in PAGES]


__all__ = ["PAGES", "PROFILE_NAMES", "TEMPLATE", "package", "short", "studies", "study"]
