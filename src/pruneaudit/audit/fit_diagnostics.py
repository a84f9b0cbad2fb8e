"""Diagnostics of a fitted per-class accuracy model
(:class:`~pruneaudit.audit.regression.ModelFit`): predicted against target by bins, and the
residuals' histogram."""

from __future__ import annotations

import numpy as np
import pandas as pd

from pruneaudit.audit.regression import ModelFit
from pruneaudit.errors import check_positive_int


def predicted_vs_target(fit: ModelFit, bins: int = 20) -> pd.DataFrame:
    """Histogram of predictions within each bin of the target, normalized per target bin.

    Target bins: ``bins`` equal bins over [0, 1] (accuracy). Prediction bins: ``bins`` equal
    bins over [min(0, min pred), max(1, max pred)], so that OLS predictions outside [0, 1] show.
    Columns: target_low, target_high, pred_low, pred_high, count, share (count / rows in the
    target bin; each non-empty target bin's shares sum to 1). Empty target bins are omitted.
    """
    check_positive_int("bins", bins)
    res = fit.residuals
    t_edges = np.linspace(0.0, 1.0, bins + 1)
    pred = res["predicted"].to_numpy()
    p_edges = np.linspace(min(0.0, pred.min()), max(1.0, pred.max()), bins + 1)
    ti = np.clip(np.searchsorted(t_edges, res["target"].to_numpy(), side="right") - 1, 0, bins - 1)
    pi = np.clip(np.searchsorted(p_edges, pred, side="right") - 1, 0, bins - 1)
    counts = np.zeros((bins, bins), dtype=int)
    np.add.at(counts, (ti, pi), 1)
    totals = counts.sum(axis=1)
    tt, pp = np.nonzero(np.broadcast_to(totals[:, None] > 0, counts.shape))
    return pd.DataFrame(
        {
            "target_low": t_edges[tt],
            "target_high": t_edges[tt + 1],
            "pred_low": p_edges[pp],
            "pred_high": p_edges[pp + 1],
            "count": counts[tt, pp],
            "share": counts[tt, pp] / totals[tt],
        }
    )


def residual_histogram(fit: ModelFit, bins: int = 30) -> pd.DataFrame:
    """Histogram of the residuals (target − predicted): columns low, high, count."""
    check_positive_int("bins", bins)
    counts, edges = np.histogram(fit.residuals["residual"].to_numpy(), bins=bins)
    return pd.DataFrame({"low": edges[:-1], "high": edges[1:], "count": counts})
