"""Study 2's findings (D2.1-D2.6): intervals over seeds or writers, verdicts against P; P's
Table 1 on our writers (:mod:`~.writer_fits`); the numbers the page's prose cites. D2.1's
interval is a collapse mixture over seeds (:mod:`~.collapse_mixture`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import pandas as pd
from scipy import stats

from pruneaudit import audit
from pruneaudit.audit.findings import Finding

from .collapse_mixture import mixture_interval
from .frames import collapses, most_hurt, seed_class_accuracy, seed_writer_accuracy
from .protocol import prunable_weights
from .run import Result
from .writer_fits import (
    BOOTSTRAP,
    BY_WRITERS,
    STUDY,
    Resampling,
    Writers,
    masked_fit,
    printed_difference,
    series_masks,
    tilt_findings,
    tilt_table,
    writer_bootstrap,
)

#: Equivalence margin of "group-level drops are similar" (D2.2), fixed before any run: the two
#: series' mean drops differ by less than half of the mean drop over all writers.
SIMILAR_MARGIN = 0.5
BY_SEEDS = "95% Student-t interval over seeds (one value per seed)"
#: Smallest effects of interest for the figure-only claims (P prints no number), fixed in
#: advance: a 1-point class margin (D2.6); Cohen's small effects for D2.5 (d = 0.2 for a
#: difference of means, r = 0.1 for a slope, both in the writers' own standard deviations).
SMALLEST_MARGIN = 0.01
SMALL_D = 0.2
SMALL_R = 0.1


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
    of a single-class model, ``1 / num_classes``)."""
    dense = audit.lookup(STUDY, "test accuracy (mean of 6 replicates)", setting="0% sparsity")
    pruned = audit.lookup(STUDY, "test accuracy (mean of 6 replicates)", setting="~98.6% sparsity")
    d = np.asarray(dense_accuracy, float)
    change = np.asarray(pruned_accuracy, float) - d
    mix = mixture_interval(change, 1 / num_classes - float(np.mean(d)))
    return audit.finding(
        "D2.1 test accuracy falls at ~98.6% sparsity (pruned − dense)",
        mix.mean, mix.ci_low, mix.ci_high, printed_difference(pruned.number - dense.number),
        source=pruned.source,
        basis=MIXTURE_BASIS.format(n=mix.seeds, k=mix.collapsed, rate=mix.rate_high),
        df=max(mix.seeds - mix.collapsed - 1, 1), units=mix.seeds,
        unit_sd=float(np.std(change, ddof=1)) if change.size > 1 else None,
        unit="points",
        definition="mean over seeds of the pruned model's test accuracy minus its dense "
        "model's, all offline test digits (P: mean of 6 replicates, ~97% → ~78%)",
    )


