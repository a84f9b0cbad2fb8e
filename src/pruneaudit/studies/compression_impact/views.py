"""Study 4's page views: every table and chart the page shows, each a function of the page's
:class:`~.run.Result` (reading its parameters) with its caption.

Charts go through :mod:`pruneaudit.charts` where a helper fits; the explorer with two drop-downs
and the faceted key figure are page-specific Vega-Lite.
"""

from __future__ import annotations

import altair as alt
import pandas as pd

from pruneaudit import charts
from pruneaudit.charts import format as fmt
from pruneaudit.studies.compression_impact.protocol import protocol_table
from pruneaudit.studies.compression_impact.published import cie_table, h1_class_table, h1_pie_table
from pruneaudit.studies.compression_impact.run import PRUNING, Result
from pruneaudit.studies.compression_impact.tables import (
    celeba_representation,
    class_tests,
    headline_variant,
    over_indexing,
    pie_examples,
    recall_curves,
    subgroup_metrics,
    summary,
)

__all__ = [
    "key_figure", "gallery_explorer", "protocol_view", "class_table_view",
    "class_change_view", "recall_view", "pie_table_view", "cie_view", "subgroup_view",
    "over_index_view", "celeba_view",
]


#: H2's sub-group metrics as a reader names them.
METRICS = {"error_rate": "error rate", "fpr": "false-positive rate", "fnr": "false-negative rate"}
#: Figure 4's x axis: a group of ``params.group`` and a metric.
SUBGROUP_CELL = "{} and metric"


def protocol_view(result: Result) -> object:
    """Table 1: the published protocol beside this page's, with the training hours."""
    return charts.table(protocol_table(result).reset_index(),
                        "Table 1. The published protocol (H1, H2) beside this page's; the "
                        "training hours are at the training rate the table states")


def class_table_view(result: Result) -> object:
    """Table 2: H1 Table 2 on our data (significance at ``params.alpha``)."""
    return charts.table(h1_class_table(result.runs, result.params.alpha),
                        "Table 2. H1 Table 2 on our data: top-1, classes with a significant "
                        "change and PIEs per variant, beside H1's ImageNet and CIFAR-10 values "
                        "(n/a: H1 prints none)",
                        percent=["top-1 (ours)", "H1 ImageNet top-1"])


def class_change_view(result: Result) -> alt.Chart:
    """Figure 2: each class's recall change against the dense population (p-values on hover)."""
    return charts.heatmap(class_tests(result.runs, result.params.alpha), x="class_name",
                          y="variant", color="absolute_recall_difference",
                          tooltip=["p", "p_bh", "significant"],
                          title="Figure 2. Change in each class's recall, compressed vs dense "
                          "population (hover for the p-value)")


def recall_view(result: Result) -> alt.Chart:
    """Figure 3: per-class recall against measured sparsity."""
    return charts.accuracy_curves(recall_curves(result.runs), x="sparsity", y="recall",
                                  series="class_name", tooltip=["level"],
                                  title="Figure 3. Recall of each digit class vs measured "
                                  "sparsity (mean over members); the slider marks each class at "
                                  "the nearest sparsity")


def pie_table_view(result: Result) -> object:
    """Table 3: H1 Table 6 on our data."""
    table6 = h1_pie_table(result.runs)
    return charts.table(table6, "Table 3. H1 Table 6 on our data: mean-member top-1 on PIEs, "
                        "non-PIEs and all test digits, dense and compressed population, beside "
                        "H1's ImageNet values",
                        percent=[col for col in table6.columns if col not in ("variant", "PIEs")])


def cie_view(result: Result) -> object:
    """Table 4: mean-member top-1 on the Taxicab CIEs at ``params.percentiles`` (ties broken by
    ``params.tie_seed``)."""
    p = result.params
    return charts.table(cie_table(result.runs, p.percentiles, p.tie_seed),
                        "Table 4. Mean-member top-1 on the Taxicab CIEs, beside H2's CelebA "
                        "value for the compressed population at the same level",
                        percent=["baseline", "compressed", "H2 CelebA compressed"])


def subgroup_view(result: Result) -> alt.Chart:
    """Figure 4: H2's sub-group metrics per ``params.group`` for the headline pruned level."""
    p, runs = result.params, result.runs
    sub = subgroup_metrics(runs, p.group, [headline_variant(runs).name], p.subgroup_reduce)
    metric = sub["metric"].map(lambda m: METRICS.get(m, fmt.header(m)))
    group = sub["group"].str.removeprefix(f"{p.group}=")  # "series=hsf4": "hsf4"
    cells = sub.assign(**{SUBGROUP_CELL.format(fmt.axis_title(p.group)): group + " · " + metric})
    return charts.heatmap(cells, x=SUBGROUP_CELL.format(fmt.axis_title(p.group)),
                          y="variant", color="normalized_difference",
                          tooltip=["baseline", "compressed", "n"],
                          title=["Figure 4. Relative change of each sub-group's error rates,",
                                 "(compressed − dense) / dense, per group and metric"])


def over_index_view(result: Result) -> object:
    """Table 5: each ``params.group`` value's share of the training, test and CIE sets."""
    p = result.params
    over = over_indexing(result.runs, p.group, seed=p.tie_seed)
    return charts.table(over[["variant", "percentile", "value", "train_share", "test_share",
                              "cie_count", "cie_share", "over_index_train", "over_index_test"]],
                        "Table 5. Share of each writer series in the training, test and Taxicab "
                        "CIE sets, and the over-index (CIE share / share)",
                        percent=["train_share", "test_share", "cie_share"],
                        decimals=["over_index_train", "over_index_test"])


