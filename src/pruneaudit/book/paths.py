"""Where the project's files are: the repository, notebooks, profiles and the book."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
NBS = REPO / "nbs"
PROFILES = NBS / "profiles"
BOOK = REPO / "book"
STUDIES = BOOK / "studies"
VENDOR = BOOK / "_static" / "vendor"
#: MathJax served from ``_static/vendor/mathjax`` (npm package, pinned).
MATHJAX_VERSION = "3.2.2"
PROFILE_NAMES = ("smoke", "quick", "paper")
