"""Tests of the Study 1 population model (design frame, OLS with HAC, binomial GLM)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
import statsmodels.formula.api as smf
from scipy.special import expit
from scipy.stats import t as student_t

from pruneaudit import audit
from pruneaudit.errors import PruneAuditError

DATASETS = ("mnist", "fashion_mnist")
MODELS = ("lenet", "alexnet")
TECHNIQUES = ("l1_unstructured", "random_unstructured")
TREATMENTS = ("finetune", "rewind")


def synthetic_runs(seed: int = 0, classes: int = 10, iterations: int = 6, seeds: int = 2):
    """Runs of every (dataset, model, technique, treatment, seed) with random accuracies."""
    rng = np.random.default_rng(seed)
    rows = []
    for d, m, t, w, s in itertools.product(DATASETS, MODELS, TECHNIQUES, TREATMENTS, range(seeds)):
        for k in range(iterations):
            for c in range(classes):
                rows.append(
                    {
                        "dataset": d, "model": m, "technique": t, "treatment": w, "seed": s,
                        "iteration": k, "sparsity": 1 - 0.8**k, "class": c,
                        "accuracy": rng.uniform(0.5, 1.0), "n": int(rng.integers(50, 150)),
                    }
                )
    runs = pd.DataFrame(rows)
    stats = pd.DataFrame(
        [
            {"dataset": d, "class": c, "r": rng.normal(0, 0.02), "H": rng.uniform(1, 3)}
            for d in DATASETS
            for c in range(classes)
        ]
    )
    return runs, stats


def test_design_frame_a0_quartile_order():
    runs = pd.DataFrame(
        {
            "dataset": "mnist", "model": "lenet", "technique": "l1_unstructured",
            "treatment": "rewind", "seed": 0,
            "iteration": [1, 1, 1, 1, 0, 0, 0, 0],
            "sparsity": [0.2] * 4 + [0.0] * 4,
            "class": [3, 2, 1, 0, 3, 2, 1, 0],
            "accuracy": [0.5, 0.6, 0.7, 0.8, 0.9, 0.8, 0.8, 0.4],
        }
    )
    stats = pd.DataFrame({"dataset": "mnist", "class": [0, 1, 2, 3], "r": [0.1, 0, 0, -0.1],
                          "H": [1.0, 2.0, 3.0, 4.0]})
    f = audit.design_frame(runs, stats)
    assert list(f["iteration"]) == [0, 0, 0, 0, 1, 1, 1, 1]
    assert list(f["class"]) == [0, 1, 2, 3] * 2
    assert list(f["a0"]) == [0.4, 0.8, 0.8, 0.9] * 2
    # ranks (min): 0.4 -> 1, 0.8 -> 2 (tie), 0.9 -> 4; q = 1 + floor(4 (rank-1) / 4)
    assert list(f["quartile"]) == [1, 2, 2, 4] * 2
    assert f["quartile"].dtype.kind == "i"
    assert np.allclose(f["exp_sparsity"], np.exp(f["sparsity"]))
    assert list(f["H"]) == [1.0, 2.0, 3.0, 4.0] * 2
    assert isinstance(f["dataset"].dtype, pd.CategoricalDtype)


def test_dense_model_enters_once_per_class():
    runs, stats = synthetic_runs(classes=3, iterations=3, seeds=2)
    f = audit.design_frame(runs, stats)
    dense = f[f["iteration"] == 0]
    # one row per (dataset, model, seed, class), not one per technique x treatment series
    assert len(dense) == len(DATASETS) * len(MODELS) * 2 * 3
    assert not dense.duplicated(["dataset", "model", "seed", "class"]).any()
    assert (dense["technique"] == sorted(TECHNIQUES)[0]).all()
    assert (dense["treatment"] == sorted(TREATMENTS)[0]).all()
    pruned = runs[runs["iteration"] > 0]
    assert len(f) == len(dense) + len(pruned)


def test_design_frame_merges_class_stats_per_imbalance_factor():
    runs, stats = synthetic_runs(classes=3, iterations=2, seeds=1)
    runs = pd.concat([runs.assign(imbalance_factor=1.0), runs.assign(imbalance_factor=10.0)])
    stats = pd.concat(
        [stats.assign(imbalance_factor=1.0), stats.assign(imbalance_factor=10.0, r=stats.r * 7)]
    )
    f = audit.design_frame(runs, stats)
    one, ten = f[f.imbalance_factor == 1.0], f[f.imbalance_factor == 10.0]
    assert np.allclose(ten["r"].to_numpy(), 7 * one["r"].to_numpy())


def test_cluster_covariance_is_the_jackknife_over_dataset_class():
    f = synthetic_frame()
    fit = audit.fit_ols(f, cov="cluster")
    groups = f.groupby(["dataset", "class"], observed=True).ngroup().to_numpy()
    # brute force: refit without each (dataset, class) cluster
    full = smf.ols(fit.formula, data=f).fit()
    betas = np.array(
        [smf.ols(fit.formula, data=f[groups != g]).fit().params for g in np.unique(groups)]
    )
    G = len(betas)
    cv3 = (G - 1) / G * (betas - full.params.to_numpy()).T @ (betas - full.params.to_numpy())
    assert np.allclose(fit.table["se"], np.sqrt(np.diag(cv3)))
    assert fit.df == G - 1
    q = student_t(G - 1).ppf(0.975)
    assert np.allclose(fit.table["ci_high"] - fit.table["coef"], q * fit.table["se"])
    # statsmodels' CV1 stays in the result
    direct = smf.ols(fit.formula, data=f).fit(cov_type="cluster", cov_kwds={"groups": groups})
    assert np.allclose(fit.result.bse, direct.bse)


def test_jackknife_adj_r2_against_refits():
    f = synthetic_frame(noise=0.2)
    fit = audit.fit_ols(f, cov="cluster")
    groups = audit.cluster_groups(f)
    r2, lo, hi = audit.jackknife_adj_r2(fit.result.model.exog, fit.result.model.endog, groups)
    assert r2 == pytest.approx(fit.result.rsquared_adj)
    drops = np.array(
        [smf.ols(fit.formula, data=f[groups != g]).fit().rsquared_adj for g in np.unique(groups)]
    )
    G = len(drops)
    se = np.sqrt((G - 1) / G * np.sum((drops - r2) ** 2))
    q = student_t(G - 1).ppf(0.975)
    assert (lo, hi) == pytest.approx((r2 - q * se, r2 + q * se))


def test_jackknife_of_a_mean_is_s2_over_n():
    # one row per cluster, a constant only: (n-1)/n sum (mean_(i) - mean)^2 = s^2 / n
    y = np.array([1.0, 4.0, 2.0, 8.0, 5.0])
    v = audit.jackknife_cov(np.ones((5, 1)), y, np.arange(5))
    assert v[0, 0] == pytest.approx(y.var(ddof=1) / 5)


def test_jackknife_refuses_a_cluster_that_carries_a_coefficient():
    x = np.column_stack([np.ones(6), [1, 1, 0, 0, 0, 0]])  # the indicator lives in cluster 0
    with pytest.raises(PruneAuditError, match="without cluster 0"):
        audit.jackknife_cov(x, np.arange(6.0), np.array([0, 0, 1, 1, 2, 2]))
    with pytest.raises(PruneAuditError, match="2 clusters"):
        audit.jackknife_cov(np.ones((3, 1)), np.ones(3), np.zeros(3))


def test_cluster_covariance_is_for_ols():
    with pytest.raises(PruneAuditError, match="for OLS"):
        audit.fit_glm(synthetic_frame(), cov="cluster")


def test_design_frame_errors():
    runs, stats = synthetic_runs(classes=3, iterations=2, seeds=1)
    with pytest.raises(PruneAuditError, match="accuracy"):
        audit.design_frame(runs.drop(columns="accuracy"), stats)
    with pytest.raises(PruneAuditError, match="iteration-0"):
        audit.design_frame(runs[runs["iteration"] > 0], stats)
    partial = runs[~((runs["iteration"] == 0) & (runs["model"] == "lenet"))]
    with pytest.raises(PruneAuditError, match="iteration-0"):
        audit.design_frame(partial, stats)
    with pytest.raises(PruneAuditError, match=r"\(r, H\)"):
        audit.design_frame(runs, stats[stats["class"] != 2])
    with pytest.raises(PruneAuditError, match="duplicate"):
        audit.design_frame(pd.concat([runs, runs.head(1)]), stats)
    bad = runs.copy()
    bad.loc[0, "accuracy"] = 1.5
    with pytest.raises(PruneAuditError, match=r"\[0, 1\]"):
        audit.design_frame(bad, stats)
    with pytest.raises(PruneAuditError, match="DataFrame"):
        audit.design_frame(runs.to_dict(), stats)
    with pytest.raises(PruneAuditError, match="design frame"):
        audit.fit_ols(runs)


TRUE = {
    "exp_sparsity": -0.3, "sparsity": 0.25, "a0": 0.6, "r": 2.0, "H": -0.05,
}


def synthetic_frame(noise: float = 0.01, seed: int = 1) -> pd.DataFrame:
    runs, stats = synthetic_runs(seed=seed)
    f = audit.design_frame(runs, stats)
    rng = np.random.default_rng(seed)
    y = 0.4 + sum(b * f[k].to_numpy(dtype=float) for k, b in TRUE.items())
    y = y + 0.03 * (f["dataset"] == "mnist") - 0.02 * (f["treatment"] == "rewind")
    f["accuracy"] = y + rng.normal(0, noise, len(f))
    return f


def test_ols_recovers_known_coefficients():
    fit = audit.fit_ols(synthetic_frame())
    coef = fit.table.set_index("term")["coef"]
    for term, value in TRUE.items():
        assert coef[term] == pytest.approx(value, abs=0.05), term
    assert coef["C(dataset)[T.mnist]"] == pytest.approx(0.03, abs=0.005)
    assert coef["C(treatment)[T.rewind]"] == pytest.approx(-0.02, abs=0.005)
    assert fit.rsquared_adj > 0.9
    hyp = fit.hypotheses.set_index("term")
    assert hyp.loc["r", "p"] < 0.01 and hyp.loc["H", "p"] < 0.01
    assert set(fit.table.columns) == {"term", "coef", "se", "stat", "p", "ci_low", "ci_high"}


def test_ols_cross_terms_and_hac_matches_statsmodels():
    f = synthetic_frame()
    fit = audit.fit_ols(f, cross_terms=True)
    terms = set(fit.table["term"])
    assert any(t.startswith("C(treatment)[T.rewind]:C(technique)") for t in terms)
    assert "exp_sparsity:a0" in terms
    assert {"quartile", "a0:quartile"} <= terms  # P App. D: one numeric term and its interaction
    assert not any("C(quartile)" in t for t in terms)
    direct = smf.ols(fit.formula, data=f).fit(
        cov_type="HAC", cov_kwds={"maxlags": 3, "use_correction": True}
    )
    assert np.allclose(fit.table["se"], direct.bse)
    plain = audit.fit_ols(f, cross_terms=True, cov="nonrobust")
    assert np.allclose(plain.table["coef"], fit.table["coef"])
    assert not np.allclose(plain.table["se"], fit.table["se"])


def test_one_tailed_is_half_two_tailed_on_the_right_side():
    fit = audit.fit_ols(synthetic_frame(noise=0.3))
    for term in ("r", "H", "a0", "sparsity"):
        two = float(fit.result.pvalues[term])
        side = "greater" if fit.result.params[term] > 0 else "less"
        wrong = "less" if side == "greater" else "greater"
        assert audit.one_tailed_p(fit, term, side) == pytest.approx(two / 2)
        assert audit.one_tailed_p(fit, term, wrong) == pytest.approx(1 - two / 2)
    with pytest.raises(PruneAuditError, match="greater"):
        audit.one_tailed_p(fit, "r", "two-sided")
    with pytest.raises(PruneAuditError, match="not in the fit"):
        audit.one_tailed_p(fit, "nope", "greater")


def test_single_level_categorical_is_dropped():
    f = synthetic_frame()
    one = f[f["dataset"] == "mnist"].copy()
    one["dataset"] = one["dataset"].cat.remove_unused_categories()
    fit = audit.fit_ols(one, cross_terms=True)
    assert "C(dataset)" in fit.dropped and "exp_sparsity:C(dataset)" in fit.dropped
    assert "C(dataset)" not in fit.formula


def test_glm_predictions_in_unit_interval_and_recovers_logit_coefficients():
    f = synthetic_frame()
    rng = np.random.default_rng(3)
    eta = 1.0 - 2.0 * f["sparsity"] + 1.5 * f["a0"] + 10 * f["r"] - 0.3 * f["H"]
    f["accuracy"] = rng.binomial(f["n"] * 20, expit(eta)) / (f["n"] * 20)
    f["n"] = f["n"] * 20
    fit = audit.fit_glm(f)
    pred = fit.residuals["predicted"]
    assert ((pred >= 0) & (pred <= 1)).all()
    coef = fit.table.set_index("term")["coef"]
    assert coef["r"] == pytest.approx(10, abs=2.5)
    assert coef["a0"] == pytest.approx(1.5, abs=0.3)
    assert fit.rsquared_adj is None
    # unweighted and weighted fits differ; weights that are not positive raise
    assert not np.allclose(audit.fit_glm(f, weights=None).table["se"], fit.table["se"])
    bad = f.copy()
    bad.loc[0, "n"] = 0
    with pytest.raises(PruneAuditError, match="positive"):
        audit.fit_glm(bad)
    bad = f.copy()
    bad.loc[0, "accuracy"] = 0.5 + 0.1 / bad.loc[0, "n"]
    with pytest.raises(PruneAuditError, match="whole counts"):
        audit.fit_glm(bad)
    with pytest.raises(PruneAuditError, match="weights"):
        audit.fit_glm(f, weights="size")


def test_diagnostics_frames():
    fit = audit.fit_ols(synthetic_frame(noise=0.05))
    d = audit.predicted_vs_target(fit, bins=10)
    sums = d.groupby(["target_low"])["share"].sum()
    assert np.allclose(sums, 1.0)
    assert d["count"].sum() == len(fit.residuals)
    res = fit.residuals
    assert np.allclose(res["target"] - res["predicted"], res["residual"])
    h = audit.residual_histogram(fit, bins=15)
    assert h["count"].sum() == len(res) and len(h) == 15
    with pytest.raises(PruneAuditError, match="bins"):
        audit.predicted_vs_target(fit, bins=0)


def test_rank_deficient_design_raises():
    f = synthetic_frame()
    # technique fully determined by treatment: the interaction is not identified
    f = f[((f["treatment"] == "rewind") == (f["technique"] == "l1_unstructured"))]
    with pytest.raises(PruneAuditError, match="rank deficient"):
        audit.fit_ols(f)
