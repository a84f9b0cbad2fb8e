"""Study 2 (P, section 4.1 and appendix C): who loses when LeNet is pruned, writer by writer.

LeNet is trained on QMNIST and pruned iteratively with ``global_unstructured`` pruning and
rewinding (:func:`pruneaudit.runs.run_series`, one series per seed, trained together as one
population). P's masks are cumulative: a weight pruned in one round stays zero in every later
round (it cannot regrow); each round rewinds the survivors to their initial values and retrains.
On the QMNIST test digits, each digit carries its NIST writer id and series
(``hsf0``: NIST employees, ``hsf4``: high-school students).

Averaging over seeds: for each test digit, ``correct_unpruned`` / ``correct_pruned`` is the share
of the seeds' models that classify it correctly; a writer's accuracy is the mean of that over
their digits, which equals the mean over seeds of each seed's accuracy on the writer (every seed
is evaluated on the same digits).

Image properties (:mod:`pruneaudit.audit.image_properties`) are per digit, then averaged per
writer; the class-mean images for the distance come from the training pool (the first ``train_size``
training examples, training and validation parts together: a property of the image, not of a
model).

Findings (D2.1-D2.6 of the project's list of P's claims) are computed by :func:`findings` with
intervals over seeds (Student t, :func:`pruneaudit.audit.mean_interval`) or over writers
(percentile bootstrap, :func:`pruneaudit.audit.bootstrap_interval`); formulas: the book's methods
page, sections *Study 2* and *Findings and verdicts*.
"""

from __future__ import annotations

from .frames import (  # noqa: F401
    DATASET,
    MODEL,
    PROPERTIES,
    STAGES,
    TECHNIQUE,
    TREATMENT,
    WriterStudy,
    class_curves,
    collapses,
    dense_specs,
    digit_frame,
    gallery_frame,
    most_hurt,
    overall_curve,
    predictions,
    property_effects,
    run,
    run_series,
    seed_class_accuracy,
    seed_writer_accuracy,
    series_change_test,
    series_summary,
    tilt_fits,
    tilt_long,
    train_class_histogram,
    writer_frame,
    writer_trajectory,
)
from .params import (  # noqa: F401
    MIN_SEEDS,
    TRAIN_DIGITS,
    Params,
)
from .rows import (  # noqa: F401
    BY_SEEDS,
    BY_WRITERS,
    HSF1_MISSING,
    OFFLINE_GROUPS,
    SIMILAR_MARGIN,
    STUDY,
    TABLE1_GROUPS,
    TILT_METRIC,
    _boot,
    _derived,
    _fit,
    _masks,
    _paper_tilt,
    class_findings,
    collapse_finding,
    findings,
    group_drops_finding,
    intercept_gap_finding,
    property_findings,
    slope_change_finding,
    tilt_findings,
    topline_finding,
    worst_writer_drops,
)
from .views import (  # noqa: F401
    PAPER,
    _augmentation,
    _pct,
    curve_view,
    effects_view,
    explorer_writers,
    hurt_view,
    key_figure,
    numbers,
    paper_cost,
    protocol_table,
    protocol_view,
    prunable_weights,
    series_cost,
    summary_view,
    table1,
    table1_view,
    tilt_table,
    training_rate,
    writer_explorer,
)

__all__ = [
    "DATASET",
    "MODEL",
    "TECHNIQUE",
    "TREATMENT",
    "PROPERTIES",
    "STAGES",
    "Params",
    "run",
    "dense_specs",
    "run_series",
    "predictions",
    "digit_frame",
    "writer_frame",
    "property_effects",
    "tilt_long",
    "tilt_fits",
    "series_summary",
    "series_change_test",
    "most_hurt",
    "collapses",
    "gallery_frame",
    "class_curves",
    "overall_curve",
    "train_class_histogram",
    "WriterStudy",
    "writer_trajectory",
    "seed_writer_accuracy",
    "seed_class_accuracy",
    "TRAIN_DIGITS",
    "MIN_SEEDS",
    "STUDY",
    "TILT_METRIC",
    "TABLE1_GROUPS",
    "OFFLINE_GROUPS",
    "SIMILAR_MARGIN",
    "HSF1_MISSING",
    "BY_SEEDS",
    "BY_WRITERS",
    "topline_finding",
    "group_drops_finding",
    "worst_writer_drops",
    "collapse_finding",
    "tilt_table",
    "slope_change_finding",
    "intercept_gap_finding",
    "tilt_findings",
    "property_findings",
    "class_findings",
    "findings",
    "table1",
    "PAPER",
    "series_cost",
    "paper_cost",
    "training_rate",
    "protocol_table",
    "protocol_view",
    "prunable_weights",
    "numbers",
    "table1_view",
    "hurt_view",
    "summary_view",
    "effects_view",
    "curve_view",
    "key_figure",
    "explorer_writers",
    "writer_explorer",
]
