"""Study 2 (P, section 4.1 and appendix C): who loses when LeNet is pruned, writer by writer.

LeNet is trained on QMNIST and pruned iteratively with ``global_unstructured`` pruning and
rewinding (:func:`~.run.run` through :func:`pruneaudit.runs.run_series`, one series per seed,
trained together as one population). P's masks are cumulative: a weight pruned in one round
stays zero in every later round (it cannot regrow); each round rewinds the survivors to their
initial values and retrains.
On the QMNIST test digits, each digit carries its NIST writer id and series
(``hsf0``: NIST employees, ``hsf4``: high-school students).

Averaging over seeds: for each test digit, ``correct_unpruned`` / ``correct_pruned`` is the share
of the seeds' models that classify it correctly; a writer's accuracy is the mean of that over
their digits, which equals the mean over seeds of each seed's accuracy on the writer (every seed
is evaluated on the same digits).

Image properties (:mod:`pruneaudit.audit.image_properties`) are per digit, then averaged per
writer; the class-mean images for the distance come from the training pool (the first ``train_size``
training examples, training and validation parts together: a property of the image, not of a
model).

Findings (D2.1-D2.6 of the project's list of P's claims) are declared, from P's text, in
:func:`~.claims.claims` (P's own task: every testable row is P's quantity computed P's way) and
computed by :func:`~.findings.findings` with intervals over seeds (Student t,
:func:`pruneaudit.audit.mean_interval`) or over writers (percentile bootstrap,
:func:`pruneaudit.audit.bootstrap_interval`); formulas: the book's methods page, sections
*Study 2* and *Findings and verdicts*. The page's tables and charts are in :mod:`~.views`.
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
STUDY = Study(page="02_qmnist_writers", package=__name__, params=Params, run=run, claims=claims,
              findings=findings, numbers=numbers, protocol_table=protocol_table, cost=cost,
              profiles=PROFILES)


__getattr__, __dir__ = lazy_views(__name__, globals())
