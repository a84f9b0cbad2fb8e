"""Study 4's page views: the protocol table, H1's and H2's tables on our data, the charts.

Charts go through :mod:`pruneaudit.charts` where a helper fits (the PIE gallery); the explorer
with two drop-downs and the faceted key figure are page-specific Vega-Lite.
"""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import pandas as pd

from pruneaudit import audit, charts
from pruneaudit import runs as runs_module
from pruneaudit.errors import PruneAuditError, check_choice
from pruneaudit.runs.cost import seconds_per_10k
from pruneaudit.studies.compression_impact.run import (
    PRUNING,
    QUANTIZATION,
    Compressed,
    ImpactRuns,
    Result,
)
from pruneaudit.studies.compression_impact.tables import (
    H1_SCHEMES,
    IMAGENET,
    PIE_CATEGORIES,
    cie_accuracy,
    lookup,
    pie_accuracy,
    pie_examples,
    summary,
)


def protocol_table(result: Result) -> pd.DataFrame:
    """The published protocol beside this page's: one row per setting (H1 / H2 vs ours),
    with the training cost of both (:func:`pruneaudit.runs.training_cost`) at the model's
    training rate in the page's results store (:func:`pruneaudit.runs.cost.seconds_per_10k`)."""
    runs, spec = result.runs, result.populations.spec
    rate = seconds_per_10k(spec.model, result.params.store)
    levels = [c.level for c in runs.compressed if c.kind == PRUNING]
    schemes = [c.scheme for c in runs.compressed if c.kind == QUANTIZATION]
    k, n_train, n_test = len(runs.baseline.specs), len(runs.train), len(runs.test)
    paper = runs_module.training_cost(30 * (1 + 7) * 30, 48_000, rate.seconds_per_10k)
    ours = runs_module.training_cost(k * (1 + len(levels)) * spec.epochs, n_train,
                                     rate.seconds_per_10k)
    meta = runs.test.meta
    groups = (meta["series"].value_counts().sort_index() if meta is not None
              and "series" in meta.columns else None)
    rows = [
        ("task", "ImageNet / ResNet-50 and CIFAR-10 / WRN (H1); CelebA Blond_Hair / ResNet-18 "
         "(H2)", f"{spec.dataset} / {spec.model}"),
        ("population size K", "30 per level", str(k)),
        ("populations", "trained separately for every level",
         "independent: each level its own seeds" if runs.independent
         else "shared seeds: member k of every level has seed k (paired)"),
        ("pruning", "gradual magnitude pruning during training (Zhu & Gupta)",
         f"{runs_module.GRADUAL_TECHNIQUE} per layer, cubic schedule, pruned weights may "
         "regrow between mask updates"),
        ("end sparsity t", "0.3, 0.5, 0.7, 0.9 (H1); also 0.95, 0.99 (H2)",
         ", ".join(f"{t:g}" for t in levels)),
        ("quantization", "float16, dynamic-range int8, fixed-point int8 (TF Lite)",
         (", ".join(schemes) or "none") + " (PyTorch, post-training, run on the CPU: torch's "
         "int8 kernels)"),
        ("training examples per model", "all training images of the task",
         f"{n_train:,} (80% of the first {spec.train_size or 60_000:,}, split by the seed)"),
        ("epochs / optimizer", "H2: 10,000 steps, batch 256 (CelebA)",
         f"{spec.epochs} epochs, SGD lr {spec.lr:g}, batch {spec.batch_size}"),
        ("augmentation", "random crop and flip",
         "random crop (pad 2), no flip" if spec.augment else "none"),
        ("test examples", "full test set", f"{n_test:,}" + ("" if groups is None else " ("
         + ", ".join(f"{g}: {n:,}" for g, n in groups.items()) + ")")),
        ("model-epochs (dense + pruned)", f"{paper.model_epochs:,} (K = 30, 8 levels, 30 "
         f"epochs of LeNet)", f"{ours.model_epochs:,}"),
        ("training rate (CPU)", "", rate.text()),
        ("training hours at that rate", f"{paper.hours:.1f}", f"{ours.hours:.2f}"),
        ("training hours on a GPU", runs_module.gpu_cost_text("Study 4"), ""),
    ]
    return pd.DataFrame(rows, columns=["setting", "published", "this page"]).set_index(
        "setting")


def _paper_number(metric: str, **columns: str) -> float:
    try:
        return lookup(metric, **columns).number
    except PruneAuditError:
        return float("nan")


def _h1_setting(c: Compressed, table: int) -> str:
    if c.kind == QUANTIZATION:
        return H1_SCHEMES.get(c.scheme, c.scheme)
    return f"t={100 * c.level:g}%" if table == 2 else f"t={100 * c.level:.1f}%"


def h1_class_table(runs: ImpactRuns, alpha: float = 0.05) -> pd.DataFrame:
    """H1 Table 2's layout on our data: per variant, top-1, the count of classes with a
    significant change and the count of PIEs, beside H1's ImageNet (and CIFAR-10) values at
    the same level or scheme (NaN where H1 prints none)."""
    table = summary(runs, alpha)
    sig = "count significant classes (Welch p<=0.05)"
    rows = []
    for c, r in zip(runs.compressed, table.itertuples(), strict=True):
        setting = _h1_setting(c, 2)
        rows.append({
            "variant": c.name,
            "top-1 (ours)": r.compressed_top1,
            "significant classes (ours)": f"{r.significant_classes} of {runs.num_classes}",
            "PIEs (ours)": f"{r.pie:,} of {len(runs.test):,}",
            "H1 ImageNet top-1": _paper_number("top-1 (%)", dataset=IMAGENET,
                                               setting=setting) / 100,
            "H1 ImageNet significant classes (of 1,000)": _paper_number(
                sig, dataset=IMAGENET, setting=setting),
            "H1 ImageNet PIEs (of 50,000)": _paper_number("count PIEs", dataset=IMAGENET,
                                                          setting=setting),
            "H1 CIFAR-10 significant classes (of 10)": _paper_number(
                sig, dataset="CIFAR-10 test", setting=setting),
        })
    return pd.DataFrame(rows)


