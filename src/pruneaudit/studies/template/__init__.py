"""The template study (``nbs/00_template``): per-class accuracy of small LeNet populations
pruned to growing sparsities, trained through the results store.

A new study starts as a copy of this package and of its notebook: the same modules for the same
roles as every study, and one :data:`STUDY` (:class:`~pruneaudit.studies.study.Study`) that
declares them. Adding one touches six files: the copied package (its page in ``STUDY``, claims
and ``Params.STUDY`` renamed), its notebook ``nbs/NN_<name>.ipynb``, its tests, its page in
``_toc.yml``, and two registrations: its page in :data:`pruneaudit.studies.registry.PAGES` and
its claims in the changelog (``pruneaudit claims-log --log "declared" --seen no``);
``tests/test_new_study.py`` does exactly that and builds the copy.

The modules: :mod:`~.params` (the page's :class:`Params`, their rules, the workload
:func:`cost` and the profiles' values :data:`~.params.PROFILES`), :mod:`~.run` (:func:`run`,
which returns the :class:`Result`), :mod:`~.findings` (the findings and the numbers the prose
cites), :mod:`~.protocol` (:func:`protocol_table`: the protocol run beside the published one)
and :mod:`~.views` (every table and chart of the page, each a function of the :class:`Result`;
:func:`key_figure` the page's key figure).
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
STUDY = Study(page="00_template", package=__name__, params=Params, run=run, claims=claims,
              findings=findings, numbers=numbers, protocol_table=protocol_table, cost=cost,
              profiles=PROFILES)


__getattr__, __dir__ = lazy_views(__name__, globals())
