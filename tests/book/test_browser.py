"""The built book in headless Chromium: charts render offline, sliders move selections.

Uses Debian's ``/usr/bin/chromium`` (``make browser`` installs it); Playwright downloads nothing.
Screenshots of every study page go to ``<build>/_build/screenshots/``.
"""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse

import pytest

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
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
SELECTED = ".selected_marks path"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def server(smoke_book: Path) -> Iterator[str]:
    """The built HTML served on 127.0.0.1 at a free port."""
    handler = functools.partial(_Quiet, directory=str(smoke_book))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: run `make browser` (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=ARGS)
        yield chromium
        chromium.close()


class PageLog:
    """A page that records console errors and refuses (and records) requests to other hosts."""

    def __init__(self, browser, base: str) -> None:
        self.errors: list[str] = []
        self.foreign: list[str] = []
        self.page = browser.new_page(viewport={"width": 1280, "height": 1000})
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda exc: self.errors.append(f"page error: {exc}"))
        self.page.route("**/*", self._route)
        self.base = base

    def _console(self, message) -> None:
        if message.type == "error":
            self.errors.append(message.text)

    def _route(self, route) -> None:
        url = route.request.url
        host = urlparse(url).hostname
        if url.startswith("data:") or host == "127.0.0.1":
            route.continue_()
        else:
            self.foreign.append(url)
            route.abort()

    def open(self, path: str) -> None:
        self.page.goto(f"{self.base}/{path}", wait_until="networkidle")

    def close(self) -> None:
        self.page.close()


def rendered_charts(page) -> int:
    """Number of chart divs that hold a drawn Vega view (svg or canvas)."""
    page.wait_for_function(
        "document.querySelectorAll('.pruneaudit-chart').length === 0 || "
        "[...document.querySelectorAll('.pruneaudit-chart')].some("
        "d => d.querySelector('svg.marks, canvas.marks'))",
        timeout=15_000,
    )
    return page.locator(".pruneaudit-chart").filter(has=page.locator("svg, canvas")).count()


def selected_marks(page) -> list[str]:
    """Positions of the marks in each chart's ``selected`` layer (see pruneaudit.charts)."""
    return page.eval_on_selector_all(
        SELECTED, "els => els.map(e => e.getAttribute('transform') || e.getAttribute('d'))"
    )


def move_slider(page, index: int = 0, fraction: float = 0.75) -> None:
    """Set the ``index``-th Vega range input to ``fraction`` of its range, as a user would."""
    slider = page.locator(".vega-bindings input[type=range]").nth(index)
    slider.evaluate(
        """(el, f) => {
            const lo = +el.min, hi = +el.max;
            el.value = String(lo + f * (hi - lo));
            el.dispatchEvent(new Event('input', {bubbles: true}));
            el.dispatchEvent(new Event('change', {bubbles: true}));
        }""",
        fraction,
    )
    page.wait_for_timeout(300)


def check_slider_moves_selection(page, index: int = 0) -> None:
    """Moving the slider changes the selected point(s); moving it back restores them."""
    move_slider(page, index, 0.0)
    before = selected_marks(page)
    move_slider(page, index, 1.0)
    after = selected_marks(page)
    assert before and after, "no marks in a 'selected' layer"
    assert before != after, "moving the slider did not move the selected point"
    move_slider(page, index, 0.0)
    assert selected_marks(page) == before


def study_pages(html: Path) -> list[str]:
    return sorted(p.relative_to(html).as_posix() for p in (html / "book/studies").glob("*.html"))


def test_pages_render_offline(browser, server: str, smoke_book: Path) -> None:  # noqa: F811
    shots = smoke_book.parent / "screenshots"
    shots.mkdir(exist_ok=True)
    pages = ["index.html", "book/reproducing.html", *study_pages(smoke_book)]
    assert any(p.startswith("book/studies/") for p in pages)
    for path in pages:
        log = PageLog(browser, server)
        try:
            log.open(path)
            charts = rendered_charts(log.page)
            if path.startswith("book/studies/"):
                assert charts >= 1, f"{path}: no Vega chart rendered"
            log.page.screenshot(path=str(shots / f"{Path(path).stem}.png"), full_page=True)
            assert not log.errors, f"{path}: console errors {log.errors}"
            assert not log.foreign, f"{path}: requests to other hosts {log.foreign}"
        finally:
            log.close()


def test_mathjax_renders_locally(browser, server: str, smoke_book: Path) -> None:  # noqa: F811
    log = PageLog(browser, server)
    try:
        log.open("book/studies/00_template.html")
        log.page.wait_for_selector("mjx-container", timeout=15_000)
        assert not log.foreign and not log.errors
    finally:
        log.close()


@pytest.mark.parametrize("page_name", ["00_template", "03_pareto_selection"])
def test_slider_moves_selected_point(
    browser,
    server: str,
    smoke_book: Path,  # noqa: F811
    page_name: str,
) -> None:
    path = f"book/studies/{page_name}.html"
    if not (smoke_book / path).exists():
        pytest.skip(f"{path} is not in the book yet")
    log = PageLog(browser, server)
    try:
        log.open(path)
        assert rendered_charts(log.page) >= 1
        index = 0
        if page_name == "03_pareto_selection":
            index = log.page.locator(".vega-bindings input[type=range]").evaluate_all(
                "els => els.findIndex(e => e.closest('.vega-bindings')"
                ".textContent.includes('fairness weight'))"
            )
            assert index >= 0, "no fairness-weight slider on the Pareto page"
        check_slider_moves_selection(log.page, index)
        assert not log.errors and not log.foreign
    finally:
        log.close()
