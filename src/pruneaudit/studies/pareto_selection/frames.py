"""Study 3's operating points: candidates, frontiers and picks."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from pruneaudit import audit
from pruneaudit.errors import PruneAuditError, check_positive_int, check_range

UNFAIRNESS = "unfairness_max_min"
UNFAIRNESS_MEAN = "unfairness_mean_min"
FRONTIERS = {
    "pareto": {"sparsity": "max", UNFAIRNESS: "min"},
    "pareto_mean_min": {"sparsity": "max", UNFAIRNESS_MEAN: "min"},
    "pareto_3d": {"accuracy": "max", "sparsity": "max", UNFAIRNESS_MEAN: "min"},
}


def operating_points(classes: pd.DataFrame) -> pd.DataFrame:
    """One row per (technique, treatment, iteration): seed means (and std) of total accuracy,
    sparsity and both unfairness kinds; ``label`` names the point. Iteration 0 (the dense model,
    the same for every series) is one row labelled ``dense``, technique and treatment "dense"."""
    table = audit.unfairness_vs_sparsity(classes)
    dense = table[table["iteration"] == 0].head(1).assign(technique="dense", treatment="dense")
    pruned = table[table["iteration"] > 0]
    out = pd.concat([dense, pruned], ignore_index=True)
    out["label"] = [
        "dense" if it == 0 else f"{tech} / {treat} / k={it}"
        for tech, treat, it in zip(
            out["technique"], out["treatment"], out["iteration"], strict=True
        )
    ]
    return out


@dataclass(frozen=True)
class Candidates:
    """The pruned points above the floor used; ``lowered`` says whether the requested floor had
    to be lowered to keep ``min_candidates`` points, ``passed_requested`` how many passed it."""

    frame: pd.DataFrame
    floor_requested: float
    floor_used: float
    passed_requested: int
    lowered: bool


def candidates(points: pd.DataFrame, floor: float = 0.98, min_candidates: int = 3) -> Candidates:
    """The pruned operating points (iteration ≥ 1) with seed-mean total accuracy ≥ the floor.

    If fewer than ``min_candidates`` pass ``floor``, the floor used is the accuracy of the
    ``min_candidates``-th most accurate pruned point (all points if there are fewer).
    """
    floor = check_range("accuracy floor", floor, 0, 1)
    check_positive_int("min_candidates", min_candidates)
    pruned = points[points["iteration"] > 0]
    if pruned.empty:
        raise PruneAuditError("no pruned operating point (iteration >= 1) in the frame")
    passed = len(audit.accuracy_floor(pruned, "accuracy", floor))
    used = floor
    if passed < min_candidates:
        ranked = pruned["accuracy"].sort_values(ascending=False).to_numpy()
        used = float(ranked[min(min_candidates, len(ranked)) - 1])
    frame = audit.accuracy_floor(pruned, "accuracy", used).sort_values(
        ["sparsity", UNFAIRNESS], ascending=[False, True], kind="mergesort"
    )
    return Candidates(frame.reset_index(drop=True), floor, used, passed, used < floor)


def mark_frontiers(frame: pd.DataFrame) -> pd.DataFrame:
    """Add a boolean column per frontier of :data:`FRONTIERS` (True = Pareto-optimal)."""
    out = frame.copy()
    for name, senses in FRONTIERS.items():
        out[name] = audit.pareto_front(out, senses)
    return out


def picks(frame: pd.DataFrame, fairness_weight: float = 100.0, sparsity_weight: float = 1.0):
    """The value-function pick and the sparsest candidate, one row each.

    ``value = fairness_weight·(−unfairness) + sparsity_weight·sparsity`` (max − min unfairness);
    the rule column names the pick. Candidates must be ordered by sparsity descending (as
    :func:`candidates` returns them) for ties to go to the sparser point.
    """
    if frame.empty:
        raise PruneAuditError("no candidates to pick from")
    for name, w in (("fairness_weight", fairness_weight), ("sparsity_weight", sparsity_weight)):
        check_range(name, w, 0, float("inf"))
    chosen = audit.select_operating_point(
        frame, {UNFAIRNESS: -float(fairness_weight), "sparsity": float(sparsity_weight)}
    )
    sparsest = frame.loc[frame["sparsity"].idxmax()].copy()
    rule = f"value function (w_fair = {fairness_weight:g}, w_sparse = {sparsity_weight:g})"
    rows = pd.DataFrame([chosen, sparsest])
    rows.insert(0, "rule", [rule, "highest sparsity above the floor"])
    return rows.reset_index(drop=True)


def chart_weight(fairness_weight: float = 100.0, sparsity_weight: float = 1.0) -> float:
    """The slider value ``w`` of :func:`pruneaudit.charts.pareto_chart` (value = w·(−u) +
    (1 − w)·s) that matches these weights: w = w_fair / (w_fair + w_sparse)."""
    total = float(fairness_weight) + float(sparsity_weight)
    if fairness_weight < 0 or sparsity_weight < 0 or total <= 0:
        raise PruneAuditError(
            f"weights must be >= 0 and not both 0, got {fairness_weight!r}, {sparsity_weight!r}"
        )
    return float(fairness_weight) / total


def technique_summary(points: pd.DataFrame, floor: float) -> pd.DataFrame:
    """Per (technique, treatment): the highest seed-mean sparsity whose accuracy is ≥ ``floor``
    (NaN if none), with that point's unfairness and accuracy, and the last iteration above it."""
    pruned = points[points["iteration"] > 0]
    rows = []
    for (tech, treat), g in pruned.groupby(["technique", "treatment"], sort=True):
        ok = g[g["accuracy"] >= floor]
        if ok.empty:
            rows.append({"technique": tech, "treatment": treat, "iteration": None})
            continue
        best = ok.loc[ok["sparsity"].idxmax()]
        rows.append(
            {
                "technique": tech,
                "treatment": treat,
                "iteration": int(best["iteration"]),
                "sparsity": best["sparsity"],
                "accuracy": best["accuracy"],
                UNFAIRNESS: best[UNFAIRNESS],
                UNFAIRNESS_MEAN: best[UNFAIRNESS_MEAN],
            }
        )
    out = pd.DataFrame(rows)
    out["iteration"] = out["iteration"].astype("Int64")
    return out
