"""The smoke book, built once per test run for the book's tests, in its own folder, and what
the browser tests share: the HTML under test, served on localhost, and a headless Chromium."""

from __future__ import annotations

import fcntl
import functools
import http.server
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from pruneaudit import book

#: Chromium's flags on a machine without network or screen.
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _snapshot(folder: Path) -> dict[str, int]:
    return {p.name: p.stat().st_mtime_ns for p in folder.glob("*")} if folder.is_dir() else {}


def _build(base: Path) -> Path:
    """The smoke book in ``base``, built by the first process that asks (a file lock makes the
    others wait for it and reuse it)."""
    html = base / "_build" / "html"
    base.mkdir(parents=True, exist_ok=True)
    with open(base.parent / f"{base.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (html / "index.html").exists():
            book.build("smoke", path_output=base, progress=False)
    return html


@pytest.fixture(scope="session")
def repo_studies_before() -> dict[str, int]:
    """The repository's ``book/studies`` (names and mtimes) before the test build."""
    return _snapshot(book.STUDIES)


@pytest.fixture(scope="session")
def smoke_book(
    tmp_path_factory: pytest.TempPathFactory, repo_studies_before: dict[str, int]
) -> Path:
    """The book built once per test run with the smoke profile into a temporary folder (never
    the repository's ``book/studies``); returns its HTML folder. Its executed notebooks are in
    ``<html>/../../book/studies``. Shared by the tests of this folder (build and browser) and,
    under pytest-xdist, by every worker (in the run's common temporary folder)."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    return _build(shared / "smoke_book")


def executed(smoke_book: Path) -> Path:
    """The folder of the smoke book's executed notebooks."""
    return smoke_book.parents[1] / "book" / "studies"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def book_html(request: pytest.FixtureRequest) -> Path:
    """The HTML folder under test: ``$PRUNEAUDIT_BOOK_HTML`` if set, else the smoke build."""
    given = os.environ.get("PRUNEAUDIT_BOOK_HTML")
    if given:
        path = Path(given).resolve()
        assert (path / "index.html").is_file(), f"$PRUNEAUDIT_BOOK_HTML: no index.html in {path}"
        return path
    return request.getfixturevalue("smoke_book")


@pytest.fixture(scope="module")
def server(book_html: Path) -> Iterator[str]:
    """The built HTML served on 127.0.0.1 at a free port."""
    handler = functools.partial(_Quiet, directory=str(book_html))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="module")
def browser():
    """A headless Chromium (the one ``tests/browsers.py`` finds; the test fails naming how to
    install one when there is none)."""
    from browsers import HOW, find_chromium
    from playwright.sync_api import sync_playwright

    found = find_chromium()
    if found is None:
        pytest.fail(HOW)
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(found), headless=True, args=ARGS)
        yield chromium
        chromium.close()


def open_page(browser, server: str, path: str, viewport: tuple[int, int]):
    """``path`` opened at ``viewport`` (width, height), its charts drawn (or failed in place)."""
    page = browser.new_page(viewport={"width": viewport[0], "height": viewport[1]})
    page.goto(f"{server}/{path}", wait_until="networkidle")
    page.wait_for_function(
        "[...document.querySelectorAll('.pruneaudit-chart')].every("
        "d => d.querySelector('svg, canvas') || d.textContent.trim())",
        timeout=15_000,
    )
    return page
