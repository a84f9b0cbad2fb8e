"""The process's settings in one object: torch threads, device, precision and progress output.

A :class:`Runtime` is the one owner of what the package changes in its process, as Lightning's
``Fabric`` or Accelerate's ``Accelerator`` are. It is made at an entry point and passed down,
never kept in a module: :func:`pruneaudit.book.setup` (a page's kernel) makes one and hands it to
the page (``page.runtime``), :func:`pruneaudit.book.builder.compute.run_studies` makes one for the
process, a test makes its own; each passes it to a study's ``run(..., runtime=...)``, which
passes it to the runs (:mod:`pruneaudit.runs`) and they to the trainer
(:mod:`pruneaudit.training`). A study run in a notebook, in ``compute`` and in a test differs
only in the runtime it is handed. Where none is handed (a public function called without one),
a fresh ``Runtime()`` is made from the environment. This module holds no mutable state of its
own and is the only module that calls ``torch.set_num_threads``; it writes no environment
variable.

- **Device and precision**: :meth:`Runtime.device_setting` and
  :meth:`Runtime.precision_setting` take an explicit value, else the runtime's
  (:meth:`Runtime.settings` changes them for a block), else ``$PRUNEAUDIT_DEVICE`` /
  ``$PRUNEAUDIT_PRECISION`` (:mod:`pruneaudit.config`, which checks them and reads the
  environment).
- **Threads**: :meth:`Runtime.start` sets torch's thread count to the cores this process may
  use (:func:`usable_cores`: its CPU affinity, never a count that a moment's load picked), or
  ``$PRUNEAUDIT_THREADS``; while the runtime follows the free cores, the population trainer
  trains each population at the cores free since the previous one
  (:meth:`Runtime.population_threads`, restored after the population), and work whose bits
  depend on the count (a single model's training, evaluation, quantization) runs at the
  *steady* count: the fixed setting, else torch's count when the runtime was created, never one
  the load picked (:meth:`Runtime.at_steady_threads`). The free cores are one reading,
  :class:`FreeCores`: the machine's busy CPU time less this process tree's over the wall time
  between two readings (psutil's counters). The measurements behind the rules are in
  ``tests/training/test_threads.py`` and ``benchmarks/out/profile_evidence.md``. Why our own:
  psutil reads the counters, but no library turns them into the cores other processes leave
  free (``psutil.cpu_percent`` counts this build's own kernels as busy, and the load average
  lags by minutes).
- **Progress**: :meth:`Runtime.bar` is the package's progress bar: tqdm's
  ``tqdm.auto`` bar, or, when the runtime has a progress file (a book build), a bar that
  appends plain lines to that file (``train 2 x LeNet on qmnist:  40%|####  | 4/10 ...``), at
  most one every ``progress_interval`` seconds across the runtime's bars (its
  :class:`LineGate`), so that nothing reaches a
  page's cell output.
- **Hand-off to a kernel**: the book's runner gives a kernel one JSON record in one variable,
  ``$PRUNEAUDIT_KERNEL`` (:class:`KernelRecord`: where its page goes, its build stamp, the
  progress file and interval, the thread count); the kernel reads it back with
  :meth:`KernelRecord.read`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import os
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pruneaudit import config
from pruneaudit.errors import PruneAuditError, check_positive_int

#: The environment variable that fixes torch's thread count.
THREADS_ENV = "PRUNEAUDIT_THREADS"
#: The environment variable that carries the runner's :class:`KernelRecord` (JSON) to a kernel.
KERNEL_ENV = "PRUNEAUDIT_KERNEL"
#: Seconds a reading of the free cores spans at least while following them.
MIN_WINDOW = 2.0


# ------------------------------------------------------------------------------ free cores


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


def usable_cores() -> int:
    """The cores this process may run on: its CPU affinity (``os.sched_getaffinity``, where the
    system has one), else ``os.cpu_count()``; at least 1."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


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
    counters injectable for tests); the first reading is taken when it is created."""

    cores: int = 0
    clock: Callable[[], float] = time.monotonic
    system: Callable[[], float] = system_busy_seconds
    own: Callable[[], float] = own_busy_seconds
    min_window: float = MIN_WINDOW

    def __post_init__(self) -> None:
        self.cores = self.cores or usable_cores()
        self._last = self._read()

    def _read(self) -> tuple[float, float, float]:
        return self.clock(), self.system(), self.own()

    def load(self) -> float | None:
        """Cores other processes kept busy since the last reading, or None when it is less than
        ``min_window`` seconds old (the reading then goes on from it)."""
        now = self._read()
        elapsed = now[0] - self._last[0]
        if elapsed < self.min_window or elapsed <= 0:
            return None
        busy = (now[1] - self._last[1]) - (now[2] - self._last[2])
        self._last = now
        return max(0.0, busy / elapsed)

    def threads(self) -> int | None:
        """Threads for the cores free since the last reading (None: too soon to tell)."""
        load = self.load()
        return None if load is None else free_threads(self.cores, load)


def choose_threads(setting: str | None = None, cores: int | None = None) -> tuple[int, str]:
    """torch's thread count at a start and why: ``setting`` (default ``$PRUNEAUDIT_THREADS``)
    when given, else every core this process may use (``cores``, default
    :func:`~pruneaudit.runtime.usable_cores`). A moment's load is never read here: another
    process busy at the start does not drop a 2-core build to one thread for good (while
    following the free cores, the trainer reads them over
    :data:`~pruneaudit.runtime.MIN_WINDOW` seconds or more before each population)."""
    fixed = fixed_threads(setting if setting is not None else os.environ.get(THREADS_ENV, ""))
    if fixed is not None:
        return fixed, f"set by {THREADS_ENV}"
    cores = cores if cores is not None else usable_cores()
    return cores, f"the {cores} cores this process may use; {THREADS_ENV}=N sets another count"


@contextlib.contextmanager
def threads_at(count: int | None) -> Iterator[None]:
    """Run the block at ``count`` torch threads (None: as set) and restore torch's count after.

    torch's count is the process's: Python threads started inside the block share it."""
    import torch  # here: the book's runner and its progress lines need none of torch

    before = torch.get_num_threads()
    if count is not None:
        _set_threads(check_positive_int("num_threads", count))
    try:
        yield
    finally:
        _set_threads(before)


def _set_threads(count: int) -> None:
    """The package's one call of ``torch.set_num_threads``."""
    import torch

    if count != torch.get_num_threads():
        torch.set_num_threads(count)


