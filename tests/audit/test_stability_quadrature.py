"""The stability quadrature counts the answers of whole rows of intervals at once: it must give
what reading the rule interval by interval gives (a plain scan, written out here), for the
package's rules (answered many at once) and for any callable (answered one at a time)."""

from __future__ import annotations

import importlib
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pruneaudit import audit
from pruneaudit.audit import rules as R
from pruneaudit.audit.intervals import interval_se
from pruneaudit.errors import PruneAuditError

#: The module (``pruneaudit.audit.stability`` as an attribute is the function of that name).
S = importlib.import_module("pruneaudit.audit.stability")


def scanned(ours, low, high, rule, *, df=None, between_sd=0.0, spread_df=None, fresh=True):
    """:func:`~pruneaudit.audit.stability` read node by node: per replication width, the rule on
    every ``STABILITY_STRIDE``-th centre, and on each centre between two that differ."""
    se = interval_se(low, high, df=df)
    k = df if spread_df is None else spread_df
    z = S._z_nodes(k, S.STABILITY_NODES)
    widths = (1.0,) if k is None or not fresh else S._width_nodes(k)
    centres = ours + math.sqrt(2 * (se**2 + between_sd**2)) * z
    n = len(centres)
    coarse = [*range(0, n - 1, S.STABILITY_STRIDE), n - 1]
    counts: dict[str, int] = {}

    def count(answer: str, times: int = 1) -> None:
        counts[answer] = counts.get(answer, 0) + times

    for width in widths:
        below, above = (ours - low) * width, (high - ours) * width

        def at(i: int) -> str:
            return rule(float(centres[i] - below), float(centres[i] + above))  # noqa: B023

        left = at(0)
        count(left)
        for a, b in zip(coarse, coarse[1:], strict=False):
            right = at(b)
            if left == right:
                count(left, b - a)
            else:
                for i in range(a + 1, b):
                    count(at(i))
                count(right)
            left = right
    same = counts.pop(rule(low, high), 0)
    other = max(counts, key=counts.__getitem__) if counts else ""
    return same / (n * len(widths)), other


def _rule(kind: int, paper: float, margin: float) -> R.IntervalRule:
    if kind == 0:
        return R.verdict_rule(paper, margin=margin, paper_se=0.05 if margin else None)
    if kind == 1:
        return R.verdict_rule(None, direction=1 if paper >= 0 else -1, smallest=margin or None)
    if kind == 2:
        return R.direction_rule(R.BEYOND_WORDS, -1, null=0.1, negligible=margin or None)
    return R.equivalence_rule(margin or 0.2, null=paper)


@settings(max_examples=60, deadline=None)
@given(
    st.floats(-1.5, 1.5), st.floats(0.01, 1.0), st.floats(0.2, 1.0),
    st.integers(0, 3), st.sampled_from([-0.6, 0.3, 0.9]), st.sampled_from([0.0, 0.05, 0.2]),
    st.sampled_from([None, 2, 5, 30]), st.sampled_from([0.0, 0.1]), st.booleans(),
)
def test_counts_equal_a_scan_interval_by_interval(
    ours, half, skew, kind, paper, margin, df, between, fresh
):
    low, high = ours - half, ours + half * skew
    rule = _rule(kind, paper, margin)
    plain = lambda lo, hi: rule(lo, hi)  # noqa: E731  a callable without `codes`
    expected = scanned(ours, low, high, rule, df=df, between_sd=between, fresh=fresh)
    for r in (rule, plain):
        got = audit.stability(ours, low, high, r, df=df, between_sd=between, fresh_spread=fresh)
        assert got == expected


def test_ties_between_other_answers_go_to_the_first_met():
    """Two other answers held on equally many nodes: the one met first (lowest centre) wins."""
    def rule(lo, hi):
        centre = (lo + hi) / 2
        return "said" if abs(centre) < 0.1 else ("below" if centre < 0 else "above")

    centres = math.sqrt(2) * interval_se(-0.1, 0.1) * S._z_nodes(None, S.STABILITY_NODES)
    assert (centres < -0.1).sum() == (centres > 0.1).sum() > 0  # a tie
    value, other = audit.stability(0.0, -0.1, 0.1, rule)
    assert other == "below" and value == scanned(0.0, -0.1, 0.1, rule)[0]


def test_many_intervals_answer_as_each_does_alone():
    rule = R.verdict_rule(0.5, margin=0.1)
    lows = np.array([[0.45, -1.0, 0.2, math.nan], [0.9, 0.0, -math.inf, 0.3]])
    highs = np.array([[0.55, -0.2, 0.8, 1.0], [1.2, 0.0, 0.1, 0.3]])
    codes = rule.codes(lows, highs)
    assert codes.shape == lows.shape
    said = [[rule.answers[c] for c in row] for row in codes]
    assert said == [[rule(lo, hi) for lo, hi in zip(a, b, strict=True)]
                    for a, b in zip(lows.tolist(), highs.tolist(), strict=True)]
    assert said == [[R.REPRODUCED, R.OPPOSITE, R.SIZE_UNCLEAR, R.INCONCLUSIVE],
                    [R.LARGER, R.INCONCLUSIVE, R.INCONCLUSIVE, R.INCONCLUSIVE]]


ENDS = st.one_of(st.floats(-2, 2), st.sampled_from([0.0, -0.0, 0.05, -0.2, 0.3, 0.6, 1.5, math.inf,
                                                     -math.inf, math.nan]))


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 3), st.sampled_from([-0.6, 0.3, 0.9]), st.sampled_from([0.0, 0.05, 0.2]),
       st.lists(st.tuples(ENDS, ENDS), min_size=1, max_size=30))
def test_the_elementwise_mirror_answers_as_the_rule(kind, paper, margin, pairs):
    """``codes`` (what the quadrature reads) and the rule itself (what a row prints) agree on
    every interval: ordered, zero-width, infinite or NaN ends."""
    rule = _rule(kind, paper, margin)
    pairs = [(lo, hi) if not lo > hi else (hi, lo) for lo, hi in pairs]
    lows, highs = (np.array(side, dtype=float) for side in zip(*pairs, strict=True))
    assert [rule.answers[c] for c in rule.codes(lows, highs)] == [rule(*p) for p in pairs]


def test_an_interval_whose_low_is_above_its_high_is_one_clear_error():
    rule = R.direction_rule(R.ANALOGUE_WORDS, 1)
    with pytest.raises(PruneAuditError, match="interval low 0.5 is above its high 0.2"):
        rule.codes(np.array([0.0, 0.5]), np.array([1.0, 0.2]))
    with pytest.raises(PruneAuditError, match="interval low 2.0 is above its high 1.0"):
        rule(2.0, 1.0)
