"""Study 2's findings (D2.1-D2.6), each built by its claim's id (:mod:`~.claims`): intervals
over seeds or writers, verdicts against P; P's Table 1 on our writers (:mod:`~.writer_fits`);
the numbers the page's prose cites. D2.1's interval is a collapse mixture over seeds
(:mod:`~.collapse_mixture`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import pandas as pd
from scipy import stats

from pruneaudit import audit
from pruneaudit.audit.bounded import difference_interval
from pruneaudit.audit.findings import Finding

from .claims import SIMILAR_MARGIN, claims
from .collapse_mixture import mixture_interval
from .frames import collapses, most_hurt, seed_class_accuracy, seed_writer_accuracy
from .protocol import prunable_weights
from .run import Result
from .writer_fits import (
    BOOTSTRAP,
    BY_WRITERS,
    WriterBootstrap,
    Writers,
    masked_fit,
    series_masks,
    tilt_findings,
    tilt_table,
    writer_bootstrap,
)

BY_SEEDS = "95% Student-t interval over seeds (one value per seed)"
MIXTURE_BASIS = (
    "collapse mixture over {n} seeds ({k} collapsed): upper end the other seeds' 97.5% "
    "Student-t end, lower end lowered by up to {rate:.0%} of seeds (the collapse rate's 98.75% "
    "upper bound) falling to a single-class model; a collapsing seed only deepens the drop"
)


def topline_finding(
    dense_accuracy: Sequence[float], pruned_accuracy: Sequence[float], num_classes: int = 10
) -> Finding:
    """D2.1: change of test accuracy, pruned − dense, per seed (P: ~97% → ~78%), mean over seeds
    with its collapse-mixture interval (:mod:`~.collapse_mixture`: a collapse falls to the top-1
    of a single-class model, ``1 / num_classes``); P's band from our per-seed spread over
    P's 6 replicates."""
    d = np.asarray(dense_accuracy, float)
    change = np.asarray(pruned_accuracy, float) - d
    mix = mixture_interval(change, 1 / num_classes - float(np.mean(d)))
    return audit.judge(claims()["D2.1"], audit.Estimate(
        mix.mean, mix.ci_low, mix.ci_high,
        MIXTURE_BASIS.format(n=mix.seeds, k=mix.collapsed, rate=mix.rate_high),
        df=max(mix.seeds - mix.collapsed - 1, 1), units=mix.seeds,
        unit_sd=float(np.std(change, ddof=1)) if change.size > 1 else None,
    ))


def group_drops_finding(
    change: np.ndarray, series: np.ndarray, boot: WriterBootstrap = BOOTSTRAP
) -> Finding:
    """D2.2 (groups): hsf4 and hsf0 lose about the same: (mean change hsf4 − mean change hsf0)
    / mean change of all writers lies within ±:data:`~.claims.SIMILAR_MARGIN` (an equivalence
    claim); its power is that of the equivalence test (:func:`equivalence_power`)."""
    masks = series_masks(series)

    def rel(c, m4, m0, axis=-1):
        mean4 = (c * m4).sum(axis) / m4.sum(axis)
        mean0 = (c * m0).sum(axis) / m0.sum(axis)
        return (mean4 - mean0) / c.mean(axis)

    est, lo, hi = writer_bootstrap([change, masks["hsf4"], masks["hsf0"]], rel, boot)
    basis = f"{BY_WRITERS}; reproduced when the interval lies within ±{SIMILAR_MARGIN}"
    row = audit.judge(claims()["D2.2"],
                      audit.Estimate(est, lo, hi, basis, units=int(np.size(change))))
    return replace(row, power=equivalence_power(lo, hi, SIMILAR_MARGIN))


