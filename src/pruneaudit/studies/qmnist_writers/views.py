"""Study 2's page views: protocol and cost, the numbers the page's prose cites, tables and
charts."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from pruneaudit import charts, runs
from pruneaudit.runs import RunSpec
from pruneaudit.runs.cost import Rate, seconds_per_10k

from .frames import (
    MODEL,
    TECHNIQUE,
    TREATMENT,
    WriterStudy,
    collapses,
    dense_specs,
    gallery_frame,
    most_hurt,
    overall_curve,
    series_summary,
)
from .rows import TABLE1_GROUPS, _boot, _fit, _masks, _paper_tilt

#: The published protocol of P Sec. 4.1 (seeds, iterations, epochs per round, training digits).
PAPER = {"seeds": 6, "iterations": 20, "epochs": 30, "train_examples": 48_000}


def series_cost(
    seeds: int, iterations: int, epochs: int, train_examples: int, seconds_per_10k: float
) -> runs.Cost:
    """Training cost of ``seeds`` series of ``iterations`` rounds after the dense run, ``epochs``
    per round (:func:`pruneaudit.runs.training_cost`)."""
    return runs.training_cost(seeds * (iterations + 1) * epochs, train_examples, seconds_per_10k)


def paper_cost(seconds_per_10k: float) -> runs.Cost:
    """The cost of P's protocol at a measured rate."""
    return series_cost(**PAPER, seconds_per_10k=seconds_per_10k)


def _augmentation(spec: RunSpec) -> str:
    if not spec.augment:
        return "none"
    if dict(spec.extra).get(runs.FLIP_KEY):
        return "random crop (pad 2) + horizontal flip (P as printed; wrong for digits)"
    return "random crop (pad 2), no flip"


def training_rate(result: WriterStudy) -> Rate:
    """The rate the page's training times use: LeNet's, as recorded in the page's results store
    (:func:`pruneaudit.runs.cost.seconds_per_10k`)."""
    return seconds_per_10k(MODEL, result.params.store)


def protocol_table(result: WriterStudy, rate: Rate) -> pd.DataFrame:
    """The protocol run beside P's, one row per setting (index ``setting``), with the training
    cost of each at ``rate`` (seconds per 10,000 images per model)."""
    params = result.params
    b = dense_specs(params)[0]
    paper = paper_cost(rate.seconds_per_10k)
    ours = series_cost(
        len(params.seeds), params.iterations, b.epochs, len(result.train_idx),
        rate.seconds_per_10k,
    )
    series = ", ".join(sorted(result.writers["series"].unique()))
    rows = [
        ("model", "LeNet (3x3 conv 6, 16; FC 120, 84, 10)", "LeNet (same)"),
        ("pruning (20% of the rest per round)", "global_unstructured + rewind",
         f"{TECHNIQUE} + {TREATMENT}"),
        ("pruned weights regrow?", "no (cumulative masks)", "no (cumulative masks)"),
        ("iterations", str(PAPER["iterations"]), str(params.iterations)),
        ("seeds (replicates)", "6 (0-5)", f"{len(params.seeds)} {list(params.seeds)}"),
        ("training digits per model", f"{PAPER['train_examples']:,} (80% of 60,000)",
         f"{len(result.train_idx):,}"),
        ("epochs per round", str(PAPER["epochs"]), str(b.epochs)),
        ("optimizer", "SGD, lr 0.01, batch 32", f"SGD, lr {b.lr}, batch {b.batch_size}"),
        ("augmentation", "random crop and horizontal flip", _augmentation(b)),
        ("test digits / writers / series", "60,000 / all / hsf0, hsf1, hsf4",
         f"{len(result.test):,} / {result.writers['writer'].nunique()} / {series}"),
        ("model-epochs", f"{paper.model_epochs:,}", f"{ours.model_epochs:,}"),
        ("training time on this CPU", f"{paper.hours:.1f} h", f"{ours.hours * 60:.1f} min"),
        ("training time on a GPU", runs.gpu_cost_text("Study 2"), ""),
    ]
    return pd.DataFrame(rows, columns=["setting", "published (P)", "this page"]).set_index(
        "setting"
    )


