"""Pareto front, accuracy floor and operating-point selection."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from pruneaudit import audit
from pruneaudit.errors import PruneAuditError

CANDIDATES = pd.DataFrame(
    {
        "sparsity": [0.5, 0.7, 0.6, 0.5, 0.9, 0.4],
        "unfairness": [0.10, 0.20, 0.25, 0.10, 0.30, 0.05],
        "accuracy": [0.99, 0.985, 0.99, 0.99, 0.97, 0.995],
    },
    index=list("ABCDEF"),
)
TWO = {"sparsity": "max", "unfairness": "min"}


def test_front_hand_computed():
    # C (0.6, 0.25) is dominated by B (0.7, 0.20); A and D are identical and both kept;
    # E has the highest sparsity, F the lowest unfairness.
    mask = audit.pareto_front(CANDIDATES, TWO)
    assert CANDIDATES.index[mask].tolist() == ["A", "B", "D", "E", "F"]
    # three objectives: C (0.6, 0.25, 0.99) vs B (0.7, 0.20, 0.985): B worse in accuracy, so C
    # is now non-dominated; nothing else changes.
    mask3 = audit.pareto_front(CANDIDATES, {**TWO, "accuracy": "max"})
    assert mask3.all()


def test_front_array_and_senses():
    pts = np.array([[1.0, 1.0], [2.0, 2.0], [0.0, 3.0]])
    # maximize both: [2,2] dominates [1,1]; [0,3] is best in the second objective
    assert audit.pareto_front(pts, ["max", "max"]).tolist() == [False, True, True]
    # minimize both: [1,1] dominates [2,2]; [0,3] is best in the first
    assert audit.pareto_front(pts, ["min", "min"]).tolist() == [True, False, True]


def test_accuracy_floor():
    kept = audit.accuracy_floor(CANDIDATES, "accuracy", 0.98)
    assert kept.index.tolist() == ["A", "B", "C", "D", "F"]  # E (0.97) is below the floor


def test_select_operating_point():
    # value = -100 * unfairness + sparsity:
    # A -9.5, B -19.3, C -24.4, D -9.5, E -29.1, F -4.6 -> F
    row = audit.select_operating_point(CANDIDATES, {"unfairness": -100, "sparsity": 1})
    assert row.name == "F"
    assert row["value"] == pytest.approx(-4.6)
    # sparsity only -> E (0.9), the "highest sparsity" choice
    assert audit.select_operating_point(CANDIDATES, {"sparsity": 1}).name == "E"
    # tie: A and D both have value -0.10 -> the first in frame order
    tie = CANDIDATES.loc[["D", "B", "A"]]
    assert audit.select_operating_point(tie, {"unfairness": -1}).name == "D"


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: audit.pareto_front(CANDIDATES, {"sparsity": "up"}), "sense"),
        (lambda: audit.pareto_front(CANDIDATES, {"size": "max"}), "size"),
        (lambda: audit.pareto_front(CANDIDATES, ["max", "min"]), "mapping"),
        (lambda: audit.pareto_front(CANDIDATES.iloc[:0], TWO), "no candidate"),
        (lambda: audit.pareto_front(np.ones((3, 2)), ["max"]), "1 senses given for 2"),
        (lambda: audit.pareto_front(np.ones(3), ["max"]), r"\(n, m\)"),
        (lambda: audit.pareto_front(np.array([[np.nan, 1.0]]), ["max", "max"]), "NaN"),
        (lambda: audit.accuracy_floor(CANDIDATES, "acc", 0.9), "'acc'"),
        (lambda: audit.accuracy_floor(CANDIDATES, "accuracy", "high"), "floor"),
        (lambda: audit.select_operating_point(CANDIDATES, {}), "non-empty"),
        (
            lambda: audit.select_operating_point(CANDIDATES.iloc[:0], {"sparsity": 1}),
            "no candidate",
        ),
        (lambda: audit.select_operating_point(CANDIDATES, {"x": 1}), "'x'"),
    ],
)
def test_bad_input_raises(call, match):
    with pytest.raises(PruneAuditError, match=match):
        call()


def _brute_force(x: np.ndarray, senses: list[str]) -> list[bool]:
    s = np.array([1 if v == "max" else -1 for v in senses])
    y = x * s
    keep = []
    for i in range(len(y)):
        dominated = False
        for j in range(len(y)):
            if all(y[j] >= y[i]) and any(y[j] > y[i]):
                dominated = True
                break
        keep.append(not dominated)
    return keep


@settings(max_examples=100, deadline=None)
@given(
    st.integers(2, 3).flatmap(
        lambda m: st.tuples(
            arrays(
                np.float64, st.tuples(st.integers(1, 40), st.just(m)), elements=st.integers(0, 4)
            ),
            st.lists(st.sampled_from(audit.SENSES), min_size=m, max_size=m),
        )
    )
)
def test_front_equals_brute_force(case):
    x, senses = case
    mask = audit.pareto_front(x, senses)
    assert mask.tolist() == _brute_force(x, senses)
    assert mask.any()  # a finite set always has a non-dominated point


def test_front_blocks_equal_brute_force():
    # more points than one comparison block
    x = np.random.default_rng(0).integers(0, 30, size=(600, 3)).astype(float)
    senses = ["max", "min", "max"]
    assert audit.pareto_front(x, senses).tolist() == _brute_force(x, senses)
