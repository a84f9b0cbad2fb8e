"""Study-level runs through the store: series, populations, quantized and corrupted copies."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from pruning_procedures import iterative_prune

from pruneaudit import compress, training
from pruneaudit.errors import PruneAuditError
from pruneaudit.runs import (
    ResultsStore,
    RunSpec,
    compressed,
    iterative,
    populations,
    run_data,
    trained,
)

TINY = dict(epochs=1, train_size=320, test_size=200)


@pytest.fixture()
def base(data_root) -> RunSpec:
    return RunSpec(dataset="mnist", model="lenet", **TINY)


def _no_training(*args, **kwargs):
    raise AssertionError("a stored run was trained again")


def test_series_sparsity_cache_and_shape(base, data_root, tmp_path, monkeypatch):
    store = ResultsStore(tmp_path)
    bases = [base.replace(seed=s) for s in (0, 1)]
    frame = iterative.run_series(
        bases, "l1_unstructured", "rewind", 2, store, root=str(data_root), progress=False
    )
    assert len(frame) == 2 * 3 * 10
    assert set(frame["technique"]) == {"l1_unstructured"}
    by_iter = frame.groupby("iteration")["sparsity"].agg(["min", "max"])
    for k, row in by_iter.iterrows():
        assert row["min"] == pytest.approx(compress.iteration_sparsity(k), abs=0.01)
        assert row["max"] == pytest.approx(compress.iteration_sparsity(k), abs=0.01)
    assert frame["accuracy"].between(0, 1).all()

    monkeypatch.setattr(training, "train_packed", _no_training)
    again = iterative.run_series(
        bases, "l1_unstructured", "rewind", 2, store, root=str(data_root), progress=False
    )
    pd.testing.assert_frame_equal(frame, again)


def test_techniques_trained_together_equal_each_alone(base, data_root, tmp_path):
    """Several techniques' series packed into one population end where each ends alone."""
    root, techs = str(data_root), ["l1_unstructured", "random_structured"]
    bases = [base.replace(seed=s) for s in (0, 1)]
    packed = iterative.run_series(
        bases, techs, "rewind", 2, ResultsStore(tmp_path / "packed"), root, progress=False
    )
    alone = pd.concat(
        [iterative.run_series(bases, t, "rewind", 2, ResultsStore(tmp_path / t), root,
                                progress=False) for t in techs],
        ignore_index=True,
    )
    keys = ["technique", "seed", "iteration", "class"]
    packed, alone = (f.sort_values(keys).reset_index(drop=True) for f in (packed, alone))
    # a member's bits do not depend on its companions (the canonical blocks): equal, not close
    cols = [*keys, "accuracy", "sparsity"]
    pd.testing.assert_frame_equal(packed[cols], alone[cols])
    assert len(packed) == 2 * 2 * 3 * 10


def test_resumed_series_equals_uninterrupted(base, data_root, tmp_path):
    cols = ["seed", "iteration", "class", "accuracy", "sparsity"]
    whole = iterative.run_series(
        [base],
        "random_structured",
        "finetune",
        2,
        ResultsStore(tmp_path / "a"),
        root=str(data_root),
        progress=False,
    )
    store = ResultsStore(tmp_path / "b")
    iterative.run_series(
        [base], "random_structured", "finetune", 1, store, root=str(data_root), progress=False
    )
    resumed = iterative.run_series(
        [base], "random_structured", "finetune", 2, store, root=str(data_root), progress=False
    )
    pd.testing.assert_frame_equal(whole[cols], resumed[cols])


def test_series_member_equals_single_model_protocol(base, data_root, tmp_path):
    """A seed trained in a group of seeds ends where compress.iterative_prune takes it alone."""
    store = ResultsStore(tmp_path)
    bases = [base.replace(seed=s) for s in (3, 4)]
    iterative.run_series(
        bases, "l1_unstructured", "rewind", 1, store, root=str(data_root), progress=False
    )
    spec = bases[1]
    split = run_data.splits(spec, str(data_root))
    model = trained.fresh_model(spec, split.test)
    iterative_prune(
        model,
        split.train,
        "l1_unstructured",
        "rewind",
        1,
        trained.train_config(spec),
        seed=spec.seed,
    )
    stored = trained.load_model(
        spec.replace(technique="l1_unstructured", treatment="rewind", iteration=1),
        store,
        str(data_root),
    )
    for (name, a), b in zip(
        compress.pruned_state_dict(model).items(),
        compress.pruned_state_dict(stored).values(),
        strict=True,
    ):
        assert a.shape == b.shape, name
        if a.is_floating_point():
            assert np.allclose(a.numpy(), b.numpy(), atol=1e-4), name
        else:
            assert (a == b).all(), name


