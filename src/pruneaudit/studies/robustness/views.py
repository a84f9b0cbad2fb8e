"""Study 5's page views: the protocol table, H1's ImageNet-C table on our data, the charts."""

from __future__ import annotations

import altair as alt
import pandas as pd

from pruneaudit import charts
from pruneaudit.studies.robustness.findings import H1_CORRUPTIONS, h1_relative
from pruneaudit.studies.robustness.run import CLEAN, Result, RobustnessRuns, mean_accuracy


def protocol_table(result: Result) -> pd.DataFrame:
    """H1 section 4's protocol beside this page's, one row per setting."""
    spec, independent = result.populations.spec, result.populations.independent
    runs_ = result.runs
    pops = runs_.populations
    k = len(pops[0.0].specs)
    names = sorted(set(runs_.accuracy["corruption"]) - {CLEAN})
    sev = sorted(set(runs_.accuracy["severity"]) - {0})
    n_models = sum(len(p.specs) for p in pops.values())
    ref = runs_.reference
    rows = [
        ("task", "ImageNet / ResNet-50", f"{spec.dataset} / {spec.model} (Study 4's "
         "populations)"),
        ("models", "dense and pruned ResNet-50 populations",
         f"K = {k} per level; levels " + ", ".join(f"{t:g}" for t in pops)),
        ("populations", "trained separately per level",
         "independent: each level its own seeds" if independent
         else "shared seeds (paired members)"),
        ("corruptions", "ImageNet-C (Hendrycks & Dietterich), 5 severities",
         f"{len(names)} of pruneaudit's digit corruptions (MNIST-C style), severities "
         + ", ".join(map(str, sev))),
        ("natural adversarial", "ImageNet-A",
         "none" if ref is None else f"test digits a dense reference population (K = "
         f"{len(ref.specs)}, other seeds) gets wrong (modal label)"),
        ("metric", "pruned top-1 / dense top-1 per corruption, mean over severities, in %",
         "the same, per member, with a Welch interval over the members"),
        ("evaluations", "-", f"{n_models} models x {len(names) * len(sev)} corrupted test "
         f"sets = {n_models * len(names) * len(sev):,}"),
    ]
    return pd.DataFrame(rows, columns=["setting", "published (H1 sec. 4)", "this page"]
                        ).set_index("setting")


def h1_corruption_table(table: pd.DataFrame) -> pd.DataFrame:
    """Our relative change per corruption at each pruned level (:func:`relative_robustness`)
    beside H1's ImageNet-C value for the same corruption at 70% and 90% (NaN where H1 has no
    such corruption)."""
    out = table.pivot_table(index="corruption", columns="level_name",
                            values="relative_change_pct", sort=False)
    for level in (0.7, 0.9):
        out[f"H1 ImageNet-C t = {level:g}"] = [
            100 * h1_relative(c, level) if c in H1_CORRUPTIONS else float("nan") for c in out.index
        ]
    return out.reset_index()


def corruption_explorer(runs_: RobustnessRuns) -> alt.LayerChart:
    """Population-mean top-1 against pruning level for one corruption and severity picked by
    two drop-downs (:func:`pruneaudit.charts.dropdown_view`: works in the static page)."""
    means = mean_accuracy(runs_)
    shifted = means[means["corruption"] != CLEAN].copy()
    clean = means[means["corruption"] == CLEAN][["level", "accuracy"]].rename(
        columns={"accuracy": "clean accuracy"})
    shifted = shifted.merge(clean, on="level")
    names = sorted(shifted["corruption"].unique())
    sev = sorted(int(s) for s in shifted["severity"].unique())
    long = shifted.melt(id_vars=["level", "level_name", "corruption", "severity", "sparsity"],
                        value_vars=["accuracy", "clean accuracy"], var_name="test set",
                        value_name="top-1")
    long["test set"] = long["test set"].map({"accuracy": "corrupted", "clean accuracy": "clean"})
    base = alt.Chart(long).encode(
        x=alt.X("level:Q", title="pruning level t"),
        y=alt.Y("top-1:Q", title="population-mean top-1", scale=alt.Scale(zero=False)),
        color=alt.Color("test set:N"),
        tooltip=["level_name", "corruption", "severity", "test set",
                 alt.Tooltip("top-1:Q", format=".1%")],
    )
    chart = alt.layer(base.mark_line(), base.mark_point(filled=True))
    chart = charts.dropdown_view(chart, "corruption", names, label="corruption",
                                 name="corruption_shown")
    chart = charts.dropdown_view(chart, "severity", sev, value=sev[-1], label="severity",
                                 name="severity_shown")
    return chart.properties(
        width=420, height=260,
        title="Top-1 vs pruning level on one corrupted test set (pick corruption, severity)")


def key_figure(table: pd.DataFrame) -> alt.Chart:
    """The page's key figure: relative change (%) of pruned vs dense top-1 per corruption and
    level, from :func:`relative_robustness`, with the clean change as a rule."""
    bars = alt.Chart(table).mark_bar().encode(
        x=alt.X("relative_change_pct:Q", title="relative top-1 change vs dense (%)"),
        y=alt.Y("corruption:N", sort="x", title=None),
        color=alt.Color("level_name:N", title="population"),
        yOffset="level_name:N",
        tooltip=["corruption", "level_name", alt.Tooltip("relative_change_pct:Q", format=".2f"),
                 alt.Tooltip("clean_change_pct:Q", format=".2f")],
    )
    return bars.properties(width=420, height=22 * table["corruption"].nunique() * max(
        1, table["level_name"].nunique()) // 2 + 60,
        title="Pruned vs dense top-1 under each corruption (mean over severities)")
