"""Study 2's writer-level fits: least-squares lines of writer accuracy on mean |tilt| per
series (P's Table 1, D2.3, D2.4), the bootstrap over writers and the series masks the writer
rows share."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from pruneaudit import audit
from pruneaudit.audit.findings import Finding

STUDY = "S2_QMNIST_writers"
TILT_METRIC = "linear fit of per-writer accuracy vs average absolute tilt: "
#: P's Table 1 groups; hsf1 is not in the offline test digits.
TABLE1_GROUPS: tuple[str, ...] = ("hsf0", "hsf1", "hsf4", "all")
OFFLINE_GROUPS: tuple[str, ...] = ("hsf0", "hsf4", "all")
HSF1_MISSING = (
    "series hsf1 occurs only in the 50,000 QMNIST test digits that are not available offline "
    "(the offline test10k has hsf0 and hsf4 only)"
)
BY_WRITERS = "95% percentile bootstrap over writers (writer accuracy = mean over seeds)"


@dataclass(frozen=True)
class Writers:
    """One entry per writer: mean |tilt|, accuracy of the dense and of the pruned models (mean
    over seeds) and series (hsf0, hsf4)."""

    abs_tilt: np.ndarray
    acc_dense: np.ndarray
    acc_pruned: np.ndarray
    series: np.ndarray

    @classmethod
    def of(cls, frame: pd.DataFrame) -> Writers:
        """From the page's writer frame (``Result.writers``)."""
        return cls(*(frame[c].to_numpy() for c in
                     ("abs_tilt", "accuracy_unpruned", "accuracy_pruned", "series")))

    def accuracy(self, stage: str) -> np.ndarray:
        """The writers' accuracy at ``stage`` (``unpruned`` or ``pruned``)."""
        return self.acc_dense if stage == "unpruned" else self.acc_pruned


@dataclass(frozen=True)
class Resampling:
    """The bootstrap over writers: its seed and number of resamples."""

    seed: int = 0
    n_resamples: int = 999


#: The page's bootstrap over writers (seed 0, 999 resamples).
BOOTSTRAP = Resampling()


def paper_tilt(coefficient: str, stage: str, group: str) -> audit.Published:
    """P Table 1: ``coefficient`` (intercept/slope) before/after pruning for ``group``."""
    return audit.lookup(
        STUDY,
        TILT_METRIC + coefficient,
        setting="before pruning" if stage == "unpruned" else "after pruning",
        dataset=f"QMNIST test, writer group {'full' if group == 'all' else group}",
    )


def printed_difference(x: float) -> float:
    """A difference of two printed values, without float noise (-0.18999999999999995: -0.19)."""
    return round(x, 6)


def masked_fit(x, y, m, axis=-1):
    """Least-squares (intercept, slope) of y on x over the rows where ``m`` is 1, along ``axis``
    (vectorized over resamples)."""
    n = m.sum(axis)
    mx = (m * x).sum(axis) / n
    my = (m * y).sum(axis) / n
    dx = x - np.expand_dims(mx, axis)
    slope = (m * dx * (y - np.expand_dims(my, axis))).sum(axis) / (m * dx**2).sum(axis)
    return my - slope * mx, slope


