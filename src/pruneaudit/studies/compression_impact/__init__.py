"""Study 4 (H1 sections 2-3, H2 sections 2-3): class-level impact, PIE and CIE of compression.

Populations: K independently trained models (one per seed) per compression variant
(:class:`Populations`, the one definition Study 5 reads too). The baseline is the dense
population (level 0); a *pruned* variant is the population trained with gradual magnitude
pruning to end sparsity ``t`` (:func:`pruneaudit.runs.member_specs`); a *quantized* variant is
the baseline population quantized post-training with one scheme of
:data:`pruneaudit.compress.SCHEMES` (:func:`pruneaudit.runs.run_quantized`, on the CPU: torch's
int8 kernels). By default every level's population has its own seeds
(:func:`pruneaudit.runs.level_seeds`: independent populations, as in H1); quantized members are
the baseline members quantized, so they pair with the baseline by construction.

Modules: :mod:`~pruneaudit.studies.compression_impact.params` (the page's :class:`Params` and
the :class:`Populations` they define), :mod:`~pruneaudit.studies.compression_impact.run`
(:func:`run`, which returns the page's :class:`Result`),
:mod:`~pruneaudit.studies.compression_impact.tables` (per-class tests, PIE and CIE accuracy,
sub-groups, over-indexing), :mod:`~pruneaudit.studies.compression_impact.published` (the papers'
tables on our data), :mod:`~pruneaudit.studies.compression_impact.protocol` (the protocol beside
the papers'),
:mod:`~pruneaudit.studies.compression_impact.findings` (D4.1-D4.11 beside the papers),
:mod:`~pruneaudit.studies.compression_impact.trends` (H1's "grows with sparsity" claims) and
:mod:`~pruneaudit.studies.compression_impact.views` (every table and chart of the page, each a
function of the :class:`Result`).
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
STUDY = Study(page="04_compression_impact", package=__name__, params=Params, run=run, claims=claims,
              findings=findings, numbers=numbers, protocol_table=protocol_table, cost=cost,
              profiles=PROFILES)
# Also importable here, outside the contract: the parts of the findings that their null
# calibrations call one by one.
from .findings import class_findings as class_findings  # noqa: E402
from .findings import exemplar_findings as exemplar_findings  # noqa: E402
from .trends import trend_findings as trend_findings  # noqa: E402

__getattr__, __dir__ = lazy_views(__name__, globals())
