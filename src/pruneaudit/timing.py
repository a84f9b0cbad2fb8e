"""Where a build's time goes: wall time per phase, summed over a process.

The package times its own phases (:data:`PHASES`: training, evaluation of stored models,
pruning and the results store's reads and writes) with :func:`phase`; a study page's kernel
writes the totals after each cell (:func:`write`) and the book's runner records them beside the
notebook's duration (the Reproducing page's table: what is left is kernel start-up, data
loading, analysis and charts). Nested phases count for the outermost one only, so the totals
never add up to more than the time spent.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import time
from collections.abc import Iterator
from pathlib import Path

from pruneaudit.errors import check_choice

PHASES = ("training", "evaluation", "pruning", "store")
#: The key of the runs stored in what :func:`write` writes.
NEW_RUNS = "new_runs"
_totals = dict.fromkeys(PHASES, 0.0)
_active: list[str] = []
_stored = [0]


def machine() -> str:
    """This machine in a few words, for a timing record: the CPU's model name, its widest
    vector instructions (AVX-512 or AVX2; float results and speed differ between them) and its
    cores, e.g. ``"Intel(R) Xeon(R) Processor, AVX-512, 2 cores"``."""
    name, flags = platform.processor() or platform.machine(), set()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name":
                name = value.strip()
            elif key.strip() == "flags":
                flags = set(value.split())
                break
    vector = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else ""
    return ", ".join(p for p in (name, vector, f"{os.cpu_count()} cores") if p)


def count_stored() -> None:
    """Count one run the results store added (called by the store once a run is published)."""
    _stored[0] += 1


@contextlib.contextmanager
def phase(name: str) -> Iterator[None]:
    """Add the wall time of the ``with`` block to phase ``name`` (unless another phase is
    already being timed: then it counts for that one)."""
    check_choice("phase", name, PHASES)
    if _active:
        yield
        return
    _active.append(name)
    start = time.perf_counter()
    try:
        yield
    finally:
        _totals[name] += time.perf_counter() - start
        _active.pop()


def totals() -> dict[str, float]:
    """Seconds per phase so far in this process."""
    return dict(_totals)


def reset() -> None:
    """Set every phase back to 0 s and the runs stored to 0."""
    for name in PHASES:
        _totals[name] = 0.0
    _stored[0] = 0


def write(path: str | os.PathLike) -> None:
    """Write :func:`totals` and the runs stored (:func:`stored`) as JSON to ``path`` (replaced
    atomically)."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    values = {**{k: round(v, 2) for k, v in _totals.items()}, NEW_RUNS: _stored[0]}
    tmp.write_text(json.dumps(values) + "\n")
    os.replace(tmp, path)


def _written(path: str | os.PathLike) -> dict | None:
    try:
        values = json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return None
    return values if isinstance(values, dict) else None


def read(path: str | os.PathLike) -> dict[str, float] | None:
    """The totals :func:`write` left at ``path``, or None when there are none."""
    values = _written(path)
    return None if values is None else {k: float(values[k]) for k in PHASES if k in values}


def read_new_runs(path: str | os.PathLike) -> int | None:
    """The runs stored that :func:`write` left at ``path``, or None when it left none."""
    values = _written(path)
    try:
        return int(values[NEW_RUNS])
    except (KeyError, TypeError, ValueError):
        return None