def group_drops_finding(
    change: np.ndarray, series: np.ndarray, boot: Resampling = BOOTSTRAP
) -> Finding:
    """D2.2 (groups): hsf4 and hsf0 lose about the same: (mean change hsf4 − mean change hsf0)
    / mean change of all writers lies within ±:data:`SIMILAR_MARGIN` (an equivalence claim)."""
    masks = series_masks(series)

    def rel(c, m4, m0, axis=-1):
        mean4 = (c * m4).sum(axis) / m4.sum(axis)
        mean0 = (c * m0).sum(axis) / m0.sum(axis)
        return (mean4 - mean0) / c.mean(axis)

    est, lo, hi = writer_bootstrap([change, masks["hsf4"], masks["hsf0"]], rel, boot)
    row = audit.similar(
        "D2.2 group-level drops are similar: (drop hsf4 − drop hsf0) / overall drop",
        est, lo, hi, SIMILAR_MARGIN,
        source="P; Sec. 4.1",
        basis=f"{BY_WRITERS}; reproduced when the interval lies within ±{SIMILAR_MARGIN}",
        unit="ratio",
        units=int(change.size),
        definition="(mean writer accuracy change hsf4 − hsf0) / mean change of all writers; "
        "P: drops comparable across hsf0/1/4, no number",
    )
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
    """D2.2 (individuals): the worst drop of a writer at 100% (P, seed 0: writer 469 100% →
    47.7%), per seed, against chance: the same statistic with another seed's dense model in
    place of the pruned one (seed k vs seed k+1 mod K). The interval is that of the mean paired
    difference, shifted by the chance level, which is the null."""
    before = audit.lookup(STUDY, "writer accuracy", setting="seed 0")
    after = audit.lookup(STUDY, "writer accuracy", setting="seed 0, ~98.6%")
    d = np.atleast_2d(np.asarray(acc_dense, float))
    worst = worst_writer_drops(d, acc_pruned)
    chance = worst_writer_drops(d, np.roll(d, -1, axis=0))
    keep = np.isfinite(worst) & np.isfinite(chance)
    _, lo, hi = audit.mean_interval(worst[keep] - chance[keep])
    null = float(chance[keep].mean()) if keep.any() else 0.0
    return audit.finding(
        "D2.2 a writer at 100% collapses: worst drop per seed (null: a second dense model)",
        float(worst[keep].mean()) if keep.any() else np.nan, lo + null, hi + null,
        printed_difference(after.number - before.number),
        source=after.source,
        basis=f"{BY_SEEDS}, of each seed's worst drop minus its chance level ({null:+.3f})",
        null=null, df=max(int(keep.sum()) - 1, 1), unit="points",
        definition="per seed, the largest accuracy drop among writers the dense model gets "
        "100% right (P: writer 469, 100% → 47.7%, seed 0)",
    )


def property_findings(
    abs_tilt: np.ndarray,
    activation: np.ndarray,
    change: np.ndarray,
    series: np.ndarray,
    boot: Resampling = BOOTSTRAP,
) -> list[Finding]:
    """D2.5: hsf4 writers draw more vertical digits (mean |tilt| hsf4 − hsf0 < 0); writers with
    atypical mean activation (either direction) lose more (slope of the accuracy change on
    |activation − mean over writers| < 0); the distance effect by group: not testable."""
    masks = series_masks(series)

    x = np.asarray(abs_tilt, float)
    x4, x0 = x[masks["hsf4"] == 1], x[masks["hsf0"] == 1]
    welch = stats.ttest_ind(x4, x0, equal_var=False)
    ci = welch.confidence_interval(0.95)
    pooled = float(np.sqrt((x4.var(ddof=1) + x0.var(ddof=1)) / 2))
    out = [
        audit.finding(
            "D2.5 hsf4 writers draw more vertical digits (mean |tilt| hsf4 − hsf0)",
            float(x4.mean() - x0.mean()), float(ci.low), float(ci.high), None, direction=-1,
            smallest=SMALL_D * pooled, df=float(welch.df),
            source="P; App. C, Fig. 11",
            basis="95% Welch t interval over writers (difference of two series' means); "
            f"smallest effect {SMALL_D} pooled SD",
            definition="mean over writers of mean |tilt|, hsf4 minus hsf0 (P: a figure, "
            "direction only)",
        )
    ]

    def atypical(a, c, axis=-1):
        dev = np.abs(a - np.expand_dims(a.mean(axis), axis))
        return masked_fit(dev, c, np.ones_like(dev), axis)[1]

    est, lo, hi = writer_bootstrap([activation, change], atypical, boot)
    a = np.asarray(activation, float)
    dev_sd = float(np.abs(a - a.mean()).std(ddof=1))
    small = SMALL_R * float(np.std(change, ddof=1)) / dev_sd if dev_sd > 0 else None
    out.append(
        audit.finding(
            "D2.5 writers with atypical activation lose more (slope of change on |activation − "
            "mean|, per 0-255 unit)",
            est, lo, hi, None, direction=-1, smallest=small if small and small > 0 else None,
            source="P; App. C",
            basis=f"{BY_WRITERS}; smallest effect: a slope of correlation {SMALL_R}",
            definition="least-squares slope of writer accuracy change on |mean activation − "
            "mean over writers| (P: a figure, direction only)",
        )
    )
    out.append(
        audit.not_testable(
            "D2.5 the effect of distance to the class mean differs by group",
            None,
            source="P; Fig. 2",
            definition="per-series slope of writer accuracy change on mean distance to the "
            "class-mean image (P: differs by group, no direction)",
            why="P states neither a direction nor a size for the difference, so no verdict can "
            "be computed; our per-series slopes are in the property-effects table below",
        )
    )
    return out