def protocol_view(result: WriterStudy):
    """The protocol table, formatted, its caption stating the training rate of its times."""
    rate = training_rate(result)
    return charts.table(
        protocol_table(result, rate),
        f"The protocol of this page beside P's; training times on this CPU at {rate.text()}",
        index=None,
    )


def prunable_weights() -> int:
    """Number of prunable weights (conv and linear) of the study's LeNet on 28x28 digits."""
    from pruneaudit import models

    net = models.build_model(MODEL, 10, 1, 28, seed=0)
    return sum(getattr(m, name).numel() for m, name in models.prunable_parameters(net))


# --------------------------------------------------------------------------- P's Table 1


def tilt_table(
    abs_tilt: np.ndarray,
    acc_dense: np.ndarray,
    acc_pruned: np.ndarray,
    series: np.ndarray,
    *,
    seed: int = 0,
    n_resamples: int = 999,
) -> pd.DataFrame:
    """P's Table 1 on our data: intercept and slope of writer accuracy on mean |tilt| per group
    and stage, with bootstrap intervals over writers, beside P's values (hsf1: not offline).
    Columns: group, stage, coefficient, ours, ci_low, ci_high, paper."""
    masks = _masks(series)
    rows = []
    for group in TABLE1_GROUPS:
        for stage, y in (("unpruned", acc_dense), ("pruned", acc_pruned)):
            for j, coefficient in enumerate(("intercept", "slope")):
                paper = _paper_tilt(coefficient, stage, group).number
                if group not in masks:
                    rows.append((group, stage, coefficient, np.nan, np.nan, np.nan, paper))
                    continue

                def stat(x, yy, m, axis=-1, j=j):
                    return _fit(x, yy, m, axis)[j]

                est, lo, hi = _boot([abs_tilt, y, masks[group]], stat, seed, n_resamples)
                rows.append((group, stage, coefficient, est, lo, hi, paper))
    return pd.DataFrame(
        rows, columns=["group", "stage", "coefficient", "ours", "ci_low", "ci_high", "paper"]
    )


def table1(result: WriterStudy, *, seed: int = 0, n_resamples: int = 999) -> pd.DataFrame:
    """P's Table 1 on this page's writers (:func:`tilt_table`)."""
    w = result.writers
    return tilt_table(
        w["abs_tilt"].to_numpy(), w["accuracy_unpruned"].to_numpy(),
        w["accuracy_pruned"].to_numpy(), w["series"].to_numpy(), seed=seed,
        n_resamples=n_resamples,
    )


# --------------------------------------------------------------------------- what the page says


def numbers(result: WriterStudy) -> dict[str, float | int | str]:
    """The numbers the page's prose cites (glued into its Markdown by
    :meth:`pruneaudit.book.Page.glue`): top-line accuracy and sparsity, the writer most hurt, the
    writers who collapse, the spread of writer-level changes (``*_points``: percentage points)
    and the digits per writer."""
    return {**_topline_numbers(result), **_writer_numbers(result), **_limit_numbers(result)}


def _topline_numbers(result: WriterStudy) -> dict[str, float | int]:
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


def _writer_numbers(result: WriterStudy) -> dict[str, float | int | str]:
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


def _limit_numbers(result: WriterStudy) -> dict[str, float | int]:
    n = result.writers["n"]
    return {
        "digits_per_writer": float(n.mean()),
        "digits_min": int(n.min()),
        "digits_max": int(n.max()),
        "one_digit_share": float(1 / n.mean()),
    }


def table1_view(table: pd.DataFrame):
    """P's Table 1 on our data, formatted."""
    return charts.table(
        table,
        "P Table 1 on our writers: accuracy = intercept + slope · mean |tilt| (95% bootstrap "
        "interval over writers); hsf1 is not in the offline data",
        decimals={"ours": 3, "ci_low": 3, "ci_high": 3, "paper": 3},
        index=None,
    )


