"""The verdict scale and the power of a findings row: hand cases, brute force and invariants."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from pruneaudit import audit
from pruneaudit.audit import intervals as I
from pruneaudit.audit.claims import NOT_TESTABLE, Claim
from pruneaudit.errors import PruneAuditError

#: Where a test paper measures; an analogue's paper measured on another task.
HERE = audit.Setting("QMNIST", "LeNet", "global magnitude pruning", "a test quantity")


def _settings(kind: str) -> dict:
    """The settings a claim of ``kind`` declares: the same for ``same``, another dataset for an
    analogue (other kinds declare none)."""
    paper = HERE if kind != "analogue" else replace(HERE, dataset="ImageNet")
    return {"paper_setting": paper, "our_setting": HERE}


def _claim(paper: float | None, **kw) -> Claim:
    """A claim of the paper's quantity (``same``); without a margin given, the band is the
    paper's point."""
    fields = {"says": "the paper says so", "source": "s", "quantity": "a test quantity",
              "comparability": "same", "paper": paper, "paper_noise": "test", "margin": 0.0,
              "margin_reason": "none: the band is the paper's own spread"}
    merged = {**fields, **kw}
    return Claim("X1", "X1 a test row", **{**_settings(merged["comparability"]), **merged})


@pytest.mark.parametrize(
    ("low", "high", "expected"),
    [
        # paper 1.0 with margin 0.25: the band is [0.75, 1.25]
        (0.8, 1.2, audit.REPRODUCED),  # excludes 0, wholly inside the band
        (0.5, 1.5, audit.SIZE_UNCLEAR),  # excludes 0, holds the paper's value, leaves the band
        (0.6, 0.9, audit.SIZE_UNCLEAR),  # excludes 0, straddles the band's near edge
        (0.2, 0.7, audit.SMALLER),  # excludes 0, wholly below the band
        (1.3, 1.8, audit.LARGER),  # excludes 0, wholly above the band
        (-0.5, 1.5, audit.INCONCLUSIVE),  # contains both 0 and the band
        (-0.5, 0.5, audit.NOT_REPRODUCED),  # contains 0, wholly below the band
        (-0.2, 0.2, audit.EFFECT_ABSENT),  # wholly inside the negligible band (-0.25, 0.25)
        (0.05, 0.2, audit.EFFECT_ABSENT),  # excludes 0, but negligible first
        (-0.2, -0.05, audit.EFFECT_ABSENT),  # on the other side, negligible all the same
        (-1.5, -0.5, audit.OPPOSITE),  # excludes 0 on the other side
        (math.nan, math.nan, audit.INCONCLUSIVE),  # no interval: too few units
    ],
)
def test_verdict_scale_against_a_positive_paper_value(low, high, expected):
    assert audit.verdict(low, high, 1.0, margin=0.25) == expected


def test_without_a_margin_or_a_spread_no_interval_is_reproduced():
    # The band is the paper's point: an interval of positive width cannot lie inside it.
    assert audit.verdict(0.5, 1.5, 1.0) == audit.SIZE_UNCLEAR
    # An interval of no width (every unit the same) says nothing of a replication: even at the
    # paper's point it is inconclusive.
    assert audit.verdict(1.0, 1.0, 1.0) == audit.INCONCLUSIVE
    assert audit.verdict(0.0, 0.0, 1.0, margin=0.25) == audit.INCONCLUSIVE


def test_verdict_mirrors_for_a_paper_value_below_the_null():
    kw = {"margin": 0.25}
    assert audit.verdict(-1.2, -0.8, -1.0, **kw) == audit.REPRODUCED
    assert audit.verdict(-0.7, -0.2, -1.0, **kw) == audit.SMALLER
    assert audit.verdict(-1.8, -1.3, -1.0, **kw) == audit.LARGER
    assert audit.verdict(-1.5, -0.5, -1.0, **kw) == audit.SIZE_UNCLEAR
    assert audit.verdict(0.5, 1.5, -1.0, **kw) == audit.OPPOSITE
    assert audit.verdict(0.9, 1.2, 0.5, null=1.0) == audit.NOT_REPRODUCED


def test_direction_only_findings_need_a_smallest_effect_to_say_no():
    assert audit.verdict(0.1, 0.3, None, direction=1) == audit.REPRODUCED
    assert audit.verdict(0.01, 3.0, None, direction=1) == audit.REPRODUCED  # wide: still there
    assert audit.verdict(-0.1, 0.3, None, direction=1) == audit.INCONCLUSIVE
    assert audit.verdict(-0.1, 0.03, None, direction=1, smallest=0.05) == audit.NOT_REPRODUCED
    assert audit.verdict(-0.04, 0.03, None, direction=1, smallest=0.05) == audit.EFFECT_ABSENT
    assert audit.verdict(0.01, 0.04, None, direction=1, smallest=0.05) == audit.EFFECT_ABSENT
    assert audit.verdict(-0.1, 0.3, None, direction=1, smallest=0.05) == audit.INCONCLUSIVE
    assert audit.verdict(-0.3, -0.1, None, direction=1) == audit.OPPOSITE
    with pytest.raises(PruneAuditError, match="direction"):
        audit.verdict(0.1, 0.3, None)
    with pytest.raises(PruneAuditError, match="smallest"):
        audit.verdict(0.1, 0.3, None, direction=1, smallest=-1.0)


