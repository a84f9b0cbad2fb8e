"""Study 2's page views, each a function of the :class:`~.run.Result` with its caption: the
protocol, P's Table 1, the writers most hurt, the series summary, the property effects and the
accuracy curve; the key figure, the writer picker, the tilt, class, training and property
figures and the gallery of the writers most hurt."""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt
from pandas.io.formats.style import Styler

from pruneaudit import charts
from pruneaudit.charts import format as fmt

from .findings import table1
from .frames import (
    PROPERTIES,
    STAGES,
    class_curves,
    gallery_frame,
    most_hurt,
    overall_curve,
    property_effects,
    series_summary,
    tilt_long,
    train_class_histogram,
)
from .protocol import protocol_table, training_rate
from .run import Result

# --------------------------------------------------------------------------- tables


def protocol_view(result: Result) -> Styler:
    """The protocol table, formatted, its caption stating the training rate of its times."""
    rate = training_rate(result)
    return charts.table(
        protocol_table(result, rate=rate),
        f"The protocol of this page beside P's; training times on this CPU at {rate.text()}",
        index=None,
    )


def table1_view(result: Result, *, seed: int = 0, n_resamples: int = 999) -> Styler:
    """P's Table 1 on our writers (:func:`~.findings.table1`), formatted."""
    return charts.table(
        table1(result, seed=seed, n_resamples=n_resamples),
        "P Table 1 on our writers: accuracy = intercept + slope · mean |tilt| (95% bootstrap "
        "interval over writers); hsf1 is not in the offline data",
        decimals={"ours": 3, "ci_low": 3, "ci_high": 3, "paper": 3},
        index=None,
    )


def hurt_view(result: Result, n: int | None = None) -> Styler:
    """The ``n`` writers most hurt (default: the page's ``n_hurt``), formatted."""
    n = result.params.n_hurt if n is None else n
    cols = ["writer", "series", "n", "accuracy_unpruned", "accuracy_pruned", "accuracy_change",
            "abs_tilt", "distance_to_class_mean", "collapse"]
    return charts.table(
        most_hurt(result.writers, n)[cols],
        f"The {n} writers who lose most (writer accuracy = mean over seeds)",
        percent=["accuracy_unpruned", "accuracy_pruned"], points=["accuracy_change"],
        decimals={"abs_tilt": 3, "distance_to_class_mean": 0},
        index=None,
    )


def summary_view(result: Result) -> Styler:
    """Per-series summary, formatted."""
    return charts.table(
        series_summary(result.writers),
        "Writers per series: mean writer accuracy before and after pruning",
        percent=["accuracy_unpruned", "accuracy_pruned", "share_losing"],
        points=["mean_change", "worst_change"],
        index=None,
    )


def effects_view(result: Result) -> Styler:
    """Property effects on the accuracy change (:func:`~.frames.property_effects`), in points
    per standard deviation of the property, formatted."""
    scaled = {"intercept": "change at the mean (pts)", "intercept_se": "its SE (pts)",
              "slope": "slope (pts per SD)", "slope_se": "slope SE (pts)"}
    frame = property_effects(result.writers)
    frame[list(scaled)] *= 100
    return charts.table(
        frame.rename(columns=scaled),
        "Least-squares effect of each writer-mean property on the accuracy change (pruned − "
        "unpruned), per series and for all writers, per standard deviation of the property "
        "(over all writers); p: two-sided test of slope 0",
        pvalue=["pvalue"],
        decimals={**dict.fromkeys(scaled.values(), 2), "rvalue": 3},
        index=None,
    )


def curve_view(result: Result) -> Styler:
    """Top-line accuracy and class gap per iteration, formatted."""
    return charts.table(
        overall_curve(result.classes),
        "Test accuracy and the gap between the best and worst class along the pruning series "
        "(mean over seeds)",
        percent=["sparsity", "accuracy", "accuracy_std", "unfairness_max_min"],
        index=None,
    )


# --------------------------------------------------------------------------- figures


def _lower(text: str) -> str:
    """``text`` with its first letter in lower case (a title inside a sentence)."""
    return text[:1].lower() + text[1:]


def _pct(x: float, digits: int = 1) -> str:
    return f"{100 * x:.{digits}f}%"


def key_figure(result: Result) -> alt.LayerChart:
    """Per-writer accuracy after pruning vs before (one point per writer)."""
    return charts.key_chart(charts.group_scatter(
        result.writers, x="accuracy_unpruned", y="accuracy_pruned", group="series",
        tooltip=["writer", "n", "accuracy_change"], diagonal=True,
        title=f"Each writer's accuracy after pruning (iteration {result.pruned_iteration}, "
        f"{_pct(result.sparsity.mean())} of weights removed) against before; dashed: no change",
    ))


