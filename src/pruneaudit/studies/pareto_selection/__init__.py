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

from .frames import (  # noqa: F401
    DATASET,
    FRONTIERS,
    MODEL,
    SOURCE,
    STRUCTURED,
    STUDY,
    UNFAIRNESS,
    UNFAIRNESS_MEAN,
    Candidates,
    candidates,
    chart_weight,
    mark_frontiers,
    operating_points,
    picks,
    run,
    technique_summary,
)
from .params import (  # noqa: F401
    cost_text,
    floor_text,
    picks_text,
    protocol_table,
    validate,
)
from .rows import (  # noqa: F401
    ONE_MORE_TECHNIQUE,
    _seed_points,
    findings,
    frontier_techniques,
    heldout_gains,
    per_seed_points,
    pick_sparsities,
    unfairness_slopes,
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
    "run",
    "operating_points",
    "Candidates",
    "candidates",
    "mark_frontiers",
    "picks",
    "chart_weight",
    "technique_summary",
    "validate",
    "protocol_table",
    "cost_text",
    "floor_text",
    "picks_text",
    "per_seed_points",
    "frontier_techniques",
    "heldout_gains",
    "unfairness_slopes",
    "findings",
    "ONE_MORE_TECHNIQUE",
    "pick_sparsities",
]
