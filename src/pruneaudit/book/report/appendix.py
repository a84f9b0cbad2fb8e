"""Write the book's pages made from the benchmarks' reports: the Benchmarks appendix
(``book/appendix_benchmarks.md``: every report of the folder, each under its own heading, its
headings two levels down) and the paper-cost fragment the Reproducing page includes
(``book/_paper_gpu_cost.md``, the folder's ``paper_gpu_cost.md``).

The benchmarks write their reports in their own folder and nothing else; this command reads
that folder (given on the command line) and writes the pages. ``make bench`` runs it after the
benchmarks.

Usage::

    pruneaudit appendix REPORTS [--check]
"""

from __future__ import annotations

from pathlib import Path

from pruneaudit.book.paths import BOOK
from pruneaudit.charts import format as fmt
from pruneaudit.errors import PruneAuditError

#: The appendix page and the paper-cost fragment, in the book.
APPENDIX = BOOK / "appendix_benchmarks.md"
PAPER_COST = BOOK / "_paper_gpu_cost.md"
#: The report the paper-cost fragment copies.
PAPER_COST_REPORT = "paper_gpu_cost.md"
HEAD = """# Benchmarks

Measurements of the package (training, population training, evaluation, replications of the
studies, the stability of their verdicts), written by the scripts in `benchmarks/` to
`benchmarks/out/` and gathered here by `pruneaudit appendix`. Each says where
and how it was measured.

The replication reports below are records of their day: their verdicts are in the words and
under the claims and rules of the day they were made. Since 5 Dec 2026 an interval wholly inside
a row's negligible band reads *negligible* before any direction (it read *absent*, or a side,
before), and rows are judged under the claims' current settings; the study pages and the
pooled page are computed under today's.
"""


def cell_pipes(line: str) -> str:
    """A Markdown table row with each pipe inside a cell escaped (``|activation − mean|`` in a
    finding's name, which ``DataFrame.to_markdown`` writes as it is, would split its row): a
    column's pipe has white space on both sides (``to_markdown``'s `` | ``) or ends the row.
    Any other line, and the header's delimiter row, is returned as it is."""
    if not (line.startswith("|") and line.endswith("|")) or set(line) <= set("|:- "):
        return line
    cells = [
        "\\|" if c == "|" and line[i - 1] != "\\"
        and not (line[i - 1].isspace() and line[i + 1].isspace()) else c
        for i, c in enumerate(line[1:-1], start=1)
    ]
    return "|" + "".join(cells) + "|"


def page(reports: Path) -> str:
    """The appendix: ``HEAD``, then each report of ``reports`` under its file's name, its
    numbers written with a power of ten (older reports' ``1.11 × 10⁻⁴``) in plain decimals
    (:func:`pruneaudit.charts.format.plain_powers`): a reader meets no power of ten, and its
    tables' rows keep their columns (:func:`cell_pipes`)."""
    parts = [HEAD]
    for report in sorted(Path(reports).glob("*.md")):
        text = fmt.plain_powers(report.read_text())
        lines = ["##" + x if x.startswith("#") else cell_pipes(x) for x in text.splitlines()]
        parts.append(f"## {report.stem}\n\nFrom `benchmarks/out/{report.name}`.\n\n"
                     + "\n".join(lines).strip())
    if len(parts) == 1:
        parts.append("No benchmark reports yet: `make bench` writes them to `benchmarks/out/`.")
    return "\n\n".join(parts) + "\n"


def pages(reports: Path) -> dict[Path, str]:
    """Each page this command writes from the folder ``reports``, with its text: the appendix,
    and the paper-cost fragment where the folder holds its report."""
    reports = Path(reports)
    if not reports.is_dir():
        raise PruneAuditError(f"{reports} is not a folder: pass the benchmarks' report folder "
                              "(benchmarks/out)")
    out = {APPENDIX: page(reports)}
    if (reports / PAPER_COST_REPORT).is_file():
        out[PAPER_COST] = (reports / PAPER_COST_REPORT).read_text()
    return out


def write_pages(reports: str | Path, check: bool = False) -> int:
    """``pruneaudit appendix``: write the pages from the report folder ``reports`` (or, with
    ``check``, compare them); the exit status, 1 where a page is out of date."""
    texts = pages(reports)
    if check:
        stale = [p for p, text in texts.items() if not p.is_file() or p.read_text() != text]
        for path in stale:
            print(f"{path} is out of date: run pruneaudit appendix {reports}")
        print("up to date" if not stale else "")
        return 1 if stale else 0
    for path, text in texts.items():
        path.write_text(text)
        print(f"wrote {path}")
    return 0
