"""Write the book's Benchmarks appendix (``book/appendix_benchmarks.md``) from the reports in
``benchmarks/out/*.md``, each under its own heading, its headings two levels down.

The book shows the benchmarks' reports; the package reads none of them. Run this after a
benchmark writes a report (``make bench`` does); ``tests/test_benchmarks_appendix.py`` fails
while the committed page differs from what this writes.

Usage::

    python benchmarks/appendix.py [--check]
"""

from __future__ import annotations

import argparse
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
PAGE = HERE.parent / "book" / "appendix_benchmarks.md"
HEAD = """# Benchmarks

Measurements of the package (training, population training, evaluation, replications of the
studies, the stability of their verdicts), written by the scripts in `benchmarks/` to
`benchmarks/out/` and gathered here by `benchmarks/appendix.py`. Each says where and how it was
measured.
"""


def page(reports: Path = OUT) -> str:
    """The appendix: :data:`HEAD`, then each report of ``reports`` under its file's name."""
    parts = [HEAD]
    for report in sorted(reports.glob("*.md")):
        lines = ["##" + x if x.startswith("#") else x for x in report.read_text().splitlines()]
        parts.append(f"## {report.stem}\n\nFrom `benchmarks/out/{report.name}`.\n\n"
                     + "\n".join(lines).strip())
    if len(parts) == 1:
        parts.append("No benchmark reports yet: `make bench` writes them to `benchmarks/out/`.")
    return "\n\n".join(parts) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="exit 1 when the committed page is not what this writes")
    args = parser.parse_args(argv)
    text = page()
    if args.check:
        same = PAGE.is_file() and PAGE.read_text() == text
        print("up to date" if same else f"{PAGE} is out of date: run python benchmarks/appendix.py")
        return 0 if same else 1
    PAGE.write_text(text)
    print(f"wrote {PAGE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
