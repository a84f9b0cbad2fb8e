"""Class-level population tests (H1): Welch t-tests on mean-shifted recall, with BH control.

For model ``k`` of the population at compression level ``t`` let ``beta[t,k,c]`` be its recall
of class ``c`` and ``beta[t,k,M]`` its overall accuracy. For each class, a two-tailed Welch
t-test (unequal variances, ``scipy.stats.ttest_ind(equal_var=False)``) compares the compressed
sample ``{beta[t,k,c] - beta[t,k,M]}`` with the baseline sample ``{beta[0,k,c] - beta[0,k,M]}``;
``t > 0`` means the class gained relative to the model's overall accuracy. A class is
significant if ``p <= alpha``. Benjamini-Hochberg adjusted p-values
(``scipy.stats.false_discovery_control``) over the C classes give the FDR-controlled count.

A p-value is NaN when both samples are constant (t undefined); such a class is not significant,
and it enters the BH family as ``p = 1`` (so the family size is always C).

Formulas: the book's ``book/methods_audit.md``, section *Population tests, H1*.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from scipy import stats

from pruneaudit.audit.accuracy import (
    check_labels,
    check_num_classes,
    check_population,
    check_same_length,
    population_class_accuracy,
)
from pruneaudit.errors import PruneAuditError, check_choice, check_range

PAIRINGS = ("index", "means")


def _check_recalls(name: str, recalls: object, accuracy: object) -> tuple[np.ndarray, np.ndarray]:
    r = np.asarray(recalls, dtype=float)
    a = np.asarray(accuracy, dtype=float)
    if r.ndim != 2:
        raise PruneAuditError(f"{name} recalls must have shape (K, C), got shape {r.shape}")
    if a.shape != (r.shape[0],):
        raise PruneAuditError(
            f"{name} accuracy must have shape ({r.shape[0]},) to match its recalls, "
            f"got shape {a.shape}"
        )
    if r.shape[0] < 2:
        raise PruneAuditError(
            f"{name} population has K = {r.shape[0]} model(s); the t-test needs at least 2"
        )
    if r.shape[1] == 0:
        raise PruneAuditError(f"{name} recalls have no class")
    if np.isnan(r).any():
        c = int(np.flatnonzero(np.isnan(r).any(axis=0))[0])
        raise PruneAuditError(
            f"{name} recall of class {c} is NaN (no example of that class?); "
            "every class needs examples"
        )
    for label, v in (("recalls", r), ("accuracy", a)):
        if not np.all((v >= 0) & (v <= 1)):
            raise PruneAuditError(f"{name} {label} must be in [0, 1]")
    return r, a


def class_recall_ttest(
    baseline_recalls: object,
    baseline_accuracy: object,
    compressed_recalls: object,
    compressed_accuracy: object,
    *,
    alpha: float = 0.05,
    pairing: str = "index",
) -> pd.DataFrame:
    """Per-class Welch t-test of H1 from recall matrices ``(K, C)`` and accuracies ``(K,)``.

    Returns one row per class: ``class, t, p, significant, p_bh, significant_bh,
    baseline_recall, compressed_recall, absolute_recall_difference,
    relative_recall_difference``.

    ``absolute_recall_difference = mean_k beta[t,k,c] - mean_k beta[0,k,c]``.
    ``relative_recall_difference``: with ``pairing="index"`` (default) models are paired by
    member index k, so K must agree (independent populations, Study 4's default, give each level
    its own seeds: the pair is only the k-th member of each; with shared seeds member k of both
    has seed k) and it is
    ``(1/K) sum_k beta[t,k,c] / beta[0,k,c]`` (NaN if some ``beta[0,k,c] = 0``); with
    ``pairing="means"`` it is ``mean_k beta[t,k,c] / mean_k beta[0,k,c]`` and K may differ.
    """
    b, b_acc = _check_recalls("baseline", baseline_recalls, baseline_accuracy)
    v, v_acc = _check_recalls("compressed", compressed_recalls, compressed_accuracy)
    alpha = check_range("alpha", alpha, 0, 1, lo_open=True, hi_open=True)
    check_choice("pairing", pairing, PAIRINGS)
    if b.shape[1] != v.shape[1]:
        raise PruneAuditError(
            f"baseline recalls have C = {b.shape[1]} classes, compressed have C = {v.shape[1]}"
        )
    if pairing == "index" and b.shape[0] != v.shape[0]:
        raise PruneAuditError(
            f"pairing='index' pairs models by member index and needs equal population sizes; "
            f"baseline has K = {b.shape[0]}, compressed has K = {v.shape[0]} "
            "(use pairing='means' for different sizes)"
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # constant samples: NaN p, see module
        res = stats.ttest_ind(v - v_acc[:, None], b - b_acc[:, None], equal_var=False, axis=0)
    t = np.asarray(res.statistic, dtype=float)
    p = np.asarray(res.pvalue, dtype=float)
    p_bh = stats.false_discovery_control(np.where(np.isnan(p), 1.0, p), method="bh")
    p_bh = np.where(np.isnan(p), np.nan, p_bh)
    b_mean, v_mean = b.mean(axis=0), v.mean(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        if pairing == "index":
            relative = np.where((b > 0).all(axis=0), (v / b).mean(axis=0), np.nan)
        else:
            relative = np.where(b_mean > 0, v_mean / b_mean, np.nan)
    return pd.DataFrame(
        {
            "class": np.arange(b.shape[1]),
            "t": t,
            "p": p,
            "significant": p <= alpha,
            "p_bh": p_bh,
            "significant_bh": p_bh <= alpha,
            "baseline_recall": b_mean,
            "compressed_recall": v_mean,
            "absolute_recall_difference": v_mean - b_mean,
            "relative_recall_difference": relative,
        }
    )


def population_recalls(
    y_true: object, preds: object, num_classes: int
) -> tuple[np.ndarray, np.ndarray]:
    """Recall matrix ``(K, C)`` and overall accuracies ``(K,)`` of a population ``(K, N)``."""
    num_classes = check_num_classes(num_classes)
    y = check_labels("y_true", y_true, num_classes)
    p = check_population("preds", preds, num_classes)
    check_same_length("y_true", y.size, "preds", p.shape[1])
    return population_class_accuracy(y, p, num_classes), (p == y[None, :]).mean(axis=1)


def significant_counts(table: pd.DataFrame) -> dict[str, int]:
    """Count of significant classes: raw (``p <= alpha``) and Benjamini-Hochberg controlled."""
    if not isinstance(table, pd.DataFrame):
        raise PruneAuditError(
            f"expected the DataFrame of class_recall_ttest, got {type(table).__name__}"
        )
    missing = [c for c in ("significant", "significant_bh") if c not in table.columns]
    if missing:
        raise PruneAuditError(
            f"table lacks columns {missing}; pass the output of class_recall_ttest"
        )
    return {
        "significant": int(table["significant"].sum()),
        "significant_bh": int(table["significant_bh"].sum()),
    }


def share_interval(count: int, n: int, level: float = 0.95) -> tuple[float, float, float]:
    """Share ``count / n`` and its exact (Clopper-Pearson) interval, ``scipy.stats.binomtest``:
    e.g. the share of classes significantly impacted, over the ``n`` classes."""
    if n < 1 or not 0 <= count <= n:
        raise PruneAuditError(f"need 0 <= count <= n and n >= 1, got count {count}, n {n}")
    ci = stats.binomtest(int(count), int(n)).proportion_ci(level, method="exact")
    return count / n, float(ci.low), float(ci.high)


def welch_interval(
    compressed: object, baseline: object, level: float = 0.95
) -> tuple[float, float, float]:
    """Difference of means ``mean(compressed) - mean(baseline)`` of two independent samples
    (e.g. one value per population member) and its Welch interval (unequal variances).

    Both samples constant: the difference with a zero-width interval. Fewer than 2 values in
    a sample: NaNs."""
    a = np.asarray(compressed, dtype=float)
    b = np.asarray(baseline, dtype=float)
    diff = float(a.mean() - b.mean()) if a.size and b.size else float("nan")
    if a.size < 2 or b.size < 2:
        return diff, float("nan"), float("nan")
    if np.ptp(a) == 0 and np.ptp(b) == 0:
        return diff, diff, diff
    ci = stats.ttest_ind(a, b, equal_var=False).confidence_interval(level)
    return diff, float(ci.low), float(ci.high)
