"""Class-level accuracy, unfairness and accuracy-vs-sparsity tables.

Also the input checks shared by the audit modules (``check_labels``, ``check_population``,
``check_num_classes``): labels are 1-D integer arrays with values in ``0..C-1``, populations of
predictions are 2-D integer arrays of shape ``(K, N)``.

Per-class accuracy (recall) of class ``c``::

    a_c = |{x : y = h(x) = c}| / |{x : y = c}|

A class with no example has no accuracy: ``a_c`` is NaN (not an error), because evaluation
subsets may lack a class. ``unfairness`` ignores NaN classes and raises if every class is NaN.

Formulas: the book's ``book/methods_audit.md``, section *Class-level accuracy and unfairness*.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pruneaudit.errors import PruneAuditError, check_choice, check_frame

UNFAIRNESS_KINDS = ("max_min", "mean_min")
SERIES_KEYS = ("dataset", "model", "technique", "treatment", "iteration")
RUN_KEYS = ("dataset", "model", "technique", "treatment", "seed", "iteration")
RUN_SERIES_COLUMNS = (*RUN_KEYS, "sparsity", "class", "accuracy")


def check_num_classes(num_classes: object) -> int:
    """Return ``num_classes`` as an int if it is an integer >= 1; else raise."""
    if (
        isinstance(num_classes, bool)
        or not isinstance(num_classes, numbers.Integral)
        or int(num_classes) < 1
    ):
        raise PruneAuditError(f"num_classes must be a positive integer, got {num_classes!r}")
    return int(num_classes)


def _check_integer_values(name: str, arr: np.ndarray, num_classes: int | None) -> np.ndarray:
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        raise PruneAuditError(f"{name} must hold integer labels, got dtype {arr.dtype}")
    arr = arr.astype(np.int64, copy=False)
    lo, hi = int(arr.min()), int(arr.max())
    if lo < 0 or (num_classes is not None and hi >= num_classes):
        top = "C-1" if num_classes is None else str(num_classes - 1)
        bad = lo if lo < 0 else hi
        raise PruneAuditError(f"{name} holds label {bad}; accepted labels are 0..{top}")
    return arr


def check_labels(name: str, values: object, num_classes: int | None = None) -> np.ndarray:
    """Return ``values`` as a non-empty 1-D int64 array with labels in ``0..num_classes-1``."""
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise PruneAuditError(f"{name} must be 1-D (N,), got shape {arr.shape}")
    if arr.size == 0:
        raise PruneAuditError(f"{name} is empty; at least one example is needed")
    if num_classes is not None:
        num_classes = check_num_classes(num_classes)
    return _check_integer_values(name, arr, num_classes)


def check_population(name: str, preds: object, num_classes: int | None = None) -> np.ndarray:
    """Return ``preds`` as a 2-D int64 array (K models, N examples) with labels in range."""
    arr = np.asarray(preds)
    if arr.ndim != 2:
        raise PruneAuditError(
            f"{name} must be a population of predictions of shape (K, N), got shape {arr.shape}"
        )
    if arr.shape[0] == 0:
        raise PruneAuditError(f"{name} is an empty population (K = 0 models)")
    if arr.shape[1] == 0:
        raise PruneAuditError(f"{name} has no examples (N = 0)")
    if num_classes is not None:
        num_classes = check_num_classes(num_classes)
    return _check_integer_values(name, arr, num_classes)


def check_same_length(name_a: str, n_a: int, name_b: str, n_b: int) -> None:
    """Raise unless two arrays describe the same number of examples."""
    if n_a != n_b:
        raise PruneAuditError(f"{name_a} has {n_a} examples but {name_b} has {n_b}")


def check_group_frame(name: str, groups: object, n: int | None = None) -> pd.DataFrame:
    """Return ``groups`` (a DataFrame of group columns, or a Series) as a DataFrame.

    Raises if it has no column, missing values, or (given ``n``) not ``n`` rows.
    The index is reset so that rows align with example positions.
    """
    if isinstance(groups, pd.Series):
        groups = groups.to_frame(name=groups.name if groups.name is not None else "group")
    if not isinstance(groups, pd.DataFrame):
        raise PruneAuditError(
            f"{name} must be a pandas DataFrame (or Series) of group columns, "
            f"got {type(groups).__name__}"
        )
    if groups.shape[1] == 0:
        raise PruneAuditError(f"{name} has no group column")
    if groups.isna().any().any():
        col = groups.columns[groups.isna().any()][0]
        raise PruneAuditError(f"{name} column {col!r} has missing values")
    if n is not None and len(groups) != n:
        raise PruneAuditError(f"{name} has {len(groups)} rows but there are {n} examples")
    return groups.reset_index(drop=True)


def population_class_accuracy(y_true: object, preds: object, num_classes: int) -> np.ndarray:
    """Per-class accuracy of every member of a population: array ``(K, C)``.

    ``out[k, c] = |{i : y_i = preds[k, i] = c}| / |{i : y_i = c}|``; NaN where class ``c`` has
    no example. Vectorized with one ``np.bincount`` over offsets ``k*C + y_i``.
    """
    num_classes = check_num_classes(num_classes)
    y = check_labels("y_true", y_true, num_classes)
    p = check_population("preds", preds, num_classes)
    check_same_length("y_true", y.size, "preds", p.shape[1])
    k = p.shape[0]
    n_c = np.bincount(y, minlength=num_classes).astype(float)
    offsets = (np.arange(k)[:, None] * num_classes + y[None, :]).ravel()
    correct = np.bincount(
        offsets, weights=(p == y[None, :]).ravel(), minlength=k * num_classes
    ).reshape(k, num_classes)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n_c > 0, correct / n_c, np.nan)


def class_accuracy(y_true: object, y_pred: object, num_classes: int) -> np.ndarray:
    """Per-class accuracy ``a_c`` of one model: array ``(C,)``, NaN for classes with no example."""
    p = np.asarray(y_pred)
    if p.ndim != 1:
        raise PruneAuditError(f"y_pred must be 1-D (N,), got shape {p.shape}")
    return population_class_accuracy(y_true, p[None, :], num_classes)[0]


def overall_accuracy(y_true: object, y_pred: object) -> float:
    """Top-1 accuracy ``|{y = h(x)}| / N``."""
    y = check_labels("y_true", y_true)
    p = check_labels("y_pred", y_pred)
    check_same_length("y_true", y.size, "y_pred", p.size)
    return float(np.mean(y == p))


def unfairness(class_acc: object, kind: str = "max_min") -> np.ndarray | float:
    """Spread of class accuracies along the last axis, ignoring NaN classes.

    ``max_min``: ``max_c a_c - min_c a_c``; ``mean_min``: ``mean_c a_c - min_c a_c``.
    A 1-D input gives a float, an ``(..., C)`` input an array ``(...)``.
    """
    check_choice("unfairness kind", kind, UNFAIRNESS_KINDS)
    a = np.asarray(class_acc, dtype=float)
    if a.ndim == 0 or a.shape[-1] == 0:
        raise PruneAuditError(f"class_acc must have at least one class, got shape {a.shape}")
    present = ~np.isnan(a)
    if not present.any(axis=-1).all():
        raise PruneAuditError("class_acc has a row where every class accuracy is NaN")
    if ((a[present] < 0) | (a[present] > 1)).any():
        raise PruneAuditError("class accuracies must be in [0, 1] (or NaN for absent classes)")
    low = np.nanmin(a, axis=-1)
    top = np.nanmax(a, axis=-1) if kind == "max_min" else np.nanmean(a, axis=-1)
    out = top - low
    return float(out) if out.ndim == 0 else out


def class_accuracy_frame(y_true: object, y_pred: object, num_classes: int) -> pd.DataFrame:
    """Tidy per-class accuracy of one model: columns ``class, accuracy, n`` (one row per class)."""
    acc = class_accuracy(y_true, y_pred, num_classes)
    n = np.bincount(np.asarray(y_true, dtype=np.int64), minlength=num_classes)
    return pd.DataFrame({"class": np.arange(num_classes), "accuracy": acc, "n": n})


@dataclass(frozen=True)
class SparsityTables:
    """``per_class``: mean accuracy over seeds, rows (series keys, sparsity), columns classes.
    ``unfairness``: one row per (dataset, model, technique, treatment, iteration), see
    :func:`unfairness_vs_sparsity`."""

    per_class: pd.DataFrame
    unfairness: pd.DataFrame


def _check_run_series(frame: pd.DataFrame) -> pd.DataFrame:
    check_frame("run-series frame", frame, RUN_SERIES_COLUMNS)
    dup = frame.duplicated([*RUN_KEYS, "class"])
    if dup.any():
        row = frame.loc[dup, [*RUN_KEYS, "class"]].iloc[0].to_dict()
        raise PruneAuditError(f"run-series frame has a duplicated (run, class) row: {row}")
    acc = frame["accuracy"].astype(float)
    if ((acc < 0) | (acc > 1)).any():
        raise PruneAuditError("run-series accuracy must be in [0, 1] (or NaN)")
    spread = frame.groupby(list(RUN_KEYS), dropna=False)["sparsity"].nunique()
    if (spread > 1).any():
        raise PruneAuditError(
            f"run {dict(zip(RUN_KEYS, spread[spread > 1].index[0], strict=True))} has "
            "more than one sparsity value; each run has one"
        )
    return frame


def _run_unfairness(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per run: sparsity, accuracy, unfairness_max_min, unfairness_mean_min."""

    def per_run(g: pd.DataFrame) -> pd.Series:
        acc = g["accuracy"].to_numpy(dtype=float)
        ok = ~np.isnan(acc)
        if "n" in g.columns:
            n = g["n"].to_numpy(dtype=float)
            total = float(np.sum(acc[ok] * n[ok]) / np.sum(n[ok]))
        else:
            total = float(np.mean(acc[ok]))
        return pd.Series(
            {
                "sparsity": float(g["sparsity"].iloc[0]),
                "accuracy": total,
                "unfairness_max_min": unfairness(acc, "max_min"),
                "unfairness_mean_min": unfairness(acc, "mean_min"),
            }
        )

    return frame.groupby(list(RUN_KEYS), sort=True).apply(per_run).reset_index()


