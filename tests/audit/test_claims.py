"""Claims (:mod:`pruneaudit.audit.claims`): what each kind of claim may say, what ``register``
refuses, intervals of no width, and the fingerprint behind the claims changelog."""

from __future__ import annotations

import importlib
import re
from dataclasses import replace

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pruneaudit import audit
from pruneaudit.audit import claims as C
from pruneaudit.audit import findings as F
from pruneaudit.audit import rules as R
from pruneaudit.errors import PruneAuditError

#: The module (``pruneaudit.audit.stability`` as an attribute is the function of that name).
S = importlib.import_module("pruneaudit.audit.stability")

STUDY = "99_test"
#: Where a test paper measures, and another task (an analogue's).
PAPERS = C.Setting("QMNIST", "LeNet", "global magnitude pruning", "a test quantity")
ELSEWHERE = replace(PAPERS, dataset="ImageNet", model="ResNet-50")
ANALOGUE_VERDICTS = (audit.SAME_DIRECTION, audit.OPPOSITE, audit.EFFECT_ABSENT,
                     audit.INCONCLUSIVE)
BEYOND_VERDICTS = (audit.PRESENT, audit.OTHER_SIGN, audit.EFFECT_ABSENT, audit.INCONCLUSIVE)


def _claim(ident: str = "X1", comparability: str = C.SAME, **kw) -> C.Claim:
    """A complete test claim of ``comparability`` (a paper value of 1.0 with its noise and a
    zero margin for ``same``, in the paper's setting; for ``analogue``, on another task; a
    reason for every other kind), with ``kw`` over it."""
    fields: dict = {"says": "the paper says so", "source": "test",
                    "quantity": "ours, as the paper computes it"}
    if comparability == C.SAME:
        fields.update(paper=1.0, paper_noise="none stated", margin=0.0,
                      margin_reason="none: the band is the paper's point",
                      paper_setting=PAPERS, our_setting=PAPERS)
    elif comparability == C.ANALOGUE:
        fields.update(paper=1.0, why="the paper's quantity on another task",
                      paper_setting=ELSEWHERE, our_setting=PAPERS)
    elif comparability == C.BEYOND:
        fields.update(side=1, why="our own question beside the paper's")
    else:
        fields.update(why="not the paper's quantity")
    return C.Claim(ident, f"{ident} a test row", comparability=comparability,
                   **{**fields, **kw})


def _registered(claim: C.Claim) -> C.Claim:
    return audit.register(STUDY, [claim])[claim.id]


def _refused(claim_or_claims, *said: str) -> None:
    """``register`` refuses the claims, naming each ``said`` (a claim id and its problem)."""
    claims = claim_or_claims if isinstance(claim_or_claims, list) else [claim_or_claims]
    with pytest.raises(PruneAuditError) as caught:
        audit.register(STUDY, claims)
    message = str(caught.value)
    assert message.startswith(f"incomplete claims in {STUDY}: "), message
    for part in said:
        assert part in message, (part, message)


# --------------------------------------------------------------------------- register


def test_register_stamps_the_study_and_keys_by_id_read_only():
    table = audit.register(STUDY, [_claim("D4.1"), _claim("D4.10")])
    assert list(table) == ["D4.1", "D4.10"]  # exact ids: D4.1 is not D4.10
    assert {c.study for c in table.values()} == {STUDY}
    with pytest.raises(TypeError):
        table["D4.2"] = _claim("D4.2")  # type: ignore[index]


def test_register_refuses_a_beyond_claim_with_a_paper_value_or_as_a_headline():
    _refused(_claim("B1", C.BEYOND, paper=0.3),
             "B1: a 'beyond' claim is our own question: it carries no paper value")
    _refused(_claim("B2", C.BEYOND, headline=True), "B2: a 'beyond' claim cannot be a headline")


