"""The template study (``nbs/00_template``): per-class accuracy of small LeNet populations
pruned to growing sparsities, trained through the results store.

A new study starts as a copy of this package and of its notebook: the same modules for the same
roles as every study. :mod:`~.params` (the page's :class:`Params`, their rules and the workload
:func:`cost`), :mod:`~.run` (:func:`run`, which returns the :class:`Result`), :mod:`~.findings`
(the findings and the numbers the prose cites), :mod:`~.protocol` (:func:`protocol_table`: the
protocol run beside the published one) and :mod:`~.views` (every table and chart of the page,
each a function of the :class:`Result`; :func:`key_figure` the page's key figure).
"""

from __future__ import annotations

from pruneaudit.studies import lazy_views

from .claims import claims
from .findings import findings, numbers
from .params import Params, cost
from .protocol import protocol_table
from .run import Result, run

__all__ = ["Params", "Result", "run", "claims", "findings", "numbers", "views", "key_figure",
           "protocol_table", "cost"]


__getattr__, __dir__ = lazy_views(__name__, globals())
