"""Where the project's files are: the repository, notebooks, profiles and the book."""

from __future__ import annotations

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

__all__ = ["REPO", "NBS", "PROFILES", "BOOK", "STUDIES", "VENDOR", "TIMINGS", "MATHJAX",
           "MATHJAX_VERSION", "PROFILE_NAMES"]
