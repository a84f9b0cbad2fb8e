"""Screenshots of the study pages of a built book at a desktop and a phone width.

Serves the HTML folder on 127.0.0.1, opens each page in headless Chromium (the one
``tests/browsers.py`` finds), refuses requests to other hosts, and saves
``docs/screenshots/<label>-<page>-<width>.png``: the page's findings table (``--region
findings``, the default), the first screen a reader meets (``--region screen``: the top
900 px) or the whole page (``--region page``)::

    python docs/screenshots.py _build/html --label after
    python docs/screenshots.py _build/html --label after-screen --region screen
    python docs/screenshots.py /tmp/old/_build/html --label before --pages 04_compression_impact
    python docs/screenshots.py _build/html --label after --pages front --region screen
"""

from __future__ import annotations

import argparse
import functools
import http.server
import threading
from pathlib import Path
from urllib.parse import urlparse

from pruneaudit.book.paths import study_notebooks

OUT = Path(__file__).resolve().parent / "screenshots"
#: The study pages: one per study notebook in nbs/.
PAGES = study_notebooks()
WIDTHS = (1400, 390)
#: The height of the screen (the browser test's first screen).
HEIGHT = 900
#: The findings region: the cell that shows the findings table (the new class or the old
#: Styler's caption "Findings...").
FINDINGS = (
    "() => { const t = document.querySelector('table.pa-findings-table') || "
    "[...document.querySelectorAll('table')].find(t => /^Findings/.test("
    "(t.querySelector('caption') || {}).textContent || '')); "
    "return t ? t.closest('.cell_output') || t : null; }"
)


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


def _path(name: str) -> str:
    """A page's path in the book: ``front`` is the front page, a study notebook its study page,
    any other name a page of ``book/`` (``appendix_benchmarks``)."""
    if name == "front":
        return "index.html"
    return f"book/studies/{name}.html" if name in PAGES else f"book/{name}.html"


def screenshots(
    html: Path,
    label: str,
    pages: tuple[str, ...] = PAGES,
    out: Path = OUT,
    widths: tuple[int, ...] = WIDTHS,
    region: str = "findings",
) -> list[Path]:
    """Save one PNG per study page and width of the book in ``html`` (``region``: ``findings``,
    ``screen`` or ``page``); return their paths."""
    import sys

    from playwright.sync_api import sync_playwright

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from browsers import HOW, find_chromium

    chromium = find_chromium()
    if chromium is None:
        raise SystemExit(HOW)

    out.mkdir(parents=True, exist_ok=True)
    handler = functools.partial(_Quiet, directory=str(html))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}"
    saved = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=str(chromium), headless=True, args=["--no-sandbox"]
            )
            for name in pages:
                if not (html / _path(name)).is_file():
                    continue
                for width in widths:
                    page = browser.new_page(viewport={"width": width, "height": HEIGHT})
                    page.route(
                        "**/*",
                        lambda route: route.continue_()
                        if urlparse(route.request.url).hostname in ("127.0.0.1", None)
                        else route.abort(),
                    )
                    page.goto(f"{base}/{_path(name)}", wait_until="networkidle")
                    page.wait_for_timeout(1500)  # charts draw after load
                    target = out / f"{label}-{name}-{width}.png"
                    element = page.evaluate_handle(FINDINGS).as_element()
                    if region == "findings" and element is not None:
                        element.screenshot(path=str(target))
                    else:
                        page.screenshot(path=str(target), full_page=region != "screen")
                    _shrink(target)
                    saved.append(target)
                    page.close()
            browser.close()
    finally:
        httpd.shutdown()
        httpd.server_close()
    return saved


def _shrink(path: Path) -> None:
    """Re-save as a 256-colour PNG (a page is mostly flat colour): about a third of the size."""
    import PIL.Image

    with PIL.Image.open(path) as image:
        small = image.convert("RGB").quantize(colors=256, method=PIL.Image.Quantize.MEDIANCUT)
    small.save(path, optimize=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("html", type=Path, help="the book's HTML folder (<build>/_build/html)")
    parser.add_argument("--label", required=True, help="before or after")
    parser.add_argument("--pages", nargs="+", default=list(PAGES))
    parser.add_argument("--widths", nargs="+", type=int, default=list(WIDTHS))
    parser.add_argument("--region", choices=("findings", "screen", "page"), default="findings")
    args = parser.parse_args()
    shots = screenshots(
        args.html, args.label, tuple(args.pages), widths=tuple(args.widths), region=args.region
    )
    for path in shots:
        print(path)


if __name__ == "__main__":
    main()
