"""Study 3's page views, each a function of the :class:`~.run.Result` with its caption: the
protocol, picks, candidates and per-technique tables; the candidates' explorer (the key figure)
and the unfairness curves."""

from __future__ import annotations

import altair as alt
import pandas as pd
from pandas.io.formats.style import Styler

from pruneaudit import charts

from .frames import UNFAIRNESS, UNFAIRNESS_MEAN, chart_weight, technique_summary
from .protocol import protocol_table
from .run import Result

#: How the page's tables show their columns (:func:`pruneaudit.charts.table`).
PERCENT = ("sparsity", "accuracy")
PLACES = {UNFAIRNESS: 3, UNFAIRNESS_MEAN: 3}


def format_table(frame: pd.DataFrame, caption: str) -> Styler:
    """``frame`` through the book's one table formatter, with the page's column formats."""
    return charts.table(
        frame, caption, percent=[c for c in PERCENT if c in frame.columns],
        decimals={c: d for c, d in PLACES.items() if c in frame.columns},
    )


def picks_view(result: Result) -> Styler:
    """Table 2: the value-function pick and the sparsest candidate."""
    cols = ["rule", "technique", "treatment", "iteration", "sparsity", "accuracy", UNFAIRNESS,
            UNFAIRNESS_MEAN]
    return format_table(result.chosen[cols],
                        "Table 2. The value-function pick and the sparsest candidate.")


def candidates_view(result: Result) -> Styler:
    """Table 3: the candidates above the floor used, with their frontiers."""
    cols = ["label", "sparsity", "accuracy", UNFAIRNESS, UNFAIRNESS_MEAN, "pareto",
            "pareto_mean_min", "pareto_3d"]
    return format_table(result.marked[cols], "Table 3. Candidates above the floor, with "
                        "their frontiers (pareto_3d: accuracy, sparsity and mean − min, P Fig. "
                        "4b).")


def summary_view(result: Result) -> Styler:
    """Table 4: per technique, the sparsest iteration above the floor used."""
    table = technique_summary(result.points, result.candidates.floor_used)
    return format_table(table, "Table 4. Per technique: the sparsest iteration above the floor "
                        "used.")


def protocol_view(result: Result) -> Styler:
    """Table 1: this run's protocol beside P's."""
    return format_table(protocol_table(result), "Table 1. This run's protocol beside P's "
                        "(section 4.2).")


def key_figure(result: Result) -> alt.LayerChart:
    """The key figure: the :func:`frontier_chart` of sparsity against max − min unfairness."""
    return charts.key_chart(frontier_chart(result))


def frontier_chart(result: Result, mean_min: bool = False) -> alt.LayerChart:
    """The explorer of candidates: sparsity against unfairness (max − min, Figure 1, the key
    figure; ``mean_min``: mean − min, Figure 2), the Pareto-optimal ones joined, the pick marked
    at the page's weights (a slider moves them)."""
    y, other = (UNFAIRNESS_MEAN, UNFAIRNESS) if mean_min else (UNFAIRNESS, UNFAIRNESS_MEAN)
    p = result.params
    return charts.pareto_chart(
        result.marked, x="sparsity", y=y, label="technique",
        frontier="pareto_mean_min" if mean_min else "pareto",
        tooltip=["label", "accuracy", other],
        weight=chart_weight(p.fairness_weight, p.sparsity_weight),
        title=f"Figure {2 if mean_min else 1}. Each candidate's sparsity and "
        f"{'mean' if mean_min else 'best'} − worst class accuracy; dashed: the Pareto-optimal "
        "ones, diamond: the pick",
    )


def unfairness_chart(result: Result) -> alt.LayerChart:
    """Figure 3: unfairness (max − min, seed mean) against sparsity, one line per technique."""
    lines = result.points[result.points["iteration"] > 0]
    return charts.accuracy_curves(
        lines, y=UNFAIRNESS, series="technique", tooltip=["iteration", "accuracy"], slider=None,
        title="Figure 3. Best − worst class accuracy (mean over seeds) vs sparsity, per "
        "technique",
    )