def test_register_refuses_a_headline_that_is_not_the_papers_quantity():
    _refused(_claim("N1", C.NOT_COMPARABLE, headline=True),
             "N1: a 'not comparable' claim cannot be a headline")
    _refused(_claim("N2", C.NOT_TESTABLE, headline=True),
             "N2: a 'not testable' claim cannot be a headline")
    for kind in C.HEADLINE_KINDS:  # the paper's quantity, here or on another task
        assert _registered(_claim("H1", kind, headline=True)).headline


def test_register_refuses_a_same_claim_without_its_margin_or_the_papers_noise():
    _refused(_claim("S1", margin=None, margin_reason=""),
             "S1: a 'same' claim with a paper value needs its margin")
    _refused(_claim("S2", paper_noise=""),
             "S2: a 'same' claim with a paper value needs the paper's noise")
    _refused(_claim("S3", margin=0.05, margin_reason=" "),
             "S3: a margin needs a value >= 0 and its reason")
    # a direction-only 'same' claim needs neither, but its side
    assert _registered(_claim("S4", paper=None, margin=None, paper_noise="", side=-1))
    _refused(_claim("S5", paper=None, margin=None, paper_noise=""),
             "S5: give the paper's value or the side")


@pytest.mark.parametrize("field", ["says", "source", "quantity", "name"])
def test_register_refuses_an_incomplete_claim(field):
    _refused(_claim("I1", **{field: "  "}) if field != "name" else replace(_claim("I1"), name=""),
             f"I1: no {field}")


def test_register_refuses_a_claim_of_another_kind_without_its_reason():
    _refused(_claim("A1", C.ANALOGUE, why=""), "A1: a claim of kind 'analogue' needs its reason")
    _refused(_claim("K1", "maybe"), "K1: comparability 'maybe' is not one of")
    _refused(_claim("U1", unit="furlongs"), "U1: unit 'furlongs' is not one of")


def test_register_refuses_a_repeated_id_and_lists_every_problem_at_once():
    _refused([_claim("R1"), _claim("R1", paper=2.0)], "R1: declared twice")
    _refused([_claim("P1", says=""), _claim("P2", C.BEYOND, paper=1.0)],
             "P1: no says", "P2: a 'beyond' claim is our own question")


# --------------------------------------------------------------------------- settings


def test_a_kind_follows_from_the_settings():
    assert C.derived_kind(PAPERS, PAPERS) == C.SAME
    assert C.derived_kind(ELSEWHERE, PAPERS) == C.ANALOGUE
    for field in ("dataset", "model", "compression", "quantity"):
        assert C.derived_kind(replace(PAPERS, **{field: "other"}), PAPERS) == C.ANALOGUE
    assert PAPERS.differences(ELSEWHERE) == ["dataset: 'QMNIST' vs 'ImageNet'",
                                             "model: 'LeNet' vs 'ResNet-50'"]


def test_register_refuses_a_same_claim_on_another_task():
    _refused(_claim("S1", paper_setting=ELSEWHERE),
             "S1: declared 'same' but the settings differ (dataset: 'QMNIST' vs 'ImageNet'; "
             "model: 'LeNet' vs 'ResNet-50'): an analogue at most")
    # the quantity alone differing is enough: not the paper's quantity
    _refused(_claim("S2", our_setting=replace(PAPERS, quantity="an excess over a null")),
             "S2: declared 'same' but the settings differ (quantity:")


def test_register_refuses_an_analogue_whose_settings_match():
    _refused(_claim("A1", C.ANALOGUE, paper_setting=PAPERS),
             "A1: the settings match: the claim is the paper's own quantity ('same')")


@pytest.mark.parametrize("kind", C.HEADLINE_KINDS)
@pytest.mark.parametrize("missing", ["paper_setting", "our_setting"])
def test_register_refuses_a_claim_of_the_papers_quantity_without_its_settings(kind, missing):
    _refused(_claim("W1", kind, **{missing: None}),
             f"W1: a '{kind}' claim declares the paper's setting and ours")


