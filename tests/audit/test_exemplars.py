"""Modal labels, PIE flags, Taxicab and Jaccard scores, percentile selection, over-indexing."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from pruneaudit import audit
from pruneaudit.audit.exemplars import modal_from_votes, tied_modes
from pruneaudit.errors import PruneAuditError

# K = 3 models, N = 4 examples, C = 3 classes.
BASE = np.array(
    [
        [0, 1, 2, 0],
        [0, 2, 2, 1],
        [1, 2, 0, 2],
    ]
)
COMP = np.array(
    [
        [0, 1, 1, 2],
        [0, 1, 1, 0],
        [1, 1, 0, 2],
    ]
)
Y = np.array([0, 2, 1, 2])


def test_vote_counts_and_modal_labels_hand_computed():
    # baseline votes per example (class 0, 1, 2):
    #   x0: 0,0,1 -> [2,1,0]; x1: 1,2,2 -> [0,1,2]; x2: 2,2,0 -> [1,0,2]; x3: 0,1,2 -> [1,1,1]
    np.testing.assert_array_equal(
        audit.vote_counts(BASE, 3), [[2, 1, 0], [0, 1, 2], [1, 0, 2], [1, 1, 1]]
    )
    # x3 is a three-way tie -> the largest label, 2 (H1's released code: pandas mode().max())
    np.testing.assert_array_equal(audit.modal_labels(BASE, 3), [0, 2, 2, 2])
    np.testing.assert_array_equal(tied_modes(BASE, 3), [False, False, False, True])
    # compressed votes: x0 [2,1,0], x1 [0,3,0], x2 [1,2,0], x3 [1,0,2] -> modal 0, 1, 1, 2
    np.testing.assert_array_equal(audit.modal_labels(COMP, 3), [0, 1, 1, 2])


def test_tie_rule_largest_label_as_h1_code():
    # two models: votes 1 for class 2 and 1 for class 1 -> 2; for class 3 and 0 -> 3.
    preds = np.array([[2, 3], [1, 0]])
    np.testing.assert_array_equal(audit.modal_labels(preds, 4), [2, 3])
    # H1's aggregate_predictions.py: the mode of each example's predictions, max of the modes
    np.testing.assert_array_equal(pd.DataFrame(preds).mode().max().to_numpy(), [2, 3])
    # a weighted vote (a bootstrap resample) follows the same rule
    np.testing.assert_array_equal(modal_from_votes(np.array([[0.0, 2, 2], [3, 1, 0]])), [2, 0])


def test_pie_flags_hand_computed():
    # modal baseline [0,2,2,2] vs compressed [0,1,1,2]
    np.testing.assert_array_equal(audit.pie_flags(BASE, COMP), [False, True, True, False])
    np.testing.assert_array_equal(audit.pie_flags(BASE, COMP, 3), [False, True, True, False])


def test_taxicab_and_jaccard_hand_computed():
    # x0: b=[2,1,0] v=[2,1,0] -> d_T 0, d_J 0
    # x1: b=[0,1,2] v=[0,3,0] -> d_T 0+2+2 = 4; min sum 1, max sum 5 -> d_J 1 - 1/5 = 0.8
    # x2: b=[1,0,2] v=[1,2,0] -> d_T 4; min sum 1, max sum 5 -> 0.8
    # x3: b=[1,1,1] v=[1,0,2] -> d_T 0+1+1 = 2; min sum 2, max sum 4 -> 0.5
    np.testing.assert_array_equal(audit.taxicab_scores(BASE, COMP), [0, 4, 4, 2])
    np.testing.assert_allclose(audit.jaccard_scores(BASE, COMP), [0, 0.8, 0.8, 0.5])
    # closed form d_T / (K + d_T/2) with K = 3: 4/5 = 0.8 and 2/4 = 0.5
    d_t = audit.taxicab_scores(BASE, COMP)
    np.testing.assert_allclose(audit.jaccard_scores(BASE, COMP), d_t / (3 + d_t / 2))


def test_population_accuracy_hand_computed():
    # baseline modal [0,2,2,2] vs y [0,2,1,2]: right on x0, x1, x3 -> 3/4
    # baseline members right: m0 {x0}, m1 {x0,x1}, m2 {x1,x3} -> 5 of 12
    acc = audit.population_accuracy(Y, BASE, 3)
    assert acc == {"modal": 0.75, "mean_member": pytest.approx(5 / 12), "n": 4}
    table = audit.pie_accuracy(Y, BASE, COMP, 3).set_index(["subset", "population"])
    expected = {
        # PIE = {x1, x2}
        ("pie", "baseline"): (2, 1 / 2, 2 / 6),  # modal right on x1; members 2+0 of 6
        ("pie", "compressed"): (2, 1 / 2, 2 / 6),  # modal right on x2; members 0+2 of 6
        ("non_pie", "baseline"): (2, 1.0, 3 / 6),  # x0: m0, m1 right; x3: m2 right
        ("non_pie", "compressed"): (2, 1.0, 4 / 6),  # x0: 2 right; x3: 2 right
        ("all", "baseline"): (4, 0.75, 5 / 12),
        ("all", "compressed"): (4, 0.75, 6 / 12),  # members 3+2+1 of 12
    }
    for key, (n, modal, member) in expected.items():
        row = table.loc[key]
        assert row["n"] == n
        assert row["modal_accuracy"] == pytest.approx(modal)
        assert row["mean_member_accuracy"] == pytest.approx(member)


def test_population_accuracy_empty_subset_is_nan():
    acc = audit.population_accuracy(Y, BASE, 3, np.zeros(4, dtype=bool))
    assert acc["n"] == 0 and np.isnan(acc["modal"]) and np.isnan(acc["mean_member"])


def test_top_percentile_hand_computed():
    scores = np.array([0, 4, 4, 2])
    # q = 50: ceil(4 * 50 / 100) = 2 examples -> the two 4s
    np.testing.assert_array_equal(audit.top_percentile(scores, 50, seed=0), [0, 1, 1, 0])
    # q = 90: ceil(4 * 10 / 100) = 1 example, one of the tied 4s, chosen by seed
    picks = {int(np.flatnonzero(audit.top_percentile(scores, 90, seed=s))[0]) for s in range(20)}
    assert picks == {1, 2}
    # q = 99 on 1000 examples: exactly 10
    assert audit.top_percentile(np.arange(1000), 99, seed=0).sum() == 10


def test_top_percentile_ties_are_seeded():
    flat = np.zeros(100)
    a = audit.top_percentile(flat, 90, seed=1)
    assert a.sum() == 10
    np.testing.assert_array_equal(a, audit.top_percentile(flat, 90, seed=1))
    assert any(not np.array_equal(a, audit.top_percentile(flat, 90, seed=s)) for s in range(2, 6))


@settings(max_examples=50, deadline=None)
@given(
    arrays(np.int64, st.integers(1, 60), elements=st.integers(0, 5)),
    st.sampled_from(audit.PERCENTILES),
    st.integers(0, 2**32 - 1),
)
def test_top_percentile_keeps_highest(scores, q, seed):
    mask = audit.top_percentile(scores, q, seed)
    assert mask.sum() == int(np.ceil(scores.size * (100 - q) / 100))
    if (~mask).any():
        assert scores[mask].min() >= scores[~mask].max()


def test_over_indexing_hand_computed():
    train = pd.DataFrame({"series": ["a", "a", "a", "b"]})
    cie_set = pd.DataFrame({"series": ["a", "b"]})
    out = audit.over_indexing(train, cie_set).set_index("value")
    # shares: train a 3/4, b 1/4; CIE a 1/2, b 1/2 -> over-index a (1/2)/(3/4) = 2/3, b 2
    np.testing.assert_allclose(out["train_share"], [0.75, 0.25])
    np.testing.assert_allclose(out["cie_share"], [0.5, 0.5])
    np.testing.assert_allclose(out["over_index"], [2 / 3, 2.0])
    assert out["cie_count"].tolist() == [1, 1]


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: audit.taxicab_scores(BASE, COMP[:2]), "K = 3.*K = 2"),
        (lambda: audit.jaccard_scores(BASE[:1], COMP), "K = 1.*K = 3"),
        (lambda: audit.pie_flags(BASE, COMP[:, :3]), "4 examples.*3"),
        (lambda: audit.modal_labels(BASE, 2), "label 2.*0..1"),
        (lambda: audit.modal_labels(np.zeros((0, 3), int), 2), "empty population"),
        (lambda: audit.modal_labels([0, 1], 2), r"\(K, N\)"),
        (lambda: audit.top_percentile([1.0, 2.0], 100, 0), "1..99"),
        (lambda: audit.top_percentile([1.0, np.nan], 90, 0), "NaN"),
        (lambda: audit.top_percentile([1.0, 2.0], 90, None), "seed"),
        (lambda: audit.population_accuracy(Y[:3], BASE, 3), "3 examples.*4"),
        (lambda: audit.population_accuracy(Y, BASE, 3, [1, 0, 1, 0]), "boolean"),
        (lambda: audit.over_indexing(pd.DataFrame({"s": []}), pd.DataFrame({"s": []})), "no rows"),
        (lambda: audit.over_indexing(pd.DataFrame({"s": [1]}), pd.DataFrame({"t": [1]})), "lacks"),
    ],
)
def test_bad_input_raises(call, match):
    with pytest.raises(PruneAuditError, match=match):
        call()


def _population(k: int, n: int, c: int) -> st.SearchStrategy:
    return arrays(np.int64, (k, n), elements=st.integers(0, c - 1))


pairs = st.tuples(st.integers(1, 8), st.integers(1, 12), st.integers(1, 5)).flatmap(
    lambda s: st.tuples(st.just(s[2]), _population(*s), _population(*s))
)


@settings(max_examples=100, deadline=None)
@given(pairs)
def test_modal_label_is_largest_most_frequent(case):
    c, base, _ = case
    votes = audit.vote_counts(base, c)
    assert (votes.sum(axis=1) == base.shape[0]).all()
    modal = audit.modal_labels(base, c)
    for x in range(base.shape[1]):
        most = np.flatnonzero(votes[x] == votes[x].max())
        assert modal[x] == most.max() == pd.Series(base[:, x]).mode().max()


@settings(max_examples=100, deadline=None)
@given(pairs)
def test_taxicab_symmetric_and_zero_iff_equal_votes(case):
    c, base, comp = case
    d = audit.taxicab_scores(base, comp, c)
    np.testing.assert_array_equal(d, audit.taxicab_scores(comp, base, c))
    same = (audit.vote_counts(base, c) == audit.vote_counts(comp, c)).all(axis=1)
    np.testing.assert_array_equal(d == 0, same)
    assert ((d >= 0) & (d <= 2 * base.shape[0])).all()


@settings(max_examples=100, deadline=None)
@given(pairs)
def test_jaccard_and_taxicab_order_every_pair_identically(case):
    c, base, comp = case
    k = base.shape[0]
    d_t = audit.taxicab_scores(base, comp, c)
    d_j = audit.jaccard_scores(base, comp, c)
    np.testing.assert_allclose(d_j, d_t / (k + d_t / 2))
    np.testing.assert_array_equal(
        np.sign(d_t[:, None] - d_t[None, :]), np.sign(d_j[:, None] - d_j[None, :])
    )


def test_permutation_null_recomputes_the_statistic_on_re_splits():
    b = np.array([[0, 1, 1], [0, 1, 0]])
    v = np.array([[1, 1, 1], [1, 0, 1]])

    def share(votes_b, votes_v):  # share of examples whose modal labels differ
        return [np.mean(votes_b.argmax(1) != votes_v.argmax(1))]

    observed, null = audit.MemberVotes.of(b, v, 2).permutation_null(share, n_perm=50, seed=1)
    # this statistic's own argmax: baseline [0, 1, 0] (ties to the smallest), compressed [1, 0, 1]
    assert observed.tolist() == [1.0]
    assert null.shape == (50, 1)
    members = np.concatenate([b, v])
    # brute force: every split of the 4 members into 2 + 2 gives one of these values
    values = set()
    for i in range(4):
        for j in range(i + 1, 4):
            pick = [i, j]
            rest = [k for k in range(4) if k not in pick]
            values.add(share(audit.vote_counts(members[pick], 2),
                             audit.vote_counts(members[rest], 2))[0])
    assert set(null[:, 0]) <= values


@pytest.mark.parametrize("k_b, k_c", [(4, 4), (5, 3), (3, 6), (1, 2)])
def test_permutation_null_re_splits_are_balanced(k_b, k_c):
    # baseline members all vote 0, compressed ones all 1: a group's votes count its members
    b, v = np.zeros((k_b, 7), dtype=int), np.ones((k_c, 7), dtype=int)

    def composition(votes_b, votes_v):
        return [votes_b[0, 0], votes_b[0, 1], votes_v[0, 0], votes_v[0, 1]]

    observed, null = audit.MemberVotes.of(b, v, 2).permutation_null(composition, n_perm=30, seed=0)
    assert observed.tolist() == [k_b, 0, 0, k_c]
    first = [k_b // 2, k_b - k_b // 2, k_b - k_b // 2, k_c - (k_b - k_b // 2)]
    assert (null == first).all()


def test_votes_are_checked_once():
    with pytest.raises(PruneAuditError, match="compressed_preds"):
        audit.MemberVotes.of(np.zeros((2, 4), int), np.zeros((2, 3), int), 2)
    with pytest.raises(PruneAuditError, match="n_perm"):
        audit.MemberVotes.of(np.zeros((2, 4), int), np.zeros((2, 4), int), 2).permutation_null(
            lambda b, v: [0.0], n_perm=0
        )


def test_permutation_null_needs_enough_compressed_members():
    with pytest.raises(PruneAuditError, match="balanced re-split needs at least 3"):
        votes = audit.MemberVotes.of(np.zeros((6, 4), int), np.zeros((2, 4), int), 2)
        votes.permutation_null(lambda b, v: [0.0])


def test_shift_interval_inverts_the_permutation_test():
    null = np.arange(100, dtype=float)  # quantiles (lower 2, higher 97)
    excess, lo, hi = audit.shift_interval(150.0, null)
    assert excess == pytest.approx(150 - 49.5)
    assert lo > 0 and (lo, hi) == (150 - 97.0, 150 - 2.0)  # positions 96.525, 2.475
    _, lo, hi = audit.shift_interval(50.0, null)
    assert lo < 0 < hi
    assert all(np.isnan(audit.shift_interval(1.0, [np.nan])))


def test_bootstrap_resamples_each_population_with_replacement():
    # baseline members vote 0, 0, 1 on the one example; compressed members all vote 1
    b, v = np.array([[0], [0], [1]]), np.array([[1], [1], [1]])

    def stat(votes_b, votes_v):
        return [votes_b[0, 0], votes_b[0].sum(), votes_v[0, 1]]

    votes = audit.MemberVotes.of(b, v, 2)
    observed, draws = votes.bootstrap(stat, n_boot=200, seed=3)
    assert observed.tolist() == [2, 3, 3]
    assert (draws[:, 1] == 3).all() and (draws[:, 2] == 3).all()  # K draws, all compressed 1
    assert set(draws[:, 0]) <= {0, 1, 2, 3} and len(set(draws[:, 0])) > 2  # with replacement
    # the count of members voting 0 is Binomial(3, 2/3): mean 2
    assert draws[:, 0].mean() == pytest.approx(2, abs=0.2)
    again = votes.bootstrap(stat, n_boot=200, seed=3)[1]
    np.testing.assert_array_equal(draws, again)  # seeded
    with pytest.raises(PruneAuditError, match="n_boot"):
        votes.bootstrap(stat, n_boot=0)

