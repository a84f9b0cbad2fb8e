"""Reproduced means equivalent: the paper's band, hand-computed cases and invariants."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from pruneaudit import audit
from pruneaudit.audit import intervals
from pruneaudit.audit import rules as R
from pruneaudit.audit.claims import Claim
from pruneaudit.errors import PruneAuditError
from pruneaudit.studies import claims_log

Q = stats.norm.ppf(0.975)


#: Where a test paper measures; an analogue's paper measured on another task.
HERE = audit.Setting("QMNIST", "LeNet", "global magnitude pruning", "a test quantity")


def _settings(kind: str) -> dict:
    """The settings a claim of ``kind`` declares: the same for ``same``, another dataset for an
    analogue (other kinds declare none)."""
    paper = HERE if kind != "analogue" else replace(HERE, dataset="ImageNet")
    return {"paper_setting": paper, "our_setting": HERE}


def _claim(paper: float | None, **kw) -> Claim:
    """A claim of the paper's quantity (``same``) with the paper's value ``paper``."""
    fields = {"says": "the paper says so", "source": "test", "quantity": "a test quantity",
              "comparability": "same", "paper": paper, "paper_noise": "test",
              "margin_reason": "a test margin"}
    merged = {**fields, **kw}
    claim = Claim("X1", "X1 a test row", **{**_settings(merged["comparability"]), **merged})
    return audit.register("99_test", [claim])["X1"]


def test_worked_example_of_the_methods_page():
    # P's D2.1: -0.19, a mean of 6 replicates; ours over 16 seeds, t interval se 0.02, margin
    # 0.05: paper_se = 0.02 * sqrt(16/6) = 0.0327, band -0.19 +- (1.96 * 0.0327 + 0.05).
    se = 0.02 * math.sqrt(16 / 6)
    assert se == pytest.approx(0.03266, abs=1e-5)
    low, high = audit.paper_band(-0.19, se, 0.05)
    assert (low, high) == pytest.approx((-0.304, -0.076), abs=1e-3)
    kw = {"paper_se": se, "margin": 0.05}
    assert audit.verdict(-0.19, -0.11, -0.19, **kw) == audit.REPRODUCED  # inside
    assert audit.verdict(-0.10, -0.02, -0.19, **kw) == audit.SIZE_UNCLEAR  # straddles -0.076
    assert audit.verdict(-0.07, -0.02, -0.19, **kw) == audit.SMALLER  # wholly nearer 0
    assert audit.verdict(-0.40, -0.31, -0.19, **kw) == audit.LARGER  # wholly beyond
    assert audit.verdict(-0.45, -0.05, -0.19, **kw) == audit.SIZE_UNCLEAR  # wide, holds -0.19
    assert audit.verdict(-0.30, 0.02, -0.19, **kw) == audit.INCONCLUSIVE  # holds 0 and band
    assert audit.verdict(-0.04, 0.03, -0.19, **kw) == audit.EFFECT_ABSENT  # inside +-0.05


def test_a_wide_interval_holding_the_papers_value_is_never_reproduced():
    for half in (0.3, 0.5, 2.0):
        assert audit.verdict(1.0 - half, 1.0 + half, 1.0, margin=0.25) != audit.REPRODUCED


def test_the_band_needs_nonnegative_parts():
    assert audit.paper_band(1.0, None, 0.2) == (0.8, 1.2)
    with pytest.raises(PruneAuditError, match="margin"):
        audit.paper_band(1.0, None, -0.1)
    with pytest.raises(PruneAuditError, match="paper_se"):
        audit.paper_band(1.0, -0.1, 0.1)


def test_paper_se_needs_both_unit_counts_and_an_interval():
    assert intervals.paper_se_from_units(0.0, 1.0, None, 6) is None
    assert intervals.paper_se_from_units(0.0, 1.0, 16, None) is None
    assert intervals.paper_se_from_units(math.nan, 1.0, 16, 6) is None
    assert intervals.paper_se_from_units(0.0, 2 * Q, 16, 4) == pytest.approx(2.0)


def test_paper_se_from_the_spread_of_one_unit():
    # P's D2.1 is a mean of 6 replicates; our seeds' standard deviation 0.12 gives 0.12/sqrt(6).
    assert intervals.paper_se_from_sd(0.12, 6) == pytest.approx(0.04899, abs=1e-5)
    assert intervals.paper_se_from_sd(0.12, None) is None
    with pytest.raises(PruneAuditError, match="unit_sd"):
        intervals.paper_se_from_sd(math.nan, 6)


def test_a_finding_given_its_unit_spread_takes_the_papers_se_from_it_not_its_interval():
    # A deliberately wide interval (a one-sided bound, say) must not widen the paper's band.
    claim = _claim(-0.19, margin=0.05, paper_units=6)
    wide = audit.judge(claim, audit.Estimate(-0.15, -0.45, -0.10, "b", units=16))
    given_sd = audit.judge(claim, audit.Estimate(-0.15, -0.45, -0.10, "b", units=16,
                                                 unit_sd=0.12))
    assert wide.paper_se == pytest.approx(
        intervals.paper_se_from_units(-0.45, -0.10, 16, 6), rel=1e-9
    )
    assert given_sd.paper_se == pytest.approx(0.12 / math.sqrt(6))
    half = Q * 0.12 / math.sqrt(6) + 0.05
    assert given_sd.paper_band == pytest.approx((-0.19 - half, -0.19 + half))
    # A printed standard error comes first.
    printed = audit.judge(replace(claim, paper_se=0.02),
                          audit.Estimate(-0.15, -0.45, -0.10, "b", units=16, unit_sd=0.12))
    assert printed.paper_se == 0.02


def test_direction_only_rows_have_no_band_and_absent_needs_the_smallest_effect():
    row = audit.judge(_claim(None, side=1), audit.Estimate(0.2, 0.1, 0.3, "b"))
    assert row.verdict == audit.REPRODUCED and row.paper_band is None and row.margin is None
    near = audit.judge(_claim(None, side=1, smallest=0.05), audit.Estimate(0.0, -0.01, 0.01, "b"))
    assert (near.direction, near.verdict) == (audit.ABSENT, audit.EFFECT_ABSENT)
    unsure = audit.judge(_claim(None, side=1), audit.Estimate(0.0, -0.01, 0.01, "b"))
    assert (unsure.direction, unsure.verdict) == (R.CANT_TELL, audit.INCONCLUSIVE)


def test_every_margin_in_the_package_is_stated_with_a_reason():
    # Margins live on the studies' claims now (register refuses one without its reason).
    claims = claims_log.all_claims()
    stated = [c for c in claims if c.margin is not None]
    assert stated, "no claim states a margin"
    for claim in stated:
        assert claim.margin > 0 and len(claim.margin_reason) > 20, claim.id
    for claim in claims:
        assert claim.paper_units is None or claim.paper_units >= 1, claim.id


def test_the_margin_stays_below_the_papers_effect():
    # A negligible band that reached the paper's value would call the paper's own effect absent.
    for claim in claims_log.all_claims():
        negligible = claim.smallest if claim.smallest is not None else claim.margin
        if claim.paper is None or negligible is None or claim.equivalence:
            continue
        assert negligible < abs(claim.paper - claim.null), f"{claim.study} {claim.id}"


papers = st.sampled_from([-1.0, -0.25, 0.5, 1.0, 2.0])
parts = st.integers(0, 24).map(lambda k: k / 16)
ends = st.integers(-48, 48).map(lambda k: k / 16)


@given(ends, ends, papers, parts, parts, st.integers(0, 15), st.integers(0, 15))
def test_a_narrower_interval_inside_a_reproduced_one_stays_reproduced(
    a, b, paper, margin, se, cut_low, cut_high
):
    """Cutting at most 15/32 from each end keeps a width: a zero-width interval is "can't tell"
    whatever holds it (``audit.rules``), which hypothesis found when both cuts met. Negligible
    first: an inner interval wholly inside the negligible band (+-margin) is negligible."""
    low, high = sorted((a, b))
    kw = {"paper_se": se, "margin": margin}
    if audit.verdict(low, high, paper, **kw) != audit.REPRODUCED:
        return
    width = high - low
    inner = (low + width * cut_low / 32, high - width * cut_high / 32)
    negligible = -margin < inner[0] and inner[1] < margin
    assert audit.verdict(*inner, paper, **kw) == (
        audit.EFFECT_ABSENT if negligible else audit.REPRODUCED)


@given(ends, ends, papers, parts, parts)
def test_reproduced_only_inside_the_band_and_sized_only_outside_it(a, b, paper, margin, se):
    low, high = sorted((a, b))
    band_low, band_high = audit.paper_band(paper, se, margin)
    said = audit.verdict(low, high, paper, paper_se=se, margin=margin)
    if said == audit.REPRODUCED:
        assert band_low <= low and high <= band_high
    if said in (audit.SMALLER, audit.LARGER):
        assert high < band_low or low > band_high
    if said == audit.SIZE_UNCLEAR and not band_low <= 0 <= band_high:
        assert not (band_low <= low and high <= band_high)
        assert not (high < band_low or low > band_high)
    if band_low <= 0 <= band_high:  # a band that holds the null confirms no size
        assert said != audit.REPRODUCED


@given(ends, ends, papers, parts, parts, st.integers(1, 16).map(lambda k: k / 16))
def test_a_wider_band_never_takes_reproduced_away(a, b, paper, margin, se, more):
    """Unless the wider band comes to hold the null (no size then confirms the paper) or its
    wider margin makes the interval negligible."""
    low, high = sorted((a, b))
    if audit.verdict(low, high, paper, paper_se=se, margin=margin) == audit.REPRODUCED:
        wider = audit.verdict(low, high, paper, paper_se=se, margin=margin + more)
        band_low, band_high = audit.paper_band(paper, se, margin + more)
        if band_low <= 0 <= band_high:
            assert wider in (audit.SIZE_UNCLEAR, audit.EFFECT_ABSENT)
        elif -(margin + more) < low and high < margin + more:
            assert wider == audit.EFFECT_ABSENT
        else:
            assert wider == audit.REPRODUCED


@given(ends, ends, papers, parts)
def test_the_direction_does_not_depend_on_the_band_once_the_null_is_excluded(a, b, paper, se):
    """Outside the negligible band; wholly inside it, the effect is negligible whatever its
    sign (negligible first)."""
    low, high = sorted((a, b))
    side = 1 if paper > 0 else -1
    narrow = R.direction_of(low, high, side=side, negligible=None)
    inside = low > -1.0 and high < 1.0
    if narrow != R.CANT_TELL:
        assert R.direction_of(low, high, side=side, negligible=1.0) == (
            R.ABSENT if inside else narrow)