def class_findings(class_dense: np.ndarray, class_pruned: np.ndarray) -> list[Finding]:
    """D2.6 per seed: digit 1 stays the best class after pruning (its pruned accuracy minus the
    best other class's, > 0), and digit 5 drops most (its change minus the largest other
    class's drop, < 0); inputs (K, 10) per-seed class accuracies."""
    d, p = np.atleast_2d(class_dense), np.atleast_2d(class_pruned)
    others1 = np.delete(p, 1, axis=1).max(axis=1)
    margin1 = p[:, 1] - others1
    change = p - d
    margin5 = change[:, 5] - np.delete(change, 5, axis=1).min(axis=1)
    source = "P; Sec. 4.1"
    out = []
    for name, values, direction, definition in (
        (
            "D2.6 digit 1 stays the best class after pruning (acc 1 − best other)", margin1, 1,
            "mean over seeds of the pruned accuracy on digit 1 minus the best other digit's",
        ),
        (
            "D2.6 digit 5 drops most (change of 5 − largest other drop)", margin5, -1,
            "mean over seeds of digit 5's accuracy change minus the largest other drop",
        ),
    ):
        m, lo, hi = audit.mean_interval(values)
        out.append(
            audit.finding(
                name, m, lo, hi, None, direction=direction, smallest=SMALLEST_MARGIN,
                source=source, df=max(len(values) - 1, 1), unit="points",
                basis=f"{BY_SEEDS}; smallest effect {SMALLEST_MARGIN:.0%} points",
                definition=definition + " (P: a figure, direction only)",
            )
        )
    return out


#: The rows the page states first: top-line accuracy falls little (D2.1) while a writer the
#: dense model gets right collapses (D2.2).
HEADLINE = ("D2.1", "D2.2 a writer")


def findings(result: Result, *, seed: int = 0, n_resamples: int = 999) -> list[Finding]:
    """The study's findings D2.1-D2.6 beside P's values, with intervals and verdicts; the
    headline rows (:data:`HEADLINE`) marked."""
    w = result.writers
    labels = result.test.labels.numpy()
    _, acc_dense = seed_writer_accuracy(result.correct_dense, result.digits["writer"])
    _, acc_pruned = seed_writer_accuracy(result.correct_pruned, result.digits["writer"])
    series = w["series"].to_numpy()
    boot = Resampling(seed, n_resamples)
    return audit.mark_headlines([
        topline_finding(result.correct_dense.mean(axis=1), result.correct_pruned.mean(axis=1),
                        result.test.num_classes),
        group_drops_finding(w["accuracy_change"].to_numpy(), series, boot),
        collapse_finding(acc_dense, acc_pruned),
        *tilt_findings(Writers.of(w), boot),
        *property_findings(
            w["abs_tilt"].to_numpy(), w["mean_activation"].to_numpy(),
            w["accuracy_change"].to_numpy(), series, boot,
        ),
        *class_findings(
            seed_class_accuracy(result.correct_dense, labels, result.test.num_classes),
            seed_class_accuracy(result.correct_pruned, labels, result.test.num_classes),
        ),
    ], HEADLINE)


# --------------------------------------------------------------------------- P's Table 1


def table1(result: Result, *, seed: int = 0, n_resamples: int = 999) -> pd.DataFrame:
    """P's Table 1 on this page's writers (:func:`~.writer_fits.tilt_table`)."""
    return tilt_table(Writers.of(result.writers), Resampling(seed, n_resamples))


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