def writer_bootstrap(arrays, statistic, boot: Resampling) -> tuple[float, float, float]:
    """``statistic`` of the writer-level ``arrays`` and its percentile bootstrap interval over
    writers (vectorized; :func:`pruneaudit.audit.bootstrap_interval`)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return audit.bootstrap_interval(
            [np.asarray(a, dtype=float) for a in arrays],
            statistic,
            seed=boot.seed,
            n_resamples=boot.n_resamples,
            vectorized=True,
        )


def fit_difference(
    x: np.ndarray, first: tuple, second: tuple, coefficient: int, boot: Resampling
) -> tuple[float, float, float]:
    """Coefficient ``coefficient`` (0: intercept, 1: slope) of :func:`masked_fit` of y on ``x``
    over ``first`` = (y, m) minus that over ``second``, with its bootstrap interval over writers
    (:func:`writer_bootstrap`)."""

    def difference(x, y1, m1, y2, m2, axis=-1):
        return (masked_fit(x, y1, m1, axis)[coefficient]
                - masked_fit(x, y2, m2, axis)[coefficient])

    return writer_bootstrap([x, *first, *second], difference, boot)


def series_masks(series: np.ndarray) -> dict[str, np.ndarray]:
    """Indicator arrays (1.0 / 0.0) of the writers in hsf0, in hsf4 and of all writers."""
    s = np.asarray(series)
    return {"hsf0": (s == "hsf0") * 1.0, "hsf4": (s == "hsf4") * 1.0, "all": np.ones(len(s))}


def slope_change_finding(writers: Writers, group: str, boot: Resampling = BOOTSTRAP) -> Finding:
    """D2.3 for one group: the accuracy-vs-|tilt| slope turns more negative after pruning (slope
    pruned − slope dense, beside P's difference; hsf1: not testable here)."""
    paper = printed_difference(
        paper_tilt("slope", "pruned", group).number
        - paper_tilt("slope", "unpruned", group).number
    )
    name = f"D2.3 tilt slope turns more negative ({group}: slope pruned − slope dense)"
    source = "P; Table 1"
    definition = (
        f"least-squares slope of writer accuracy on mean |tilt| ({group}), pruned minus dense"
    )
    masks = series_masks(writers.series)
    if group not in masks:
        return audit.not_testable(
            name, paper, source=source, why=HSF1_MISSING, definition=definition
        )
    m = masks[group]
    w = writers
    est, lo, hi = fit_difference(w.abs_tilt, (w.acc_pruned, m), (w.acc_dense, m), 1, boot)
    return audit.finding(
        name, est, lo, hi, paper, source=source, basis=BY_WRITERS, definition=definition
    )


def intercept_gap_finding(
    writers: Writers, stage: str, boot: Resampling = BOOTSTRAP
) -> Finding:
    """D2.4 for one stage (unpruned / pruned): hsf4's fitted intercept minus hsf0's, < 0."""
    paper = printed_difference(
        paper_tilt("intercept", stage, "hsf4").number
        - paper_tilt("intercept", stage, "hsf0").number
    )
    masks, y = series_masks(writers.series), writers.accuracy(stage)
    est, lo, hi = fit_difference(writers.abs_tilt, (y, masks["hsf4"]), (y, masks["hsf0"]), 0, boot)
    return audit.finding(
        f"D2.4 hsf4 has the lowest fitted intercept, {stage} (hsf4 − hsf0)",
        est, lo, hi, paper,
        source="P; Table 1",
        basis=BY_WRITERS + "; hsf1 not offline, so hsf4 vs hsf0 only",
        unit="points",
        definition=f"fitted intercept of writer accuracy on mean |tilt|, hsf4 minus hsf0, "
        f"{stage} (P: hsf4 lowest of three groups, 0.974 → 0.771)",
    )


def tilt_findings(writers: Writers, boot: Resampling = BOOTSTRAP) -> list[Finding]:
    """D2.3 for hsf0, hsf1 (not testable), hsf4 and all writers, then D2.4 before and after."""
    return [
        *(slope_change_finding(writers, g, boot) for g in TABLE1_GROUPS),
        *(intercept_gap_finding(writers, stage, boot) for stage in ("unpruned", "pruned")),
    ]


def tilt_table(writers: Writers, boot: Resampling = BOOTSTRAP) -> pd.DataFrame:
    """P's Table 1 on our data: intercept and slope of writer accuracy on mean |tilt| per group
    and stage, with bootstrap intervals over writers, beside P's values (hsf1: not offline).
    Columns: group, stage, coefficient, ours, ci_low, ci_high, paper."""
    masks = series_masks(writers.series)
    rows = []
    for group in TABLE1_GROUPS:
        for stage in ("unpruned", "pruned"):
            for j, coefficient in enumerate(("intercept", "slope")):
                paper = paper_tilt(coefficient, stage, group).number
                if group not in masks:
                    rows.append((group, stage, coefficient, np.nan, np.nan, np.nan, paper))
                    continue

                def stat(x, yy, m, axis=-1, j=j):
                    return masked_fit(x, yy, m, axis)[j]

                est, lo, hi = writer_bootstrap(
                    [writers.abs_tilt, writers.accuracy(stage), masks[group]], stat, boot
                )
                rows.append((group, stage, coefficient, est, lo, hi, paper))
    return pd.DataFrame(
        rows, columns=["group", "stage", "coefficient", "ours", "ci_low", "ci_high", "paper"]
    )
