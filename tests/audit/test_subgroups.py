"""Sub-group error rate, FPR and FNR; baseline vs compressed populations."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pruneaudit import audit
from pruneaudit.errors import PruneAuditError

# 8 examples, binary target, two binary group attributes A and B.
Y = np.array([1, 1, 0, 0, 1, 0, 1, 0])
P = np.array([1, 0, 0, 1, 1, 0, 0, 0])  # errors: x1 (FN), x3 (FP), x6 (FN)
G = pd.DataFrame({"A": [0, 0, 0, 0, 1, 1, 1, 1], "B": [0, 1, 0, 1, 0, 1, 0, 1]})
NAN = float("nan")
# (grouping, group): (n, error_rate, fpr, fnr), by hand:
EXPECTED = {
    ("overall", "all"): (8, 3 / 8, 1 / 4, 2 / 4),  # negatives x2,x3,x5,x7; positives x0,x1,x4,x6
    ("A", "A=0"): (4, 2 / 4, 1 / 2, 1 / 2),  # x0..x3: FP x3 of {x2,x3}, FN x1 of {x0,x1}
    ("A", "A=1"): (4, 1 / 4, 0 / 2, 1 / 2),  # x4..x7: FN x6 of {x4,x6}
    ("B", "B=0"): (4, 1 / 4, 0 / 1, 1 / 3),  # x0,x2,x4,x6: FN x6 of {x0,x4,x6}
    ("B", "B=1"): (4, 2 / 4, 1 / 3, 1 / 1),  # x1,x3,x5,x7: FP x3 of {x3,x5,x7}, FN x1 of {x1}
    ("A & B", "A=0 & B=0"): (2, 0.0, 0.0, 0.0),  # x0, x2 right
    ("A & B", "A=0 & B=1"): (2, 1.0, 1.0, 1.0),  # x1 FN, x3 FP
    ("A & B", "A=1 & B=0"): (2, 1 / 2, NAN, 1 / 2),  # x4, x6 both positive: no FPR
    ("A & B", "A=1 & B=1"): (2, 0.0, 0.0, NAN),  # x5, x7 both negative: no FNR
}


def _check(table: pd.DataFrame, expected: dict) -> None:
    assert len(table) == len(expected)
    t = table.set_index(["grouping", "group"])
    for key, (n, err, fpr, fnr) in expected.items():
        row = t.loc[key]
        assert row["n"] == n
        np.testing.assert_allclose(
            row[["error_rate", "fpr", "fnr"]].to_numpy(float), [err, fpr, fnr], err_msg=str(key)
        )


def test_group_metrics_hand_computed():
    table = audit.group_metrics(Y, P, G)
    assert list(table.columns) == ["grouping", "group", "n", "error_rate", "fpr", "fnr"]
    assert table.iloc[0][["grouping", "group"]].tolist() == ["overall", "all"]
    _check(table, EXPECTED)


def test_one_vs_rest():
    y = [0, 1, 2, 2]
    p = [0, 2, 2, 1]
    table = audit.group_metrics(
        y, p, pd.Series(["a", "a", "b", "b"], name="s"), positive_class=2
    )
    # multiclass error: x1, x3 wrong -> 2/4; "is 2": y [0,0,1,1], p [0,1,1,0]
    # FPR: negatives x0, x1, FP x1 -> 1/2; FNR: positives x2, x3, FN x3 -> 1/2
    # s=a: x0, x1: error 1/2, FPR 1/2, no positive; s=b: x2, x3: error 1/2, no negative, FNR 1/2
    _check(
        table,
        {
            ("overall", "all"): (4, 0.5, 0.5, 0.5),
            ("s", "s=a"): (2, 0.5, 0.5, NAN),
            ("s", "s=b"): (2, 0.5, NAN, 0.5),
        },
    )


def test_population_reductions():
    preds = np.stack([Y, P, P])
    # modal of [Y, P, P] is P (two of three votes) -> same as group_metrics(Y, P)
    _check(audit.population_group_metrics(Y, preds, G, reduce="modal"), EXPECTED)
    members = audit.population_group_metrics(Y, preds, G, reduce="members")
    assert sorted(members["member"].unique()) == [0, 1, 2]
    mean = audit.population_group_metrics(Y, preds, G).set_index(["grouping", "group"])
    # overall mean error over members: (0 + 3/8 + 3/8) / 3 = 1/4
    assert mean.loc[("overall", "all"), "error_rate"] == pytest.approx(0.25)
    # FNR of B=1 per member: 0, 1, 1 -> 2/3
    assert mean.loc[("B", "B=1"), "fnr"] == pytest.approx(2 / 3)


def test_compare_group_metrics_hand_computed():
    out = audit.compare_group_metrics(
        audit.population_group_metrics(Y, np.stack([Y, P]), G),
        audit.population_group_metrics(Y, np.stack([P, P]), G),
    )
    assert list(out.columns) == [
        "grouping",
        "group",
        "n",
        "metric",
        "baseline",
        "compressed",
        "normalized_difference",
    ]
    t = out.set_index(["grouping", "group", "metric"])
    # overall error: baseline (0 + 3/8)/2 = 3/16, compressed 3/8 -> (3/8 - 3/16)/(3/16) = 1
    row = t.loc[("overall", "all", "error_rate")]
    assert (row["baseline"], row["compressed"]) == pytest.approx((3 / 16, 3 / 8))
    assert row["normalized_difference"] == pytest.approx(1.0)
    # A=1 FPR: baseline 0, compressed 0 -> normalized difference undefined (NaN)
    assert np.isnan(t.loc[("A", "A=1", "fpr"), "normalized_difference"])
    assert len(out) == 3 * len(EXPECTED)


def test_normalized_difference():
    # (0.3 - 0.2)/0.2 = 0.5; (0.1 - 0.2)/0.2 = -0.5; baseline 0 -> NaN
    np.testing.assert_allclose(
        audit.normalized_difference([0.2, 0.2, 0.0], [0.3, 0.1, 0.4]), [0.5, -0.5, NAN]
    )


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: audit.group_metrics([0, 1, 2], [0, 1, 1], G.iloc[:3]), "not binary"),
        (lambda: audit.group_metrics(Y, P, G.iloc[:5]), "5 rows but there are 8"),
        (lambda: audit.group_metrics(Y, P[:5], G), "8 examples.*5"),
        (lambda: audit.group_metrics(Y, P, G, positive_class=-1), "-1 does not occur"),
        (lambda: audit.group_metrics(Y, P, G, positive_class=True), "integer label"),
        (lambda: audit.group_metrics(Y, P, G.assign(A=np.nan)), "missing"),
        (lambda: audit.population_group_metrics(Y, P, G), r"\(K, N\)"),
        (lambda: audit.population_group_metrics(Y, P[None], G, reduce="median"), "reduce"),
        (
            lambda: audit.compare_group_metrics(
                audit.population_group_metrics(Y, P[None], G),
                audit.population_group_metrics(Y[:4], P[None, :4], G.iloc[:4]),
            ),
            "do not line up",
        ),
        (
            lambda: audit.compare_group_metrics(
                audit.population_group_metrics(Y, P[None], G, reduce="members"),
                audit.population_group_metrics(Y, P[None], G, reduce="members"),
            ),
            "reduce='mean'",
        ),
        (lambda: audit.compare_group_metrics(G, G), "population_group_metrics"),
        (lambda: audit.normalized_difference([1.0], [1.0, 2.0]), "shape"),
    ],
)
def test_bad_input_raises(call, match):
    with pytest.raises(PruneAuditError, match=match):
        call()


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 1), st.integers(0, 1), st.integers(0, 2), st.integers(0, 1)),
        min_size=1,
        max_size=30,
    )
)
def test_rates_in_unit_interval_and_group_sizes_add_up(rows):
    y, p, a, b = (np.array(c) for c in zip(*rows, strict=True))
    table = audit.group_metrics(y, p, pd.DataFrame({"a": a, "b": b}))
    values = table[["error_rate", "fpr", "fnr"]].to_numpy(float)
    ok = ~np.isnan(values)
    assert ((values[ok] >= 0) & (values[ok] <= 1)).all()
    for grouping, part in table.groupby("grouping"):
        assert part["n"].sum() == len(rows), grouping
    # overall error rate is the n-weighted mean of the unitary groups' error rates
    unit = table[table["grouping"] == "a"]
    overall = table.iloc[0]["error_rate"]
    assert overall == pytest.approx((unit["n"] * unit["error_rate"]).sum() / len(rows))


def test_rates_equal_fairlearns_own_functions_per_group():
    """The rates made from each group's counts are, bit for bit, fairlearn's
    ``false_positive_rate`` / ``false_negative_rate`` and the mean error of the group's rows."""
    from fairlearn.metrics import false_negative_rate, false_positive_rate

    rng = np.random.default_rng(3)
    y = rng.integers(0, 4, 400)
    p = np.where(rng.random(400) < 0.7, y, rng.integers(0, 4, 400))
    groups = pd.DataFrame({"a": rng.integers(0, 3, 400), "b": rng.integers(0, 2, 400)})
    table = audit.group_metrics(y, p, groups, positive_class=2).set_index("group")
    for (a, b), rows in groups.groupby(["a", "b"]).groups.items():
        yt, yp = y[rows] == 2, p[rows] == 2
        row = table.loc[f"a={a} & b={b}"]
        assert row["n"] == len(rows)
        assert row["error_rate"] == np.mean(y[rows] != p[rows])
        assert row["fpr"] == false_positive_rate(yt, yp, pos_label=True)
        assert row["fnr"] == false_negative_rate(yt, yp, pos_label=True)
