"""Audit methods: per-class accuracy, class tests, exemplars, sub-groups, regression, Pareto.

Names are imported from their module when first used (PEP 562), so that a module that needs one
part (the book's runner reads findings) does not import them all (torch, statsmodels).
"""

from __future__ import annotations

import sys
import types
from typing import Any

from pruneaudit.lazy import attach

#: Public name -> the module of this package that defines it (or a module's full name).
_HOMES: dict[str, str] = {
    **dict.fromkeys(
        ("RUN_KEYS", "RUN_SERIES_COLUMNS", "SERIES_KEYS", "UNFAIRNESS_KINDS", "SparsityTables",
         "accuracy_vs_sparsity", "check_group_frame", "check_labels", "check_num_classes",
         "check_population", "check_same_length", "class_accuracy", "class_accuracy_frame",
         "overall_accuracy", "population_class_accuracy", "unfairness", "unfairness_vs_sparsity"),
        "accuracy",
    ),
    **dict.fromkeys(
        ("SCALES", "bounded_interval"),
        "bounded",
    ),
    **dict.fromkeys(
        ("COMPARABILITIES", "Claim", "Setting", "derived_kind", "register"),
        "claims",
    ),
    **dict.fromkeys(
        ("PAIRINGS", "class_recall_ttest", "population_recalls", "share_interval",
         "significant_counts", "welch_interval"),
        "class_tests",
    ),
    **dict.fromkeys(
        ("PERCENTILES", "MemberVotes", "VoteStatistic", "jaccard_scores",
         "modal_labels", "over_indexing", "pie_accuracy", "pie_flags", "population_accuracy",
         "shift_interval", "subset_accuracy", "taxicab_scores", "top_percentile", "vote_counts"),
        "exemplars",
    ),
    **dict.fromkeys(
        ("JSON_KEYS", "UNTESTED", "Estimate", "Finding", "findings_frame", "is_borderline",
         "judge", "rejudge", "untested", "verdict_label"),
        "findings",
    ),
    **dict.fromkeys(
        ("from_json", "repeated_estimates", "write_findings_json"),
        "findings_file",
    ),
    **dict.fromkeys(
        ("predicted_vs_target", "residual_histogram"),
        "fit_diagnostics",
    ),
    **dict.fromkeys(
        ("FIT_COLUMNS", "THRESHOLD", "abs_tilt", "class_mean_images", "distance_to_class_mean",
         "group_linear_fits", "image_properties", "mean_activation", "per_writer",
         "property_effects", "tilt"),
        "image_properties",
    ),
    **dict.fromkeys(
        ("TARGET_POWER", "Resampling", "between_from_groups", "bootstrap_interval", "mean_interval",
         "paper_se_from_sd", "paper_se_from_units", "power", "units_for_power", "widened",
         "with_between"),
        "intervals",
    ),
    **dict.fromkeys(
        ("cluster_groups", "jackknife_adj_r2", "jackknife_cov"),
        "jackknife",
    ),
    **dict.fromkeys(
        ("SENSES", "accuracy_floor", "pareto_front", "select_operating_point"),
        "pareto",
    ),
    **dict.fromkeys(
        ("Published", "lookup", "published"),
        "published",
    ),
    **dict.fromkeys(
        ("CATEGORICALS", "CLASS_STAT_COLUMNS", "CROSS_TERMS", "HAC_KWDS", "HYPOTHESES",
         "LINEAR_TERMS", "ORDER", "RUN_COLUMNS", "SERIES", "ModelFit", "design_frame", "fit_glm",
         "fit_ols", "one_tailed_p"),
        "regression",
    ),
    **dict.fromkeys(
        ("ABSENT", "DIRECTIONS", "EFFECT_ABSENT", "FAILING", "INCONCLUSIVE", "LARGER",
         "NOT_COMPARABLE", "NOT_REPRODUCED", "NOT_TESTABLE", "OPPOSITE", "OTHER_SIGN", "PRESENT",
         "REPRODUCED", "SAME_DIRECTION", "SIZE_UNCLEAR", "SIZES", "SMALLER", "VERDICTS",
         "direction_of", "paper_band", "size_of", "verdict"),
        "rules",
    ),
    **dict.fromkeys(
        ("STABLE", "between_sd", "stability", "units_for_stability"),
        "stability",
    ),
    **dict.fromkeys(
        ("METRICS", "REDUCTIONS", "compare_group_metrics", "group_metrics", "normalized_difference",
         "population_group_metrics"),
        "subgroups",
    ),
    **dict.fromkeys(
        ("ArrayLike", "class_counts", "class_entropy", "class_fractions", "class_table",
         "image_entropy", "imbalance"),
        "pruneaudit.data.class_properties",
    ),
}


