"""Study 1 pipeline: series grid through the store, class statistics, fits and tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pruneaudit import audit, training
from pruneaudit.errors import PruneAuditError
from pruneaudit.runs import ResultsStore, RunSpec, populations
from pruneaudit.studies import population_ols as po

TECHS = ("l1_unstructured", "random_structured")
TREATS = ("finetune", "rewind")


def synthetic_runs(seed: int = 0, noise: float = 0.02) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Runs whose class accuracy rises with r_c and falls with H_c as sparsity grows."""
    rng = np.random.default_rng(seed)
    stats = []
    for ds in ("da", "db"):
        r = rng.normal(0, 0.02, 10)
        stats.append(
            pd.DataFrame(
                {
                    "dataset": ds,
                    "class": range(10),
                    "r": r - r.mean(),
                    "H": rng.uniform(1.0, 2.0, 10),
                }
            )
        )
    stats = pd.concat(stats, ignore_index=True)
    rows = []
    n = 200
    for ds in ("da", "db"):
        st = stats[stats["dataset"] == ds].set_index("class")
        for tech in TECHS:
            for treat in TREATS:
                for s in (0, 1):
                    base = rng.uniform(0.85, 0.99, 10)
                    for k in range(6):
                        sp = 1 - 0.8**k
                        acc = (
                            base
                            - 0.3 * sp**2
                            + sp * (8.0 * st["r"].to_numpy() - 0.2 * (st["H"].to_numpy() - 1.5))
                            + rng.normal(0, noise, 10) * (k > 0)
                        )
                        acc = np.round(np.clip(acc, 0, 1) * n) / n
                        for c in range(10):
                            rows.append(
                                {
                                    "dataset": ds,
                                    "model": "lenet",
                                    "technique": tech,
                                    "treatment": treat,
                                    "seed": s,
                                    "iteration": k,
                                    "sparsity": sp,
                                    "class": c,
                                    "accuracy": acc[c],
                                    "n": n,
                                }
                            )
    runs = pd.DataFrame(rows)
    # iteration 0 is the dense model of the seed: equal across techniques and treatments
    dense = runs[runs["iteration"] == 0].groupby(["dataset", "seed", "class"])["accuracy"]
    runs.loc[runs["iteration"] == 0, "accuracy"] = dense.transform("first")
    return runs, stats


@pytest.fixture(scope="module")
def fits() -> po.Fits:
    runs, stats = synthetic_runs()
    return po.fit_all(audit.design_frame(runs, stats))


def test_hypotheses_recovered_on_synthetic_population(fits):
    table = po.hypothesis_table(fits, alpha=0.01)
    assert list(table["fit"].unique()) == list(po.FIT_NAMES)
    for _, row in table.iterrows():
        # accuracy rises with r_c and falls with H_c by construction
        assert row["coef"] > 0 if row["term"] == "r" else row["coef"] < 0
        assert row["supported"] == (row["p"] < 0.01)
    assert table["supported"].all()


def test_comparison_table_measures(fits):
    table = po.comparison_table(fits)
    assert list(table.index) == list(po.FIT_NAMES)
    fit = fits.ols_linear
    res = fit.residuals
    assert table.loc[po.FIT_NAMES[0], "rmse"] == pytest.approx(
        float(np.sqrt((res["residual"] ** 2).mean()))
    )
    pred = res["predicted"]
    assert table.loc[po.FIT_NAMES[0], "outside_01"] == pytest.approx(
        float(((pred < 0) | (pred > 1)).mean())
    )
    # the logit link keeps GLM predictions inside [0, 1]
    assert table.loc[po.FIT_NAMES[2], "outside_01"] == 0
    assert np.isnan(table.loc[po.FIT_NAMES[2], "rsquared_adj"])
    assert table.loc[po.FIT_NAMES[0], "rsquared_adj"] == pytest.approx(fit.rsquared_adj)
    assert (table["sign_E"] == 1).all() and (table["sign_F"] == -1).all()


def test_hypothesis_alpha_checked(fits):
    with pytest.raises(PruneAuditError, match="alpha"):
        po.hypothesis_table(fits, alpha=1.5)


def test_diagnostic_frames(fits):
    bins = po.predicted_vs_target_bins(fits.ols_linear, bins=10)
    assert bins.groupby("target")["share"].sum().to_numpy() == pytest.approx(1.0)
    assert bins["count"].sum() == len(fits.frame)
    bars = po.residual_bars(fits.ols_linear, bins=12)
    assert len(bars) == 12 and bars["count"].sum() == len(fits.frame)
    sample = po.residual_sample(fits.ols_linear, fits.frame, n=100, seed=3)
    again = po.residual_sample(fits.ols_linear, fits.frame, n=100, seed=3)
    assert len(sample) == 100
    pd.testing.assert_frame_equal(sample, again)
    whole = po.residual_sample(fits.ols_linear, fits.frame, n=10**6)
    assert len(whole) == len(fits.frame)
    assert whole["residual"].to_numpy() == pytest.approx(
        (whole["target"] - whole["predicted"]).to_numpy()
    )
    with pytest.raises(PruneAuditError, match="design frame"):
        po.residual_sample(fits.ols_linear, fits.frame.iloc[:10])