# ------------------------------------------------------------------------------ progress


@dataclass
class LineGate:
    """When the last progress line was written (``time.monotonic``), shared by the bars of one
    :class:`Runtime`, so that they write at most one line per interval together."""

    last: float = -math.inf

    def opens(self, interval: float) -> bool:
        """Whether a line may be written now (``interval`` seconds since the last); if so, now
        is the last."""
        now = time.monotonic()
        if now - self.last < interval:
            return False
        self.last = now
        return True


class LineFile:
    """A file-like object for tqdm that appends a refresh as one line to ``path``, at most one
    line every ``interval`` seconds across the bars that share ``gate`` (a runtime's bars share
    its gate; None: a gate of its own), so that many short bars (a population trained in
    seconds) show their progress instead of a line at 0% each."""

    def __init__(
        self, path: str | os.PathLike, interval: float = 0.0, gate: LineGate | None = None
    ) -> None:
        self.path = Path(path)
        self.interval = interval
        self.gate = gate if gate is not None else LineGate()

    def write(self, text: str) -> int:
        line = text.replace("\r", "").replace("\x1b[A", "").strip()
        if line and self.gate.opens(self.interval):
            with self.path.open("a") as f:
                f.write(line + "\n")
        return len(text)

    def flush(self) -> None:
        pass


# ------------------------------------------------------------------------------ hand-off


@dataclass(frozen=True)
class KernelRecord:
    """What the book's runner tells a kernel, as one JSON record in ``$PRUNEAUDIT_KERNEL``:
    where its executed page goes, its build stamp (profile, overrides, date), the seconds the
    profile states for it, the progress file and interval, the thread count (None: the
    kernel chooses) and whether the page is executed for the static book (``static``: charts
    rely on the book's scripts and live controls show only a note)."""

    page_dir: str | None = None
    notebook: str | None = None
    profile: str | None = None
    overrides: dict[str, Any] = field(default_factory=dict)
    date: str = "unknown"
    measured: float | None = None
    progress_file: str | None = None
    progress_interval: float = 5.0
    threads: int | None = None
    static: bool = False

    def environ(self) -> dict[str, str]:
        """The record as the kernel's environment variable: ``{KERNEL_ENV: json}``."""
        return {KERNEL_ENV: json.dumps(dataclasses.asdict(self), sort_keys=True)}

    @classmethod
    def read(cls, environ: Mapping[str, str] | None = None) -> KernelRecord | None:
        """The record in ``environ`` (default ``os.environ``), None when the runner set none;
        a record that is not this class's JSON is one clear error."""
        text = (os.environ if environ is None else environ).get(KERNEL_ENV)
        if not text:
            return None
        try:
            return cls(**json.loads(text))
        except (ValueError, TypeError) as err:
            raise PruneAuditError(
                f"${KERNEL_ENV} must hold the book runner's JSON record, got {text[:80]!r} "
                f"({err}); unset it to run the page by hand"
            ) from None


# ------------------------------------------------------------------------------ the runtime