#: Functions named as their module: the name is the function, as it was when this package
#: imported every name at once (the module: ``importlib.import_module`` of its full name).
_FUNCTIONS_NAMED_AS_MODULES = ("image_properties", "published", "stability")


class _Package(types.ModuleType):
    """This package, whose attributes the import system may not set to the three submodules
    named as their functions (it does so when another module imports such a submodule)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _FUNCTIONS_NAMED_AS_MODULES and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


__getattr__, __dir__ = attach(__name__, _HOMES, globals())


__all__ = [
    "SCALES",
    "bounded_interval",
    "share_interval",
    "welch_interval",
    "VoteStatistic",
    "MemberVotes",
    "Resampling",
    "shift_interval",
    "UNFAIRNESS_KINDS",
    "SERIES_KEYS",
    "RUN_KEYS",
    "RUN_SERIES_COLUMNS",
    "check_num_classes",
    "check_labels",
    "check_population",
    "check_same_length",
    "check_group_frame",
    "population_class_accuracy",
    "class_accuracy",
    "overall_accuracy",
    "unfairness",
    "class_accuracy_frame",
    "SparsityTables",
    "unfairness_vs_sparsity",
    "accuracy_vs_sparsity",
    "PAIRINGS",
    "class_recall_ttest",
    "population_recalls",
    "significant_counts",
    "PERCENTILES",
    "vote_counts",
    "modal_labels",
    "pie_flags",
    "taxicab_scores",
    "jaccard_scores",
    "top_percentile",
    "population_accuracy",
    "subset_accuracy",
    "pie_accuracy",
    "over_indexing",
    "METRICS",
    "REDUCTIONS",
    "group_metrics",
    "population_group_metrics",
    "normalized_difference",
    "compare_group_metrics",
    "SERIES",
    "ORDER",
    "RUN_COLUMNS",
    "CLASS_STAT_COLUMNS",
    "CATEGORICALS",
    "HAC_KWDS",
    "HYPOTHESES",
    "LINEAR_TERMS",
    "CROSS_TERMS",
    "design_frame",
    "ModelFit",
    "cluster_groups",
    "jackknife_adj_r2",
    "jackknife_cov",
    "one_tailed_p",
    "fit_ols",
    "fit_glm",
    "predicted_vs_target",
    "residual_histogram",
    "SENSES",
    "pareto_front",
    "accuracy_floor",
    "select_operating_point",
    "ArrayLike",
    "class_counts",
    "class_fractions",
    "imbalance",
    "image_entropy",
    "class_entropy",
    "class_table",
    "THRESHOLD",
    "tilt",
    "abs_tilt",
    "mean_activation",
    "class_mean_images",
    "distance_to_class_mean",
    "image_properties",
    "per_writer",
    "FIT_COLUMNS",
    "group_linear_fits",
    "property_effects",
    "REPRODUCED",
    "SMALLER",
    "LARGER",
    "INCONCLUSIVE",
    "NOT_REPRODUCED",
    "OPPOSITE",
    "NOT_TESTABLE",
    "NOT_COMPARABLE",
    "SAME_DIRECTION",
    "EFFECT_ABSENT",
    "PRESENT",
    "OTHER_SIGN",
    "VERDICTS",
    "FAILING",
    "JSON_KEYS",
    "COMPARABILITIES",
    "Claim",
    "Setting",
    "derived_kind",
    "register",
    "Estimate",
    "judge",
    "repeated_estimates",
    "rejudge",
    "untested",
    "published",
    "Published",
    "lookup",
    "verdict",
    "power",
    "units_for_power",
    "TARGET_POWER",
    "mean_interval",
    "bootstrap_interval",
    "Finding",
    "findings_frame",
    "write_findings_json",
    "STABLE",
    "DIRECTIONS",
    "SIZES",
    "widened",
    "units_for_stability",
    "stability",
    "is_borderline",
    "verdict_label",
    "direction_of",
    "size_of",
    "from_json",
    "ABSENT",
    "SIZE_UNCLEAR",
    "UNTESTED",
    "paper_band",
    "paper_se_from_sd",
    "paper_se_from_units",
    "between_sd",
    "between_from_groups",
    "with_between",
]
