"""The paragraph under a findings table: verdict counts, and what 'not reproduced' means."""

from __future__ import annotations

from pruneaudit import audit


def _rows():
    return [
        audit.finding("a", 2.0, 1.0, 3.0, 2.5, source="s", basis="b"),  # reproduced
        audit.finding("b", 0.1, -1.0, 1.0, 2.5, source="s", basis="b"),  # not reproduced
        audit.not_testable("c", None, source="s", why="no CIFAR offline"),
    ]


def test_summary_counts_the_verdicts():
    text = audit.summary_text(_rows(), "quick")
    assert text.startswith("3 findings: 1 reproduced, 1 not reproduced, 1 not testable here.")
    assert "This page ran the quick profile" in text


def test_summary_of_the_paper_profile_or_without_failures_adds_nothing():
    assert audit.summary_text(_rows(), "paper").endswith("1 not testable here.")
    assert audit.summary_text(_rows()[:1], "quick") == "1 findings: 1 reproduced."
    assert "parameters below the paper's" in audit.summary_text(_rows(), None)
