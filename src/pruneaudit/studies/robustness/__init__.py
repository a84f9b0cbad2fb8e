"""Study 5 (H1 section 4): robustness of dense vs pruned populations under distribution shift.

The populations are Study 4's (:class:`pruneaudit.studies.compression_impact.Populations`,
a subset of its members and levels, made from Study 4's parameters held in this page's
:class:`Params`). Modules: :mod:`~pruneaudit.studies.robustness.run` (the page's
:class:`Params`, :func:`run`, which returns its :class:`Result`, the corrupted evaluations and
their tables), :mod:`~pruneaudit.studies.robustness.findings`
(D5.1-D5.4 beside H1) and :mod:`~pruneaudit.studies.robustness.views` (the page's tables and
charts).
"""

from pruneaudit.studies.robustness.findings import (
    H1_CORRUPTIONS,
    HEADLINE_LEVEL,
    LOWER_LEVEL,
    NOISE,
    STUDY,
    findings,
    findings_from_accuracy,
    h1_relative,
    headline_level,
    member_scores,
    numbers,
    runs_findings,
    welch_df,
)
from pruneaudit.studies.robustness.run import (
    CLEAN,
    NATURAL,
    SEVERITIES,
    Params,
    Result,
    RobustnessRuns,
    accuracy_by_severity,
    accuracy_frame,
    check_grid,
    corruption_examples,
    mean_accuracy,
    most_hurt,
    natural_adversarial,
    natural_member_rows,
    reference_wrong,
    relative_robustness,
    run,
)
from pruneaudit.studies.robustness.views import (
    corruption_explorer,
    h1_corruption_table,
    key_figure,
    protocol_table,
)

__all__ = [
    "H1_CORRUPTIONS", "HEADLINE_LEVEL", "LOWER_LEVEL", "NOISE", "STUDY", "findings",
    "findings_from_accuracy", "h1_relative", "headline_level", "member_scores", "numbers",
    "runs_findings", "welch_df",
    "CLEAN", "NATURAL", "SEVERITIES", "Params", "Result", "RobustnessRuns", "check_grid",
    "accuracy_by_severity",
    "accuracy_frame", "corruption_examples", "mean_accuracy", "most_hurt",
    "natural_adversarial", "natural_member_rows", "reference_wrong", "relative_robustness",
    "run", "corruption_explorer", "h1_corruption_table", "key_figure",
    "protocol_table",
]
