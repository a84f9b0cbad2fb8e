"""Pareto selection of a pruning operating point (Study 3).

A point ``p`` is dominated if another point ``q`` is at least as good in every objective
(``>=`` for a ``'max'`` objective, ``<=`` for a ``'min'`` one) and strictly better in at least
one. The Pareto front is the set of non-dominated points. Identical points do not dominate one
another, so duplicates on the front are all kept.

Hand-written (a vectorized O(n^2 m) comparison in row blocks) because no kept dependency offers
a non-dominated filter for any number of objectives with per-objective senses.

Formulas: the book's ``book/methods_audit.md``, section *Pareto selection*.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from pruneaudit.errors import PruneAuditError, check_choice

SENSES = ("max", "min")
_BLOCK = 256


def _objectives(data: object, senses: object) -> np.ndarray:
    if isinstance(data, pd.DataFrame):
        if not isinstance(senses, Mapping) or not senses:
            raise PruneAuditError(
                "for a DataFrame, senses must be a non-empty mapping {column: 'max' | 'min'}"
            )
        missing = [c for c in senses if c not in data.columns]
        if missing:
            raise PruneAuditError(
                f"columns {missing} not in the frame; available: {list(data.columns)}"
            )
        columns, sense_list = list(senses), list(senses.values())
        x = data[columns].to_numpy(dtype=float)
    else:
        x = np.asarray(data, dtype=float)
        if x.ndim != 2:
            raise PruneAuditError(f"points must have shape (n, m), got shape {x.shape}")
        if isinstance(senses, str | Mapping) or not isinstance(senses, Sequence):
            raise PruneAuditError("for an array, senses must be a sequence of 'max' | 'min'")
        sense_list = list(senses)
        if len(sense_list) != x.shape[1]:
            raise PruneAuditError(
                f"{len(sense_list)} senses given for {x.shape[1]} objectives; give one each"
            )
        if not sense_list:
            raise PruneAuditError("at least one objective is needed")
    signs = np.array(
        [1.0 if check_choice("sense", s, SENSES) == "max" else -1.0 for s in sense_list]
    )
    if x.shape[0] == 0:
        raise PruneAuditError("no candidate points (did an accuracy floor remove them all?)")
    if np.isnan(x).any():
        raise PruneAuditError("objective values contain NaN; drop or fill those candidates")
    return x * signs


def pareto_front(data: pd.DataFrame | np.ndarray, senses: object) -> np.ndarray:
    """Boolean mask ``(n,)`` of the non-dominated points.

    ``data``: a DataFrame with ``senses`` a mapping ``{column: 'max' | 'min'}`` (e.g.
    ``{"sparsity": "max", "unfairness_max_min": "min"}``), or an array ``(n, m)`` with ``senses``
    a sequence of m senses. Use as ``frame[pareto_front(frame, senses)]``.
    """
    x = _objectives(data, senses)
    n = x.shape[0]
    dominated = np.zeros(n, dtype=bool)
    for start in range(0, n, _BLOCK):
        block = x[start : start + _BLOCK, None, :]  # (b, 1, m): candidates
        ge = (x[None, :, :] >= block).all(axis=-1)  # (b, n): q at least as good everywhere
        gt = (x[None, :, :] > block).any(axis=-1)  # (b, n): q strictly better somewhere
        dominated[start : start + _BLOCK] = (ge & gt).any(axis=1)
    return ~dominated


def accuracy_floor(frame: pd.DataFrame, column: str, floor: float) -> pd.DataFrame:
    """Rows of ``frame`` whose ``column`` is at least ``floor`` (rows with NaN are dropped)."""
    if not isinstance(frame, pd.DataFrame):
        raise PruneAuditError(f"expected a pandas DataFrame, got {type(frame).__name__}")
    if column not in frame.columns:
        raise PruneAuditError(
            f"column {column!r} not in the frame; available: {list(frame.columns)}"
        )
    try:
        floor = float(floor)
    except (TypeError, ValueError):
        raise PruneAuditError(f"floor must be a number, got {floor!r}") from None
    if floor != floor:
        raise PruneAuditError("floor must be a number, got NaN")
    return frame[frame[column].astype(float) >= floor]


def select_operating_point(frame: pd.DataFrame, weights: Mapping[str, float]) -> pd.Series:
    """The row maximizing the linear value ``sum_col weights[col] * frame[col]``.

    Signs are in the weights: the published example is
    ``{"unfairness_max_min": -100.0, "sparsity": 1.0}``, i.e.
    ``value = w_fair * (-unfairness) + w_sparse * sparsity`` with ``w_fair = 100 w_sparse``.
    Ties (exactly equal values): the first such row in the frame's order. Returns that row with
    an added ``value`` entry; its index label is the row's ``name``.
    """
    if not isinstance(frame, pd.DataFrame):
        raise PruneAuditError(f"expected a pandas DataFrame, got {type(frame).__name__}")
    if frame.empty:
        raise PruneAuditError("no candidate rows to select from")
    if not isinstance(weights, Mapping) or not weights:
        raise PruneAuditError("weights must be a non-empty mapping {column: weight}")
    missing = [c for c in weights if c not in frame.columns]
    if missing:
        raise PruneAuditError(
            f"columns {missing} not in the frame; available: {list(frame.columns)}"
        )
    w = np.array([float(v) for v in weights.values()])
    if not np.isfinite(w).all():
        raise PruneAuditError(f"weights must be finite numbers, got {dict(weights)}")
    x = frame[list(weights)].to_numpy(dtype=float)
    if np.isnan(x).any():
        raise PruneAuditError("weighted columns contain NaN; drop or fill those candidates")
    value = x @ w
    best = int(np.argmax(value))  # first maximum in frame order
    row = frame.iloc[best].copy()
    row["value"] = float(value[best])
    return row
