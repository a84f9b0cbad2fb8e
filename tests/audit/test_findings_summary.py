"""The paragraph under a findings table: verdict counts, firm and borderline apart, and what
'not reproduced', 'borderline' and 'size can't tell' mean."""

from __future__ import annotations

from pruneaudit import audit


def _rows():
    return [
        audit.finding("a", 2.5, 2.4, 2.6, 2.5, source="s", basis="b", margin=0.3),  # reproduced
        audit.finding("b", 0.0, -0.1, 0.1, 2.5, source="s", basis="b"),  # not reproduced, firm
        audit.finding("c", 1.0, 0.02, 1.98, 2.5, source="s", basis="b"),  # smaller, borderline
        audit.not_testable("d", None, source="s", why="no CIFAR offline"),
    ]


def test_the_rows_are_what_their_comments_say():
    a, b, c, _ = _rows()
    assert (a.verdict, b.verdict, c.verdict) == (audit.REPRODUCED, audit.NOT_REPRODUCED,
                                                 audit.SMALLER)
    assert a.stability >= audit.STABLE and b.stability >= audit.STABLE
    assert c.stability < audit.STABLE and audit.is_borderline(c)


def test_counts_split_firm_and_borderline():
    assert audit.verdict_counts(_rows()) == (
        "4 findings: 2 firm (1 reproduced, 1 not reproduced), 1 borderline, "
        "1 not testable here."
    )
    assert audit.verdict_counts(_rows()[:1]) == "1 finding: 1 firm (1 reproduced)."
    assert audit.verdict_counts([]) == "0 findings: none."


def test_counts_never_call_an_undecided_verdict_firm():
    firm_inconclusive = audit.finding("e", 1.25, -40.0, 42.5, 2.5, source="s", basis="b")
    assert firm_inconclusive.verdict == audit.INCONCLUSIVE
    assert not audit.is_borderline(firm_inconclusive)  # a replication would not tell either
    reversed_ = audit.finding("f", -2.5, -2.6, -2.4, 2.5, source="s", basis="b")
    rows = [firm_inconclusive] * 4 + [reversed_]
    said = audit.verdict_counts(rows)
    assert said == "5 findings: 1 firm (1 opposite), 4 inconclusive."
    assert "firm (4 inconclusive" not in said


def test_summary_explains_borderline_and_not_reproduced_below_the_paper_profile():
    text = audit.summary_text(_rows(), "quick")
    assert text.startswith(audit.verdict_counts(_rows()))
    assert "borderline" in text and "This page ran the quick profile" in text
    assert "parameters below the paper's" in audit.summary_text(_rows(), None)


def test_a_smoke_summary_reads_every_verdict_as_borderline():
    assert "read every verdict here as borderline" in audit.summary_text(_rows(), "smoke")
    assert "smoke build" not in audit.summary_text(_rows(), "quick")
    untested = [audit.not_testable("d", None, source="s", why="no CIFAR offline")]
    assert "smoke build" not in audit.summary_text(untested, "smoke")


def test_summary_of_the_paper_profile_or_without_failures_adds_nothing():
    assert "not reproduced* here" not in audit.summary_text(_rows(), "paper")
    assert audit.summary_text(_rows()[:1], "quick") == "1 finding: 1 firm (1 reproduced)."


def test_counts_and_summary_name_size_cant_tell_and_not_comparable():
    rows = [
        audit.finding("e", 2.5, 1.5, 3.5, 2.5, source="s", basis="b", margin=0.3),
        audit.not_comparable("f", 0.4, 0.3, 0.5, 0.2, source="s", why="another population"),
    ]
    assert rows[0].verdict == audit.SIZE_UNCLEAR and rows[1].verdict == audit.NOT_COMPARABLE
    assert rows[1].direction == audit.findings.PAPERS_SIDE and rows[1].size == ""
    assert audit.verdict_counts(rows).endswith("1 not comparable here.")
    assert "size can't tell* row" in audit.summary_text(rows, "quick")


def test_findings_round_trip_through_json(tmp_path):
    rows = [*_rows(), audit.finding("D2.1 drop", -0.15, -0.2, -0.1, -0.19, source="s",
                                    basis="seeds", df=15)]
    assert rows[-1].paper_band is not None and rows[-1].margin == 0.05
    path = audit.write_findings_json(rows, tmp_path / "x.findings.json")
    import json

    back = [audit.findings.from_json(item) for item in json.loads(path.read_text())]
    assert back == rows


def test_headlines_mark_the_first_row_of_each_id():
    rows = [audit.finding(name, 2.5, 2.4, 2.6, 2.5, source="s", basis="b")
            for name in ("D4.1 share", "D4.10 top", "D4.1 trend", "D4.5 gap")]
    marked = audit.mark_headlines(rows, ["D4.1", "D4.5"])
    assert [r.headline for r in marked] == [True, False, False, True]
    import pytest

    from pruneaudit.errors import PruneAuditError

    assert [r.headline for r in audit.mark_headlines(rows, ["D4.1 trend"])] == [
        False, False, True, False]
    with pytest.raises(PruneAuditError, match="D9.9"):
        audit.mark_headlines(rows, ["D9.9"])
