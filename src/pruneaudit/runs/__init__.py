"""Runs: the run specification, the atomic results store, and the runs by kind.

Modules: :mod:`~pruneaudit.runs.spec` (the run and its ``extra`` keys), :mod:`~.store`,
:mod:`~.run_data` (a run's data: splits, KMNIST's offline split), :mod:`~.trained` (models:
build, train, load, evaluate into the stored tables), :mod:`~.iterative` (P's pruning series),
:mod:`~.populations` (H1's populations and their seeds), :mod:`~.compressed` (quantized and
corrupted copies of trained runs), :mod:`~.series` and :mod:`~.grid` (grids of runs),
:mod:`~.cost` and :mod:`~.probe` (this machine's training speed).

Names are imported from their module when first used (PEP 562): the book's runner plans a
build from :mod:`~.cost` without importing torch.
"""

from __future__ import annotations

from pruneaudit.lazy import attach

#: Public name -> the module of this package that defines it.
_HOMES: dict[str, str] = {
    **dict.fromkeys(
        ("corrupted_specs", "corrupted_test", "quantized_specs", "run_corrupted", "run_quantized"),
        "compressed",
    ),
    **dict.fromkeys(
        ("GPU_COSTS", "Cost", "gpu_cost_text", "gpu_hours", "training_cost"),
        "cost",
    ),
    **dict.fromkeys(
        ("EXECUTORS", "GRID_FIELDS", "Dask", "Grid", "GridReport", "TaskFn", "iterative_parent",
         "read_grid_file", "run_grid", "train_and_evaluate"),
        "grid",
    ),
    **dict.fromkeys(
        ("run_series", "series_classes", "series_specs", "train_series"),
        "iterative",
    ),
    **dict.fromkeys(
        ("GRADUAL_TECHNIQUE", "LEVEL_SEED_STRIDE", "Population", "check_levels", "check_seeds",
         "gradual_pruner", "level_name", "level_seeds", "level_specs", "member_specs", "population",
         "run_levels", "run_population"),
        "populations",
    ),
    **dict.fromkeys(("speed_probe",), "probe"),
    **dict.fromkeys(
        ("Splits", "flip_extra", "splits"),
        "run_data",
    ),
    **dict.fromkeys(
        ("CLASS_COLUMNS", "EXTRA_TYPES", "FLIP_KEY", "LEVEL_KEY", "PREDICTION_COLUMNS",
         "SCHEME_KEY", "Extra", "RunSpec"),
        "spec",
    ),
    **dict.fromkeys(
        ("STALE_AFTER_S", "ResultsStore", "Run"),
        "store",
    ),
    **dict.fromkeys(
        ("INIT_PREFIX", "fresh_model", "load_model", "round_epochs", "train_config"),
        "trained",
    ),
}


__getattr__, __dir__ = attach(__name__, _HOMES, globals())


__all__ = [
    "CLASS_COLUMNS",
    "PREDICTION_COLUMNS",
    "LEVEL_KEY",
    "SCHEME_KEY",
    "RunSpec",
    "Extra",
    "EXTRA_TYPES",
    "FLIP_KEY",
    "flip_extra",
    "STALE_AFTER_S",
    "Run",
    "ResultsStore",
    "INIT_PREFIX",
    "GRADUAL_TECHNIQUE",
    "Splits",
    "splits",
    "train_config",
    "fresh_model",
    "load_model",
    "round_epochs",
    "series_specs",
    "run_series",
    "train_series",
    "series_classes",
    "member_specs",
    "LEVEL_SEED_STRIDE",
    "check_seeds",
    "check_levels",
    "level_seeds",
    "level_name",
    "level_specs",
    "run_levels",
    "gradual_pruner",
    "run_population",
    "Population",
    "population",
    "quantized_specs",
    "run_quantized",
    "corrupted_specs",
    "run_corrupted",
    "corrupted_test",
    "EXECUTORS",
    "GRID_FIELDS",
    "TaskFn",
    "Grid",
    "read_grid_file",
    "iterative_parent",
    "GridReport",
    "Dask",
    "run_grid",
    "train_and_evaluate",
    "Cost",
    "training_cost",
    "speed_probe",
    "GPU_COSTS",
    "gpu_hours",
    "gpu_cost_text",
]
