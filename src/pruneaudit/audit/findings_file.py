"""The findings on disk: ``<notebook>.findings.json``, one object per row with keys
:data:`~pruneaudit.audit.findings.JSON_KEYS`, written atomically and read back (older builds'
words mapped to today's), and the check that no two rows print one estimate."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from pathlib import Path

from pruneaudit.audit import rules as R
from pruneaudit.audit.findings import JSON_KEYS, Finding, json_value

#: Words of builds written before the negligible-first rule (``absent`` is ``negligible``: an
#: interval wholly inside the negligible band, which the old rule checked after the sides).
LEGACY_WORDS = {"absent": R.EFFECT_ABSENT}


def from_json(item: dict) -> Finding:
    """A :class:`Finding` from one object of ``<notebook>.findings.json`` (keys it does not
    know are left out; missing ones take their defaults, but a missing ``df`` is NaN: not
    recorded)."""
    known = {k: v for k, v in item.items() if k in JSON_KEYS}
    for key in ("verdict", "direction", "alternative"):
        if known.get(key) in LEGACY_WORDS:
            known[key] = LEGACY_WORDS[known[key]]
    for key in ("paper_band",):
        if known.get(key) is not None:
            known[key] = tuple(known[key])
    base = {"paper": None, "ours": None, "ci_low": None, "ci_high": None, "source": "",
            "df": math.nan}
    return Finding(**{**base, **known})


def write_findings_json(rows: Sequence[Finding], path: str | os.PathLike) -> Path:
    """Write ``rows`` as a JSON list of objects with keys :data:`JSON_KEYS` (atomic)."""
    path = Path(path)
    items = [{k: json_value(getattr(r, k)) for k in JSON_KEYS} for r in rows]
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(items, indent=1, allow_nan=False) + "\n")
    os.replace(tmp, path)
    return path


def repeated_estimates(rows: Sequence[Finding]) -> list[tuple[str, str]]:
    """The pairs of rows (by claim id, else name) that print one estimate twice: the same
    estimate and interval of positive width (one estimate, one row: a derived row carries its
    own number). Zero-width intervals say nothing and are left out."""
    seen: dict[tuple[float, float, float], str] = {}
    pairs = []
    for row in rows:
        if row.ours is None or row.ci_low is None or row.ci_high is None:
            continue
        if not R.has_width(row.ci_low, row.ci_high):
            continue
        key = (round(row.ours, 12), round(row.ci_low, 12), round(row.ci_high, 12))
        name = row.claim or row.finding
        if key in seen:
            pairs.append((seen[key], name))
        else:
            seen[key] = name
    return pairs
