"""Study 5 (H1 section 4): robustness of dense vs pruned populations under distribution shift.

The populations are Study 4's (:class:`pruneaudit.studies.compression_impact.Populations`,
a subset of its members and levels, made from Study 4's parameters, which this page's
:class:`Params` declares it reads). Modules: :mod:`~pruneaudit.studies.robustness.params` (the
page's :class:`Params`), :mod:`~pruneaudit.studies.robustness.run` (:func:`run`, which returns
its :class:`Result`: the corrupted evaluations), :mod:`~pruneaudit.studies.robustness.frames`
(the runs' record and the frames computed from it),
:mod:`~pruneaudit.studies.robustness.tables` (H1's table as a frame),
:mod:`~pruneaudit.studies.robustness.protocol` (the protocol beside H1's),
:mod:`~pruneaudit.studies.robustness.claims` (H1's claims D5.1-D5.4, analogues:
direction and a smallest effect), :mod:`~pruneaudit.studies.robustness.findings` (D5.1-D5.4
beside H1) and
:mod:`~pruneaudit.studies.robustness.views` (every table and chart of the page, each a function
of the :class:`Result`).
"""

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
STUDY = Study(page="05_robustness", package=__name__, params=Params, run=run, claims=claims,
              findings=findings, numbers=numbers, protocol_table=protocol_table, cost=cost,
              profiles=PROFILES)


__getattr__, __dir__ = lazy_views(__name__, globals())
