"""Study 3 (P, section 4.2): choosing a pruning operating point with fairness in the value.

AlexNet is trained on MNIST and pruned iteratively with the structured techniques
(:func:`pruneaudit.runs.series.series_frame`); methods page, "Study 3: Pareto selection".
Every pruned network (technique, treatment, iteration) is one operating point, its total
accuracy, sparsity and unfairness averaged over the seeds
(:func:`pruneaudit.audit.unfairness_vs_sparsity`).

- Candidates: the points whose seed-mean total accuracy is at least the accuracy floor
  (:func:`candidates`). When fewer than ``min_candidates`` points pass the requested floor (a
  short training budget may leave every network below it), the floor is lowered to the
  accuracy of the ``min_candidates``-th most accurate point, and the result says so.
- Frontiers (:func:`mark_frontiers`): non-dominated candidates in (sparsity max, unfairness
  max − min min; P Fig. 4a), in (sparsity, mean − min), and in (accuracy max, sparsity max,
  unfairness mean − min min; P Fig. 4b), by :func:`pruneaudit.audit.pareto_front`.
- Findings D3.1-D3.3 (:func:`findings`), each with an interval over seeds or series.
- Picks (:func:`picks`): the value function ``w_fair·(−unfairness) + w_sparse·sparsity``
  (:func:`pruneaudit.audit.pareto.select_operating_point`; candidates are ordered by sparsity, then
  lower unfairness, so that ties go to the sparser point as in
  :func:`pruneaudit.charts.pareto_chart`), and the point that simply reaches the highest
  sparsity above the floor.
"""

from __future__ import annotations

from .frames import (
    FRONTIERS,
    UNFAIRNESS,
    UNFAIRNESS_MEAN,
    Candidates,
    Result,
    candidates,
    chart_weight,
    mark_frontiers,
    operating_points,
    picks,
    run,
    technique_summary,
)
from .params import DATASET, MODEL, SOURCE, STRUCTURED, STUDY, Params, protocol_table
from .rows import (
    ONE_MORE_TECHNIQUE,
    classes_findings,
    frontier_techniques,
    heldout_gains,
    per_seed_points,
    pick_sparsities,
    unfairness_slopes,
)
from .views import (
    PERCENT,
    PLACES,
    candidates_view,
    cost_numbers,
    findings,
    frontier_chart,
    numbers,
    picks_view,
    protocol_view,
    summary_view,
    unfairness_chart,
)

__all__ = [
    "DATASET",
    "MODEL",
    "STUDY",
    "SOURCE",
    "STRUCTURED",
    "UNFAIRNESS",
    "UNFAIRNESS_MEAN",
    "FRONTIERS",
    "PERCENT",
    "PLACES",
    "Params",
    "Result",
    "run",
    "findings",
    "numbers",
    "cost_numbers",
    "operating_points",
    "Candidates",
    "candidates",
    "mark_frontiers",
    "picks",
    "chart_weight",
    "technique_summary",
    "protocol_table",
    "protocol_view",
    "picks_view",
    "candidates_view",
    "summary_view",
    "frontier_chart",
    "unfairness_chart",
    "per_seed_points",
    "frontier_techniques",
    "heldout_gains",
    "unfairness_slopes",
    "classes_findings",
    "ONE_MORE_TECHNIQUE",
    "pick_sparsities",
]
