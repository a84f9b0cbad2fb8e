"""The notebook template's study (``nbs/00_template``): synthetic per-class accuracy curves.

It shows the shape of a study module: one function that makes the results (here synthetic: no
training), one that computes the page's findings from them, one that makes the key figure.
The sparsity after ``k`` pruning iterations of 20% is ``s_k = 1 - 0.8**k``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import altair as alt
import numpy as np
import pandas as pd

from pruneaudit import audit, charts
from pruneaudit.errors import PruneAuditError
from pruneaudit.studies.params import Rule, StudyParams


@dataclass(frozen=True, kw_only=True)
class Params(StudyParams):
    """The template's parameters: ``n_classes`` curves over ``iterations`` pruning rounds."""

    STUDY = "template"

    n_classes: int
    iterations: int
    seed: int

    def rules(self) -> Iterable[Rule]:
        yield lambda: _check(self.n_classes, self.iterations)


def _check(n_classes: int, iterations: int) -> None:
    if n_classes < 2:
        raise PruneAuditError(f"n_classes must be at least 2, got {n_classes}")
    if iterations < 1:
        raise PruneAuditError(f"iterations must be at least 1, got {iterations}")


def synthetic_curves(
    n_classes: int, iterations: int, seed: int, *, effect: float = 1.0, noise: float = 0.01
) -> pd.DataFrame:
    """Per-class accuracy at sparsities ``s_k``, k = 0..iterations: ``0.95 - effect * f_c *
    s_k**3`` plus Gaussian noise, with class fragility ``f_c ~ U(0.05, 0.6)``. ``effect=0``
    gives curves that do not depend on the sparsity (the null)."""
    _check(n_classes, iterations)
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


def accuracy_drops(curves: pd.DataFrame) -> pd.Series:
    """Per class: accuracy at the last iteration minus at iteration 0."""
    ordered = curves.sort_values("iteration").groupby("class")["accuracy"]
    return ordered.last() - ordered.first()


def numbers(curves: pd.DataFrame) -> dict[str, float | str | int]:
    """The numbers the page's prose cites: the mean and the largest drop, the class it hits,
    and the number of classes (glued into the Markdown by :meth:`pruneaudit.book.Page.glue`)."""
    drops = accuracy_drops(curves)
    return {
        "mean_drop": float(drops.mean()),
        "worst_drop": float(drops.min()),
        "worst_class": str(drops.idxmin()),
        "n_classes": int(len(drops)),
    }


def findings(curves: pd.DataFrame) -> list[audit.Finding]:
    """One finding: pruning lowers class accuracy (mean drop over classes below 0, Student-t
    interval over classes). A direction only: the template has no paper value."""
    drops = accuracy_drops(curves).to_numpy()
    ours, lo, hi = audit.mean_interval(drops)
    return [
        audit.finding(
            "pruning lowers class accuracy (synthetic)",
            ours,
            lo,
            hi,
            None,
            source="template; synthetic data",
            basis="mean over classes of the last-minus-first accuracy, t interval over classes; "
            "smallest effect 5 points",
            direction=-1,
            smallest=0.05,
            df=max(len(drops) - 1, 1),
            unit="points",
            definition="mean over classes of accuracy at the last iteration minus the first",
        )
    ]


def key_figure(curves: pd.DataFrame) -> alt.LayerChart:
    """The template's key figure: accuracy curves with the sparsity slider."""
    return charts.accuracy_curves(
        curves, tooltip=["iteration"], title="Per-class accuracy (synthetic)"
    )


def class_view(curves: pd.DataFrame) -> alt.Chart:
    """The explorer: one class's accuracy against the iteration, picked from a drop-down."""
    chart = (
        alt.Chart(curves)
        .mark_bar()
        .encode(
            x=alt.X("iteration:O", title="pruning iteration"),
            y=alt.Y("accuracy:Q", title="accuracy", scale=alt.Scale(zero=False)),
            tooltip=["class", "iteration", alt.Tooltip("accuracy:Q", format=".1%")],
        )
        .properties(title="One class across the pruning iterations", width=420, height=240)
    )
    return charts.dropdown_view(chart, "class", sorted(curves["class"].unique()), label="class")
