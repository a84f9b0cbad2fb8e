"""The accounting of the papers' claims (:mod:`pruneaudit.audit.accounting`): every row id it
names is declared by a study, every declared row and every printed number is in an entry, and an
entry takes its status from its rows' declared kinds."""

from __future__ import annotations

import pandas as pd
import pytest

from pruneaudit.audit import accounting as A
from pruneaudit.audit.claims import Claim
from pruneaudit.studies.claims_log import all_claims


@pytest.fixture(scope="module")
def declared() -> list[Claim]:
    return all_claims()


def test_every_row_the_accounting_names_is_declared(declared) -> None:
    """Fails, naming the id and the rows declared beside it, when a row is renamed or merged
    (e.g. D4.4 into D4.1): fix ``data/accounting.csv``."""
    missing = [p for p in A.problems(declared) if "which no study declares" in p]
    assert not missing, "\n".join(missing)


def test_every_declared_row_and_printed_number_is_accounted_for(declared) -> None:
    said = A.problems(declared)
    assert not said, "\n".join(said)
    covered = A.published_entries()
    assert (covered.entries != "").all()
    # each paper's directional findings are entries (P: Studies 1-3, H1/H2: 4-5)
    keys = set(A.entries().entry)
    assert {f"D{s}.{n}" for s, n in [(1, 1), (2, 6), (3, 3), (4, 11), (5, 4)]} <= keys


def test_the_claims_of_the_papers_text_are_accounted_with_their_reason() -> None:
    table = A.entries().set_index("entry")
    expected = {
        "H2 false negatives": A.UNTESTABLE, "P linear fit": A.NOT_YET,
    }
    for entry, status in expected.items():
        row = table.loc[entry]
        assert (row.status, row.rows) == (status, ""), entry
        assert len(row.reason) > 80 and A.ids(row.see), entry  # what it would take, and near
    # the claims once listed as not tested yet are rows of their own now
    for entry in ("D1.6", "D4.12", "D4.13", "D4.14"):
        assert (table.loc[entry].status, table.loc[entry].rows) == ("", entry), entry


def _claim(ident: str, kind: str, study: str = "04_x") -> Claim:
    claim = Claim(ident, ident, says="s", source="H1", quantity="q", comparability=kind,
                  why="w", side=1, smallest=0.1)
    return Claim(**{**claim.__dict__, "study": study})


def _entries(*rows: tuple[str, str, str, str]) -> pd.DataFrame:
    return pd.DataFrame([{"entry": e, "paper": "H1", "statement": "s", "source": "H1",
                          "rows": r, "see": see, "status": status, "reason": "why"}
                         for e, r, see, status in rows], columns=list(A.COLUMNS))


def test_a_merged_row_is_named_with_the_rows_declared_beside_it() -> None:
    claims = [_claim("D4.1", "analogue"), _claim("T1", "beyond", "00_template")]
    table = _entries(("D4.1", "D4.1", "", ""), ("D4.4", "D4.4", "", ""),
                     ("text", "", "D4.9", A.NOT_YET))
    rule = pd.DataFrame([{"source": "H1;.*", "metric": ".*", "entries": "D4.1"}])
    printed = pd.DataFrame([{"id": 1, "paper": "H1", "source": "H1; Table 2",
                             "metric": "count PIEs"}])
    said = A.problems(claims, table, rule, printed)
    assert said == [
        "accounting entry 'D4.4' names row 'D4.4' (rows), which no study declares; the rows "
        "D4.* declared now: D4.1. Fix data/accounting.csv",
        "accounting entry 'text' names row 'D4.9' (see), which no study declares; the rows "
        "D4.* declared now: D4.1. Fix data/accounting.csv",
    ]  # the template's T1 is not a paper's row: no entry needs it


def test_uncovered_numbers_unused_rules_and_unlisted_rows_are_named() -> None:
    claims = [_claim("D4.1", "analogue"), _claim("D4.2", "same")]
    table = _entries(("D4.1", "D4.1", "", ""), ("ctx", "", "", "maybe"))
    rules = pd.DataFrame([{"source": "H1; Table 2", "metric": "count PIEs", "entries": "D4.1"},
                          {"source": "H2;.*", "metric": ".*", "entries": "gone"}])
    printed = pd.DataFrame([{"id": 1, "paper": "H1", "source": "H1; Table 2",
                             "metric": "count PIEs"},
                            {"id": 2, "paper": "H1", "source": "H1; Table 2",
                             "metric": "top-1 (%)"}])
    said = "\n".join(A.problems(claims, table, rules, printed))
    assert "'ctx' has no rows: its status must be one of" in said
    assert "row 'D4.2' of 04_x is in no accounting entry's rows" in said
    assert "names entry 'gone', which data/accounting.csv does not hold" in said
    assert "published number 2 (H1; Table 2: top-1 (%)) is in no accounting entry" in said
    assert "'H2;.*' / '.*' covers no printed number" in said
    assert "number 1 " not in said


def test_an_entry_takes_its_status_from_its_rows_kinds() -> None:
    entry = _entries(("D4.5", "D4.5; D4.5 excess", "", "")).iloc[0]
    analogue = {"D4.5": _claim("D4.5", "analogue"), "D4.5 excess": _claim("D4.5 excess",
                                                                          "beyond")}
    assert A.status_of(entry, analogue) == ("tested as an analogue (direction only); our own "
                                            "question beside it")
    same = {**analogue, "D4.5": _claim("D4.5", "same")}
    assert A.status_of(entry, same).startswith("tested: the paper's quantity")
    untestable = {**analogue, "D4.5": _claim("D4.5", "not testable")}
    assert A.status_of(entry, untestable).startswith("not testable here")
    alone = _entries(("x", "", "", A.CONTEXT)).iloc[0]
    assert A.status_of(alone, same) == A.CONTEXT
