"""The Chromium the browser test drives: the one named by ``$PRUNEAUDIT_CHROMIUM``, else the
system's, else Playwright's own (``python -m playwright install chromium``, no root needed).

``python tests/browsers.py`` prints the path found, or one line on how to install one and exits 1.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

ENV = "PRUNEAUDIT_CHROMIUM"
SYSTEM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
HOW = (
    "no Chromium found for the browser test: install one without root with "
    "`.venv/bin/python -m playwright install chromium`, or your system's package "
    "(Debian: apt-get install chromium), or set PRUNEAUDIT_CHROMIUM to its path"
)


def find_chromium() -> Path | None:
    """The first Chromium executable found (setting, system, Playwright's), or None."""
    if os.environ.get(ENV):
        named = Path(os.environ[ENV])
        return named if named.is_file() else None
    for name in SYSTEM_NAMES:
        found = shutil.which(name)
        if found:
            return Path(found)
    try:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            own = Path(p.chromium.executable_path)
    except Exception:  # no Playwright driver, or it cannot start: nothing found there
        return None
    return own if own.is_file() else None


if __name__ == "__main__":
    found = find_chromium()
    if found is None:
        print(HOW, file=sys.stderr)
        sys.exit(1)
    print(found)
