"""The populations a study's cost states are the population trainer's calls in a cold run."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import pytest

from pruneaudit.runs import iterative, populations, series
from pruneaudit.runs.series import SeriesGrid
from pruneaudit.runs.store import ResultsStore
from pruneaudit.studies.params import population_workload, series_workload

GRID = SeriesGrid(datasets=["mnist"], models=["lenet"], techniques=["l1_unstructured"],
                  treatments=["finetune", "rewind"], seeds=[0, 1], iterations=2,
                  imbalance_factors=(1.0, 10.0))
#: The grid's training settings.
FIELDS = dict(epochs=1, train_size=200)


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
    series.series_frame(GRID, store, test_size=100, progress=False, **FIELDS)
    (workload,) = series_workload(GRID, **FIELDS)
    # the dense seeds of both imbalance factors, then each round of every series, packed
    assert len(calls) == workload.populations == 1 + 2
    assert sum(calls) == workload.models
    calls.clear()
    series.series_frame(GRID, store, test_size=100, progress=False, **FIELDS)
    assert calls == []  # all stored: nothing trains


def test_levels_train_as_one_population(tmp_path, calls) -> None:
    from pruneaudit.runs.spec import RunSpec

    store = ResultsStore(tmp_path / "store")
    base = RunSpec("mnist", "lenet", epochs=1, train_size=200, test_size=100)
    populations.run_levels(base, [0, 1], [0.5, 0.75], store, progress=False)
    workload = population_workload("mnist", "lenet", 6, 1, 6, train_size=200)
    assert len(calls) == workload.populations == 1
    assert calls == [6]


@pytest.mark.slow
def test_packed_series_equal_each_pool_and_treatment_trained_alone(tmp_path) -> None:
    """Two datasets, two imbalance factors and both treatments packed into three populations
    store what each (dataset, factor, treatment) grid trained on its own stores, bit for bit
    (10 s: `make test-slow`; `tests/training/test_packed.py` checks the trainer's packing in
    `make test`)."""
    import torch

    grid = replace(GRID, datasets=["mnist", "fashion_mnist"])
    fields = dict(FIELDS, epochs=2, dense_epochs=1, test_size=100, progress=False)
    packed = ResultsStore(tmp_path / "packed")
    frame = series.series_frame(grid, packed, **fields)
    alone = ResultsStore(tmp_path / "alone")
    for dataset in grid.datasets:
        for factor in grid.imbalance_factors:
            for treatment in grid.treatments:
                one = replace(grid, datasets=[dataset], imbalance_factors=[factor],
                              treatments=[treatment])
                series.series_frame(one, alone, **fields)
    keys = set(packed.keys())
    assert keys == set(alone.keys()) and len(keys) == 2 * 2 * 2 * (1 + 2 * 2)
    for key in keys:
        a, b = packed.load(key), alone.load(key)
        pd.testing.assert_frame_equal(a.predictions, b.predictions)
        x, y = a.checkpoint(), b.checkpoint()
        assert list(x) == list(y) and all(torch.equal(x[n], y[n]) for n in x), key
    assert len(frame) == 2 * 2 * 2 * 2 * 3 * 10  # (dataset, factor, seed, treatment) x 3 x 10


def test_models_trained_one_at_a_time_are_not_packed() -> None:
    """The cost of a grid of a stacked and an unstacked model: the stacked one packed, the
    other per imbalance factor, treatment and round (its series are not held all at once)."""
    lenet, vgg = series_workload(replace(GRID, models=["lenet", "vgg11"]), **FIELDS)
    assert (lenet.model, lenet.populations) == ("lenet", 1 + 2)
    assert (vgg.model, vgg.populations) == ("vgg11", 2 * (1 + 2 * 2))