@pytest.mark.parametrize("kind", [C.BEYOND, C.NOT_COMPARABLE, C.NOT_TESTABLE])
def test_other_kinds_need_no_settings(kind):
    assert _registered(_claim("O1", kind)).paper_setting is None
    assert C.setting_problems(_claim("O1", kind, paper_setting=ELSEWHERE,
                                     our_setting=PAPERS)) == []


def test_every_studys_claims_pass_the_settings_check():
    """Every registered claim of every study: a ``same`` row matches the paper's setting, an
    ``analogue`` differs from it, and both declare it."""
    from pruneaudit.studies import claims_log

    claims = claims_log.all_claims()
    assert claims
    for claim in claims:
        assert C.setting_problems(claim, required=True) == [], (claim.study, claim.id)
        if claim.comparability in C.HEADLINE_KINDS:
            kind = C.derived_kind(claim.paper_setting, claim.our_setting)
            assert kind == claim.comparability, (claim.study, claim.id)


def test_a_claim_of_no_difference_needs_its_margin():
    _refused(_claim("E1", paper=None, equivalence=True, margin=None, margin_reason=""),
             "E1: a claim of no difference needs a margin > 0")
    _refused(_claim("E0", paper=None, equivalence=True, margin=0.0, margin_reason="zero"),
             "E0: a claim of no difference needs a margin > 0")
    assert _registered(_claim("E2", paper=None, equivalence=True, margin=0.1))


# --------------------------------------------------------------------------- what a kind may say

ends = st.integers(-40, 40).map(lambda k: k / 8)
nulls = st.sampled_from([0.0, 0.5, -1.0])
negligibles = st.one_of(st.none(), st.integers(1, 8).map(lambda k: k / 8))


def _interval(a: float, b: float) -> audit.Estimate:
    low, high = sorted((a, b))
    return audit.Estimate((low + high) / 2, low, high, "a test interval")


@settings(max_examples=60, deadline=None)
@given(ends, ends, nulls, st.sampled_from([-2.0, -0.5, 0.75, 3.0]), negligibles)
def test_an_analogue_never_says_reproduced_nor_a_size_nor_a_band(a, b, null, effect, smallest):
    claim = _claim("A1", C.ANALOGUE, paper=null + effect, null=null, smallest=smallest)
    row = audit.judge(claim, _interval(a, b))
    assert row.verdict in ANALOGUE_VERDICTS
    assert row.size == "" and row.paper_band is None and row.paper_se is None
    assert row.margin is None and row.comparability == C.ANALOGUE and row.claim == "A1"
    if row.ci_high > row.ci_low:
        assert row.verdict == R.ANALOGUE_WORDS[row.direction]


@settings(max_examples=60, deadline=None)
@given(ends, ends, nulls, st.sampled_from([1, -1]), negligibles)
def test_a_beyond_claim_answers_its_own_question_in_its_own_words(a, b, null, side, smallest):
    claim = _claim("B1", C.BEYOND, null=null, side=side, smallest=smallest)
    row = audit.judge(claim, _interval(a, b))
    assert row.verdict in BEYOND_VERDICTS
    assert row.size == "" and row.paper_band is None and row.paper is None
    if row.ci_high > row.ci_low:
        assert row.verdict == R.BEYOND_WORDS[row.direction]


def test_analogue_and_beyond_words_by_hand():
    # paper's side +1 of 0, negligible band (-0.1, 0.1)
    analogue = _claim("A1", C.ANALOGUE, paper=0.6, smallest=0.1)
    beyond = _claim("B1", C.BEYOND, side=1, smallest=0.1)
    cases = {(0.2, 0.4): (audit.SAME_DIRECTION, audit.PRESENT),
             (-0.4, -0.2): (audit.OPPOSITE, audit.OTHER_SIGN),
             (-0.05, 0.05): (audit.EFFECT_ABSENT, audit.EFFECT_ABSENT),
             (-0.2, 0.4): (audit.INCONCLUSIVE, audit.INCONCLUSIVE)}
    for (low, high), said in cases.items():
        est = audit.Estimate((low + high) / 2, low, high, "b")
        assert (audit.judge(analogue, est).verdict, audit.judge(beyond, est).verdict) == said