def explorer_writers(result: Result, n: int) -> list[int]:
    """The writers offered by the explorer: the ``n`` most hurt."""
    return most_hurt(result.writers, n)["writer"].tolist()


def writer_explorer(
    result: Result, writer_ids: Sequence[int] | None = None, columns: int = 10
) -> alt.VConcatChart:
    """A writer picker that works in the static page: a drop-down of writers (default: the
    page's ``n_hurt`` most hurt); below it the writer's digits (true label, modal prediction
    before and after pruning) and the writer's accuracy along the pruning series beside the
    top-line accuracy."""
    if writer_ids is None:
        writer_ids = explorer_writers(result, result.params.n_hurt)
    ids = list(writer_ids)
    gallery = charts.image_gallery(
        gallery_frame(result.test, result.digits, ids), category="writer",
        tooltip=["series", "correct_unpruned", "correct_pruned"], columns=columns,
        title="The writer's digits (true / unpruned / pruned prediction)",
    )
    param = f"{'writer'}_shown"
    traj = result.trajectory[result.trajectory["who"].isin([*map(str, ids), "all digits"])]
    pick, opacity = charts.legend_pick("series")
    curve = (
        alt.Chart(traj)
        .add_params(pick)
        .transform_filter(f"datum.who == {param} || datum.who == 'all digits'")
        .mark_line(point=True)
        .encode(
            x=alt.X("sparsity:Q", title=fmt.axis_title("sparsity"), axis=alt.Axis(format="%")),
            y=alt.Y("accuracy:Q", title="Mean accuracy over seeds (%)",
                    axis=alt.Axis(format="%")),
            color=charts.colour("series", list(traj["series"])),
            opacity=opacity,
            detail="who:N",
            tooltip=["who", "iteration", alt.Tooltip("sparsity:Q", format=".1%"),
                     alt.Tooltip("accuracy:Q", format=".1%")],
        )
        .properties(width=420, height=220,
                    title="The writer's accuracy along the pruning series")
    )
    return alt.vconcat(gallery, curve)


def tilt_figures(result: Result) -> list[alt.LayerChart]:
    """Writer accuracy against mean |tilt|, one chart per stage (unpruned, pruned), with a
    least-squares line per series (show them with ``display(*tilt_figures(result))``)."""
    long = tilt_long(result.writers)
    return [
        charts.group_scatter(long[long.stage == stage], x="abs_tilt", y="accuracy",
                             group="series", tooltip=["writer"],
                             title=f"Writer accuracy vs the mean absolute tilt of the writer's "
                             f"digits, {stage}")
        for stage in STAGES
    ]


def class_figure(result: Result) -> alt.LayerChart:
    """Per-class test accuracy along the pruning series (mean over seeds), coloured by the
    class's unpruned accuracy; the slider starts at the iteration compared as pruned."""
    return charts.accuracy_curves(
        class_curves(result.classes), x="iteration", color="unpruned_accuracy",
        tooltip=["sparsity"], slider=charts.Slider(float(result.pruned_iteration)),
        title="Test accuracy of each digit class at each pruning iteration (mean over seeds), "
        "coloured by its accuracy before pruning",
    )


def training_figure(result: Result) -> alt.Chart:
    """Training digits per class and series in the first seed's training split."""
    return charts.bar_chart(
        train_class_histogram(result.pool, result.train_idx), x="class", y="n",
        color="series", tooltip=["share_of_class"],
        title="Training digits of each class, per writer series (first seed's split)",
    )


def property_figures(result: Result) -> list[alt.LayerChart]:
    """The accuracy change of each writer against each property of
    :data:`~.frames.PROPERTIES`, one chart per property (show them with
    ``display(*property_figures(result))``)."""
    return [
        charts.group_scatter(result.writers, x=prop, y="accuracy_change", group="series",
                             tooltip=["writer", "accuracy_unpruned", "accuracy_pruned"],
                             title=f"Change in writer accuracy vs {_lower(fmt.axis_title(prop))} "
                             "(one point per writer)")
        for prop in PROPERTIES
    ]


def gallery_figure(result: Result, n: int | None = None) -> alt.LayerChart:
    """The digits of the ``n`` writers most hurt (default: the page's ``n_gallery``)."""
    n = result.params.n_gallery if n is None else n
    return charts.image_gallery(
        gallery_frame(result.test, result.digits, explorer_writers(result, n)),
        category="writer", tooltip=["series", "correct_unpruned", "correct_pruned"],
        columns=8, title="Digits of the writers most hurt by pruning",
    )