def equivalence_power(ci_low: float, ci_high: float, margin: float) -> float | None:
    """Power of the equivalence claim at the measured precision: the probability that a 95%
    interval as wide as ``[ci_low, ci_high]`` lies within ±``margin`` when the true difference is
    0 (normal approximation: 2Φ(margin/se − 1.96) − 1, at least 0); None without an interval."""
    if not (np.isfinite(ci_low) and np.isfinite(ci_high)) or not ci_high > ci_low:
        return None
    q = float(stats.norm.ppf(0.975))
    se = (ci_high - ci_low) / (2 * q)
    return float(max(2 * stats.norm.cdf(margin / se - q) - 1, 0.0))


def worst_writer_drops(acc_dense: np.ndarray, acc_other: np.ndarray) -> np.ndarray:
    """Per seed: the largest drop (most negative ``other − dense``) among the writers that seed's
    dense model gets 100% right (NaN when it gets none right); inputs (K, W)."""
    d, o = np.atleast_2d(acc_dense), np.atleast_2d(acc_other)
    perfect = d == 1.0
    drops = np.where(perfect, o - d, np.inf).min(axis=1)
    return np.where(perfect.any(axis=1), drops, np.nan)


def collapse_finding(acc_dense: np.ndarray, acc_pruned: np.ndarray) -> Finding:
    """D2.2 (individuals, claim ``D2.2 writer``), P's raw quantity: per seed, the worst drop
    (pruned − dense) of a writer the dense model gets 100% right (P, seed 0: writer 469 100% →
    47.7%); the mean over seeds with its Student-t interval, P's band from the per-seed spread
    (P's number is one seed's)."""
    worst = worst_writer_drops(acc_dense, acc_pruned)
    worst = worst[np.isfinite(worst)]
    ours, lo, hi = audit.mean_interval(worst)
    basis = f"{BY_SEEDS}, of each seed's worst drop among its dense model's perfect writers"
    return audit.judge(claims()["D2.2 writer"], audit.Estimate(
        float(ours) if worst.size else np.nan, lo, hi, basis, df=max(worst.size - 1, 1),
        unit_sd=float(np.std(worst, ddof=1)) if worst.size > 1 else None))


def collapse_excess_finding(acc_dense: np.ndarray, acc_pruned: np.ndarray) -> Finding:
    """Our question beside D2.2's collapse (claim ``B2.2 writer excess``): per seed, the worst
    drop (:func:`collapse_finding`) minus its chance level, the same statistic with another
    seed's dense model in place of the pruned one (seed k vs seed k+1 mod K); the mean over
    seeds with its Student-t interval, against 0."""
    d = np.atleast_2d(np.asarray(acc_dense, float))
    worst = worst_writer_drops(d, acc_pruned)
    chance = worst_writer_drops(d, np.roll(d, -1, axis=0))
    keep = np.isfinite(worst) & np.isfinite(chance)
    beyond = worst[keep] - chance[keep]
    ours, lo, hi = audit.mean_interval(beyond)
    level = float(chance[keep].mean()) if keep.any() else np.nan
    worst_mean = float(worst[keep].mean()) if keep.any() else np.nan
    basis = (f"{BY_SEEDS}, of each seed's worst drop ({worst_mean:+.3f} on average) minus its "
             f"chance level ({level:+.3f} on average)")
    return audit.judge(claims()["B2.2 writer excess"], audit.Estimate(
        float(ours) if keep.any() else np.nan, lo, hi, basis, df=max(int(keep.sum()) - 1, 1)))


