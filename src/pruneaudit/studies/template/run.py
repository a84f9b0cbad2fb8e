"""The template's results: synthetic per-class accuracy curves (no training, nothing stored).

Per class ``c`` and pruning round ``k``: ``0.95 - effect * f_c * s_k**3`` plus Gaussian noise,
with class fragility ``f_c ~ U(0.05, 0.6)`` and ``s_k = 1 - 0.8**k``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from pruneaudit.runs.store import ResultsStore

from .params import Params, check_sizes


@dataclass(frozen=True)
class Result:
    """What the template's page shows: its parameters and the curves (columns class, iteration,
    sparsity, accuracy)."""

    params: Params
    curves: pd.DataFrame


def synthetic_curves(
    n_classes: int, iterations: int, seed: int, *, effect: float = 1.0, noise: float = 0.01
) -> pd.DataFrame:
    """Per-class accuracy at sparsities ``s_k``, k = 0..iterations (the module's formula);
    ``effect=0`` gives curves that do not depend on the sparsity (the null)."""
    check_sizes(n_classes, iterations)
    rng = np.random.default_rng(seed)
    fragility = rng.uniform(0.05, 0.6, n_classes)
    k = np.arange(iterations + 1)
    sparsity = 1 - 0.8**k
    acc = 0.95 - effect * fragility[:, None] * sparsity[None, :] ** 3
    acc = acc + rng.normal(0, noise, acc.shape)
    return pd.DataFrame(
        {
            "class": np.repeat([f"class {c}" for c in range(n_classes)], len(k)),
            "iteration": np.tile(k, n_classes),
            "sparsity": np.tile(sparsity, n_classes),
            "accuracy": acc.ravel(),
        }
    )


def run(params: Params, store: ResultsStore, *, progress: bool = True) -> Result:
    """The page's :class:`Result` (a study would train or read its runs in ``store`` here,
    ``progress`` showing training bars; the template's curves are synthetic)."""
    return Result(params, synthetic_curves(params.n_classes, params.iterations, params.seed))


def accuracy_drops(curves: pd.DataFrame) -> pd.Series:
    """Per class: accuracy at the last iteration minus at iteration 0."""
    ordered = curves.sort_values("iteration").groupby("class")["accuracy"]
    return ordered.last() - ordered.first()