def test_a_claim_not_comparable_or_not_testable_says_why():
    other = audit.judge(_claim("N1", C.NOT_COMPARABLE, paper=0.2, why="another population"),
                        audit.Estimate(0.4, 0.3, 0.5, "seeds"))
    assert other.verdict == audit.NOT_COMPARABLE and other.basis == "another population; seeds"
    assert other.size == "" and other.paper_band is None and other.stability is None
    gone = _claim("T1", C.NOT_TESTABLE, why="no CelebA offline")
    assert audit.judge(gone, audit.Estimate(0.1, 0.0, 0.2, "b")) == audit.untested(gone)
    row = audit.untested(_claim("T2"), why="this profile has no second population")
    assert (row.verdict, row.basis, row.ours) == (audit.NOT_TESTABLE,
                                                  "this profile has no second population", None)
    with pytest.raises(PruneAuditError, match="N1 is 'not comparable': it has no verdict"):
        F.rule_of(_claim("N1", C.NOT_COMPARABLE))


def test_a_row_carries_its_claim():
    claim = _registered(_claim("D9.1", headline=True, unit="points", margin=0.1,
                               margin_reason="ten points"))
    row = audit.judge(claim, audit.Estimate(1.0, 0.95, 1.05, "b"), name="D9.1 at 90%",
                      definition="at the level nearest 90%")
    assert (row.claim, row.comparability, row.headline, row.unit) == ("D9.1", C.SAME, True,
                                                                       "points")
    assert (row.finding, row.definition) == ("D9.1 at 90%", "at the level nearest 90%")
    assert (row.margin, row.margin_reason) == (0.1, "ten points")
    plain = audit.judge(claim, audit.Estimate(1.0, 0.95, 1.05, "b"))
    assert (plain.finding, plain.definition) == (claim.name, claim.quantity)


# --------------------------------------------------------------------------- no width


@pytest.mark.parametrize("claim", [
    _claim("S1", margin=0.25, margin_reason="a quarter"),
    _claim("S2", paper=None, side=1, margin=None, paper_noise=""),
    _claim("A1", C.ANALOGUE, smallest=0.1),
    _claim("B1", C.BEYOND, smallest=0.1),
    _claim("E1", paper=None, equivalence=True, margin=0.5, margin_reason="half"),
], ids=lambda c: c.id)
@pytest.mark.parametrize("value", [0.0, 1.0, 3.0])
def test_an_interval_of_no_width_is_inconclusive_with_no_stability(claim, value):
    # Every unit the same says nothing of what a replication would give: inside the band
    # (1.0), at the null (0.0) or far beyond (3.0) alike.
    row = audit.judge(claim, audit.Estimate(value, value, value, "every unit the same", df=5))
    assert row.verdict == audit.INCONCLUSIVE
    assert row.stability is None and row.direction_stability is None and row.firm_at is None
    assert F.rule_of(claim)(value, value) == audit.INCONCLUSIVE


def test_every_rule_is_inconclusive_without_a_finite_interval():
    rules = [R.verdict_rule(1.0, margin=0.2), R.equivalence_rule(0.5),
             R.direction_rule(R.ANALOGUE_WORDS, 1, negligible=0.1),
             R.direction_rule(R.BEYOND_WORDS, -1)]
    for rule in rules:
        for low, high in ((0.5, 0.5), (float("nan"), 1.0), (0.0, float("inf"))):
            assert rule(low, high) == audit.INCONCLUSIVE
    assert not R.has_width(1.0, 1.0) and R.has_width(1.0, 1.5)
    assert S.stability(1.0, 1.0, 1.0, rules[0]) == (None, "")


