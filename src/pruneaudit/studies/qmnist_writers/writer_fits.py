"""Study 2's writer-level fits: least-squares lines of writer accuracy on mean |tilt| per
series (P's Table 1, D2.3, D2.4), the bootstrap over writers and the series masks the writer
rows share.

P's Table 1 is the fit of one model (seed 0): the paper's band of D2.3 and D2.4 holds the noise of
one model, the standard deviation over our seeds of the same statistic computed on each seed's
writer accuracies (:func:`seed_spread`). A least-squares coefficient is linear in the responses,
so the statistic on the seed-mean accuracies (our estimate) is the mean of the seeds' own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pruneaudit import audit
from pruneaudit.audit.findings import Finding

from .claims import TABLE1_GROUPS, claims, paper_tilt

BY_WRITERS = "95% percentile bootstrap over writers (writer accuracy = mean over seeds)"


@dataclass(frozen=True)
class Writers:
    """One entry per writer: mean |tilt|, accuracy of the dense and of the pruned models (mean
    over seeds) and series (hsf0, hsf4); ``seed_dense`` / ``seed_pruned``: each seed's accuracy
    on each writer, (K, W), when known (they give the single-model noise of P's Table 1)."""

    abs_tilt: np.ndarray
    acc_dense: np.ndarray
    acc_pruned: np.ndarray
    series: np.ndarray
    seed_dense: np.ndarray | None = None
    seed_pruned: np.ndarray | None = None

    @classmethod
    def of(cls, frame: pd.DataFrame, seed_dense: np.ndarray | None = None,
           seed_pruned: np.ndarray | None = None) -> Writers:
        """From the page's writer frame (``Result.writers``), with each seed's writer
        accuracies (columns in the frame's writer order) when given."""
        return cls(*(frame[c].to_numpy() for c in
                     ("abs_tilt", "accuracy_unpruned", "accuracy_pruned", "series")),
                   seed_dense, seed_pruned)

    def accuracy(self, stage: str) -> np.ndarray:
        """The writers' accuracy at ``stage`` (``unpruned`` or ``pruned``)."""
        return self.acc_dense if stage == "unpruned" else self.acc_pruned

    def seeds(self) -> list[Writers]:
        """One :class:`Writers` per seed (its own accuracies); empty when they are unknown."""
        if self.seed_dense is None or self.seed_pruned is None:
            return []
        return [Writers(self.abs_tilt, d, p, self.series)
                for d, p in zip(self.seed_dense, self.seed_pruned, strict=True)]


@dataclass(frozen=True)
class WriterBootstrap:
    """The bootstrap over writers: its seed and number of resamples."""

    seed: int = 0
    n_resamples: int = 999


#: The page's bootstrap over writers (seed 0, 999 resamples).
BOOTSTRAP = WriterBootstrap()


def masked_fit(x, y, m, axis=-1):
    """Least-squares (intercept, slope) of y on x over the rows where ``m`` is 1, along ``axis``
    (vectorized over resamples)."""
    n = m.sum(axis)
    mx = (m * x).sum(axis) / n
    my = (m * y).sum(axis) / n
    dx = x - np.expand_dims(mx, axis)
    slope = (m * dx * (y - np.expand_dims(my, axis))).sum(axis) / (m * dx**2).sum(axis)
    return my - slope * mx, slope


def writer_bootstrap(arrays, statistic, boot: WriterBootstrap) -> tuple[float, float, float]:
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
    x: np.ndarray, first: tuple, second: tuple, coefficient: int, boot: WriterBootstrap
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


def seed_spread(writers: Writers, statistic: Callable[[Writers], float]) -> float | None:
    """The standard deviation over seeds of ``statistic`` computed on each seed's own writer
    accuracies (:meth:`Writers.seeds`): the noise of a number that rests on one model, as P's
    Table 1 does; None with fewer than two seeds or a non-finite value."""
    values = np.array([statistic(w) for w in writers.seeds()], dtype=float)
    if values.size < 2 or not np.isfinite(values).all():
        return None
    return float(np.std(values, ddof=1))


def _slope_change(writers: Writers, m: np.ndarray) -> float:
    x = writers.abs_tilt
    return float(masked_fit(x, writers.acc_pruned, m)[1] - masked_fit(x, writers.acc_dense, m)[1])


def _intercept_gap(writers: Writers, stage: str) -> float:
    masks, y = series_masks(writers.series), writers.accuracy(stage)
    x = writers.abs_tilt
    return float(masked_fit(x, y, masks["hsf4"])[0] - masked_fit(x, y, masks["hsf0"])[0])


def _one_model(unit_sd: float | None) -> str:
    if unit_sd is None:
        return "; no per-seed accuracies: P's band holds its margin alone"
    return f"; P's band: one model's noise, the SD over our seeds of the statistic ({unit_sd:.3g})"


def slope_change_finding(
    writers: Writers, group: str, boot: WriterBootstrap = BOOTSTRAP
) -> Finding:
    """D2.3 for one group (claim ``D2.3 <group>``): the accuracy-vs-|tilt| slope turns more
    negative after pruning (slope pruned − slope dense, beside P's difference; hsf1: not
    testable here). P's band holds one model's noise: the spread over our seeds of the same
    slope change (:func:`seed_spread`)."""
    claim = claims()[f"D2.3 {group}"]
    masks = series_masks(writers.series)
    if group not in masks:
        return audit.untested(claim)
    m = masks[group]
    w = writers
    est, lo, hi = fit_difference(w.abs_tilt, (w.acc_pruned, m), (w.acc_dense, m), 1, boot)
    unit_sd = seed_spread(writers, lambda one: _slope_change(one, m))
    return audit.judge(claim, audit.Estimate(est, lo, hi, BY_WRITERS + _one_model(unit_sd),
                                             unit_sd=unit_sd))


def intercept_gap_finding(
    writers: Writers, stage: str, boot: WriterBootstrap = BOOTSTRAP
) -> Finding:
    """D2.4 for one stage (claim ``D2.4 <stage>``, unpruned / pruned): hsf4's fitted intercept
    minus hsf0's, < 0; P's band holds one model's noise (:func:`seed_spread`)."""
    masks, y = series_masks(writers.series), writers.accuracy(stage)
    est, lo, hi = fit_difference(writers.abs_tilt, (y, masks["hsf4"]), (y, masks["hsf0"]), 0, boot)
    unit_sd = seed_spread(writers, lambda one: _intercept_gap(one, stage))
    basis = BY_WRITERS + "; hsf1 not offline, so hsf4 vs hsf0 only" + _one_model(unit_sd)
    return audit.judge(claims()[f"D2.4 {stage}"],
                       audit.Estimate(est, lo, hi, basis, unit_sd=unit_sd))


def tilt_findings(writers: Writers, boot: WriterBootstrap = BOOTSTRAP) -> list[Finding]:
    """D2.3 for hsf0, hsf1 (not testable), hsf4 and all writers, then D2.4 before and after."""
    return [
        *(slope_change_finding(writers, g, boot) for g in TABLE1_GROUPS),
        *(intercept_gap_finding(writers, stage, boot) for stage in ("unpruned", "pruned")),
    ]


def tilt_table(writers: Writers, boot: WriterBootstrap = BOOTSTRAP) -> pd.DataFrame:
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
