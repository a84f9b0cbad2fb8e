"""Torch threads decided where they are used: the free cores re-read before each population.

A build that starts while another process is busy would otherwise keep the thread count it
chose then (one thread on a 2-core machine) long after the other process has finished. With
:func:`follow_free_cores` on (the book's kernels turn it on), :func:`adjust_threads`, which the
population trainer calls before each population, sets torch's thread count to the cores free
since the previous call: the machine's busy CPU time less this process tree's, over the wall
time between the two calls (psutil's counters, read once per call: no sampling sleep). A call
less than :data:`MIN_WINDOW` seconds after the previous reading keeps the thread count (too
short a window to judge), and the reading goes on from the earlier one.
``$PRUNEAUDIT_THREADS`` fixes the count.

What depends on the thread count, and so runs at one that does not depend on the load:

* **Training a single model** (:func:`pruneaudit.training.train`: a dense run, a finetuned or
  rewound round) differs in the last bits between thread counts (one LeNet epoch at 1 and at 2
  threads does). The population trainer trains the models it cannot stack (VGG11, ResNet18) so.
  While following, :func:`~pruneaudit.training.train` and :func:`~pruneaudit.training.evaluate`
  called without ``num_threads`` therefore run at :func:`steady_threads` (``$PRUNEAUDIT_THREADS``,
  else :data:`START_THREADS`, the count this process had when it imported the package, before
  the book's setup set the free cores), and so do the population evaluation
  (:func:`pruneaudit.training.evaluate_population`) and the quantization with its calibration
  (:func:`pruneaudit.runs.run_quantized`): :func:`at_steady_threads`. Measured at 1 and 2
  threads on 2 cores, the forward passes (LeNet, AlexNet, VGG11, ResNet18; float16, dynamic and
  static int8 with its calibration) gave the same bits; they run at the steady count anyway,
  as torch does not promise that.

What does not depend on it, and follows the free cores:

* **The population trainer's stacked training** (LeNet, AlexNet): its block split does not
  depend on the threads, and its weights are the same at 1 and at 2 threads
  (``tests/training/test_threads.py`` checks within float tolerance; on 2 cores they were
  bitwise the same for LeNet populations of 2, 3 and 8 and an AlexNet population of 2); only
  its speed follows the free cores.
* Pruning rounds (sorting, top-k, per-channel norms, seeded draws) and the seeded corruptions
  run at whatever count is set; at 1 and 2 threads they gave the same bits.

Not following, nothing here changes torch's setting.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import torch

from pruneaudit.errors import PruneAuditError

THREADS_ENV = "PRUNEAUDIT_THREADS"
#: Seconds a reading of the free cores spans at least.
MIN_WINDOW = 2.0
#: torch's thread count when this module was first imported: the count the process started with
#: (torch's default, or what the process set before importing the package), before the book's
#: setup sets the free cores. Work whose results depend on the count runs at it while following.
START_THREADS = torch.get_num_threads()


def fixed_threads(setting: str | None = None) -> int | None:
    """The thread count ``setting`` (default ``$PRUNEAUDIT_THREADS``) fixes, or None when unset;
    anything but a positive integer is one clear error."""
    setting = setting if setting is not None else os.environ.get(THREADS_ENV)
    if not setting:
        return None
    if not setting.strip().isdigit() or int(setting) < 1:
        raise PruneAuditError(
            f"{THREADS_ENV} must be a positive integer (torch threads), got {setting!r}"
        )
    return int(setting)


def free_threads(cores: int, load: float) -> int:
    """Threads for the cores free: ``cores - load`` rounded, between 1 and ``cores``."""
    return min(cores, max(1, math.floor(cores - load + 0.5)))


def system_busy_seconds() -> float:
    """CPU seconds the whole machine has been busy (all cores; idle and I/O wait excluded)."""
    import psutil

    t = psutil.cpu_times()
    return sum(t) - t.idle - getattr(t, "iowait", 0.0)


def own_busy_seconds() -> float:
    """CPU seconds of this process, its parent (the build's runner) and its children."""
    import psutil

    procs = [psutil.Process()]
    try:
        procs.append(procs[0].parent())
        procs += procs[0].children(recursive=True)
    except psutil.Error:
        pass
    total = 0.0
    for proc in procs:
        try:
            t = proc.cpu_times()
        except (psutil.Error, AttributeError):
            continue
        total += t.user + t.system
    return total


@dataclass
class FreeCores:
    """Reads the cores other processes kept busy between two calls (clock and CPU-time
    counters injectable for tests)."""

    cores: int = 0
    clock: Callable[[], float] = time.monotonic
    system: Callable[[], float] = system_busy_seconds
    own: Callable[[], float] = own_busy_seconds
    min_window: float = MIN_WINDOW

    def __post_init__(self) -> None:
        self.cores = self.cores or os.cpu_count() or 1
        self._last = self._read()

    def _read(self) -> tuple[float, float, float]:
        return self.clock(), self.system(), self.own()

    def load(self) -> float | None:
        """Cores other processes kept busy since the last reading, or None when it is less than
        ``min_window`` seconds old (the reading then goes on from it)."""
        now = self._read()
        elapsed = now[0] - self._last[0]
        if elapsed < self.min_window:
            return None
        busy = (now[1] - self._last[1]) - (now[2] - self._last[2])
        self._last = now
        return max(0.0, busy / elapsed)

    def threads(self) -> int | None:
        """Threads for the cores free since the last reading (None: too soon to tell)."""
        load = self.load()
        return None if load is None else free_threads(self.cores, load)


_follower: FreeCores | None = None


def follow_free_cores(enabled: bool = True, reader: FreeCores | None = None) -> None:
    """Let :func:`adjust_threads` follow the free cores in this process (from now: the first
    reading spans the time since this call), or stop (``enabled=False``)."""
    global _follower
    _follower = (reader or FreeCores()) if enabled else None


def population_threads() -> int | None:
    """The thread count for the next population: ``$PRUNEAUDIT_THREADS`` when set, else (while
    following) the cores free since the last reading; None keeps torch's setting."""
    if _follower is None:
        return None
    fixed = fixed_threads()
    return fixed if fixed is not None else _follower.threads()


def adjust_threads() -> int:
    """Set torch's thread count to :func:`population_threads` (when it says one); return it."""
    threads = population_threads()
    if threads is not None and threads != torch.get_num_threads():
        torch.set_num_threads(threads)
    return torch.get_num_threads()


def steady_threads() -> int | None:
    """The thread count of work whose results depend on it, while following the free cores:
    ``$PRUNEAUDIT_THREADS`` when set, else :data:`START_THREADS` (never the load); None (keep
    torch's setting) when not following."""
    if _follower is None:
        return None
    fixed = fixed_threads()
    return fixed if fixed is not None else START_THREADS


@contextmanager
def at_steady_threads() -> Iterator[None]:
    """Run the block at :func:`steady_threads` (where it says one) and restore torch's count."""
    threads, before = steady_threads(), torch.get_num_threads()
    if threads is not None:
        torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(before)


__all__ = [
    "MIN_WINDOW",
    "START_THREADS",
    "THREADS_ENV",
    "FreeCores",
    "adjust_threads",
    "at_steady_threads",
    "fixed_threads",
    "follow_free_cores",
    "free_threads",
    "own_busy_seconds",
    "population_threads",
    "steady_threads",
    "system_busy_seconds",
]