def unfairness_vs_sparsity(frame: pd.DataFrame) -> pd.DataFrame:
    """Unfairness vs sparsity per technique, averaged over seeds.

    For each run (one seed) compute its total accuracy (``sum_c n_c a_c / sum_c n_c`` when the
    frame has an ``n`` column, else the mean class accuracy) and both unfairness kinds; then
    average over seeds within (dataset, model, technique, treatment, iteration). Columns:
    the series keys, ``sparsity, accuracy, accuracy_std, unfairness_max_min,
    unfairness_max_min_std, unfairness_mean_min, unfairness_mean_min_std, n_seeds`` (std with
    ddof=1, NaN for a single seed).
    """
    runs = _run_unfairness(_check_run_series(frame))
    metrics = ["accuracy", "unfairness_max_min", "unfairness_mean_min"]
    grouped = runs.groupby(list(SERIES_KEYS), sort=True)
    out = grouped[["sparsity", *metrics]].mean()
    for m in metrics:
        out.insert(out.columns.get_loc(m) + 1, f"{m}_std", grouped[m].std(ddof=1))
    out["n_seeds"] = grouped["seed"].nunique()
    return out.reset_index()


def accuracy_vs_sparsity(frame: pd.DataFrame) -> SparsityTables:
    """Per-class accuracy vs sparsity and unfairness vs sparsity tables of a run-series frame.

    ``frame`` is tidy with columns ``dataset, model, technique, treatment, seed, iteration,
    sparsity, class, accuracy`` (and optionally ``n``). ``per_class`` holds the mean over seeds
    of each class's accuracy, indexed by (dataset, model, technique, treatment, iteration,
    sparsity) where sparsity is the mean over seeds; its columns are the classes.
    """
    frame = _check_run_series(frame)
    keys = list(SERIES_KEYS)
    sparsity = frame.drop_duplicates(list(RUN_KEYS)).groupby(keys, sort=True)["sparsity"].mean()
    per_class = frame.groupby([*keys, "class"], sort=True)["accuracy"].mean().unstack("class")
    per_class = per_class.join(sparsity).set_index("sparsity", append=True)
    per_class.columns.name = "class"
    return SparsityTables(per_class=per_class, unfairness=unfairness_vs_sparsity(frame))
