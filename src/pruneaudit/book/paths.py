"""Where the project's files are: the repository, notebooks, profiles and the book; and the
study pages, as the registry lists them (:mod:`pruneaudit.studies.registry`)."""

from __future__ import annotations

import os
from pathlib import Path

from pruneaudit.config import REPO
from pruneaudit.studies.registry import PAGES, PROFILE_NAMES, TEMPLATE

NBS = REPO / "nbs"
PROFILES = NBS / "profiles"
BOOK = REPO / "book"
STUDIES = BOOK / "studies"
VENDOR = BOOK / "_static" / "vendor"
#: Per-notebook build durations (profile, notebook, seconds, date, cores), beside the pages.
TIMINGS = "_timings.json"
#: MathJax 3 (the npm package's ``es5`` builds the book loads, with its licence), committed.
MATHJAX = BOOK / "_static" / "mathjax"
MATHJAX_VERSION = "3.2.2"


def study_notebooks() -> tuple[str, ...]:
    """The study pages, in book order, but the ``TEMPLATE``: the registered pages
    (:data:`pruneaudit.studies.registry.PAGES`, ``("01_population_ols", ...)``)."""
    return tuple(p for p in PAGES if p != TEMPLATE)


def phases_path(page_dir: str | os.PathLike, notebook: str) -> Path:
    """Where a built page's kernel leaves its time per phase (:mod:`pruneaudit.timing`)."""
    return Path(page_dir) / f".{notebook}.phases.json"


__all__ = ["REPO", "NBS", "PROFILES", "BOOK", "STUDIES", "VENDOR", "TIMINGS", "MATHJAX",
           "MATHJAX_VERSION", "PROFILE_NAMES", "TEMPLATE", "study_notebooks", "phases_path"]
