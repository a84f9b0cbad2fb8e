"""Every claim of the three papers accounted for: the rows of this book that test it, or why none.

Two tables of the package's data, written by hand from the papers' text:

- ``data/accounting.csv``, one *entry* per claim: the directional findings D1.1-D5.4, the
  claims the papers make in their text beside them, and the *context* the papers print without
  a claim (protocols, fit statistics). Columns: ``entry, paper, statement, source, rows, see,
  status, reason``. ``rows``: the ids of the rows (declared claims,
  :mod:`pruneaudit.audit.claims`) that test it, ``; ``-separated; ``see``: rows near it that do
  not test it. An entry without rows states its ``status`` (:data:`STATUSES`) and ``reason``:
  what it would take, or why our data cannot show it. An entry with rows takes its status from
  their declared kinds (:func:`status_of`), so a row moved from ``same`` to ``analogue`` moves
  its entry.
- ``data/accounting_published.csv``: which entries each printed number of the package's copy
  of the papers' table (:func:`pruneaudit.audit.published.published`) belongs to, by
  ``source`` and ``metric`` (regular expressions, matched whole).

:func:`problems` names every id an entry cites that no study declares (so that a renamed or
merged row is fixed here), every declared row no entry cites, every printed number no rule
covers and every rule that covers none. The book's page *Every claim accounted for*
(``book/accounting.md``) shows the tables (:mod:`pruneaudit.book.report.accounting`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import cache
from importlib import resources

import pandas as pd

from pruneaudit.audit.claims import (
    ANALOGUE,
    BEYOND,
    NOT_COMPARABLE,
    NOT_TESTABLE,
    SAME,
    Claim,
)
from pruneaudit.audit.published import published

#: Columns of ``data/accounting.csv`` and of ``data/accounting_published.csv``.
COLUMNS = ("entry", "paper", "statement", "source", "rows", "see", "status", "reason")
RULE_COLUMNS = ("source", "metric", "entries")
#: The status of an entry without rows.
NOT_YET, UNTESTABLE, CONTEXT = "not tested yet", "not testable", "context"
STATUSES = (NOT_YET, UNTESTABLE, CONTEXT)
#: The status an entry takes from its rows' kinds, the first kind present deciding.
KIND_STATUS = (
    (SAME, "tested: the paper's quantity"),
    (ANALOGUE, "tested as an analogue (direction only)"),
    (NOT_COMPARABLE, "not comparable (shown, not judged against the paper)"),
    (NOT_TESTABLE, "not testable here"),
    (BEYOND, "our own question beside it only"),
)
#: Studies whose claims are not the papers' (the notebook template).
NOT_PAPERS = ("00_template",)


def _read(name: str) -> pd.DataFrame:
    with resources.files("pruneaudit.audit").joinpath(f"data/{name}").open() as f:
        return pd.read_csv(f, dtype=str, keep_default_na=False)


@cache
def _entries() -> pd.DataFrame:
    return _read("accounting.csv")


@cache
def _rules() -> pd.DataFrame:
    return _read("accounting_published.csv")


def entries() -> pd.DataFrame:
    """The accounting's entries (:data:`COLUMNS`): a copy."""
    return _entries().copy()


def rules() -> pd.DataFrame:
    """The rules that give each printed number its entries (:data:`RULE_COLUMNS`): a copy."""
    return _rules().copy()


def ids(cell: str) -> list[str]:
    """The row ids of a ``rows`` or ``see`` cell (``"D1.4; D1.4 rewind"``)."""
    return [part.strip() for part in cell.split(";") if part.strip()]


def papers_claims(claims: Iterable[Claim]) -> dict[str, Claim]:
    """The declared claims of the papers' studies by id (the template's left out)."""
    return {c.id: c for c in claims if c.study not in NOT_PAPERS}


def status_of(entry: pd.Series | object, declared: dict[str, Claim]) -> str:
    """An entry's status: from its rows' declared kinds (:data:`KIND_STATUS`), ``; our own
    question beside it`` added where a ``beyond`` row stands beside a paper's; else its own."""
    kinds = {declared[i].comparability for i in ids(entry.rows) if i in declared}
    if not kinds:
        return entry.status
    first = next(words for kind, words in KIND_STATUS if kind in kinds)
    beside = BEYOND in kinds and not kinds <= {BEYOND}
    return first + ("; our own question beside it" if beside else "")