def test_bad_paper_values_are_refused():
    with pytest.raises(PruneAuditError, match="equals the null"):
        audit.verdict(0.1, 0.2, 0.0)
    with pytest.raises(PruneAuditError, match="above its high"):
        audit.direction_of(2.0, 1.0, side=1)


def test_a_reversed_interval_is_refused():
    with pytest.raises(PruneAuditError, match="above its high"):
        audit.verdict(2.0, 1.0, 1.0)


# Multiples of 1/8: shifts and mirrors are exact in floating point.
finite = st.integers(-80, 80).map(lambda k: k / 8)


margins = st.integers(0, 16).map(lambda k: k / 8)


@given(finite, finite, finite.filter(lambda p: p != 0), finite, margins)
def test_verdict_is_invariant_under_shift_and_mirror(a, b, paper, shift, margin):
    low, high = sorted((a, b))
    once = audit.verdict(low, high, paper, margin=margin)
    assert audit.verdict(low + shift, high + shift, paper + shift, null=shift,
                         margin=margin) == once
    assert audit.verdict(-high, -low, -paper, margin=margin) == once


@given(finite, finite, finite.filter(lambda p: p != 0), margins)
def test_exactly_one_region_of_the_scale_holds(a, b, paper, margin):
    low, high = sorted((a, b))
    said = audit.verdict(low, high, paper, margin=margin)
    if low == high:  # no width: nothing to tell
        assert said == audit.INCONCLUSIVE
        return
    side = np.sign(paper)
    band_low, band_high = paper - margin, paper + margin
    inside_band = band_low <= low and high <= band_high
    toward_null = side * (high if side > 0 else low) < side * (band_low if side > 0 else band_high)
    excludes_null = side * low > 0 if side > 0 else side * high > 0
    absent = margin > 0 and -margin < low and high < margin
    null_in_band = band_low <= 0 <= band_high
    opposite = (high < 0) if side > 0 else (low > 0)
    assert (said == audit.EFFECT_ABSENT) == absent  # negligible first, whatever the sign
    assert (said == audit.OPPOSITE) == (opposite and not absent)
    assert (said == audit.REPRODUCED) == (
        excludes_null and inside_band and not absent and not null_in_band)
    undecided = not excludes_null and not opposite and not absent
    assert (said == audit.NOT_REPRODUCED) == (undecided and toward_null)
    assert (said == audit.INCONCLUSIVE) == (undecided and not toward_null)
    sizes = (audit.SMALLER, audit.LARGER, audit.SIZE_UNCLEAR)
    assert (said in sizes) == (
        excludes_null and not absent and (not inside_band or null_in_band))


def test_power_matches_a_brute_force_simulation():
    # Interval of half-width q*se: se = 0.1 with normal q; true effect 0.25 (2.5 se).
    q = stats.norm.ppf(0.975)
    said = audit.power(0.5 - q * 0.1, 0.5 + q * 0.1, 0.25)
    rng = np.random.default_rng(0)
    estimates = rng.normal(0.25, 0.1, 200_000)
    brute = np.mean(estimates - q * 0.1 > 0)
    assert said == pytest.approx(brute, abs=0.005)
    assert said == pytest.approx(stats.norm.sf(q - 2.5))


def test_power_with_few_degrees_of_freedom_uses_the_noncentral_t():
    rng = np.random.default_rng(1)
    n, effect, sd = 4, 0.5, 0.4  # t on 3 df
    samples = rng.normal(effect, sd, (100_000, n))
    m, s = samples.mean(1), samples.std(1, ddof=1) / math.sqrt(n)
    q = stats.t.ppf(0.975, n - 1)
    brute = np.mean(m - q * s > 0)
    se = sd / math.sqrt(n)
    said = audit.power(-q * se, q * se, effect, df=n - 1)
    # The noncentral t treats the standard error as estimated: brute force agrees closely.
    assert said == pytest.approx(brute, abs=0.02)


def test_power_is_nan_without_an_interval_or_an_effect_and_rises_with_precision():
    assert math.isnan(audit.power(math.nan, math.nan, 1.0))
    assert math.isnan(audit.power(0.0, 1.0, None))
    assert math.isnan(audit.power(1.0, 1.0, 1.0))
    wide, narrow = audit.power(-2.0, 2.0, 1.0), audit.power(-0.5, 0.5, 1.0)
    assert 0.0 < wide < narrow < 1.0
    assert audit.power(-0.5, 0.5, -1.0) == narrow  # either sign
    with pytest.raises(PruneAuditError, match="df"):
        audit.power(0.0, 1.0, 1.0, df=0)