def celeba_view(result: Result) -> object:
    """Table 6: CelebA's training partition from its annotations (``params.data_root``)."""
    return charts.table(celeba_representation(result.params.data_root),
                        "Table 6. CelebA training partition: share of each group and of "
                        "Blond_Hair within it", percent=["share", "blond_share"])


def gallery_explorer(result: Result, columns: int = 6) -> alt.LayerChart:
    """The PIEs of every pruned level, picked by two drop-downs (level and true class), highest
    Taxicab score first, ``params.gallery_size`` per level and class: a static explorer
    (Vega-Lite parameters, no kernel)."""
    runs, per_class = result.runs, result.params.gallery_size
    parts = []
    for c in runs.compressed:
        if c.kind != PRUNING:
            continue
        frame = pie_examples(runs, c.name, per_category=None)
        frame = frame.groupby("label", sort=False).head(per_class)
        parts.append(frame.assign(variant=c.name))
    frame = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    if frame.empty:
        frame = pd.DataFrame({"image": [""], "caption": ["no PIE"], "variant": ["none"],
                              "label": [0], "category": [""]})
    frame["digit"] = [runs.test.classes[k] if k < len(runs.test.classes) else str(k)
                      for k in frame["label"]]
    variants = list(dict.fromkeys(frame["variant"]))
    digits = sorted(frame["digit"].unique())
    pick_v = alt.param(name="level_shown", value=variants[-1],
                       bind=alt.binding_select(options=variants, name="pruned level "))
    pick_d = alt.param(name="class_shown", value=digits[0],
                       bind=alt.binding_select(options=digits, name="true class "))
    cell = 70
    rows = max(1, -(-per_class // columns))
    keep = ["image", "caption", "variant", "digit", "category",
            *[t for t in ("series", "taxicab") if t in frame.columns]]
    base = (
        alt.Chart(frame[keep])
        .add_params(pick_v, pick_d)
        .transform_filter(f"datum.variant == {pick_v.name} && datum.digit == {pick_d.name}")
        .transform_window(index="row_number()")
        .transform_calculate(col=f"(datum.index - 1) % {columns}",
                             row=f"floor((datum.index - 1) / {columns})")
    )
    x = alt.X("col:Q", axis=None, scale=alt.Scale(domain=[-0.5, columns - 0.5]))
    y = alt.Y("row:Q", axis=None, scale=alt.Scale(domain=[-0.35, rows - 0.35], reverse=True))
    tips = [t for t in keep if t not in ("image",)]
    pics = base.mark_image(width=cell * 0.7, height=cell * 0.7).encode(
        x=x, y=y, url="image:N", tooltip=tips)
    text = base.mark_text(baseline="top", lineBreak="\n", fontSize=charts.palette.MIN_FONT,
                          dy=cell * 0.38).encode(
        x=x, y=y, text="caption:N")
    return alt.layer(pics, text).properties(
        title="PIEs by pruned level and true class (caption: true / baseline / compressed "
        "modal label)", width=columns * cell, height=rows * int(cell * 1.5))


#: The key figure's two panels, each a measure with its unit.
TOP1_CHANGE, PIE_SHARE = "Change in top-1 accuracy (points)", "PIEs (% of test digits)"


def _span(values: pd.Series) -> str:
    """``values`` as one number or as ``lowest to highest``, one decimal each."""
    low, high = fmt.fixed(values.min(), 1), fmt.fixed(values.max(), 1)
    return low if low == high else f"{low} to {high}"


def key_title(table: pd.DataFrame) -> str:
    """The key figure's title, stating its own numbers: the span of the top-1 changes (points)
    and of the PIE shares (% of test digits) over the variants of ``table`` (:func:`summary`)."""
    return (f"Top-1 accuracy changes by {_span(100 * table['top1_change'])} points; "
            f"{_span(100 * table['pie_share'])}% of test digits are PIEs (compressed and dense "
            "populations disagree)")


def key_figure(result: Result) -> alt.Chart:
    """The page's key figure: top-1 change against the share of PIEs per variant, coloured by
    kind of compression, each panel on its own scale; the title states both spans
    (:func:`key_title`; significance at ``params.alpha``)."""
    table = summary(result.runs, result.params.alpha)
    table[TOP1_CHANGE] = 100 * table["top1_change"]
    table[PIE_SHARE] = 100 * table["pie_share"]
    long = table.melt(id_vars=["variant", "kind"], value_vars=[TOP1_CHANGE, PIE_SHARE],
                      var_name="measure", value_name="value")
    pick, opacity = charts.legend_pick("kind", off=0.2)
    return charts.key_chart(
        alt.Chart(long)
        .mark_bar()
        .add_params(pick)
        .encode(
            x=alt.X("variant:N", sort=list(table["variant"]), title="Compressed population"),
            y=alt.Y("value:Q", title=None),
            color=charts.colour("kind", list(long["kind"])),
            opacity=opacity,
            column=alt.Column("measure:N", title=None, sort=[TOP1_CHANGE, PIE_SHARE]),
            tooltip=["variant", "measure", "value:Q"],
        )
        .resolve_scale(y="independent")
        .properties(width=260, height=220, title=key_title(table))
    )


