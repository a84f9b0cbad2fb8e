"""Cluster jackknife of an OLS fit: leave-one-cluster-out covariance and adjusted R² (the
clusters are (dataset, class) pairs of Study 1's per-class accuracies).

Formulas: the book's methods page, section *Population OLS*.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from pruneaudit.errors import PruneAuditError


def cluster_groups(frame: pd.DataFrame) -> np.ndarray:
    """Cluster of each row: its (dataset, class), numbered 0..G−1 in sorted order."""
    return frame.groupby(["dataset", "class"], observed=True, sort=True).ngroup().to_numpy()


def _leave_one_cluster_out(exog: np.ndarray, endog: np.ndarray, groups: np.ndarray):
    """β̂ and, for each cluster g, (rows of g, β̂_(g)) from the normal equations without g
    (closed form: (XᵀX − X_gᵀX_g)⁻¹ (Xᵀy − X_gᵀy_g)). Raises when some β̂_(g) is not
    identified."""
    labels = np.unique(groups)
    if len(labels) < 2:
        raise PruneAuditError("the cluster jackknife needs at least 2 clusters")
    xtx, xty = exog.T @ exog, exog.T @ endog
    beta = np.linalg.solve(xtx, xty)
    p = exog.shape[1]
    out = []
    for label in labels:
        rows = groups == label
        x_g = exog[rows]
        a = xtx - x_g.T @ x_g
        if np.linalg.matrix_rank(a) < p:
            raise PruneAuditError(
                f"without cluster {label} the design is rank deficient, so the cluster "
                "jackknife (CV3) is not defined; fit with cov='HAC' or add clusters"
            )
        out.append((rows, np.linalg.solve(a, xty - x_g.T @ endog[rows])))
    return beta, out


def jackknife_cov(exog: np.ndarray, endog: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """CV3 of the OLS coefficients: (G − 1)/G · Σ_g (β̂_(g) − β̂)(β̂_(g) − β̂)ᵀ, β̂_(g) the
    fit without the rows of cluster g."""
    exog, endog = np.asarray(exog, dtype=float), np.asarray(endog, dtype=float)
    beta, fits = _leave_one_cluster_out(exog, endog, groups)
    d = np.asarray([b - beta for _, b in fits])
    g = len(fits)
    return (g - 1) / g * d.T @ d


def _adj_r2(exog: np.ndarray, endog: np.ndarray, beta: np.ndarray) -> float:
    n, p = exog.shape
    ssr = float(np.sum((endog - exog @ beta) ** 2))
    sst = float(np.sum((endog - endog.mean()) ** 2))
    return 1 - (ssr / (n - p)) / (sst / (n - 1))


def jackknife_adj_r2(
    exog: np.ndarray, endog: np.ndarray, groups: np.ndarray, level: float = 0.95
) -> tuple[float, float, float]:
    """Adjusted R² of the OLS fit (intercept among the columns) and its cluster-jackknife
    interval R̄² ± t_{G−1} · se, se² = (G − 1)/G · Σ_g (R̄²_(g) − R̄²)², R̄²_(g) the adjusted R²
    of the fit without cluster g, on the rows left."""
    exog, endog = np.asarray(exog, dtype=float), np.asarray(endog, dtype=float)
    beta, fits = _leave_one_cluster_out(exog, endog, groups)
    r2 = _adj_r2(exog, endog, beta)
    drops = np.asarray([_adj_r2(exog[~rows], endog[~rows], b) for rows, b in fits])
    g = len(fits)
    se = float(np.sqrt((g - 1) / g * np.sum((drops - r2) ** 2)))
    q = float(stats.t(g - 1).ppf(0.5 + level / 2))
    return r2, r2 - q * se, r2 + q * se
