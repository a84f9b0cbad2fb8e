"""Reproduced means equivalent: the paper's band, hand-computed cases and invariants."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from pruneaudit import audit
from pruneaudit.audit import findings as F
from pruneaudit.errors import PruneAuditError

Q = stats.norm.ppf(0.975)


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
    assert audit.verdict(-0.04, 0.03, -0.19, **kw) == audit.NOT_REPRODUCED  # absent (+-0.05)


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
    assert F.paper_se_from_units(0.0, 1.0, None, 6) is None
    assert F.paper_se_from_units(0.0, 1.0, 16, None) is None
    assert F.paper_se_from_units(math.nan, 1.0, 16, 6) is None
    assert F.paper_se_from_units(0.0, 2 * Q, 16, 4) == pytest.approx(2.0)


def test_paper_se_from_the_spread_of_one_unit():
    # P's D2.1 is a mean of 6 replicates; our seeds' standard deviation 0.12 gives 0.12/sqrt(6).
    assert F.paper_se_from_sd(0.12, 6) == pytest.approx(0.04899, abs=1e-5)
    assert F.paper_se_from_sd(0.12, None) is None
    with pytest.raises(PruneAuditError, match="unit_sd"):
        F.paper_se_from_sd(math.nan, 6)


def test_a_finding_given_its_unit_spread_takes_the_papers_se_from_it_not_its_interval():
    # A deliberately wide interval (a one-sided bound, say) must not widen the paper's band.
    kw = {"source": "s", "basis": "b", "units": 16, "margin": 0.05, "paper_units": 6}
    wide = audit.finding("x", -0.15, -0.45, -0.10, -0.19, **kw)
    given_sd = audit.finding("x", -0.15, -0.45, -0.10, -0.19, unit_sd=0.12, **kw)
    assert wide.paper_se == pytest.approx(
        F.paper_se_from_units(-0.45, -0.10, 16, 6), rel=1e-9
    )
    assert given_sd.paper_se == pytest.approx(0.12 / math.sqrt(6))
    half = Q * 0.12 / math.sqrt(6) + 0.05
    assert given_sd.paper_band == pytest.approx((-0.19 - half, -0.19 + half))


def test_direction_only_rows_have_no_band_and_absent_needs_the_smallest_effect():
    row = audit.finding("x", 0.2, 0.1, 0.3, None, source="s", basis="b", direction=1)
    assert row.verdict == audit.REPRODUCED and row.paper_band is None and row.margin is None
    near = audit.finding("x", 0.0, -0.01, 0.01, None, source="s", basis="b", direction=1,
                         smallest=0.05)
    assert (near.direction, near.verdict) == (audit.ABSENT, audit.NOT_REPRODUCED)
    unsure = audit.finding("x", 0.0, -0.01, 0.01, None, source="s", basis="b", direction=1)
    assert (unsure.direction, unsure.verdict) == (F.CANT_TELL, audit.INCONCLUSIVE)


def test_every_margin_in_the_package_is_stated_with_a_reason():
    table = F.margins()
    assert table.finding.is_unique and (table.margin > 0).all()
    assert table.reason.str.len().min() > 20
    assert (table.paper_units.dropna() >= 1).all()
    # a key never begins another of another id: D4.1 is not D4.10
    assert F.margin_for("D4.10 compressed top-1 on the Taxicab top 1% minus on the top 10%"
                        ) is None
    assert F.margin_for("D4.1 share of classes significantly impacted by pruning").margin == 0.1
    assert F.margin_for("D9.9 nothing") is None


def test_the_margin_stays_below_the_papers_effect():
    # A negligible band that reached the paper's value would call the paper's own effect absent.
    paper = {"D2.1": -0.19, "D2.2 a writer": -0.523, "D4.3 PIEs per dense error": 0.44,
             "D4.2": 0.493,
             "D4.6 dense top-1 without the PIEs minus on all": 0.0445, "D1.2 entropy coefficient":
             -0.0237, "D5.1 natural-adversarial relative top-1": -0.598, "D5.4": -0.103,
             "D2.4 hsf4 has the lowest fitted intercept": -0.014, "D4.9": 0.152}
    table = F.margins().set_index("finding").margin
    for key, value in paper.items():
        assert table[key] < abs(value), key


papers = st.sampled_from([-1.0, -0.25, 0.5, 1.0, 2.0])
parts = st.integers(0, 24).map(lambda k: k / 16)
ends = st.integers(-48, 48).map(lambda k: k / 16)


@given(ends, ends, papers, parts, parts, st.integers(0, 16), st.integers(0, 16))
def test_a_narrower_interval_inside_a_reproduced_one_stays_reproduced(
    a, b, paper, margin, se, cut_low, cut_high
):
    low, high = sorted((a, b))
    kw = {"paper_se": se, "margin": margin}
    if audit.verdict(low, high, paper, **kw) != audit.REPRODUCED:
        return
    width = high - low
    inner = (low + width * cut_low / 32, high - width * cut_high / 32)
    assert audit.verdict(*inner, paper, **kw) == audit.REPRODUCED


@given(ends, ends, papers, parts, parts)
def test_reproduced_only_inside_the_band_and_sized_only_outside_it(a, b, paper, margin, se):
    low, high = sorted((a, b))
    band_low, band_high = audit.paper_band(paper, se, margin)
    said = audit.verdict(low, high, paper, paper_se=se, margin=margin)
    if said == audit.REPRODUCED:
        assert band_low <= low and high <= band_high
    if said in (audit.SMALLER, audit.LARGER):
        assert high < band_low or low > band_high
    if said == audit.SIZE_UNCLEAR:
        assert not (band_low <= low and high <= band_high)
        assert not (high < band_low or low > band_high)


@given(ends, ends, papers, parts, parts, st.integers(1, 16).map(lambda k: k / 16))
def test_a_wider_band_never_takes_reproduced_away(a, b, paper, margin, se, more):
    low, high = sorted((a, b))
    if audit.verdict(low, high, paper, paper_se=se, margin=margin) == audit.REPRODUCED:
        assert audit.verdict(low, high, paper, paper_se=se, margin=margin + more) == (
            audit.REPRODUCED)


@given(ends, ends, papers, parts)
def test_the_direction_does_not_depend_on_the_band_once_the_null_is_excluded(a, b, paper, se):
    low, high = sorted((a, b))
    side = 1 if paper > 0 else -1
    narrow = F.direction_of(low, high, side=side, negligible=None)
    if narrow != F.CANT_TELL:
        assert F.direction_of(low, high, side=side, negligible=1.0) == narrow