def matches(rule: pd.Series | object, source: str, metric: str) -> bool:
    """Whether ``rule`` covers a printed number of ``source`` and ``metric``."""
    return bool(re.fullmatch(rule.source, source) and re.fullmatch(rule.metric, metric))


def published_entries(table: pd.DataFrame | None = None,
                      rule_table: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per printed number (the package's published table, or ``table``): its ``id``, ``paper``,
    ``source``, ``metric`` and the ``entries`` of every rule that covers it (``; ``-separated,
    empty when none does)."""
    table = published() if table is None else table
    rule_table = rules() if rule_table is None else rule_table
    found = []
    for row in table.itertuples(index=False):
        names = [e for r in rule_table.itertuples(index=False)
                 if matches(r, row.source, row.metric) for e in ids(r.entries)]
        found.append("; ".join(dict.fromkeys(names)))
    out = table[["id", "paper", "source", "metric"]].copy()
    out["entries"] = found
    return out


def _row_problems(table: pd.DataFrame, claims: Sequence[Claim]) -> list[str]:
    declared = papers_claims(claims)
    by_study: dict[str, list[str]] = {}
    for claim in declared.values():
        by_study.setdefault(claim.study, []).append(claim.id)
    said = []
    for entry in table.itertuples(index=False):
        for column in ("rows", "see"):
            for ident in ids(getattr(entry, column)):
                if ident in declared:
                    continue
                prefix = ident.split()[0].split(".")[0]
                near = [i for s in by_study.values() for i in s if i.split(".")[0] == prefix]
                said.append(f"accounting entry {entry.entry!r} names row {ident!r} ({column}), "
                            f"which no study declares; the rows {prefix}.* declared now: "
                            f"{', '.join(near) or 'none'}. Fix data/accounting.csv")
        if not ids(entry.rows) and entry.status not in STATUSES:
            said.append(f"accounting entry {entry.entry!r} has no rows: its status must be one "
                        f"of {STATUSES}, not {entry.status!r}")
        if not ids(entry.rows) and not entry.reason.strip():
            said.append(f"accounting entry {entry.entry!r} has no rows: say why (reason)")
    cited = {i for cell in table.rows for i in ids(cell)}
    said += [f"row {c.id!r} of {c.study} is in no accounting entry's rows: add it to the entry "
             "of the paper's claim it tests" for c in declared.values() if c.id not in cited]
    return said


def problems(claims: Sequence[Claim], table: pd.DataFrame | None = None,
             rule_table: pd.DataFrame | None = None,
             printed: pd.DataFrame | None = None) -> list[str]:
    """Everything wrong with the accounting against the declared ``claims`` (module doc), one
    line each naming what to fix; empty when it is complete. ``table``, ``rule_table`` and
    ``printed``: the entries, rules and published table (default: the package's)."""
    table = entries() if table is None else table
    rule_table = rules() if rule_table is None else rule_table
    said = _row_problems(table, claims)
    known = set(table.entry)
    said += [f"accounting entry {e!r} is listed twice" for e in
             table.entry[table.entry.duplicated()]]
    for rule in rule_table.itertuples(index=False):
        said += [f"published rule {rule.source!r} / {rule.metric!r} names entry {e!r}, which "
                 "data/accounting.csv does not hold" for e in ids(rule.entries) if e not in known]
    covered = published_entries(printed, rule_table)
    said += [f"published number {r.id} ({r.source}: {r.metric}) is in no accounting entry: add "
             "a rule to data/accounting_published.csv" for r in
             covered[covered.entries == ""].itertuples(index=False)]
    table_printed = published() if printed is None else printed
    for rule in rule_table.itertuples(index=False):
        if not any(matches(rule, s, m) for s, m in zip(table_printed.source,
                                                        table_printed.metric, strict=True)):
            said.append(f"published rule {rule.source!r} / {rule.metric!r} covers no printed "
                        "number")
    return said


__all__ = [
    "COLUMNS", "CONTEXT", "KIND_STATUS", "NOT_PAPERS", "NOT_YET", "RULE_COLUMNS", "STATUSES",
    "UNTESTABLE", "entries", "ids", "matches", "papers_claims", "problems", "published_entries",
    "rules", "status_of",
]
