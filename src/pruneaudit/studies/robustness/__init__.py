"""Study 5 (H1 section 4): robustness of dense vs pruned populations under distribution shift.

The populations are Study 4's (:class:`pruneaudit.studies.compression_impact.Populations`,
a subset of its members and levels, made from Study 4's parameters, which this page's
:class:`Params` declares it reads). Modules: :mod:`~pruneaudit.studies.robustness.params` (the
page's :class:`Params`), :mod:`~pruneaudit.studies.robustness.run` (:func:`run`, which returns
its :class:`Result`, the corrupted evaluations and their frames),
:mod:`~pruneaudit.studies.robustness.tables` (the protocol and H1's table as frames),
:mod:`~pruneaudit.studies.robustness.findings` (D5.1-D5.4 beside H1) and
:mod:`~pruneaudit.studies.robustness.views` (every table and chart of the page, each a function
of the :class:`Result`).
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
from pruneaudit.studies.robustness.params import SEVERITIES, Params, check_grid
from pruneaudit.studies.robustness.run import (
    CLEAN,
    NATURAL,
    Result,
    RobustnessRuns,
    accuracy_by_severity,
    accuracy_frame,
    corruption_examples,
    mean_accuracy,
    most_hurt,
    natural_adversarial,
    natural_member_rows,
    reference_wrong,
    relative_robustness,
    run,
)
from pruneaudit.studies.robustness.tables import h1_corruption_table, protocol_table
from pruneaudit.studies.robustness.views import (
    corruption_explorer,
    corruption_table_view,
    examples_view,
    key_figure,
    natural_view,
    protocol_view,
    severity_view,
)

__all__ = [
    "H1_CORRUPTIONS", "HEADLINE_LEVEL", "LOWER_LEVEL", "NOISE", "STUDY", "findings",
    "findings_from_accuracy", "h1_relative", "headline_level", "member_scores", "numbers",
    "runs_findings", "welch_df",
    "CLEAN", "NATURAL", "SEVERITIES", "Params", "Result", "RobustnessRuns", "check_grid",
    "accuracy_by_severity",
    "accuracy_frame", "corruption_examples", "mean_accuracy", "most_hurt",
    "natural_adversarial", "natural_member_rows", "reference_wrong", "relative_robustness",
    "run", "h1_corruption_table", "protocol_table",
    "corruption_explorer", "corruption_table_view", "examples_view", "key_figure",
    "natural_view", "protocol_view", "severity_view",
]
