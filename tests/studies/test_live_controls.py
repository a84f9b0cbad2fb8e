"""The live controls of the study pages (``studies/<study>/live.py``): each callback on the
smoke profile's results, checked against what it should compute.

The studies run on a copy of the repository's results store (so nothing a callback evaluates
lands in it); on a fresh clone they train the smoke profile first (minutes), hence ``slow``.
The widget wrapper (:func:`pruneaudit.studies.live.control`) is checked on a stand-in compute.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pruneaudit import audit, config, runs
from pruneaudit.book.profiles import Profile, study_of
from pruneaudit.errors import PruneAuditError
from pruneaudit.runs.store import ResultsStore
from pruneaudit.studies import live
from pruneaudit.studies.compression_impact import live as impact_live
from pruneaudit.studies.pareto_selection import live as pareto_live
from pruneaudit.studies.pareto_selection.frames import UNFAIRNESS
from pruneaudit.studies.population_ols import live as ols_live
from pruneaudit.studies.qmnist_writers import live as writers_live
from pruneaudit.studies.robustness import live as robust_live


@pytest.fixture(scope="module")
def smoke_result(
    tmp_path_factory: pytest.TempPathFactory, data_root: Path
) -> Callable[[str], object]:
    """Notebook name -> its study's Result on the smoke profile, computed once, on a copy of
    the repository's results store."""
    store = tmp_path_factory.mktemp("live") / "results"
    source = config.store_root(None) / "runs"
    if source.is_dir():
        shutil.copytree(source, store / "runs")
    profile = Profile.read("smoke", {"store": str(store), "data_root": str(data_root)})
    done: dict[str, object] = {}

    def result(name: str) -> object:
        if name not in done:
            params = profile.study_params(name)
            done[name] = study_of(name).run(params, ResultsStore(params.store), progress=False)
        return done[name]

    return result


def test_timed_returns_the_value_and_its_seconds() -> None:
    value, seconds = live.timed(lambda x, y: x + y, x=1, y=2)
    assert value == 3 and 0 <= seconds < 1


def test_control_computes_each_pick() -> None:
    import ipywidgets as widgets

    calls: list[dict] = []
    shown: list[int] = []

    def compute(**choice: int) -> int:
        calls.append(choice)
        if choice["n"] < 0:
            raise PruneAuditError("n must be >= 0")
        return 2 * choice["n"]

    picker = widgets.IntSlider(value=1, min=-5)
    box = live.control(compute, shown.append, {"n": picker}, "doubled")
    assert len(box.children) == 2 and box.children[0].children == (picker,)
    picker.value = 4
    picker.value = -1  # an error is shown, not raised
    assert calls == [{"n": 1}, {"n": 4}, {"n": -1}] and shown == [2, 8]


@pytest.mark.slow
def test_population_ols_refit_on_a_subset(smoke_result) -> None:
    result = smoke_result("01_population_ols")
    whole = ols_live.compute(result)
    pd.testing.assert_frame_equal(whole.table, result.coefficients)
    assert whole.rows == int((result.frame["iteration"] > 0).sum())
    factor = ols_live.options(result, "imbalance_factor")[-1]
    refit = ols_live.compute(result, imbalance_factor=factor, dataset="all")
    rows = result.frame[(result.frame["imbalance_factor"] == factor)
                        & (result.frame["iteration"] > 0)]
    assert refit.choice == {"imbalance_factor": factor} and refit.rows == len(rows)
    assert refit.clusters == len(rows[["dataset", "class"]].drop_duplicates())
    assert not refit.table["ours"].equals(whole.table["ours"])
    with pytest.raises(PruneAuditError, match="dataset"):
        ols_live.compute(result, dataset="cifar10")


@pytest.mark.slow
def test_qmnist_writers_rounds_of_one_writer(smoke_result) -> None:
    result = smoke_result("02_qmnist_writers")
    writer = int(result.writers.sort_values("accuracy_change")["writer"].iloc[0])
    view = writers_live.compute(result, writer)
    mine = result.digits["writer"].to_numpy() == writer
    assert view.iteration == result.pruned_iteration
    assert len(view.gallery) == mine.sum() and set(view.gallery["writer"]) == {writer}
    assert list(view.rounds["iteration"]) == list(range(result.params.iterations + 1))
    # the first and the page's pruned round: each seed's accuracy on the writer's digits
    for i, correct in ((0, result.correct_dense), (view.iteration, result.correct_pruned)):
        row = view.rounds.iloc[i]
        expected = correct[:, mine].mean(axis=1)
        seeds = [row[f"seed {s}"] for s in result.params.seeds]
        np.testing.assert_allclose(seeds, expected)
        assert row["mean"] == pytest.approx(expected.mean())
    unpruned = writers_live.compute(result, writer, iteration=0)
    np.testing.assert_array_equal(unpruned.gallery["correct_pruned"],
                                  unpruned.gallery["correct_unpruned"])
    with pytest.raises(PruneAuditError, match="writer"):
        writers_live.compute(result, -1)


