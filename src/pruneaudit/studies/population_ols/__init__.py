"""Study 1 (P, section 3): the population regression of per-class accuracy under pruning.

Pipeline, all through the results store (methods page, "Study 1: population regression"):

1. :func:`run` takes the page's checked :class:`Params` and runs (or reads) the iterative
   pruning series of every (dataset, imbalance factor, model, technique, treatment, seed) by
   :func:`pruneaudit.runs.series.series_frame`; the imbalance factors
   (1, 10, 100) subsample the training pool to a seeded long tail (:mod:`pruneaudit.data.splits`),
   an extension beyond P so that r_c varies and E is identified.
2. :func:`pruneaudit.runs.series.class_stats` gives r_c and H_c (mean Shannon entropy, bits, of
   each image's 256-bin pixel histogram) of each class of the pool the models drew from.
3. :func:`analyse` fits the design frame (:func:`pruneaudit.audit.design_frame`) by
   :func:`fit_all`: OLS and the binomial GLM, with the linear terms and with P's cross terms
   (HAC, 3 lags, as P), plus the cross-term OLS with errors clustered by (dataset, class) for
   the findings; :func:`coefficient_table` puts P's App. D coefficients beside ours.
4. :func:`findings` tests D1.1-D1.5 against P's printed numbers; :func:`numbers` gives the
   figures the page's prose cites; the ``*_view`` and ``*_figure`` functions are the page's
   tables and charts, :func:`coefficient_explorer` its explorer.
"""

from __future__ import annotations

from .fits import (  # noqa: F401
    Fits,
    _fit_quality,
    _published_coefs,
    coefficient_explorer,
    coefficient_table,
    comparison_table,
    findings_fit,
    fit_all,
    hypothesis_table,
    paper_term,
)
from .params import (  # noqa: F401
    _PART,
    FIT_NAMES,
    PAPER,
    PAPER_DATASETS,
    SOURCE,
    STUDY,
    Params,
    grid_costs,
    protocol_table,
)
from .pipeline import Result, analyse, numbers, run
from .rows import (  # noqa: F401
    SPREAD_SMALLEST,
    _coef_finding,
    findings,
    regression_findings,
    spread_changes,
    spread_finding,
    spread_findings,
)
from .views import (
    class_curves,
    class_figure,
    class_shares_view,
    coefficients_view,
    comparison_view,
    fit_heatmap,
    hypotheses_view,
    predicted_vs_target_bins,
    protocol_view,
    residual_bars,
    residual_figure,
    spread_curves,
    spread_figure,
)

__all__ = [
    "STUDY",
    "SOURCE",
    "FIT_NAMES",
    "PAPER",
    "PAPER_DATASETS",
    "Params",
    "protocol_table",
    "grid_costs",
    "Result",
    "run",
    "analyse",
    "numbers",
    "Fits",
    "fit_all",
    "findings_fit",
    "hypothesis_table",
    "comparison_table",
    "paper_term",
    "coefficient_table",
    "coefficient_explorer",
    "regression_findings",
    "spread_changes",
    "spread_finding",
    "spread_findings",
    "SPREAD_SMALLEST",
    "findings",
    "protocol_view",
    "class_shares_view",
    "coefficients_view",
    "hypotheses_view",
    "comparison_view",
    "predicted_vs_target_bins",
    "residual_bars",
    "class_curves",
    "spread_curves",
    "fit_heatmap",
    "residual_figure",
    "class_figure",
    "spread_figure",
]
