"""A replication of the book with another set of seeds: every study's seeds moved to a disjoint
set, as ``-p`` overrides.

Every parameter whose name ends in ``seeds`` and holds a list of integers (Study 1's, 2's, 3's
and 4's ``seeds``, Study 5's ``reference_seeds``) is shifted by ``offset``; Study 5's members are
Study 4's populations, so they follow Study 4's seeds. :func:`seed_overrides` refuses an offset
that would leave a seed in both sets.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from pruneaudit.book.profiles import Profile, validate_notebook
from pruneaudit.errors import PruneAuditError


def _seed_list(value: object) -> bool:
    return (
        isinstance(value, list | tuple)
        and len(value) > 0
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    )


def seed_overrides(
    names: Sequence[str], profile: str | os.PathLike | Mapping | Profile, offset: int
) -> dict[str, list[int]]:
    """``{"NAME.key": seeds + offset}`` for every seed list of the notebooks ``names`` under
    ``profile`` (its values over each parameters cell's defaults)."""
    if not isinstance(offset, int) or isinstance(offset, bool) or offset == 0:
        raise PruneAuditError(f"seed offset must be a nonzero integer, got {offset!r}")
    overrides: dict[str, list[int]] = {}
    for name in names:
        for key, value in validate_notebook(name, profile).items():
            if not (key.endswith("seeds") and _seed_list(value)):
                continue
            moved = [int(v) + offset for v in value]
            if set(moved) & set(value):
                raise PruneAuditError(
                    f"seed offset {offset} leaves seeds of {name}.{key} ({list(value)}) in both "
                    f"sets; use an offset larger than {max(value) - min(value)}"
                )
            overrides[f"{name}.{key}"] = moved
    return overrides