def property_findings(
    abs_tilt: np.ndarray,
    activation: np.ndarray,
    change: np.ndarray,
    series: np.ndarray,
    boot: WriterBootstrap = BOOTSTRAP,
) -> list[Finding]:
    """D2.5: hsf4 writers draw more vertical digits (mean |tilt| hsf4 − hsf0 < 0, in pooled
    standard deviations: Cohen's d with its Welch interval scaled alike); writers with atypical
    mean activation (either direction) lose more (slope of the accuracy change on |activation −
    mean over writers| < 0, standardized by the two standard deviations: a correlation); the
    distance effect by group: not testable."""
    table = claims()
    masks = series_masks(series)
    x = np.asarray(abs_tilt, float)
    x4, x0 = x[masks["hsf4"] == 1], x[masks["hsf0"] == 1]
    welch = stats.ttest_ind(x4, x0, equal_var=False)
    ci = welch.confidence_interval(0.95)
    pooled = float(np.sqrt((x4.var(ddof=1) + x0.var(ddof=1)) / 2))
    basis = ("95% Welch t interval over writers (difference of two series' means), both over "
             f"the pooled SD ({pooled:.3g})")
    out = [audit.judge(table["D2.5 tilt"], audit.Estimate(
        *_scaled((float(x4.mean() - x0.mean()), float(ci.low), float(ci.high)),
                 1 / pooled if pooled > 0 else np.nan),
        basis, df=float(welch.df)))]

    def atypical(a, c, axis=-1):
        dev = np.abs(a - np.expand_dims(a.mean(axis), axis))
        return masked_fit(dev, c, np.ones_like(dev), axis)[1]

    slope = writer_bootstrap([activation, change], atypical, boot)
    a = np.asarray(activation, float)
    dev_sd = float(np.abs(a - a.mean()).std(ddof=1))
    change_sd = float(np.std(change, ddof=1))
    basis = (f"{BY_WRITERS}; slope times SD(|activation − mean|) / SD(change) "
             f"({dev_sd:.3g} / {change_sd:.3g}), both of all writers")
    out.append(audit.judge(table["D2.5 activation"], audit.Estimate(
        *_scaled(slope, dev_sd / change_sd if change_sd > 0 else np.nan), basis)))
    out.append(audit.untested(table["D2.5 distance"]))
    return out


def _scaled(values: tuple[float, float, float], factor: float) -> tuple[float, float, float]:
    """An estimate and its interval ends times ``factor`` (NaN when it is not finite)."""
    f = float(factor) if np.isfinite(factor) else np.nan
    ours, lo, hi = (float(v) * f for v in values)
    return ours, min(lo, hi), max(lo, hi)


def class_findings(class_dense: np.ndarray, class_pruned: np.ndarray) -> list[Finding]:
    """D2.6 per seed: digit 1 stays the best class after pruning (its pruned accuracy minus the
    best other class's, > 0), and digit 5 drops most (its change minus the largest other
    class's drop, < 0); inputs (K, 10) per-seed class accuracies."""
    d, p = np.atleast_2d(class_dense), np.atleast_2d(class_pruned)
    margin1 = p[:, 1] - np.delete(p, 1, axis=1).max(axis=1)
    change = p - d
    margin5 = change[:, 5] - np.delete(change, 5, axis=1).min(axis=1)
    out = []
    for claim, values in (("D2.6 digit 1", margin1), ("D2.6 digit 5", margin5)):
        m, lo, hi = difference_interval(*audit.mean_interval(values))
        basis = (f"{BY_SEEDS}, on the bounded scale of a difference of accuracies (inside "
                 f"±100 points); smallest effect {claims()[claim].smallest:.0%} points")
        out.append(audit.judge(claims()[claim],
                               audit.Estimate(m, lo, hi, basis, df=max(len(values) - 1, 1))))
    return out


def seed_writers(result: Result) -> Writers:
    """The page's writers (:meth:`~.writer_fits.Writers.of`) with each seed's accuracy on each
    writer, in the writer frame's order."""
    ids, dense = seed_writer_accuracy(result.correct_dense, result.digits["writer"])
    _, pruned = seed_writer_accuracy(result.correct_pruned, result.digits["writer"])
    order = pd.Index(ids).get_indexer(result.writers["writer"])
    return Writers.of(result.writers, dense[:, order], pruned[:, order])


