"""Study 1 (P, section 3): the population regression of per-class accuracy under pruning.

Pipeline, all through the results store (methods page, "Study 1: population regression"):

1. :func:`pruneaudit.runs.series.series_frame` runs (or reads) the iterative pruning series of
   every (dataset, imbalance factor, model, technique, treatment, seed); the imbalance factors
   (1, 10, 100) subsample the training pool to a seeded long tail
   (:mod:`pruneaudit.data.splits`), an extension beyond P so that r_c varies and E is identified.
2. :func:`pruneaudit.runs.series.class_stats` gives r_c and H_c (mean Shannon entropy, bits, of
   each image's 256-bin pixel histogram) of each class of the pool the models drew from.
3. :func:`fit_all` fits the design frame (:func:`pruneaudit.audit.design_frame`) by OLS and by the
   binomial GLM, with the linear terms and with P's cross terms (HAC, 3 lags, as P), plus the
   cross-term OLS with errors clustered by (dataset, class) for the findings.
4. :func:`findings` tests D1.1-D1.5 against P's printed numbers; :func:`coefficient_table` puts
   P's App. D coefficients beside ours; :func:`coefficient_explorer` is the page's explorer.
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
    SOURCE,
    STUDY,
    cost_text,
    protocol_table,
    validate,
)
from .rows import (  # noqa: F401
    SPREAD_SMALLEST,
    _coef_finding,
    findings,
    regression_findings,
    spread_changes,
    spread_finding,
    spread_findings,
)
from .views import (  # noqa: F401
    class_curves,
    predicted_vs_target_bins,
    residual_bars,
    spread_curves,
)

__all__ = [
    "STUDY",
    "SOURCE",
    "FIT_NAMES",
    "PAPER",
    "validate",
    "protocol_table",
    "cost_text",
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
    "predicted_vs_target_bins",
    "residual_bars",
    "class_curves",
    "spread_curves",
]
