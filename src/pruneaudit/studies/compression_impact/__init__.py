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
sub-groups, over-indexing, the papers' tables on our data),
:mod:`~pruneaudit.studies.compression_impact.findings` (D4.1-D4.11 beside the papers),
:mod:`~pruneaudit.studies.compression_impact.trends` (H1's "grows with sparsity" claims) and
:mod:`~pruneaudit.studies.compression_impact.views` (every table and chart of the page, each a
function of the :class:`Result`).
"""

from pruneaudit.studies.compression_impact.findings import (
    class_findings,
    exemplar_findings,
    exemplar_statistic,
    findings,
    numbers,
    runs_findings,
)
from pruneaudit.studies.compression_impact.params import (
    NOTEBOOK,
    POPULATION_KEYS,
    Params,
    Populations,
)
from pruneaudit.studies.compression_impact.run import (
    PRUNING,
    QUANTIZATION,
    Compressed,
    ImpactRuns,
    Result,
    run,
    variant_name,
)
from pruneaudit.studies.compression_impact.tables import (
    CELEBA_GROUPS,
    CELEBA_TARGET,
    H1_SCHEMES,
    HEADLINE_LEVEL,
    IMAGENET,
    PIE_CATEGORIES,
    STUDY,
    celeba_representation,
    cie_accuracy,
    cie_table,
    cie_threshold,
    class_tests,
    h1_class_table,
    h1_pie_table,
    headline_variant,
    member_accuracy,
    over_indexing,
    pie_accuracy,
    pie_examples,
    protocol_table,
    recall_curves,
    subgroup_metrics,
    summary,
)
from pruneaudit.studies.compression_impact.trends import trend_findings
from pruneaudit.studies.compression_impact.views import (
    celeba_view,
    cie_view,
    class_change_view,
    class_table_view,
    gallery_chart,
    gallery_explorer,
    key_figure,
    over_index_view,
    pie_table_view,
    protocol_view,
    recall_view,
    subgroup_view,
)

__all__ = [
    "NOTEBOOK", "POPULATION_KEYS", "PRUNING", "QUANTIZATION", "Compressed", "ImpactRuns",
    "Params", "Populations", "Result", "run", "variant_name",
    "CELEBA_GROUPS", "CELEBA_TARGET", "H1_SCHEMES", "HEADLINE_LEVEL", "IMAGENET",
    "PIE_CATEGORIES", "STUDY", "celeba_representation", "cie_accuracy", "cie_threshold",
    "class_tests", "headline_variant", "member_accuracy", "over_indexing", "pie_accuracy",
    "pie_examples", "recall_curves", "subgroup_metrics", "summary",
    "class_findings", "exemplar_findings", "exemplar_statistic", "findings", "numbers",
    "runs_findings",
    "trend_findings",
    "cie_table", "h1_class_table", "h1_pie_table", "protocol_table",
    "celeba_view", "cie_view", "class_change_view", "class_table_view", "gallery_chart",
    "gallery_explorer", "key_figure", "over_index_view", "pie_table_view", "protocol_view",
    "recall_view", "subgroup_view",
]