def test_an_analogue_claim_of_no_difference_is_refused():
    """Only the paper's own quantity may say "no material difference, as the paper says"."""
    claim = _claim("A1", C.ANALOGUE, paper=None, side=0, equivalence=True, margin=0.5,
                   margin_reason="half")
    with pytest.raises(PruneAuditError, match="A1: a claim of no material difference"):
        _registered(claim)


# --------------------------------------------------------------------------- fingerprint


@pytest.mark.parametrize(("field", "value"), [
    ("quantity", "ours, computed another way"), ("comparability", C.ANALOGUE), ("paper", 1.1),
    ("margin", 0.05), ("paper_se", 0.01), ("null", 0.5), ("equivalence", True),
    ("headline", True), ("paper_setting", ELSEWHERE),
    ("our_setting", replace(PAPERS, quantity="another")),
])
def test_the_fingerprint_follows_what_a_verdict_rests_on(field, value):
    claim = _claim()
    assert C.fingerprint(replace(claim, **{field: value})) != C.fingerprint(claim)


def test_the_fingerprint_ignores_the_words_around_the_claim():
    claim = _claim()
    same = replace(claim, says="the paper says it otherwise", name="X1 renamed", source="p. 2",
                   why="reworded", margin_reason="another reason", study=STUDY)
    assert C.fingerprint(same) == C.fingerprint(claim)
    assert re.fullmatch(r"[0-9a-f]{12}", C.fingerprint(claim))
    # a float's last bits do not move it
    assert C.fingerprint(replace(claim, paper=0.1 + 0.2)) == C.fingerprint(replace(claim,
                                                                                   paper=0.3))


def _log(*rows: tuple[str, str, str]) -> pd.DataFrame:
    """A changelog of ``(study, claim, fingerprint)`` rows, oldest first."""
    return pd.DataFrame([{"date": "2026-01-01", "study": s, "claim": c, "fingerprint": f,
                          "estimate_seen": "no", "verdict_before": "", "verdict_after": "",
                          "reason": "declared"} for s, c, f in rows],
                        columns=list(C.CHANGELOG_COLUMNS))


def test_unlogged_names_a_claim_whose_fingerprint_no_entry_records(monkeypatch):
    first, second = _registered(_claim("X1")), _registered(_claim("X2"))
    monkeypatch.setattr(C, "_changelog", lambda: _log((STUDY, "X1", C.fingerprint(first)),
                                                      (STUDY, "X2", C.fingerprint(second))))
    assert C.unlogged([first, second]) == []
    moved = replace(first, margin=0.1, margin_reason="ten points")
    assert C.unlogged([moved, second]) == [f"{STUDY} X1"]
    assert C.unlogged([replace(second, says="reworded")]) == []  # words need no entry
    new = _registered(_claim("X3"))
    assert C.unlogged([new]) == [f"{STUDY} X3"]  # never declared
    elsewhere = replace(first, study="98_other")
    assert C.unlogged([elsewhere]) == ["98_other X1"]  # an entry is per study


def test_only_the_last_entry_of_a_claim_counts(monkeypatch):
    claim = _registered(_claim("X1"))
    moved = replace(claim, paper=1.2)
    log = _log((STUDY, "X1", C.fingerprint(claim)), (STUDY, "X1", C.fingerprint(moved)))
    monkeypatch.setattr(C, "_changelog", lambda: log)
    assert C.unlogged([moved]) == []
    assert C.unlogged([claim]) == [f"{STUDY} X1"]  # changed back without an entry
    assert list(C.changelog().columns) == list(C.CHANGELOG_COLUMNS)
    copy = C.changelog()
    copy.loc[0, "reason"] = "edited by a caller"
    assert C.changelog().loc[0, "reason"] == "declared"  # a copy
