"""Run the study notebooks with a profile (papermill) and build the book (Jupyter Book).

Two rooms over a shared floor (``lint-imports`` keeps the arrows pointing down):

- :mod:`pruneaudit.book.builder`, the build room: the plan, the runner, the pool of processes,
  progress, the studies' computations without notebooks, what a notebook calls, live mode and
  replications. It may import the report room to write the pages.
- :mod:`pruneaudit.book.report`, the report room: the pages, the front page, answer boxes,
  findings tables, the wording, the book's static files and Sphinx extensions. It reads
  findings and never trains: it imports neither the build room nor training.
- shared: :mod:`~pruneaudit.book.paths` and :mod:`~pruneaudit.book.profiles`, which both read.

Public names and their modules:

- :mod:`~pruneaudit.book.paths`: where the repository, notebooks, profiles and pages are.
- :mod:`~pruneaudit.book.builder.notebook`: what a notebook calls (:func:`setup`,
  :class:`Page`).
- :mod:`~pruneaudit.book.profiles`: profiles, overrides, parameters checked before any kernel.
- :mod:`~pruneaudit.book.builder.progress`: progress lines and torch's thread count while
  building.
- :mod:`~pruneaudit.book.report.assets`: offline JavaScript, the benchmark fragment, staged
  sources.
- :mod:`~pruneaudit.book.builder.runner`: :func:`run_notebook`, :func:`build` and the command
  line.
- :mod:`~pruneaudit.book.builder.compute`: :func:`run_studies`, the studies' runs into the
  results store without notebooks (the ``compute`` command).

Names are imported when first used (PEP 562), so that ``import pruneaudit.book.builder.compute``
(and the ``compute`` command) needs none of the notebook stack (nbformat, nbclient, papermill,
Jupyter) that the runner and the notebooks' helpers import.
"""

from __future__ import annotations

from pruneaudit.lazy import attach

#: Public name -> the module that defines it (a module of this package, or its full name).
_HOMES: dict[str, str] = {
    **dict.fromkeys(
        ("REPO", "NBS", "PROFILES", "BOOK", "STUDIES", "TIMINGS", "MATHJAX", "PROFILE_NAMES",
         "study_notebooks"),
        "paths",
    ),
    **dict.fromkeys(
        ("KERNEL_ENV", "VERSIONED", "print_provenance", "build_info", "Page", "setup"),
        "pruneaudit.book.builder.notebook",
    ),
    "banner_text": "pruneaudit.book.report.banner",
    **dict.fromkeys(
        ("Parameter", "Profile", "Job", "profile_label", "notebook_path", "notebook_parameters",
         "parse_overrides", "study_of", "check_common"),
        "profiles",
    ),
    **dict.fromkeys(
        ("THREADS_ENV", "Monitor", "choose_threads"), "pruneaudit.book.builder.progress"
    ),
    **dict.fromkeys(("vendor_assets", "stage_sources"), "pruneaudit.book.report.assets"),
    "load_timings": "pruneaudit.book.report.pages",
    **dict.fromkeys(
        ("strip_widgets", "build_stamp", "add_banner", "read_stamp", "run_notebook", "run_job",
         "record_timing", "check_same_build", "build"),
        "pruneaudit.book.builder.runner",
    ),
    **dict.fromkeys(("Computed", "run_studies"), "pruneaudit.book.builder.compute"),
}

__all__ = [
    # paths
    "REPO", "NBS", "PROFILES", "BOOK", "STUDIES", "TIMINGS", "MATHJAX",
    "PROFILE_NAMES", "study_notebooks",
    # notebook
    "KERNEL_ENV", "VERSIONED",
    "print_provenance", "build_info", "banner_text",
    "Page", "setup",
    # profiles
    "Parameter", "Profile", "Job", "profile_label", "notebook_path",
    "notebook_parameters", "parse_overrides", "study_of", "check_common",
    # progress
    "THREADS_ENV", "Monitor", "choose_threads",
    # assets
    "vendor_assets", "stage_sources",
    # runner
    "strip_widgets", "build_stamp", "add_banner",
    "read_stamp", "run_notebook", "run_job", "record_timing", "load_timings",
    "check_same_build", "build",
    # compute
    "Computed", "run_studies",
]


__getattr__, __dir__ = attach(__name__, _HOMES, globals())