def test_population_levels_quantized_and_corrupted(base, data_root, tmp_path, monkeypatch):
    store = ResultsStore(tmp_path)
    root = str(data_root)
    dense = populations.run_population(
        populations.member_specs(base, [0, 1]), store, root, progress=False
    )
    pruned = populations.run_population(
        populations.member_specs(base, [0, 1], level=0.5), store, root, progress=False
    )
    assert dense.preds.shape == pruned.preds.shape == (2, 200)
    assert np.array_equal(dense.labels, pruned.labels)
    assert np.allclose(dense.sparsity, 0)
    assert np.allclose(pruned.sparsity, 0.5, atol=0.01)

    for scheme in ("float16", "dynamic_int8", "static_int8"):
        q = compressed.run_quantized(dense.specs, scheme, store, root, progress=False)
        assert q.preds.shape == (2, 200)
        assert (q.preds == dense.preds).mean() > 0.9, scheme
        assert np.allclose(q.sparsity, dense.sparsity), scheme
    q = compressed.run_quantized(pruned.specs, "static_int8", store, root, progress=False)
    assert np.allclose(q.sparsity, pruned.sparsity)

    grid = [("gaussian_noise", 3), ("contrast", 1)]
    both = compressed.run_corrupted(
        dense.specs + pruned.specs, grid, store, root, progress=False
    )
    c = both[("gaussian_noise", 3)]
    assert c.preds.shape == (4, 200)
    assert {s.key for s in c.specs}.isdisjoint({s.key for s in dense.specs})
    # batched over members as each model alone would predict, the sparsity of its model
    shifted = compressed.corrupted_test("mnist", root, base.test_size, "contrast", 1, 0)
    for k, spec in enumerate(dense.specs + pruned.specs):
        alone = training.evaluate(trained.load_model(spec, store, root), shifted)
        assert np.array_equal(both[("contrast", 1)].preds[k], alone)
    assert np.allclose(c.sparsity, [*dense.sparsity, *pruned.sparsity])
    # stored: asked again, nothing is loaded or evaluated
    monkeypatch.setattr(compressed, "load_model", _no_training)
    again = compressed.run_corrupted(dense.specs, grid[:1], store, root, progress=False)
    assert np.array_equal(again[("gaussian_noise", 3)].preds, c.preds[:2])

    monkeypatch.setattr(training, "train_packed", _no_training)
    again = populations.run_population(dense.specs, store, root, progress=False)
    assert np.array_equal(again.preds, dense.preds)


def test_sizes_beyond_the_dataset_raise(data_root):
    spec = RunSpec(dataset="mnist", model="lenet", train_size=60_001)
    with pytest.raises(PruneAuditError, match="train_size=60001 exceeds the 60000"):
        run_data.splits(spec, str(data_root))


def test_population_seeds_must_be_distinct_and_present():
    base = RunSpec(dataset="mnist", model="lenet")
    with pytest.raises(PruneAuditError, match="at least one seed"):
        populations.member_specs(base, [])
    with pytest.raises(PruneAuditError, match=r"seeds must be distinct, got \[1, 1\]"):
        populations.member_specs(base, [1, 1], level=0.5)


def test_level_seeds_make_independent_populations():
    assert populations.level_seeds([0, 1], 0.0) == [0, 1]  # the dense level keeps its seeds
    s5, s9 = populations.level_seeds([0, 1], 0.5), populations.level_seeds([0, 1], 0.9)
    assert s5 == [5_000_000, 5_000_001] and s9 == [9_000_000, 9_000_001]
    assert not set(s5) & set(s9)
    assert populations.level_seeds([0, 1], 0.9, independent=False) == [0, 1]  # shared init option
    with pytest.raises(PruneAuditError, match="seeds in"):
        populations.level_seeds([10_000], 0.5)
    with pytest.raises(PruneAuditError, match="at least 2 distinct seeds"):
        populations.check_seeds([3, 3])
    with pytest.raises(PruneAuditError, match=r"\(0, 1\)"):
        populations.check_levels([1.0])
