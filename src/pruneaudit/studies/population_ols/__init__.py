"""Study 1 (P, section 3): the population regression of per-class accuracy under pruning.

Pipeline, all through the results store (methods page, "Study 1: population regression"):

1. :func:`~.run.run` takes the page's checked :class:`~.params.Params` and runs (or reads) the
   iterative pruning series of every (dataset, imbalance factor, model, technique, treatment,
   seed) by :func:`pruneaudit.runs.series.series_frame`; the imbalance factors (1, 10, 100)
   subsample the training pool to a seeded long tail (:mod:`pruneaudit.data.splits`), an
   extension beyond P so that r_c varies and E is identified.
2. :func:`pruneaudit.runs.series.class_stats` gives r_c and H_c (mean Shannon entropy, bits, of
   each image's 256-bin pixel histogram) of each class of the pool the models drew from.
3. :func:`~.run.analyse` fits the design frame (:func:`pruneaudit.audit.design_frame`) by
   :func:`~.fits.fit_all`: OLS and the binomial GLM, with the linear terms and with P's cross
   terms (HAC, 3 lags, as P), plus the cross-term OLS with errors clustered by (dataset, class)
   for the findings; :func:`~.fits.coefficient_table` puts P's App. D coefficients beside ours.
4. :func:`~.findings.findings` judges D1.1-D1.5, each by its claim declared from P's text
   (:func:`~.claims.claims`: analogues of P's quantities, direction only, P's value shown
   beside them); :func:`~.findings.numbers` gives the figures the page's prose cites;
   :mod:`~.views` holds the page's tables and charts, :func:`~.views.key_figure` its explorer.
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
STUDY = Study(page="01_population_ols", package=__name__, params=Params, run=run, claims=claims,
              findings=findings, numbers=numbers, protocol_table=protocol_table, cost=cost,
              profiles=PROFILES)


__getattr__, __dir__ = lazy_views(__name__, globals())
