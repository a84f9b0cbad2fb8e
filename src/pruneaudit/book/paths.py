"""Where the project's files are: the repository, notebooks, profiles and the book; and the one
list of study pages, read from ``nbs/``."""

from __future__ import annotations

import os
from pathlib import Path

from pruneaudit.config import REPO

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
PROFILE_NAMES = ("smoke", "quick", "paper")
#: The notebook template (``nbs/00_template.ipynb``): the shape of a study page, not a study.
TEMPLATE = "00_template"


def study_notebooks() -> tuple[str, ...]:
    """The study pages, in book order: the stem ``NN_<package>`` of every ``nbs/NN_*.ipynb``
    but the ``TEMPLATE`` (``("01_population_ols", "02_qmnist_writers", ...)``). The one list
    of studies: a new notebook in ``nbs/`` is a new study everywhere it is read."""
    return tuple(
        sorted(p.stem for p in NBS.glob("[0-9][0-9]_*.ipynb") if p.stem != TEMPLATE)
    )


def phases_path(page_dir: str | os.PathLike, notebook: str) -> Path:
    """Where a built page's kernel leaves its time per phase (:mod:`pruneaudit.timing`)."""
    return Path(page_dir) / f".{notebook}.phases.json"


__all__ = ["REPO", "NBS", "PROFILES", "BOOK", "STUDIES", "VENDOR", "TIMINGS", "MATHJAX",
           "MATHJAX_VERSION", "PROFILE_NAMES", "TEMPLATE", "study_notebooks", "phases_path"]