@dataclass
class Runtime:
    """The process's settings: device and precision (None: the environment's setting), torch
    threads (``threads``: a fixed count, None: :func:`choose_threads`'s), whether the
    population trainer follows the free cores, and where progress bars go (``progress_file``
    None: tqdm's own output). ``steady`` is the thread count of work whose bits depend on it
    (default: the fixed count, else torch's count when the runtime is created)."""

    device: str | None = None
    precision: str | None = None
    threads: int | None = None
    follow: bool = False
    progress_file: Path | None = None
    progress_interval: float = 5.0
    steady: int | None = None
    reader: FreeCores | None = field(default=None, repr=False)
    gate: LineGate = field(default_factory=LineGate, repr=False)

    def __post_init__(self) -> None:
        if self.device is not None:
            self.device = config.device_setting(self.device)
        if self.precision is not None:
            self.precision = config.precision_setting(self.precision)
        if self.threads is not None:
            check_positive_int("threads", self.threads)
        if self.steady is None:
            import torch

            self.steady = self.threads or torch.get_num_threads()

    @classmethod
    def given(cls, runtime: Runtime | None) -> Runtime:
        """``runtime``, else a fresh one from the environment (what a public function called
        without a runtime runs with: device and precision the environment's, torch's threads as
        they are, no following, tqdm's bars)."""
        return runtime if runtime is not None else cls()

    def device_setting(self, value: Any = None) -> str:
        """The device setting: ``value`` if given (a setting or a ``torch.device``), else the
        runtime's :attr:`device`, else ``$PRUNEAUDIT_DEVICE``, else ``auto``; checked by
        :func:`pruneaudit.config.device_setting`."""
        return config.device_setting(str(value) if value is not None else self.device)

    def precision_setting(self, value: str | None = None) -> str:
        """The training precision: ``value`` if given, else the runtime's :attr:`precision`,
        else ``$PRUNEAUDIT_PRECISION``, else ``fp32``; checked by
        :func:`pruneaudit.config.precision_setting`."""
        return config.precision_setting(value if value is not None else self.precision)

    def start(self) -> tuple[int, str]:
        """Set torch's thread count to the fixed count, else every core this process may use
        (:func:`choose_threads`); from now on, where the runtime follows the free cores, read
        them before each population. Returns the count and why."""
        if self.threads is not None:
            count, why = self.threads, f"set by {THREADS_ENV} or the build"
        else:
            count, why = choose_threads("")
        _set_threads(count)
        if self.follow and self.reader is None:
            self.reader = FreeCores()
        return count, why

    def population_threads(self) -> int | None:
        """The thread count for the next population: the fixed count, else (while following)
        the cores free since the last reading; None keeps torch's setting."""
        if not self.follow:
            return None
        if self.threads is not None:
            return self.threads
        self.reader = self.reader or FreeCores()
        return self.reader.threads()

    def steady_threads(self) -> int | None:
        """The thread count of work whose results depend on it while following the free cores
        (:attr:`steady`, never the load); None (keep torch's setting) when not following."""
        return self.steady if self.follow else None

    def at_steady_threads(self) -> contextlib.AbstractContextManager:
        """The block at :meth:`steady_threads` (where it says one); torch's count restored."""
        return threads_at(self.steady_threads())

    @contextlib.contextmanager
    def settings(self, **values: Any) -> Iterator[Runtime]:
        """The block with some fields changed (``device=``, ``progress_file=``, ...); restored
        after."""
        saved = {name: getattr(self, name) for name in values}
        checked = dataclasses.replace(self, **values)  # checks device and precision
        for name in values:
            setattr(self, name, getattr(checked, name))
        try:
            yield self
        finally:
            for name, value in saved.items():
                setattr(self, name, value)

    def bar(self, iterable: Any = None, **kwargs: Any) -> Any:
        """A progress bar (tqdm's arguments): ``tqdm.auto``'s, or lines appended to the
        progress file (see the module docstring)."""
        if self.progress_file is None:
            from tqdm.auto import tqdm

            return tqdm(iterable, **kwargs)
        from tqdm.std import tqdm

        # Bars refresh every half second; the file keeps one line per interval of them.
        kwargs.update(file=LineFile(self.progress_file, self.progress_interval, self.gate),
                      ascii=True, ncols=100, mininterval=0.5, miniters=1)
        return tqdm(iterable, **kwargs)


__all__ = [
    "KERNEL_ENV",
    "MIN_WINDOW",
    "THREADS_ENV",
    "FreeCores",
    "KernelRecord",
    "LineFile",
    "LineGate",
    "Runtime",
    "choose_threads",
    "fixed_threads",
    "free_threads",
    "own_busy_seconds",
    "system_busy_seconds",
    "threads_at",
    "usable_cores",
]