def test_finding_carries_its_power_unit_and_definition():
    claim = _claim(-0.37, source="H1; Table 6", unit="points", quantity="PIE accuracy minus all",
                   margin=0.2, margin_reason="a fifth")
    row = audit.judge(claim, audit.Estimate(-0.3, -0.4, -0.2, "seeds", df=4))
    assert row.verdict == audit.REPRODUCED and row.paper_band == pytest.approx((-0.57, -0.17))
    assert row.power == pytest.approx(audit.power(-0.4, -0.2, -0.37, df=4))
    assert row.unit == "points" and row.definition == "PIE accuracy minus all"
    assert (row.source, row.basis, row.units) == ("H1; Table 6", "seeds", 5)
    assert list(audit.findings_frame([row]).columns) == list(audit.JSON_KEYS)
    with pytest.raises(PruneAuditError, match="unit"):
        audit.judge(_claim(1.0, unit="furlongs"), audit.Estimate(1.0, 0.5, 1.5, "b"))
    with pytest.raises(PruneAuditError, match="X1: unit 'furlongs'"):
        audit.register("99_test", [_claim(1.0, unit="furlongs")])


def test_mean_interval_needs_two_degrees_of_freedom():
    m, lo, hi = audit.mean_interval([1.0, 2.0])
    assert m == 1.5 and math.isnan(lo) and math.isnan(hi)
    m, lo, hi = audit.mean_interval([1.0, 2.0, 3.0])
    half = stats.t.ppf(0.975, 2) * 1.0 / math.sqrt(3)
    assert (lo, hi) == pytest.approx((2.0 - half, 2.0 + half))
    row = audit.judge(_claim(1.0), audit.Estimate(m, math.nan, math.nan, "two seeds"))
    assert row.verdict == audit.INCONCLUSIVE and row.power is None and row.stability is None
    m, lo, hi = audit.mean_interval([0.5, 0.5, 0.5])
    assert (m, lo, hi) == (0.5, 0.5, 0.5)  # every value alike: an interval of no width
    assert audit.judge(_claim(1.0), audit.Estimate(m, lo, hi, "three seeds")).verdict == (
        audit.INCONCLUSIVE)


def test_no_difference_is_inconclusive_when_the_interval_straddles_the_margin():
    claim = _claim(None, equivalence=True, margin=0.1, margin_reason="a tenth")

    def said(low, high):
        return audit.judge(claim, audit.Estimate(0.0, low, high, "b")).verdict

    assert said(-0.05, 0.05) == audit.REPRODUCED
    assert said(0.12, 0.3) == audit.NOT_REPRODUCED
    assert said(-0.05, 0.3) == audit.INCONCLUSIVE


def test_findings_json_keeps_every_key(tmp_path):
    import json

    row = audit.judge(_claim(0.25, source="H1; Table 6"), audit.Estimate(0.2, 0.1, 0.3, "b"))
    gone = audit.untested(Claim("Y1", "Y1 a test row", says="s", source="H2; Fig. 2",
                                quantity="q", comparability=NOT_TESTABLE,
                                why="no CelebA images offline"))
    path = audit.write_findings_json([row, gone], tmp_path / "p.findings.json")
    items = json.loads(path.read_text())
    assert [list(i) for i in items] == [list(audit.JSON_KEYS)] * 2
    assert "excess" not in audit.JSON_KEYS  # our own questions are rows of their own claims
    assert (items[0]["claim"], items[1]["claim"]) == ("X1", "Y1")
    assert (items[0]["comparability"], items[1]["comparability"]) == ("same", NOT_TESTABLE)
    assert items[1]["power"] is None and items[0]["power"] > 0
    # a file written before claims (an "excess" key, no claim) still reads
    old = {k: v for k, v in items[0].items() if k not in ("claim", "comparability")}
    back = audit.from_json({**old, "excess": [0.05, -0.01, 0.11]})
    assert (back.claim, back.verdict, back.ours) == ("", row.verdict, row.ours)


def test_units_for_power_is_the_fewest_units_that_reach_it():
    low, high, effect, n = -0.41, 0.017, -0.19, 6
    needed = I.units_for_power(low, high, effect, n)
    assert needed is not None and needed > n

    def power_at(m: int) -> float:  # brute force: shrink the half-width as 1/sqrt(m)
        se = (high - low) / (2 * stats.t.ppf(0.975, n - 1)) * (n / m) ** 0.5
        half = stats.t.ppf(0.975, m - 1) * se
        return I.power(-half, half, effect, df=m - 1)

    assert power_at(needed) >= I.TARGET_POWER > power_at(needed - 1)
    assert all(power_at(m) < I.TARGET_POWER for m in range(n, needed))
    # enough power already, or no effect to aim at: nothing to say
    assert I.units_for_power(-0.5, -0.3, -0.4, 30) is None
    assert I.units_for_power(low, high, None, n) is None
    # a row below the target power says how many units would reach it
    row = audit.judge(_claim(-0.19), audit.Estimate(-0.196, low, high, "6 seeds", df=n - 1))
    assert (row.units, row.needed) == (n, needed)
