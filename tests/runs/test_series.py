"""Grids of pruning series (shared by Studies 1 and 3): store round trip, class stats, cost."""

from __future__ import annotations

import pandas as pd
import pytest

from pruneaudit import audit, runs, training
from pruneaudit.errors import PruneAuditError
from pruneaudit.runs import ResultsStore, RunSpec, run_data, series, trained
from pruneaudit.runs.series import SeriesGrid

TREATS = ("finetune", "rewind")


def test_bad_grid_arguments(tmp_path):
    store = ResultsStore(tmp_path)
    with pytest.raises(PruneAuditError, match="l1_unstructed"):
        series.series_frame(
            SeriesGrid(["mnist"], ["lenet"], ["l1_unstructed"], ["finetune"], [0], 1), store
        )
    with pytest.raises(PruneAuditError, match="distinct"):
        series.series_frame(
            SeriesGrid(["mnist"], ["lenet"], ["l1_unstructured"], ["finetune"], [0, 0], 1), store
        )
    with pytest.raises(PruneAuditError, match="at least one"):
        series.series_frame(
            SeriesGrid([], ["lenet"], ["l1_unstructured"], ["finetune"], [0], 1), store
        )
    assert not (tmp_path / "runs").exists()


def test_imbalanced_spec_keeps_balanced_keys():
    spec = RunSpec("mnist", "lenet")
    assert series.imbalanced(spec, 1) is spec
    lt = series.imbalanced(spec, 10)
    assert dict(lt.extra)["imbalance_factor"] == 10.0 and lt.key != spec.key
    with pytest.raises(PruneAuditError, match="imbalance factor"):
        series.imbalanced(spec, 0.5)


def test_class_stats_from_training_pool(data_root):
    root = str(data_root)
    stats = series.class_stats(["mnist"], imbalance_factors=[1, 10], train_size=2000, root=root)
    assert list(stats.columns) == [
        "dataset",
        "imbalance_factor",
        "class",
        "name",
        "n",
        "fraction",
        "r",
        "H",
    ]
    for factor, g in stats.groupby("imbalance_factor"):
        assert g["r"].sum() == pytest.approx(0.0, abs=1e-12)
        spec = series.imbalanced(RunSpec("mnist", "lenet", train_size=2000), factor)
        pool = run_data.splits(spec, root).pool
        assert g["n"].sum() == len(pool)
        assert g["H"].to_numpy() == pytest.approx(audit.class_entropy(pool.images, pool.labels, 10))
    ten = stats[stats.imbalance_factor == 10.0]["n"]
    assert ten.max() / ten.min() == pytest.approx(10, rel=0.05)


def test_series_frame_grid_and_cache(data_root, tmp_path, monkeypatch):
    store = ResultsStore(tmp_path)
    kw = dict(epochs=1, train_size=320, test_size=200, root=str(data_root), progress=False)
    args = (SeriesGrid(["mnist"], ["lenet"], ["l1_unstructured"], TREATS, [0], 1), store)
    frame = series.series_frame(*args, **kw)
    assert list(frame.columns) == list(series.TIDY_COLUMNS)
    assert len(frame) == 2 * 2 * 10  # treatments x (dense + 1 iteration) x classes
    assert (frame["imbalance_factor"] == 1.0).all()
    dense = frame[frame["iteration"] == 0]
    a, b = (dense[dense.treatment == t]["accuracy"].to_numpy() for t in TREATS)
    assert a == pytest.approx(b)  # the dense model is shared by both treatments' series

    def no_training(*args, **kwargs):
        raise AssertionError("a stored run was trained again")

    monkeypatch.setattr(training, "train_packed", no_training)
    pd.testing.assert_frame_equal(frame, series.series_frame(*args, **kw))


