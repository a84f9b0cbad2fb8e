"""Study 3 (P, section 4.2): choosing a pruning operating point with fairness in the value.

The page's model (P: AlexNet; the quick and smoke profiles: LeNet) is trained on MNIST and
pruned iteratively with the structured techniques (:func:`~.run.run` through
:func:`pruneaudit.runs.series.series_frame`); methods page, "Study 3: Pareto selection".
Every pruned network (technique, treatment, iteration) is one operating point, its total
accuracy, sparsity and unfairness averaged over the seeds
(:func:`pruneaudit.audit.unfairness_vs_sparsity`).

- Candidates: the points whose seed-mean total accuracy is at least the accuracy floor
  (:func:`~.frames.candidates`). When fewer than ``min_candidates`` points pass the requested
  floor (a short training budget may leave every network below it), the floor is lowered to
  the accuracy of the ``min_candidates``-th most accurate point, and the result says so.
- Frontiers (:func:`~.frames.mark_frontiers`): non-dominated candidates in (sparsity max,
  unfairness max − min min; P Fig. 4a), in (sparsity, mean − min), and in (accuracy max,
  sparsity max, unfairness mean − min min; P Fig. 4b), by :func:`pruneaudit.audit.pareto_front`.
- Findings D3.1-D3.3 (:func:`~.findings.findings`), each by its claim declared from P's text
  (:func:`~.claims.claims`: LeNet's analogues of P's AlexNet quantities, P's pick not comparable,
  our held-out question beside it), each with an interval over seeds or series;
  :func:`~.findings.numbers` gives the figures the page's prose cites.
- Picks (:func:`~.frames.picks`): the value function ``w_fair·(−unfairness) + w_sparse·sparsity``
  (:func:`pruneaudit.audit.pareto.select_operating_point`; candidates are ordered by sparsity, then
  lower unfairness, so that ties go to the sparser point as in
  :func:`pruneaudit.charts.pareto_chart`), and the point that simply reaches the highest
  sparsity above the floor.
- The page's tables and charts: :mod:`~.views`, :func:`~.views.key_figure` its explorer.
"""

from __future__ import annotations

from pruneaudit.studies import lazy_views
from pruneaudit.studies.study import Study

from .claims import claims
from .findings import findings, numbers
from .params import PROFILES, Params, cost
from .protocol import protocol_table
from .run import Result, run

__all__ = ["STUDY", "Params", "Result", "run", "claims", "findings", "numbers", "views",
           "key_figure", "protocol_table", "cost"]

#: The study, declared once: what the registry (:mod:`pruneaudit.studies.registry`) hands on.
STUDY = Study(page="03_pareto_selection", package=__name__, params=Params, run=run, claims=claims,
              findings=findings, numbers=numbers, protocol_table=protocol_table, cost=cost,
              profiles=PROFILES)


__getattr__, __dir__ = lazy_views(__name__, globals())