def hurt_view(result: WriterStudy, n: int):
    """The ``n`` writers most hurt, formatted."""
    cols = ["writer", "series", "n", "accuracy_unpruned", "accuracy_pruned", "accuracy_change",
            "abs_tilt", "distance_to_class_mean", "collapse"]
    return charts.table(
        most_hurt(result.writers, n)[cols],
        f"The {n} writers who lose most (writer accuracy = mean over seeds)",
        percent=["accuracy_unpruned", "accuracy_pruned"], points=["accuracy_change"],
        decimals={"abs_tilt": 3, "distance_to_class_mean": 0},
        index=None,
    )


def summary_view(result: WriterStudy):
    """Per-series summary, formatted."""
    return charts.table(
        series_summary(result.writers),
        "Writers per series: mean writer accuracy before and after pruning",
        percent=["accuracy_unpruned", "accuracy_pruned", "share_losing"],
        points=["mean_change", "worst_change"],
        index=None,
    )


def effects_view(effects: pd.DataFrame):
    """Property effects on the accuracy change, formatted."""
    return charts.table(
        effects,
        "Least-squares effect of each writer-mean property on the accuracy change (pruned − "
        "unpruned), per series and for all writers; p: two-sided test of slope 0",
        pvalue=["pvalue"],
        decimals={"intercept": 4, "intercept_se": 4, "rvalue": 3},
        formats={"slope": "{:+.2e}", "slope_se": "{:.2e}"},
        index=None,
    )


def curve_view(result: WriterStudy):
    """Top-line accuracy and class gap per iteration, formatted."""
    return charts.table(
        overall_curve(result.classes),
        "Test accuracy and the gap between the best and worst class along the pruning series "
        "(mean over seeds)",
        percent=["sparsity", "accuracy", "accuracy_std", "unfairness_max_min"],
        index=None,
    )


# --------------------------------------------------------------------------- figures


def _pct(x: float, digits: int = 1) -> str:
    return f"{100 * x:.{digits}f}%"


def key_figure(result: WriterStudy):
    """Per-writer accuracy after pruning vs before (one point per writer)."""
    return charts.group_scatter(
        result.writers, x="accuracy_unpruned", y="accuracy_pruned", group="series",
        tooltip=["writer", "n", "accuracy_change"], diagonal=True,
        title=f"Writer accuracy: iteration {result.pruned_iteration} "
        f"({_pct(result.sparsity.mean())} sparse) vs unpruned",
    )


def explorer_writers(result: WriterStudy, n: int) -> list[int]:
    """The writers offered by the explorer: the ``n`` most hurt."""
    return most_hurt(result.writers, n)["writer"].tolist()


def writer_explorer(result: WriterStudy, writer_ids: Sequence[int], columns: int = 10):
    """A writer picker that works in the static page: a drop-down of writers; below it the
    writer's digits (true label, modal prediction before and after pruning) and the writer's
    accuracy along the pruning series beside the top-line accuracy."""
    import altair as alt

    ids = list(writer_ids)
    gallery = charts.image_gallery(
        gallery_frame(result.test, result.digits, ids), category="writer",
        tooltip=["series", "correct_unpruned", "correct_pruned"], columns=columns,
        title="The writer's digits (true / unpruned / pruned prediction)",
    )
    param = f"{'writer'}_shown"
    traj = result.trajectory[result.trajectory["who"].isin([*map(str, ids), "all digits"])]
    curve = (
        alt.Chart(traj)
        .transform_filter(f"datum.who == {param} || datum.who == 'all digits'")
        .mark_line(point=True)
        .encode(
            x=alt.X("sparsity:Q", title="sparsity", axis=alt.Axis(format="%")),
            y=alt.Y("accuracy:Q", title="accuracy (mean over seeds)", axis=alt.Axis(format="%")),
            color=alt.Color("series:N", title="writer / all digits"),
            detail="who:N",
            tooltip=["who", "iteration", alt.Tooltip("sparsity:Q", format=".1%"),
                     alt.Tooltip("accuracy:Q", format=".1%")],
        )
        .properties(width=420, height=220,
                    title="The writer's accuracy along the pruning series")
    )
    return alt.vconcat(gallery, curve)
