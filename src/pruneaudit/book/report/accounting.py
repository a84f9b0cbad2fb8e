"""Write the book's page *Every claim accounted for* (``book/accounting.md``) from the package's
accounting (:mod:`pruneaudit.audit.accounting`) and the studies' declared claims.

Usage::

    pruneaudit accounting [--check]
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from pruneaudit.audit import accounting as A
from pruneaudit.audit.claims import NOT_COMPARABLE, NOT_TESTABLE, Claim
from pruneaudit.book.paths import BOOK
from pruneaudit.charts import format as fmt
from pruneaudit.errors import PruneAuditError

PAGE = BOOK / "accounting.md"
PAPERS = {"P": "Paganini, *Prune Responsibly* (P)",
          "H1": "Hooker et al., *What do compressed deep neural networks forget?* (H1)",
          "H2": "Hooker et al., *Characterising bias in compressed models* (H2)"}
#: How the answer counts the statuses, by their first words.
TALLY = (("tested: the paper's quantity", "tested as the paper's own quantity"),
         ("tested as an analogue", "tested as an analogue (direction only)"),
         ("not comparable", "shown but not comparable"),
         ("not testable", "not testable on our data"),
         (A.NOT_YET, "not tested yet"),
         ("our own question", "answered only by a question of our own beside them"))
OFFLINE = ("Most claims that cannot be tested here need images that are not available "
           "offline (ImageNet, CIFAR-10, CelebA: of CelebA only the attributes are); the tables "
           "give each one's reason")


def _cell(text: object) -> str:
    """Text for a table cell: numbers and minus signs as the book writes them, pipes escaped."""
    return fmt.clean_text(str(text)).replace("|", "\\|")


def _rows_cell(cell: str, see: str, declared: dict[str, Claim]) -> str:
    shown = [f"{i} ({declared[i].comparability})" for i in A.ids(cell) if i in declared]
    near = A.ids(see)
    return "; ".join(shown) + (("; " if shown else "") + "near: " + ", ".join(near)
                               if near else "") or "none"


def _reason(entry: object, declared: dict[str, Claim]) -> str:
    if entry.reason.strip():
        return entry.reason
    whys = [f"{i}: {declared[i].why}" for i in A.ids(entry.rows) if i in declared
            and declared[i].comparability in (NOT_TESTABLE, NOT_COMPARABLE)]
    return "; ".join(whys)


def claims_table(table: pd.DataFrame, declared: dict[str, Claim]) -> str:
    """The entries of one paper that are claims (not context), as a Markdown table."""
    lines = ["| claim | the paper says | where | rows in this book (kind) | status | why, or "
             "what it would take |", "|---|---|---|---|---|---|"]
    for entry in table.itertuples(index=False):
        cells = [entry.entry, entry.statement, entry.source,
                 _rows_cell(entry.rows, entry.see, declared), A.status_of(entry, declared),
                 _reason(entry, declared)]
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(lines)


def printed_table(covered: pd.DataFrame) -> str:
    """The printed numbers grouped by source and entries, as a Markdown table."""
    lines = ["| paper | where | what | numbers | accounted under |", "|---|---|---|---:|---|"]
    for (paper, source, entries), group in covered.groupby(["paper", "source", "entries"],
                                                           sort=False):
        metrics = list(dict.fromkeys(group.metric))
        what = "; ".join(metrics[:4]) + (f"; and {len(metrics) - 4} more" if len(metrics) > 4
                                         else "")
        lines.append("| " + " | ".join(_cell(c) for c in (paper, source, what, str(len(group)),
                                                            entries)) + " |")
    return "\n".join(lines)


def answer(table: pd.DataFrame, declared: dict[str, Claim], printed: int) -> str:
    """The page's first paragraph, in plain words."""
    claims = table[table.status != A.CONTEXT]
    statuses = [A.status_of(e, declared) for e in claims.itertuples(index=False)]
    counts = [(words, sum(s.startswith(key) for s in statuses)) for key, words in TALLY]
    said = ", ".join(f"{n} {words}" for words, n in counts if n)
    direction = claims.entry.str.fullmatch(r"D\d+\.\d+").sum()
    return (
        f"**The three papers make {len(claims)} claims that this book lists**: the "
        f"{direction} directional findings D1.1 to D5.4 and {len(claims) - direction} more "
        f"from their text. Of them: {said}. {OFFLINE}. Every one of "
        f"the {printed:,} numbers the papers print belongs to one of these claims or to the "
        "context listed last (protocols, fit statistics, top-line accuracy)."
    )


def page(claims: Sequence[Claim]) -> str:
    """The page's text; an error lists every problem of the accounting
    (:func:`pruneaudit.audit.accounting.problems`) instead."""
    said = A.problems(claims)
    if said:
        raise PruneAuditError("the accounting is incomplete:\n" + "\n".join(said))
    declared = A.papers_claims(claims)
    table = A.entries()
    covered = A.published_entries()
    parts = ["# Every claim accounted for", "", answer(table, declared, len(covered)), "",
             "Each claim below names the rows of this book's findings tables that test it, "
             "with their kind (*same*: the paper's quantity; *analogue*: carried to our task, "
             "direction only; *beyond*: our own question beside the paper's; *not comparable*, "
             "*not testable*), or says why no row does and what one would take. A claim's "
             "status follows the kinds its rows are declared with.", ""]
    for paper, title in PAPERS.items():
        mine = table[(table.paper == paper) & (table.status != A.CONTEXT)]
        parts += [f"## {title}", "", claims_table(mine, declared), ""]
    context = table[table.status == A.CONTEXT]
    parts += ["## Printed without a claim", "",
              "What the papers print beside their claims: the settings each study's page shows "
              "beside its own, and numbers no sentence of theirs turns into a claim.", "",
              claims_table(context, declared), "",
              ":::{dropdown} Every printed number and the claim it belongs to",
              "The package's copy of the papers' printed numbers (`pruneaudit/audit/data/"
              "published.csv`), grouped by where they are printed; each group's entries come "
              "from `pruneaudit/audit/data/accounting_published.csv`. A test fails when a "
              "number belongs to no entry, or when an entry names a row no study declares.", "",
              printed_table(covered), "", ":::", ""]
    return "\n".join(parts)


def write_page(check: bool = False) -> int:
    """``pruneaudit accounting``: write the page (or, with ``check``, compare it); the exit
    status, 1 where the committed one differs."""
    from pruneaudit.studies.claims_log import all_claims

    text = page(all_claims())
    if check:
        stale = not PAGE.is_file() or PAGE.read_text() != text
        print(f"{PAGE} is out of date: run pruneaudit accounting" if stale else "up to date")
        return 1 if stale else 0
    PAGE.write_text(text)
    print(f"wrote {PAGE}")
    return 0
