"""How a built book reads, page by page, in Chromium at 1400x900 and 390x844.

    python benchmarks/page_reading.py HTML_DIR --out FILE.md

For the front page and each study page of the book in ``HTML_DIR`` (``_build/html``) it writes a
Markdown table: the page's height in screens at each size, its sentences over 30 words and its
distinct verdict words (the tests' own prose reader, ``tests/book/prose.py``), where its answer
box ends and where its first example image starts (px from the top, at 1400x900), and the
front page's first screen as text. The figures are measured, never typed: rerun it on a new
build.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "book"))

import prose  # noqa: E402  (the tests' prose reader: one definition of a sentence)
from browsers import find_chromium  # noqa: E402

#: The built pages' folder inside the HTML output.
SITE = "book"
SIZES = {"desktop": (1400, 900), "phone": (390, 844)}
#: Where the answer box ends and the first example image (a gallery's img) starts.
LAYOUT = """() => {
  const top = el => el ? Math.round(el.getBoundingClientRect().top + window.scrollY) : null;
  const box = document.querySelector('main .pa-answer');
  const end = box ? Math.round(box.getBoundingClientRect().bottom + window.scrollY) : null;
  const img = document.querySelector('main img:not(.logo__image)');
  return {height: document.documentElement.scrollHeight, answer_end: end, first_image: top(img),
          first_screen: document.querySelector('main').innerText};
}"""


def pages(html: Path) -> list[Path]:
    """The front page, then each study page (the template's last)."""
    site = html / SITE  # the HTML book's folder of pages (read only)
    studies = sorted((site / "studies").glob("[0-9][0-9]_*.html"))
    return [site / "intro.html", *[p for p in studies if not p.name.startswith("00")],
            *[p for p in studies if p.name.startswith("00")]]


def measure(html: Path) -> tuple[list[dict], str]:
    """Each page's figures, and the front page's first screen as text."""
    from playwright.sync_api import sync_playwright

    rows, first = [], ""
    with sync_playwright() as play:
        browser = play.chromium.launch(executable_path=str(find_chromium()))
        for path in pages(html):
            text = path.read_text()
            row = {"page": path.stem, "long": len(prose.long_sentences(text)),
                   "verdicts": len({w for w, _ in prose.verdict_chips(text)})}
            for size, (width, height) in SIZES.items():
                page = browser.new_page(viewport={"width": width, "height": height})
                page.goto(path.as_uri(), wait_until="load")
                page.wait_for_timeout(1500)  # the charts draw
                got = page.evaluate(LAYOUT)
                row[f"screens_{size}"] = got["height"] / height
                if size == "desktop":
                    row["answer_end"], row["first_image"] = got["answer_end"], got["first_image"]
                    if path.stem == "intro":
                        first = _first_screen(page, height)
                page.close()
            rows.append(row)
        browser.close()
    return rows, first


def _first_screen(page, height: int) -> str:
    """The text of the front page's elements that start within its first screen."""
    return page.evaluate("""(h) => Array.from(document.querySelectorAll(
        'main h1, main p, main li, main figcaption, main .pa-strip-title'))
        .filter(e => e.getBoundingClientRect().top < h && e.innerText.trim())
        .map(e => e.innerText.trim()).join(' / ')""", height)


def table(rows: list[dict], first: str) -> str:
    lines = ["| page | screens 1400x900 | screens 390x844 | sentences > 30 words | "
             "verdict words | answer box ends (px) | first image (px) |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['page']} | {r['screens_desktop']:.1f} | {r['screens_phone']:.1f} | "
                     f"{r['long']} | {r['verdicts']} | {r['answer_end'] or '—'} | "
                     f"{r['first_image'] or '—'} |")
    return ("\n".join(lines) + "\n\nThe front page's first screen (1400x900), as text:\n\n"
            f"> {first}\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("html", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--title", default="")
    args = parser.parse_args()
    rows, first = measure(args.html)
    text = table(rows, first)
    args.out.write_text((f"# {args.title}\n\n" if args.title else "") + text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
