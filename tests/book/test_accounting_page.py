"""The page *Every claim accounted for* (``pruneaudit accounting``): the committed
page is what the accounting and the declared claims give, and it answers first in words."""

from __future__ import annotations

from pathlib import Path

import pytest

from pruneaudit import cli
from pruneaudit.audit import accounting as A
from pruneaudit.book.report import accounting
from pruneaudit.errors import PruneAuditError
from pruneaudit.studies.claims_log import all_claims

REPO = Path(__file__).resolve().parents[2]


def test_committed_page_is_what_the_accounting_gives(capsys) -> None:
    assert cli.main(["accounting", "--check"]) == 0, capsys.readouterr().out
    assert "book/accounting" in (REPO / "_toc.yml").read_text()


def test_page_answers_first_and_lists_every_claim() -> None:
    claims = all_claims()
    text = accounting.page(claims)
    first = text.split("\n\n")[1]
    entries = A.entries()
    claimed = entries[entries.status != A.CONTEXT]
    assert first.startswith(f"**The three papers make {len(claimed)} claims")
    assert f"the {len(A.published()):,} numbers the papers print" in first
    for entry in entries.entry:
        assert f"\n| {entry} |" in text, entry
    assert "| H2 false negatives |" in text and "near: D4.9 | not testable |" in text


def test_an_incomplete_accounting_writes_no_page() -> None:
    claims = [c for c in all_claims() if c.id != "D4.7"]  # a row the accounting cites
    with pytest.raises(PruneAuditError, match="names row 'D4.7'"):
        accounting.page(claims)
