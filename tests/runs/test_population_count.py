"""The populations a study's cost states are the population trainer's calls in a cold run."""

from __future__ import annotations

import pytest

from pruneaudit.runs import iterative, populations, series
from pruneaudit.runs.store import ResultsStore
from pruneaudit.studies.params import population_workload, series_workload

GRID = dict(datasets=["mnist"], models=["lenet"], techniques=["l1_unstructured"],
            treatments=["finetune", "rewind"], seeds=[0, 1], iterations=2, epochs=1,
            train_size=200, imbalance_factors=(1.0, 10.0))


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Members per call of the population trainer, as the runs make them."""
    made: list[int] = []
    real = iterative.fit_population

    def counting(nets, *args, **kwargs):
        made.append(len(nets))
        return real(nets, *args, **kwargs)

    monkeypatch.setattr(iterative, "fit_population", counting)
    monkeypatch.setattr(populations, "fit_population", counting)
    return made


def test_a_series_grid_trains_the_populations_its_cost_states(tmp_path, calls) -> None:
    store = ResultsStore(tmp_path / "store")
    series.series_frame(store=store, test_size=100, progress=False, **GRID)
    (workload,) = series_workload(**GRID)
    # per imbalance factor: the dense seeds, then each treatment's two rounds
    assert len(calls) == workload.populations == 2 * (1 + 2 * 2)
    assert sum(calls) == workload.models
    calls.clear()
    series.series_frame(store=store, test_size=100, progress=False, **GRID)
    assert calls == []  # all stored: nothing trains


def test_levels_train_as_one_population(tmp_path, calls) -> None:
    from pruneaudit.runs.spec import RunSpec

    store = ResultsStore(tmp_path / "store")
    base = RunSpec("mnist", "lenet", epochs=1, train_size=200, test_size=100)
    populations.run_levels(base, [0, 1], [0.5, 0.75], store, progress=False)
    workload = population_workload("mnist", "lenet", 6, 1, 6, train_size=200)
    assert len(calls) == workload.populations == 1
    assert calls == [6]
