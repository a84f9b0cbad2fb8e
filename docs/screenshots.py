"""Full-page screenshots of study pages of a built book, 1400 px wide (issue 14's before/after).

Serves the HTML folder on 127.0.0.1, opens each page in headless Chromium (Debian's
``/usr/bin/chromium``; ``make browser``), refuses requests to other hosts, and saves
``docs/screenshots/<label>-<page>.png``::

    python docs/screenshots.py _build/html --label after
    python docs/screenshots.py /tmp/main/_build/html --label before --pages 02_qmnist_writers
"""

from __future__ import annotations

import argparse
import functools
import http.server
import threading
from pathlib import Path
from urllib.parse import urlparse

CHROMIUM = Path("/usr/bin/chromium")
OUT = Path(__file__).resolve().parent / "screenshots"
PAGES = ("02_qmnist_writers", "04_compression_impact")
WIDTH = 1400


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


def screenshots(
    html: Path, label: str, pages: tuple[str, ...] = PAGES, out: Path = OUT
) -> list[Path]:
    """Save one full-page PNG per study page of the book in ``html``; return their paths."""
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    handler = functools.partial(_Quiet, directory=str(html))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}"
    saved = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=str(CHROMIUM), headless=True, args=["--no-sandbox"]
            )
            for name in pages:
                page = browser.new_page(viewport={"width": WIDTH, "height": 1000})
                page.route(
                    "**/*",
                    lambda route: route.continue_()
                    if urlparse(route.request.url).hostname in ("127.0.0.1", None)
                    else route.abort(),
                )
                page.goto(f"{base}/book/studies/{name}.html", wait_until="networkidle")
                page.wait_for_timeout(1500)  # charts draw after load
                target = out / f"{label}-{name}.png"
                page.screenshot(path=str(target), full_page=True)
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
    args = parser.parse_args()
    for path in screenshots(args.html, args.label, tuple(args.pages)):
        print(path)


if __name__ == "__main__":
    main()