def findings(result: Result, *, seed: int = 0, n_resamples: int = 999) -> list[Finding]:
    """The study's findings D2.1-D2.6 beside P's values, with intervals and verdicts, in the
    claims' order; the headline rows are the claims' (D2.1 and D2.2's collapse)."""
    w = result.writers
    writers = seed_writers(result)
    labels = result.test.labels.numpy()
    series = w["series"].to_numpy()
    boot = WriterBootstrap(seed, n_resamples)
    return [
        topline_finding(result.correct_dense.mean(axis=1), result.correct_pruned.mean(axis=1),
                        result.test.num_classes),
        group_drops_finding(w["accuracy_change"].to_numpy(), series, boot),
        collapse_finding(writers.seed_dense, writers.seed_pruned),
        collapse_excess_finding(writers.seed_dense, writers.seed_pruned),
        *tilt_findings(writers, boot),
        *property_findings(
            w["abs_tilt"].to_numpy(), w["mean_activation"].to_numpy(),
            w["accuracy_change"].to_numpy(), series, boot,
        ),
        *class_findings(
            seed_class_accuracy(result.correct_dense, labels, result.test.num_classes),
            seed_class_accuracy(result.correct_pruned, labels, result.test.num_classes),
        ),
    ]


# --------------------------------------------------------------------------- P's Table 1


def table1(result: Result, *, seed: int = 0, n_resamples: int = 999) -> pd.DataFrame:
    """P's Table 1 on this page's writers (:func:`~.writer_fits.tilt_table`)."""
    return tilt_table(Writers.of(result.writers), WriterBootstrap(seed, n_resamples))


# --------------------------------------------------------------------------- what the page says


def numbers(result: Result) -> dict[str, float | int | str]:
    """The numbers the page's prose cites (glued into its Markdown by
    :meth:`pruneaudit.book.Page.glue`): top-line accuracy and sparsity, the writer most hurt, the
    writers who collapse, the spread of writer-level changes (``*_points``: percentage points),
    the digits per writer and the training budget (``epochs``, ``lr``, ``batch_size``)."""
    p = result.params
    budget = {"epochs": int(p.epochs), "lr": float(p.lr), "batch_size": int(p.batch_size)}
    return {**_topline_numbers(result), **_writer_numbers(result), **_limit_numbers(result),
            **budget}


def _topline_numbers(result: Result) -> dict[str, float | int]:
    dense = float(result.correct_dense.mean())
    pruned = float(result.correct_pruned.mean())
    sparsity = float(result.sparsity.mean())
    n_weights = prunable_weights()
    return {
        "dense_accuracy": dense,
        "pruned_accuracy": pruned,
        "topline_change_points": 100 * (pruned - dense),
        "sparsity": sparsity,
        "weights_left": round((1 - sparsity) * n_weights),
        "prunable_weights": n_weights,
        "pruned_iteration": int(result.pruned_iteration),
        "seeds": result.seeds,
        "test_digits": len(result.test),
    }


def _writer_numbers(result: Result) -> dict[str, float | int | str]:
    w = result.writers
    top = most_hurt(w, 1).iloc[0]
    fallen = collapses(w)
    change = w["accuracy_change"]
    return {
        "hurt_writer": int(top["writer"]),
        "hurt_series": str(top["series"]),
        "hurt_digits": int(top["n"]),
        "hurt_unpruned": float(top["accuracy_unpruned"]),
        "hurt_pruned": float(top["accuracy_pruned"]),
        "hurt_change_points": 100 * float(top["accuracy_change"]),
        "n_collapses": len(fallen),
        "collapsed_writers": ", ".join(f"{r.writer} ({r.series})" for r in fallen.itertuples())
        or "none",
        "change_min_points": 100 * float(change.min()),
        "change_max_points": 100 * float(change.max()),
        "change_median_points": 100 * float(change.median()),
        "share_losing": float((change < 0).mean()),
    }


def _limit_numbers(result: Result) -> dict[str, float | int]:
    n = result.writers["n"]
    return {
        "digits_per_writer": float(n.mean()),
        "digits_min": int(n.min()),
        "digits_max": int(n.max()),
        "one_digit_share": float(1 / n.mean()),
    }
