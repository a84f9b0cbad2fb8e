"""Study 3's page: the numbers its Markdown cites (glued) and its styled tables."""

from __future__ import annotations

import pandas as pd
from pandas.io.formats.style import Styler

from pruneaudit import charts
from pruneaudit.audit import findings as F
from pruneaudit.compress.prune import TREATMENTS
from pruneaudit.runs import gpu_cost_text, series

from .frames import UNFAIRNESS, UNFAIRNESS_MEAN, Result, chart_weight, technique_summary
from .params import DATASET, STRUCTURED, STUDY, Params, protocol_table
from .rows import classes_findings

#: How the page's tables show their columns (:func:`pruneaudit.charts.table`).
PERCENT = ("sparsity", "accuracy")
PLACES = {UNFAIRNESS: 3, UNFAIRNESS_MEAN: 3}


def findings(result: Result) -> list[F.Finding]:
    """D3.1-D3.3 of ``result`` (:func:`pruneaudit.studies.pareto_selection.rows.classes_findings`
    at the floor used)."""
    p = result.params
    return classes_findings(
        result.classes, result.candidates.floor_used, p.min_candidates, p.fairness_weight,
        p.sparsity_weight,
    )


def _pick(row: pd.Series) -> str:
    return f"{row['technique']} / {row['treatment']} at iteration {int(row['iteration'])}"


def numbers(result: Result) -> dict[str, float | int | str]:
    """What the page's sentences cite: the floor (requested, used, how many passed), the two
    picks and what the fairness pick trades, P's pick, and the training cost."""
    cands, chosen = result.candidates, result.chosen
    fair, sparse = chosen.iloc[0], chosen.iloc[1]
    pruned = result.points.loc[result.points["iteration"] > 0, "accuracy"]
    return {
        "floor_requested": cands.floor_requested,
        "floor_used": cands.floor_used,
        "floor_passed": cands.passed_requested,
        "floor_note": (
            f"lowered to keep the {len(cands.frame)} most accurate pruned points"
            if cands.lowered
            else "as requested"
        ),
        "best_pruned_accuracy": float(pruned.max()),
        "n_candidates": len(cands.frame),
        "fair_pick": _pick(fair),
        "fair_sparsity": float(fair["sparsity"]),
        "fair_unfairness": float(fair[UNFAIRNESS]),
        "fair_accuracy": float(fair["accuracy"]),
        "sparse_pick": _pick(sparse),
        "sparse_sparsity": float(sparse["sparsity"]),
        "sparse_unfairness": float(sparse[UNFAIRNESS]),
        "sparsity_given_up": float(sparse["sparsity"] - fair["sparsity"]),
        "unfairness_saved": float(sparse[UNFAIRNESS] - fair[UNFAIRNESS]),
        "paper_pick": F.lookup(STUDY, "sparsity").value,
        **cost_numbers(result.params),
    }


def cost_numbers(params: Params) -> dict[str, float | int | str]:
    """This run's training cost and the paper profile's (P's protocol, both treatments), one
    model at a time at the recorded rate; the GPU cost as measured or 'not measured'."""
    mine = series.grid_cost(
        [DATASET], [params.model], params.techniques, params.treatments, params.seeds,
        params.iterations, params.epochs, train_size=params.train_size, root=params.data_root,
        store=params.store,
    )
    paper = series.grid_cost(
        [DATASET], ["alexnet"], STRUCTURED, TREATMENTS, range(6), 20, 30, root=params.data_root,
        store=params.store,
    )
    return {
        "model_epochs": int(mine["model_epochs"].sum()),
        "cpu_hours": float(mine["cpu_hours"].sum()),
        "rate": str(mine["rate"].iloc[0]),
        "paper_model_epochs": int(paper["model_epochs"].sum()),
        "paper_cpu_hours": float(paper["cpu_hours"].sum()),
        "paper_rate": str(paper["rate"].iloc[0]),
        "gpu_cost": gpu_cost_text("Study 3"),
    }


def _table(frame: pd.DataFrame, caption: str) -> Styler:
    """``frame`` through the book's one table formatter, with the page's column formats."""
    return charts.table(
        frame, caption, percent=[c for c in PERCENT if c in frame.columns],
        decimals={c: d for c, d in PLACES.items() if c in frame.columns},
    )


def picks_view(result: Result) -> Styler:
    """Table 2: the value-function pick and the sparsest candidate."""
    cols = ["rule", "technique", "treatment", "iteration", "sparsity", "accuracy", UNFAIRNESS,
            UNFAIRNESS_MEAN]
    return _table(result.chosen[cols],
                   "Table 2. The value-function pick and the sparsest candidate.")


def candidates_view(result: Result) -> Styler:
    """Table 3: the candidates above the floor used, with their frontiers."""
    cols = ["label", "sparsity", "accuracy", UNFAIRNESS, UNFAIRNESS_MEAN, "pareto",
            "pareto_mean_min", "pareto_3d"]
    return _table(result.marked[cols], "Table 3. Candidates above the floor, with their "
                   "frontiers (pareto_3d: accuracy, sparsity and mean − min, P Fig. 4b).")


def summary_view(result: Result) -> Styler:
    """Table 4: per technique, the sparsest iteration above the floor used."""
    table = technique_summary(result.points, result.candidates.floor_used)
    return _table(table, "Table 4. Per technique: the sparsest iteration above the floor used.")


def protocol_view(params: Params) -> Styler:
    """Table 1: this run's protocol beside P's."""
    return _table(protocol_table(params), "Table 1. This run's protocol beside P's (section "
                   "4.2).")


def frontier_chart(result: Result, mean_min: bool = False) -> object:
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
        title=f"Figure {2 if mean_min else 1}. Candidates: sparsity vs unfairness "
        f"({'mean' if mean_min else 'max'} − min)",
    )


def unfairness_chart(result: Result) -> object:
    """Figure 3: unfairness (max − min, seed mean) against sparsity, one line per technique."""
    lines = result.points[result.points["iteration"] > 0]
    return charts.accuracy_curves(
        lines, y=UNFAIRNESS, series="technique", tooltip=["iteration", "accuracy"], slider=False,
        title="Figure 3. Unfairness (max − min, seed mean) vs sparsity",
    )
