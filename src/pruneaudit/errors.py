"""One family of clear errors: each names the bad value, what is accepted and how to fix it."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd


class PruneAuditError(ValueError):
    """Bad input or a missing resource, with a message that says how to fix it."""


class DataMissingError(PruneAuditError, FileNotFoundError):
    """A dataset's files are not where the data root says they are."""


def check_choice(kind: str, value: object, choices: Iterable[str]) -> str:
    """Return ``value`` if it is one of ``choices``; else raise naming the closest choice."""
    options = list(choices)
    if isinstance(value, str) and value in options:
        return value
    close = difflib.get_close_matches(str(value), options, n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    raise PruneAuditError(
        f"unknown {kind} {value!r}; accepted: {', '.join(repr(o) for o in options)}.{hint}"
    )


def check_range(
    name: str,
    value: float,
    lo: float,
    hi: float,
    *,
    lo_open: bool = False,
    hi_open: bool = False,
) -> float:
    """Return ``value`` if it lies in the interval; else raise naming the interval."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise PruneAuditError(f"{name} must be a number, got {value!r}") from None
    below = v <= lo if lo_open else v < lo
    above = v >= hi if hi_open else v > hi
    if below or above or v != v:
        interval = f"{'(' if lo_open else '['}{lo}, {hi}{')' if hi_open else ']'}"
        raise PruneAuditError(f"{name} must be in {interval}, got {value!r}")
    return v


def check_positive_int(name: str, value: object) -> int:
    """Return ``value`` if it is an integer >= 1; else raise."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise PruneAuditError(f"{name} must be a positive integer, got {value!r}")
    return value


def check_frame(
    what: str, frame: object, columns: Iterable[str | None], *, allow_empty: bool = False
) -> pd.DataFrame:
    """Return ``frame`` if it is a DataFrame with ``columns`` (None entries ignored) and, unless
    ``allow_empty``, at least one row; else raise naming what is wrong."""
    import pandas as pd

    need = [c for c in columns if c is not None]
    if not isinstance(frame, pd.DataFrame):
        raise PruneAuditError(f"{what} must be a pandas DataFrame, got {type(frame).__name__}")
    missing = [c for c in need if c not in frame.columns]
    if missing:
        raise PruneAuditError(
            f"{what} lacks column(s) {missing}; required: {need}, got {list(frame.columns)}"
        )
    if frame.empty and not allow_empty:
        raise PruneAuditError(f"{what} has no rows")
    return frame