@pytest.mark.slow
def test_pareto_repick_meets_the_new_floor_and_is_the_best(smoke_result) -> None:
    result = smoke_result("03_pareto_selection")
    same = pareto_live.compute(result)
    pd.testing.assert_frame_equal(same.chosen, result.chosen)
    pruned = result.points[result.points["iteration"] > 0]
    floors = np.quantile(pruned["accuracy"], [0.2, 0.5, 0.8])
    for floor in floors:
        for weight in (1.0, 100.0):
            repick = pareto_live.compute(result, floor=float(floor), fairness_weight=weight)
            used = repick.candidates.floor_used
            assert used <= floor
            above = pruned[pruned["accuracy"] >= used]
            assert len(above) >= min(result.params.min_candidates, len(pruned))
            pick, sparsest = repick.chosen.iloc[0], repick.chosen.iloc[1]
            assert pick["accuracy"] >= used and sparsest["accuracy"] >= used
            value = (weight * -above[UNFAIRNESS] + result.params.sparsity_weight
                     * above["sparsity"])
            assert pick["value"] == pytest.approx(value.max())  # brute force over the points
            assert sparsest["sparsity"] == pytest.approx(above["sparsity"].max())
    strict = pareto_live.compute(result, floor=float(floors[2]))
    loose = pareto_live.compute(result, floor=float(floors[0]))
    assert len(strict.candidates.frame) <= len(loose.candidates.frame)


@pytest.mark.slow
def test_compression_impact_class_tests_rerun(smoke_result) -> None:
    result = smoke_result("04_compression_impact")
    variant = result.runs.names[0]
    whole = impact_live.compute(result, variant)
    page = impact_live.class_tests(result.runs, result.params.alpha, [variant])
    pd.testing.assert_frame_equal(whole.table, page)
    k = len(result.runs.baseline.specs) - 1
    fewer = impact_live.compute(result, variant, members=k, alpha=0.1)
    labels, classes = result.runs.baseline.labels, result.runs.num_classes
    base = result.runs.baseline.preds[:k]
    other = result.runs.get(variant).population.preds[:k]
    by_hand = audit.class_recall_ttest(*audit.population_recalls(labels, base, classes),
                                       *audit.population_recalls(labels, other, classes),
                                       alpha=0.1)
    np.testing.assert_allclose(fewer.table["p"], by_hand["p"])
    assert fewer.counts["significant"] == int((by_hand["p"] <= 0.1).sum())
    for scheme in result.params.schemes:
        assert impact_live.compute(result, f"{scheme}", members=2).members == 2
    with pytest.raises(PruneAuditError, match="members"):
        impact_live.compute(result, variant, members=1)


@pytest.mark.slow
def test_robustness_pick_is_evaluated_once_and_cached(
    smoke_result, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = smoke_result("05_robustness")
    robust_live.CACHE.clear()
    # a set in the page's grid: the page's own member accuracies
    c, s = result.params.corruption_names[0], result.params.severities[0]
    table = robust_live.compute(result, c, s)
    acc = result.runs.accuracy
    page = acc[(acc["corruption"] == c) & (acc["severity"] == s)]
    expected = page.groupby("level")["accuracy"].mean()
    np.testing.assert_allclose(table.set_index("level")["accuracy"], expected)
    dense = expected.loc[0.0]
    np.testing.assert_allclose(table["change_pct"], 100 * (expected.to_numpy() / dense - 1))
    # a set outside the grid: evaluated once (its runs stored), then read from the cache
    new = next(n for n in ("fog", "pixelate", "jpeg") if n not in result.params.corruption_names)
    store = ResultsStore(result.params.store)
    before = len(store.keys())
    first = robust_live.compute(result, new, 2)
    members = sum(len(p.specs) for p in result.runs.populations.values())
    assert len(store.keys()) == before + members
    calls = []
    real = runs.run_corrupted
    monkeypatch.setattr(runs, "run_corrupted", lambda *a, **k: calls.append(a) or real(*a, **k))
    pd.testing.assert_frame_equal(robust_live.compute(result, new, 2), first)
    assert calls == []
    with pytest.raises(PruneAuditError, match="severities"):
        robust_live.compute(result, new, 6)
