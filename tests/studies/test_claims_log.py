"""The claims of every study are declared once, complete, and every change to what a verdict
rests on (quantity, comparability, margin, paper value, headline, settings) is in the
changelog."""

from __future__ import annotations

import pandas as pd
import pytest

from pruneaudit.audit import claims as C
from pruneaudit.book.paths import BOOK
from pruneaudit.errors import PruneAuditError
from pruneaudit.studies import claims_log


def test_every_study_declares_its_claims() -> None:
    studies = {c.study for c in claims_log.all_claims()}
    assert studies == {"00_template", "01_population_ols", "02_qmnist_writers",
                       "03_pareto_selection", "04_compression_impact", "05_robustness"}


def test_every_claim_is_logged_as_it_stands() -> None:
    """A claim changed without a changelog entry is named (the fix: ``python -m
    pruneaudit.studies.claims_log --log REASON --seen yes|no``)."""
    assert C.unlogged(claims_log.all_claims()) == []


def test_headlines_are_the_papers_quantities() -> None:
    for claim in claims_log.all_claims():
        if claim.headline:
            assert claim.comparability in C.HEADLINE_KINDS, claim.id


def test_a_change_without_an_entry_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    claim = next(c for c in claims_log.all_claims() if c.margin is not None)
    changed = C.Claim(**{**claim.__dict__, "margin": claim.margin * 2})
    assert C.unlogged([claim]) == []
    assert C.unlogged([changed]) == [f"{claim.study} {claim.id}"]
    entry = claims_log.entries([changed], seen="yes", reason="a test", date="2026-11-28")
    log = pd.concat([C.changelog(), entry], ignore_index=True)
    monkeypatch.setattr(C, "_changelog", lambda: log)
    assert C.unlogged([changed]) == []


def test_an_entry_needs_its_reason_and_whether_the_estimate_was_seen() -> None:
    claim = claims_log.all_claims()[0]
    with pytest.raises(PruneAuditError, match="--seen must be yes or no"):
        claims_log.entries([claim], seen="maybe", reason="x")
    with pytest.raises(PruneAuditError, match="give the reason"):
        claims_log.entries([claim], seen="no", reason=" ")


def test_the_methods_page_lists_the_changelog() -> None:
    assert (BOOK / "_claims_changelog.md").read_text() == claims_log.changes_markdown()
