"""The papers' printed numbers: the package's copy of their table (``data/published.csv``).

Each row has an ``id``, the ``value`` as printed and a ``number`` (a trailing ``%`` divided by
100); :func:`lookup` finds one row by its study, metric and other columns.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

import pandas as pd

from pruneaudit.errors import PruneAuditError, check_choice


@cache
def _table() -> pd.DataFrame:
    with resources.files("pruneaudit.audit").joinpath("data/published.csv").open() as f:
        return pd.read_csv(f, dtype={"value": str})


def published() -> pd.DataFrame:
    """Every number the papers print, one a row (``id``, ``study``, ``paper``, ``source``, ...,
    ``metric``, ``value`` as printed, ``number``): a copy, so no caller changes another's."""
    return _table().copy()


@dataclass(frozen=True)
class Published:
    """One published number: its value as printed, as a number, and where it is printed."""

    id: int
    value: str
    number: float
    source: str
    #: The paper's own standard error of the number, where it prints one (``std err=`` in the
    #: table's note), else None.
    se: float | None = None

    def __float__(self) -> float:
        return self.number


def lookup(study: str, metric: str, **columns: str) -> Published:
    """The one published row of ``study`` whose ``metric`` (and each other column) equals the
    given text; an error names the candidates when none or several match."""
    table = _table()
    rows = table[(table.study == study) & (table.metric == metric)]
    for name, value in columns.items():
        check_choice("column", name, tuple(table.columns))
        rows = rows[rows[name].astype(str) == str(value)]
    if len(rows) != 1:
        options = table[(table.study == study) & (table.metric == metric)]
        raise PruneAuditError(
            f"{len(rows)} published rows match study={study!r} metric={metric!r} {columns}; "
            f"candidates (id: setting / dataset): "
            + "; ".join(f"{r.id}: {r.setting} / {r.dataset}" for r in options.itertuples())
        )
    row = rows.iloc[0]
    if pd.isna(row.number):
        raise PruneAuditError(f"published row {row.id} ({row.value!r}) is not a number")
    return Published(
        int(row.id), str(row.value), float(row.number), str(row.source), printed_se(row.note)
    )


def printed_se(note: object) -> float | None:
    """The standard error a published row's note prints (``std err=0.023``), else None."""
    match = re.search(r"std err\s*=\s*([0-9.eE+-]+)", note) if isinstance(note, str) else None
    return float(match.group(1)) if match else None