def h1_pie_table(runs: ImpactRuns) -> pd.DataFrame:
    """H1 Table 6's layout on our data: per pruned level, the mean-member top-1 of the dense and
    the compressed population on the PIEs, the non-PIEs and all examples (H1's values are means
    over its models), beside H1's ImageNet values (NaN where H1 prints none)."""
    acc = pie_accuracy(runs)
    rows = []
    for c in runs.compressed:
        if c.kind != PRUNING:
            continue
        mine = acc[acc["variant"] == c.name]
        a = mine.set_index(["subset", "population"])["mean_member_accuracy"]
        setting = _h1_setting(c, 6)
        row = {"variant": c.name, "PIEs": int(mine[mine["subset"] == "pie"]["n"].iloc[0])}
        for subset, label in (("pie", "PIEs"), ("non_pie", "non-PIEs"), ("all", "All")):
            row[f"dense on {label}"] = a[(subset, "baseline")]
            row[f"compressed on {label}"] = a[(subset, "compressed")]
            row[f"H1 ImageNet on {label}"] = _paper_number(
                f"top-1 {label} (%)", dataset="ImageNet", setting=setting) / 100
        rows.append(row)
    return pd.DataFrame(rows)


def gallery_explorer(runs: ImpactRuns, per_class: int = 6, columns: int = 6) -> alt.LayerChart:
    """The PIEs of every pruned level, picked by two drop-downs (level and true class), highest
    Taxicab score first: a static explorer (Vega-Lite parameters, no kernel)."""
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
    text = base.mark_text(baseline="top", lineBreak="\n", fontSize=10, dy=cell * 0.38).encode(
        x=x, y=y, text="caption:N")
    return alt.layer(pics, text).properties(
        title="PIEs by pruned level and true class (caption: true / baseline / compressed "
        "modal label)", width=columns * cell, height=rows * int(cell * 1.5))


def key_figure(runs: ImpactRuns, alpha: float = 0.05) -> alt.Chart:
    """The page's key figure: top-1 change against the share of PIEs and the count of
    significantly impacted classes per variant (top-line accuracy hides the class-level and
    example-level impact)."""
    table = summary(runs, alpha)
    table["top-1 change (points)"] = 100 * table["top1_change"]
    table["PIEs (% of test)"] = 100 * table["pie_share"]
    long = table.melt(id_vars=["variant", "kind"],
                      value_vars=["top-1 change (points)", "PIEs (% of test)"],
                      var_name="measure", value_name="value")
    return (
        alt.Chart(long)
        .mark_bar()
        .encode(
            x=alt.X("variant:N", sort=list(table["variant"]), title=None),
            y=alt.Y("value:Q", title=None),
            color=alt.Color("kind:N"),
            column=alt.Column("measure:N", title=None),
            tooltip=["variant", "measure", alt.Tooltip("value:Q", format=".2f")],
        )
        .properties(width=260, height=220,
                    title="Top-1 barely moves while the compressed and dense populations "
                    "disagree on a share of the test examples")
    )


def cie_table(
    runs: ImpactRuns, percentiles: Sequence[int] = audit.PERCENTILES, seed: int = 0
) -> pd.DataFrame:
    """H2's CIE accuracy layout: per variant and Taxicab top share, the mean-member top-1 of
    both populations on the CIEs (:func:`cie_accuracy`), beside H2's CelebA values at the same
    pruning level (NaN where H2 prints none)."""
    cies = cie_accuracy(runs, percentiles, seed)
    taxi = cies[cies["score"] == "taxicab"]
    wide = taxi.pivot_table(index=["variant", "level", "percentile", "n"], columns="population",
                            values="mean_member_accuracy", sort=False).reset_index()
    wide["H2 CelebA compressed"] = [
        _paper_number(f"top-1 on Taxicab CIEs, {q}th pct (%)", dataset="CelebA test",
                      setting=f"t={100 * t:.1f}%") / 100 if t == t else float("nan")
        for t, q in zip(wide["level"], wide["percentile"], strict=True)
    ]
    wide["top share"] = [f"top {100 - q}%" for q in wide["percentile"]]
    return wide[["variant", "top share", "n", "baseline", "compressed", "H2 CelebA compressed"]]


def gallery_chart(
    runs: ImpactRuns,
    name: str,
    category: str | None = None,
    per_category: int = 24,
    columns: int = 8,
) -> alt.LayerChart:
    """Gallery of the PIEs of variant ``name``: one category (or a drop-down over all)."""
    frame = pie_examples(runs, name, per_category)
    if category is not None:
        check_choice("PIE category", category, PIE_CATEGORIES)
        frame = frame[frame["category"] == category]
    if frame.empty:
        frame = pd.DataFrame({"image": [""], "caption": ["no PIE here"], "category": [category]})
    tips = [t for t in ("series", "writer", "taxicab") if t in frame.columns]
    return charts.image_gallery(
        frame,
        category=None if category is not None else "category",
        tooltip=tips,
        columns=columns,
        title=f"PIEs of {name}" + (f": {category}" if category else ""),
    )