def test_grid_cost_hand_computed(data_root, tmp_path):
    cost = series.grid_cost(
        SeriesGrid(["mnist"], ["lenet", "alexnet"], ["l1_unstructured"], TREATS, [0, 1], 3),
        2,
        train_size=1000,
        root=str(data_root),
        store=str(tmp_path),
    ).set_index("model")
    rounds = 1 + 1 * 2 * 3
    assert cost.loc["lenet", "model_epochs"] == 2 * rounds * 2
    assert cost.loc["lenet", "images"] == 2 * rounds * 2 * 800
    reference = runs.cost.REFERENCE_SECONDS_PER_10K
    expected = 2 * rounds * 2 * 800 / 10_000 * reference["lenet"] / 3600
    assert cost.loc["lenet", "cpu_hours"] == pytest.approx(expected)
    ratio = reference["alexnet"] / reference["lenet"]
    assert cost.loc["alexnet", "cpu_hours"] == pytest.approx(expected * ratio)
    assert "reference" in cost.loc["lenet", "rate"]
    # a store's recorded rate replaces the reference: the median of its records
    for seconds in (1.0, 3.0, 2.0):
        runs.cost.record_rate(tmp_path, "lenet", "cpu", seconds * 10, 100_000)
    recorded = series.grid_cost(
        SeriesGrid(["mnist"], ["lenet"], ["l1_unstructured"], TREATS, [0, 1], 3), 2,
        train_size=1000, root=str(data_root), store=str(tmp_path),
    ).set_index("model")
    assert recorded.loc["lenet", "cpu_hours"] == pytest.approx(expected / reference["lenet"] * 2.0)
    assert "median of 3" in recorded.loc["lenet", "rate"]


def test_capped_sizes(data_root):
    root = str(data_root)
    assert series.capped_sizes("kmnist", 10_000, None, root) == (None, None)
    assert series.capped_sizes("kmnist", 100, 5000, root) == (100, None)
    assert series.capped_sizes("mnist", None, 5000, root) == (None, 5000)


def test_grid_cost_with_dense_epochs_hand_computed(data_root):
    cost = series.grid_cost(
        SeriesGrid(["mnist"], ["lenet"], ["l1_unstructured", "l1_structured"], TREATS, [0], 3),
        2, train_size=1000, root=str(data_root), dense_epochs=5,
    ).set_index("model")
    # dense 5, then per technique and iteration 2 (finetune) + 5 (rewind)
    assert cost.loc["lenet", "model_epochs"] == 5 + 2 * 3 * (2 + 5)


def test_dense_epochs_in_keys_only_when_they_differ(data_root):
    root = str(data_root)
    plain = series.dense_specs("mnist", "lenet", [0], epochs=2, train_size=1000, root=root)
    same = series.dense_specs(
        "mnist", "lenet", [0], epochs=2, train_size=1000, root=root, dense_epochs=2
    )
    longer = series.dense_specs(
        "mnist", "lenet", [0], epochs=2, train_size=1000, root=root, dense_epochs=6
    )
    assert [s.key for s in same] == [s.key for s in plain]
    assert longer[0].key != plain[0].key
    for spec, finetune, rewind in ((plain[0], 2, 2), (longer[0], 2, 6)):
        assert trained.round_epochs(spec) == rewind  # the dense run
        assert trained.round_epochs(spec, "finetune") == finetune
        assert trained.round_epochs(spec, "rewind") == rewind
    with pytest.raises(PruneAuditError, match="dense_epochs"):
        series.dense_specs("mnist", "lenet", [0], epochs=2, root=root, dense_epochs=0)


def test_series_trains_dense_and_rewound_rounds_for_dense_epochs(data_root, tmp_path, monkeypatch):
    seen: list[list[int]] = []
    real = training.train_packed

    def record(parts, **kwargs):
        seen.append([p.cfgs[0].epochs for p in parts])
        return real(parts, **kwargs)

    monkeypatch.setattr(training, "train_packed", record)
    series.series_frame(
        SeriesGrid(["mnist"], ["lenet"], ["l1_unstructured"], TREATS, [0], 2),
        ResultsStore(tmp_path), epochs=1, dense_epochs=2, train_size=320, test_size=200,
        root=str(data_root), progress=False,
    )
    assert seen == [[2], [1, 2], [1, 2]]  # dense; rounds 1 and 2: finetune and rewind packed
