"""The template's study: populations trained through the store once, its curves computed by
hand, and its finding reproduced on an effect and not on the null."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from chart_style import check

from pruneaudit import audit, runs, training
from pruneaudit.errors import PruneAuditError
from pruneaudit.runs import ResultsStore
from pruneaudit.studies import template
from pruneaudit.studies.template.run import accuracy_drops, class_curves


def _curves(first: np.ndarray, last: np.ndarray) -> pd.DataFrame:
    """Curves of ``len(first)`` classes at iterations 0 and 1 (accuracy ``first``, ``last``)."""
    n = len(first)
    return pd.DataFrame({"class": [f"digit {c}" for c in range(n)] * 2,
                         "iteration": [0] * n + [1] * n, "sparsity": [0.0] * n + [0.2] * n,
                         "accuracy": [*first, *last]})


def _result(curves: pd.DataFrame) -> template.Result:
    params = template.Params(n_classes=curves["class"].nunique(), iterations=1)
    return template.Result(params, {}, curves)


def test_params_seeds_levels_and_rules() -> None:
    params = template.Params(n_classes=3, iterations=2, seed=4)
    assert params.seeds == (4, 5) and params.levels == (0.2, 0.36)
    assert template.Params().as_dict() == {"n_classes": 10, "iterations": 20, "seed": 0,
                                           "data_root": None, "store": None, "device": "auto"}
    for bad, message in [({"n_classes": 1}, "n_classes must be in 2..10"),
                         ({"n_classes": 11}, "n_classes must be in 2..10"),
                         ({"iterations": 0}, "iterations must be at least 1"),
                         ({"seed": -1}, r"seeds in \[0, 10000\)")]:
        with pytest.raises(PruneAuditError, match=message):
            template.Params(**bad)


def _population(accuracy: list[list[float]], sparsity: list[float]) -> runs.Population:
    """Members (rows) x classes (columns) of per-class accuracy."""
    classes = pd.DataFrame([(m, c, a) for m, row in enumerate(accuracy) for c, a in enumerate(row)],
                           columns=["key", "class", "accuracy"])
    n = len(accuracy)
    return runs.Population((), np.zeros((n, 1)), np.zeros(1), classes, np.array(sparsity))


def test_curves_are_the_members_mean_hand_computed() -> None:
    pops = {0.2: _population([[0.5, 0.7, 0.1], [0.3, 0.9, 0.3]], [0.19, 0.21]),
            0.0: _population([[0.8, 1.0, 0.6], [0.6, 0.8, 0.2]], [0.0, 0.0])}
    curves = class_curves(pops, 2)
    assert curves["class"].tolist() == ["digit 0", "digit 1"] * 2
    assert curves["iteration"].tolist() == [0, 0, 1, 1]
    assert np.allclose(curves["sparsity"], [0, 0, 0.2, 0.2])
    assert np.allclose(curves["accuracy"], [0.7, 0.9, 0.4, 0.8])
    assert np.allclose(accuracy_drops(curves), [-0.3, -0.1])


def test_run_trains_through_the_store_once(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    params = template.Params(n_classes=3, iterations=1, seed=0, data_root=str(data_root))
    store = ResultsStore(tmp_path)
    result = template.run(params, store, progress=False)
    assert result.params is params and sorted(result.populations) == [0.0, 0.2]
    assert len(store.keys()) == 2 * template.params.MEMBERS
    dense = result.populations[0.0]
    assert len(dense.specs) == 2 and [s.seed for s in dense.specs] == [0, 1]
    hits = (dense.preds == dense.labels).astype(float)
    by_hand = [hits[:, dense.labels == c].mean(axis=1).mean() for c in range(3)]
    assert np.allclose(result.curves.query("iteration == 0")["accuracy"], by_hand)
    assert result.curves.query("iteration == 1")["sparsity"].iloc[0] == pytest.approx(0.2, abs=0.01)
    assert template.numbers(result)["n_classes"] == 3

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("a stored member was trained again")

    monkeypatch.setattr(training, "train_packed", never)
    assert template.run(params, store, progress=False).curves.equals(result.curves)


@pytest.mark.slow  # trains two populations through the store: about 25 s on 2 cores
def test_finding_null_and_effect() -> None:
    rng = np.random.default_rng(0)
    null = [template.findings(_result(_curves(0.9 + rng.normal(0, 0.01, 6),
                                              0.9 + rng.normal(0, 0.01, 6))))[0].verdict
            for _ in range(200)]
    assert sum(v in audit.FAILING for v in null) >= 190
    effect = template.findings(_result(_curves(np.full(6, 0.9), 0.6 + rng.normal(0, 0.01, 6))))[0]
    # the template's own question (no paper): judged against its own null, never "reproduced"
    assert effect.verdict == audit.PRESENT and effect.ours < 0
    assert effect.claim == "T1" and effect.comparability == "beyond"


def test_charts_have_an_explorer() -> None:
    result = _result(_curves(np.array([0.9, 0.8, 0.7]), np.array([0.5, 0.6, 0.7])))
    spec = template.views.class_view(result).to_dict()
    assert spec["params"][0]["bind"]["input"] == "select"
    assert template.key_figure(result).to_dict()["layer"]
    check(template.key_figure(result), template.views.class_view(result))


def test_protocol_and_cost() -> None:
    params = template.Params(n_classes=3, iterations=2)
    table = template.protocol_table(template.Result(params, {}, pd.DataFrame()))
    table = table.set_index("setting")
    assert table.loc["pruning rounds of 20%", "this page"] == (
        "2 (sparsity 36.0%), one population each")
    assert table.loc["digits followed", "this page"] == "0-2"
    # 2 members x (dense + 2 levels), 3 epochs each on 800 digits (80% of the first 1,000)
    (work,) = template.cost(params)
    assert (work.model, work.models, work.model_epochs, work.images, work.evaluations) == (
        "lenet", 6, 18, 18 * 800, 6)
