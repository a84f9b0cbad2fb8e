"""Run the study notebooks with a profile (papermill) and build the book (Jupyter Book).

- :mod:`~pruneaudit.book.paths`: where the repository, notebooks, profiles and pages are.
- :mod:`~pruneaudit.book.notebook`: what a notebook calls (:func:`setup`, :class:`Page`).
- :mod:`~pruneaudit.book.profiles`: profiles, overrides, parameters checked before any kernel.
- :mod:`~pruneaudit.book.progress`: progress lines and torch's thread count while building.
- :mod:`~pruneaudit.book.assets`: offline JavaScript, the benchmark fragment, staged sources.
- :mod:`~pruneaudit.book.runner`: :func:`run_notebook`, :func:`build` and the command line.
"""

from __future__ import annotations

from pruneaudit.book.assets import stage_sources, vendor_assets, write_benchmark_tables
from pruneaudit.book.notebook import (
    BUILD_DATE_ENV,
    OVERRIDES_ENV,
    PROFILE_ENV,
    VERSIONED,
    Page,
    banner_text,
    build_info,
    print_provenance,
    setup,
)
from pruneaudit.book.pages import load_timings
from pruneaudit.book.paths import (
    BOOK,
    MATHJAX,
    NBS,
    PROFILE_NAMES,
    PROFILES,
    REPO,
    STUDIES,
    TIMINGS,
)
from pruneaudit.book.profiles import (
    Parameter,
    Profile,
    check_common,
    declared_parameters,
    load_profile,
    notebook_path,
    parse_overrides,
    parse_parameters_cell,
    profile_label,
    profile_measurement,
    resolve_parameters,
    study_module,
    validate_notebook,
)
from pruneaudit.book.progress import THREADS_ENV, Monitor, choose_threads, route_tqdm
from pruneaudit.book.runner import (
    add_banner,
    build,
    build_stamp,
    check_same_build,
    expected_duration,
    main,
    read_stamp,
    record_timing,
    run_notebook,
    strip_widgets,
)

__all__ = [
    # paths
    "REPO", "NBS", "PROFILES", "BOOK", "STUDIES", "TIMINGS", "MATHJAX",
    "PROFILE_NAMES",
    # notebook
    "PROFILE_ENV", "OVERRIDES_ENV", "BUILD_DATE_ENV", "VERSIONED",
    "print_provenance", "build_info", "banner_text",
    "Page", "setup",
    # profiles
    "Parameter", "Profile", "load_profile", "profile_measurement", "profile_label", "notebook_path",
    "parse_parameters_cell", "declared_parameters", "parse_overrides", "resolve_parameters",
    "study_module", "validate_notebook", "check_common",
    # progress
    "THREADS_ENV", "Monitor", "choose_threads", "route_tqdm",
    # assets
    "vendor_assets", "write_benchmark_tables", "stage_sources",
    # runner
    "strip_widgets", "build_stamp", "add_banner",
    "read_stamp", "run_notebook", "record_timing", "load_timings", "expected_duration",
    "check_same_build", "build", "main",
]
