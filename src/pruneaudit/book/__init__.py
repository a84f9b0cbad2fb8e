"""Run the study notebooks with a profile (papermill) and build the book (Jupyter Book).

- :mod:`~pruneaudit.book.paths`: where the repository, notebooks, profiles and pages are.
- :mod:`~pruneaudit.book.notebook`: what a notebook calls (:func:`setup`, :class:`Page`).
- :mod:`~pruneaudit.book.profiles`: profiles, overrides, parameters checked before any kernel.
- :mod:`~pruneaudit.book.progress`: progress lines and torch's thread count while building.
- :mod:`~pruneaudit.book.assets`: offline JavaScript, the benchmark fragment, staged sources.
- :mod:`~pruneaudit.book.runner`: :func:`run_notebook`, :func:`build` and the command line.
- :mod:`~pruneaudit.book.compute`: :func:`run_studies`, the studies' runs into the results
  store without notebooks (the ``compute`` command).

Names are imported when first used (PEP 562), so that ``import pruneaudit.book.compute`` (and
the ``compute`` command) needs none of the notebook stack (nbformat, nbclient, papermill,
Jupyter) that the runner and the notebooks' helpers import.
"""

from __future__ import annotations

from pruneaudit.lazy import attach

#: Public name -> the module of this package that defines it.
_HOMES: dict[str, str] = {
    **dict.fromkeys(
        ("REPO", "NBS", "PROFILES", "BOOK", "STUDIES", "TIMINGS", "MATHJAX", "PROFILE_NAMES",
         "study_notebooks"),
        "paths",
    ),
    **dict.fromkeys(
        ("KERNEL_ENV", "VERSIONED", "print_provenance", "build_info", "Page", "setup"),
        "notebook",
    ),
    "banner_text": "banner",
    **dict.fromkeys(
        ("Parameter", "Profile", "Job", "load_profile", "profile_measurement", "profile_label",
         "notebook_path", "notebook_parameters", "parse_overrides",
         "resolve_parameters", "study_module", "validate_notebook", "check_common"),
        "profiles",
    ),
    **dict.fromkeys(("THREADS_ENV", "Monitor", "choose_threads"), "progress"),
    **dict.fromkeys(("vendor_assets", "stage_sources"), "assets"),
    "load_timings": "pages",
    **dict.fromkeys(
        ("strip_widgets", "build_stamp", "add_banner", "read_stamp", "run_notebook", "run_job",
         "record_timing", "expected_duration", "check_same_build", "build"),
        "runner",
    ),
    **dict.fromkeys(("Computed", "run_studies"), "compute"),
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
    "Parameter", "Profile", "Job", "load_profile", "profile_measurement", "profile_label",
    "notebook_path",
    "notebook_parameters", "parse_overrides", "resolve_parameters",
    "study_module", "validate_notebook", "check_common",
    # progress
    "THREADS_ENV", "Monitor", "choose_threads",
    # assets
    "vendor_assets", "stage_sources",
    # runner
    "strip_widgets", "build_stamp", "add_banner",
    "read_stamp", "run_notebook", "run_job", "record_timing", "load_timings", "expected_duration",
    "check_same_build", "build",
    # compute
    "Computed", "run_studies",
]


__getattr__, __dir__ = attach(__name__, _HOMES, globals())
