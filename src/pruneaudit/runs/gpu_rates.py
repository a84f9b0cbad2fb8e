"""Install the GPU benchmark's measured training hours as the package's data
(``pruneaudit.runs.cost.GPU_COSTS``, the hours the study pages state).

The benchmark writes its table where it keeps its reports; this command checks it and copies
it into the package, so that data flows from the benchmark into the package and never back.

Usage::

    pruneaudit gpu-rates COSTS_CSV [--check]

``COSTS_CSV`` is the cost table of a CUDA run of the GPU benchmark (columns ``protocol,
configuration, model_epochs, hours``, one row per study protocol and configuration).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd

from pruneaudit.errors import PruneAuditError, check_frame
from pruneaudit.runs.cost import GPU_COSTS

#: The columns of a cost table, in the order the package stores them.
COLUMNS = ("protocol", "configuration", "model_epochs", "hours")


def read_costs(path: str | Path) -> pd.DataFrame:
    """The cost table at ``path``, checked: the :data:`COLUMNS`, every protocol named
    ``"Study N (...)"``, positive hours."""
    path = Path(path)
    if not path.is_file():
        raise PruneAuditError(f"{path} is not a file: pass the cost table a CUDA run of the GPU "
                              "benchmark wrote (gpu_training_cuda_costs.csv)")
    table = pd.read_csv(path)
    check_frame(f"cost table {path.name}", table, COLUMNS)
    named = table["protocol"].astype(str).str.match(r"Study \d+ \(")
    if not named.all():
        raise PruneAuditError(f"{path.name}: protocol {table.protocol[~named].iloc[0]!r} is not "
                              "named 'Study N (...)'; the study pages look rows up by that name")
    if not (pd.to_numeric(table["hours"], errors="coerce") > 0).all():
        raise PruneAuditError(f"{path.name}: every hours value must be a positive number")
    return table[list(COLUMNS)]


def install(source: str | Path, target: str | Path = GPU_COSTS) -> pd.DataFrame:
    """Check the cost table ``source`` (:func:`read_costs`) and copy it, as it is, to
    ``target``."""
    table = read_costs(source)
    shutil.copyfile(source, target)
    return table


def install_or_check(costs: str | Path, check: bool = False) -> int:
    """``pruneaudit gpu-rates``: install (or, with ``check``, compare) the measured GPU hours of
    the cost table ``costs``; the exit status, 1 where they differ."""
    costs = Path(costs)
    if check:
        read_costs(costs)
        same = GPU_COSTS.read_bytes() == costs.read_bytes()
        print("up to date" if same else f"{GPU_COSTS} differs from {costs}")
        return 0 if same else 1
    table = install(costs)
    print(f"wrote {GPU_COSTS} ({len(table)} rows)")
    return 0