def test_class_curves_average_seeds():
    runs, stats = synthetic_runs()
    frame = audit.design_frame(runs, stats)
    curves = po.class_curves(frame, "da", "lenet", "l1_unstructured", "rewind")
    part = runs[
        (runs.dataset == "da")
        & (runs.technique == "l1_unstructured")
        & (runs.treatment == "rewind")
        & (runs["class"] == 4)
        & (runs.iteration == 3)
    ]
    row = curves[(curves["class"] == "4") & (curves["iteration"] == 3)]
    assert float(row["accuracy"].iloc[0]) == pytest.approx(part["accuracy"].mean())
    dense = runs[
        (runs.dataset == "da")
        & (runs["class"] == 4)
        & (runs.iteration == 0)
        & (runs.technique == "l1_unstructured")
        & (runs.treatment == "rewind")
    ]
    assert float(row["a0"].iloc[0]) == pytest.approx(dense["accuracy"].mean())
    assert len(curves) == 10 * 6
    with pytest.raises(PruneAuditError, match="no series"):
        po.class_curves(frame, "da", "lenet", "l2_structured", "rewind")


def test_unfairness_change_hand_computed():
    rows = []
    for k, accs in ((0, [0.9, 0.8]), (1, [0.9, 0.6]), (2, [1.0, 0.5])):
        for c, a in enumerate(accs):
            rows.append(
                {
                    "dataset": "mnist",
                    "model": "lenet",
                    "technique": "l1_unstructured",
                    "treatment": "finetune",
                    "seed": 0,
                    "iteration": k,
                    "sparsity": 1 - 0.8**k,
                    "class": c,
                    "accuracy": a,
                    "n": 10,
                }
            )
    change = po.unfairness_change(pd.DataFrame(rows))
    assert len(change) == 1
    row = change.iloc[0]
    assert row["unfairness_dense"] == pytest.approx(0.1)
    assert row["unfairness_pruned"] == pytest.approx(0.5)
    assert row["unfairness_change"] == pytest.approx(0.4)
    assert row["accuracy_change"] == pytest.approx(0.75 - 0.85)
    curves = po.unfairness_curves(pd.DataFrame(rows))
    assert set(curves["series"]) == {"l1_unstructured / finetune"}


def test_bad_grid_arguments(tmp_path):
    store = ResultsStore(tmp_path)
    with pytest.raises(PruneAuditError, match="l1_unstructed"):
        po.series_frame(["mnist"], ["lenet"], ["l1_unstructed"], ["finetune"], [0], 1, store)
    with pytest.raises(PruneAuditError, match="distinct"):
        po.series_frame(["mnist"], ["lenet"], ["l1_unstructured"], ["finetune"], [0, 0], 1, store)
    with pytest.raises(PruneAuditError, match="at least one"):
        po.series_frame([], ["lenet"], ["l1_unstructured"], ["finetune"], [0], 1, store)
    assert not (tmp_path / "runs").exists()


def test_class_stats_from_training_pool(data_root):
    stats = po.class_stats(["mnist", "kmnist"], train_size=500, root=str(data_root))
    assert list(stats.columns) == ["dataset", "class", "name", "n", "fraction", "r", "H"]
    for ds, g in stats.groupby("dataset"):
        assert g["r"].sum() == pytest.approx(0.0, abs=1e-12)
        assert g["n"].sum() == 500
        pool = populations.splits(RunSpec(ds, "lenet", train_size=500), str(data_root)).pool
        assert g["H"].to_numpy() == pytest.approx(
            audit.class_entropy(pool.images, pool.labels, 10)
        )


def test_series_frame_grid_and_cache(data_root, tmp_path, monkeypatch):
    store = ResultsStore(tmp_path)
    kw = dict(epochs=1, train_size=320, test_size=200, root=str(data_root), progress=False)
    frame = po.series_frame(["mnist"], ["lenet"], ["l1_unstructured"], TREATS, [0], 1, store, **kw)
    assert list(frame.columns) == list(po.TIDY_COLUMNS)
    assert len(frame) == 2 * 2 * 10  # treatments x (dense + 1 iteration) x classes
    dense = frame[frame["iteration"] == 0]
    # the dense model is shared by both treatments' series
    a, b = (dense[dense.treatment == t]["accuracy"].to_numpy() for t in TREATS)
    assert a == pytest.approx(b)

    def no_training(*args, **kwargs):
        raise AssertionError("a stored run was trained again")

    monkeypatch.setattr(training, "train_population", no_training)
    again = po.series_frame(["mnist"], ["lenet"], ["l1_unstructured"], TREATS, [0], 1, store, **kw)
    pd.testing.assert_frame_equal(frame, again)


def test_grid_cost_hand_computed(data_root):
    cost = po.grid_cost(
        ["mnist"],
        ["lenet", "alexnet"],
        ["l1_unstructured"],
        TREATS,
        [0, 1],
        3,
        2,
        train_size=1000,
        root=str(data_root),
    ).set_index("model")
    rounds = 1 + 1 * 2 * 3
    assert cost.loc["lenet", "model_epochs"] == 2 * rounds * 2
    assert cost.loc["lenet", "train_images_per_epoch"] == 800
    expected = 2 * rounds * 2 * 0.8 * po.SECONDS_PER_KIMAGE_EPOCH["lenet"] / 3600
    assert cost.loc["lenet", "cpu_hours"] == pytest.approx(expected)
    ratio = po.SECONDS_PER_KIMAGE_EPOCH["alexnet"] / po.SECONDS_PER_KIMAGE_EPOCH["lenet"]
    assert cost.loc["alexnet", "cpu_hours"] == pytest.approx(expected * ratio)


def test_pool_train_size_capped(data_root):
    root = str(data_root)
    assert po.pool_train_size("kmnist", 10_000, root) is None
    assert po.pool_train_size("kmnist", 500, root) == 500
    assert po.pool_train_size("mnist", 10_000, root) == 10_000
    assert po.pool_train_size("mnist", None, root) is None
    assert po.capped_sizes("kmnist", 100, 5000, root) == (100, None)
    assert po.capped_sizes("mnist", None, 5000, root) == (None, 5000)
    stats = po.class_stats(["kmnist"], train_size=10_000, root=root)
    assert stats["n"].sum() == 8000
