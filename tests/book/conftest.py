"""The smoke book, built once per test run for the book's tests, in its own folder, and what
the browser tests share: the HTML under test, served on localhost, and a headless Chromium."""

from __future__ import annotations

import functools
import http.server
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse

import pytest
import smoke_book as smoke

from pruneaudit import book

#: Viewports: a desktop and a phone screen (width, height).
DESKTOP = (1400, 900)
PHONE = (390, 844)
#: The two viewports as parameters.
VIEWPORTS = (pytest.param(DESKTOP, id="desktop"), pytest.param(PHONE, id="phone"))
#: The only host the pages may load from: the test's server (:func:`server`).
HOST = "127.0.0.1"
#: Chromium's flags on a machine without network or screen. Every host but :data:`HOST`
#: resolves to nothing, so a page cannot load from another host whether or not the machine is
#: online (:class:`Opened` records each such request).
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    f"--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE {HOST}",
]


def study_pages(html: Path) -> list[str]:
    """Every page of ``book/studies`` (the studies and the template)."""
    return sorted(p.relative_to(html).as_posix() for p in (html / "book/studies").glob("*.html"))


def _snapshot(folder: Path) -> dict[str, int]:
    return {p.name: p.stat().st_mtime_ns for p in folder.glob("*")} if folder.is_dir() else {}


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
    under pytest-xdist, by every worker (in the run's common temporary folder; its build starts
    with the run: ``tests/conftest.py``)."""
    return smoke.build(smoke.folder(tmp_path_factory))


def executed(smoke_book: Path) -> Path:
    """The folder of the smoke book's executed notebooks."""
    return smoke_book.parents[1] / "book" / "studies"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="session")
def book_html(request: pytest.FixtureRequest) -> Path:
    """The HTML folder under test: ``$PRUNEAUDIT_BOOK_HTML`` if set, else the smoke build."""
    given = os.environ.get("PRUNEAUDIT_BOOK_HTML")
    if given:
        path = Path(given).resolve()
        assert (path / "index.html").is_file(), f"$PRUNEAUDIT_BOOK_HTML: no index.html in {path}"
        return path
    return request.getfixturevalue("smoke_book")


@pytest.fixture(scope="session")
def server(book_html: Path) -> Iterator[str]:
    """The built HTML served on :data:`HOST` at a free port."""
    handler = functools.partial(_Quiet, directory=str(book_html))
    httpd = http.server.ThreadingHTTPServer((HOST, 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://{HOST}:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="session")
def browser(tmp_path_factory: pytest.TempPathFactory):
    """A headless Chromium (the one ``tests/browsers.py`` finds; the test fails naming how to
    install one when there is none), as one browser context with a profile folder of its own per
    test process: its pages share the HTTP and compiled-script caches, so the scripts every page
    loads (theme, Vega, MathJax) are compiled once and a page opens about a third faster than in
    a fresh context. Pages get their viewport before they load (:class:`Opened`)."""
    from browsers import HOW, find_chromium
    from playwright.sync_api import sync_playwright

    found = find_chromium()
    if found is None:
        pytest.fail(HOW)
    profile = tmp_path_factory.mktemp("chromium_profile")
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(profile), executable_path=str(found), headless=True, args=ARGS
        )
        yield context
        context.close()


def wait_for_charts(page) -> None:
    """Wait until every chart of ``page`` is drawn (or has failed in place)."""
    page.wait_for_function(
        "[...document.querySelectorAll('.pruneaudit-chart')].every("
        "d => d.querySelector('svg, canvas') || d.textContent.trim())",
        timeout=15_000,
    )


class Opened:
    """A page opened at a viewport that records its console errors and its requests to other
    hosts (which fail: :data:`ARGS`). The requests are watched, not intercepted: routing each
    of a page's 30-40 requests through Playwright took a fifth of the page checks' time."""

    def __init__(self, browser, server: str, viewport: tuple[int, int]) -> None:
        self.errors: list[str] = []
        self.foreign: list[str] = []
        self.page = browser.new_page()
        self.page.set_viewport_size({"width": viewport[0], "height": viewport[1]})
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda exc: self.errors.append(f"page error: {exc}"))
        self.page.on("request", self._request)
        self.server = server

    def _console(self, message) -> None:
        if message.type == "error":
            self.errors.append(message.text)

    def _request(self, request) -> None:
        url = request.url
        if not url.startswith("data:") and urlparse(url).hostname != HOST:
            self.foreign.append(url)

    def open(self, path: str) -> Opened:
        """Go to ``path`` (through the front page's redirect, ``index.html``: until a page with
        a ``main`` has loaded) and wait until its charts are drawn (:func:`wait_for_charts`)."""
        self.page.goto(f"{self.server}/{path}", wait_until="load")
        self.page.wait_for_selector("main", state="attached", timeout=15_000)
        self.page.wait_for_load_state("load")
        wait_for_charts(self.page)
        return self

    def close(self) -> None:
        self.page.close()


@pytest.fixture(scope="session")
def shown(browser, server: str) -> Iterator:
    """``shown(path, viewport)``: the page at ``path`` opened once per viewport and test process,
    its charts drawn, for tests that only read it (an :class:`Opened`; tests that drive a page
    open their own). Opening each page once instead of once per test is most of the browser
    tests' time. The page is brought to the front: Chromium throttles the animation frames of a
    page behind others, and a click or a wait on one then took several times as long (the
    legend checks: 33 s instead of 7 s)."""
    opened: dict[tuple[str, tuple[int, int]], Opened] = {}

    def get(path: str, viewport: tuple[int, int]) -> Opened:
        if (path, viewport) not in opened:
            opened[path, viewport] = Opened(browser, server, viewport).open(path)
        else:
            opened[path, viewport].page.bring_to_front()
        return opened[path, viewport]

    yield get
    for page in opened.values():
        page.close()
