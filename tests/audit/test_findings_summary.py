"""The paragraph under a findings table: verdict counts, firm and borderline apart, and what
'not reproduced', 'borderline' and 'size can't tell' mean."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from pruneaudit import audit
from pruneaudit.audit.claims import NOT_TESTABLE, Claim
from pruneaudit.errors import PruneAuditError

#: Where a test paper measures; an analogue's paper measured on another task.
HERE = audit.Setting("QMNIST", "LeNet", "global magnitude pruning", "a test quantity")


def _settings(kind: str) -> dict:
    """The settings a claim of ``kind`` declares: the same for ``same``, another dataset for an
    analogue (other kinds declare none)."""
    paper = HERE if kind != "analogue" else replace(HERE, dataset="ImageNet")
    return {"paper_setting": paper, "our_setting": HERE}


def _claim(ident: str, paper: float | None = 2.5, **kw) -> Claim:
    """A claim of the paper's quantity (``same``); without a margin given, the band is the
    paper's point."""
    fields = {"says": "the paper says so", "source": "s", "quantity": "a test quantity",
              "comparability": "same", "paper": paper, "paper_noise": "test", "margin": 0.0,
              "margin_reason": "none: the band is the paper's own spread"}
    merged = {**fields, **kw}
    return Claim(ident, f"{ident} a test row", **{**_settings(merged["comparability"]), **merged})


def _judged(ident: str, ours: float, low: float, high: float, paper: float | None = 2.5, *,
            df: float | None = None, **kw) -> audit.Finding:
    claim = audit.register("99_test", [_claim(ident, paper, **kw)])[ident]
    return audit.judge(claim, audit.Estimate(ours, low, high, "b", df=df))


def _untestable(ident: str = "d") -> audit.Finding:
    return audit.untested(_claim(ident, None, comparability=NOT_TESTABLE, margin=None,
                                 why="no CIFAR offline"))


def _rows():
    return [
        _judged("a", 2.5, 2.4, 2.6, margin=0.3),  # reproduced
        _judged("b", 0.0, -0.1, 0.1),  # not reproduced, firm
        _judged("c", 1.0, 0.02, 1.98),  # smaller, borderline
        _untestable(),
    ]


def test_the_rows_are_what_their_comments_say():
    a, b, c, d = _rows()
    assert (a.verdict, b.verdict, c.verdict) == (audit.REPRODUCED, audit.NOT_REPRODUCED,
                                                 audit.SMALLER)
    assert a.stability >= audit.STABLE and b.stability >= audit.STABLE
    assert c.stability < audit.STABLE and audit.is_borderline(c)
    assert (d.verdict, d.basis, d.comparability) == (audit.NOT_TESTABLE, "no CIFAR offline",
                                                     NOT_TESTABLE)


def test_findings_round_trip_through_json(tmp_path):
    rows = [*_rows(), _judged("D9.1", -0.15, -0.2, -0.1, -0.19, df=15, margin=0.05,
                              margin_reason="five points", paper_units=6)]
    assert rows[-1].paper_band is not None and rows[-1].margin == 0.05
    path = audit.write_findings_json(rows, tmp_path / "x.findings.json")
    items = json.loads(path.read_text())
    assert [(i["claim"], i["comparability"]) for i in items] == [
        ("a", "same"), ("b", "same"), ("c", "same"), ("d", "not testable"), ("D9.1", "same")]
    back = [audit.from_json(item) for item in items]
    assert back == rows


def test_headlines_are_the_claims_marked_so():
    # A headline is declared on the claim; each row of a claim carries it (ids match exactly:
    # D4.1 is not D4.10).
    claims = audit.register("99_test", [
        _claim(ident, headline=ident in ("D4.1", "D4.5"))
        for ident in ("D4.1", "D4.10", "D4.1 trend", "D4.5")])
    rows = [audit.judge(c, audit.Estimate(2.5, 2.4, 2.6, "b")) for c in claims.values()]
    assert [r.headline for r in rows] == [True, False, False, True]
    assert [r.claim for r in rows] == ["D4.1", "D4.10", "D4.1 trend", "D4.5"]
    assert audit.judge(claims["D4.1"], audit.Estimate(2.5, 2.4, 2.6, "b"),
                       name="D4.1 at 70%").headline


def test_one_estimate_one_row():
    """Two rows printing one estimate and interval are named; a zero-width interval and a row
    of its own numbers are not."""
    first = _judged("a", 2.5, 2.4, 2.6, margin=0.3)
    again = _judged("again", 2.5, 2.4, 2.6, margin=0.3)
    own = _judged("own", 2.5, 2.4, 2.7, margin=0.3)
    flat = [_judged(k, 0.0, 0.0, 0.0) for k in ("f1", "f2")]
    assert audit.repeated_estimates([first, again, own, *flat, _untestable()]) == [("a", "again")]
    assert audit.repeated_estimates([first, own]) == []


def test_a_row_carries_its_claims_fingerprint_and_negligible_band(tmp_path):
    from pruneaudit.audit.claims import fingerprint

    claim = audit.register("99_test", [_claim("n", 1.0, margin=0.25)])["n"]
    row = audit.judge(claim, audit.Estimate(0.0, -0.1, 0.1, "b", df=9))
    assert (row.fingerprint, row.negligible) == (fingerprint(claim), 0.25)
    assert row.verdict == audit.EFFECT_ABSENT  # wholly inside (-0.25, 0.25)
    path = audit.write_findings_json([row], tmp_path / "x.findings.json")
    item = json.loads(path.read_text())[0]
    assert (item["fingerprint"], item["negligible"]) == (fingerprint(claim), 0.25)


def test_a_build_written_before_the_negligible_first_rule_reads_absent_as_negligible():
    item = {"finding": "x", "verdict": "absent", "direction": "absent", "alternative": "absent"}
    row = audit.from_json(item)
    assert (row.verdict, row.direction, row.alternative) == (audit.EFFECT_ABSENT,) * 3


@pytest.mark.parametrize("df", [None, 4.0])
def test_a_row_judged_again_under_its_own_claim_is_the_same_row(tmp_path, df):
    """Through the findings JSON and back, a row rejudged under the claim that made it is that
    row (its stability recomputed exactly from the recorded units, df and spread)."""
    claim = audit.register("99_test", [_claim("r", 1.0, margin=0.25)])["r"]
    row = audit.judge(claim, audit.Estimate(0.8, 0.55, 1.05, "b", df=df, units=5))
    path = audit.write_findings_json([row], tmp_path / "r.findings.json")
    back = audit.from_json(json.loads(path.read_text())[0])
    assert audit.rejudge(back, claim) == row
    wider = replace(claim, smallest=1.2)  # a negligible band (-1.2, 1.2) holds the interval
    assert audit.rejudge(back, wider).verdict == audit.EFFECT_ABSENT
    old = {k: v for k, v in json.loads(path.read_text())[0].items() if k != "df"}
    with pytest.raises(PruneAuditError, match="degrees of freedom"):
        audit.rejudge(audit.from_json(old), claim)
