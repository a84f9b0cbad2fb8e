"""Progress while the book builds, on the builder's terminal or log, never in a page.

Kernel side: :func:`route_tqdm` (called by :func:`pruneaudit.book.setup` when the runner set
``$PRUNEAUDIT_PROGRESS_FILE``) replaces the package's tqdm bars by bars that append plain lines
(``train 2 x LeNet on qmnist:  40%|####  | 4/10 [00:10<00:15, ...]``: models, model-epochs, time
left) to that file; nothing reaches a cell output.

Runner side: :class:`Monitor` prints, per notebook, which code cell runs out of how many
(papermill's ``on_cell_start`` hook) and tails the progress file: on a terminal one status line
rewritten in place, in a log (not a tty) plain lines.

Threads: :func:`choose_threads` picks torch's thread count from the cores actually free
(``os.cpu_count()`` less the cores other processes keep busy over half a second,
:func:`pruneaudit.book.progress.others_busy`; rounded, at least 1) unless
``$PRUNEAUDIT_THREADS`` sets it. That is the count a kernel starts with; the trainer then
re-reads the free cores before each population (:mod:`pruneaudit.training.threads`).
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
import threading
import time
from pathlib import Path
from typing import TextIO

from pruneaudit.training.threads import (
    THREADS_ENV,
    fixed_threads,
    free_threads,
    own_busy_seconds,
    system_busy_seconds,
)

PROGRESS_ENV = "PRUNEAUDIT_PROGRESS_FILE"
#: Seconds between two progress lines, across all bars (the runner sets it: 1 on a terminal, 10
#: in a log).
INTERVAL_ENV = "PRUNEAUDIT_PROGRESS_INTERVAL"


# ------------------------------------------------------------------------------ kernel side


class _LineFile:
    """A file-like object for tqdm that appends a refresh as one line to ``path``, at most one
    line every ``interval`` seconds across all bars (shared clock), so that many short bars (a
    population trained in seconds) show their progress instead of a line at 0% each."""

    last = -math.inf

    def __init__(self, path: str | os.PathLike, interval: float = 0.0) -> None:
        self.path = Path(path)
        self.interval = interval

    def write(self, text: str) -> int:
        line = text.replace("\r", "").replace("\x1b[A", "").strip()
        now = time.monotonic()
        if line and now - _LineFile.last >= self.interval:
            _LineFile.last = now
            with self.path.open("a") as f:
                f.write(line + "\n")
        return len(text)

    def flush(self) -> None:
        pass


def route_tqdm(path: str | os.PathLike | None = None) -> bool:
    """Send tqdm bars (``tqdm.auto.tqdm`` and the name ``tqdm`` in loaded ``pruneaudit`` modules)
    to ``path`` (default ``$PRUNEAUDIT_PROGRESS_FILE``) as plain lines; False when unset."""
    path = path if path is not None else os.environ.get(PROGRESS_ENV)
    if not path:
        return False
    import tqdm.auto
    import tqdm.std

    interval = float(os.environ.get(INTERVAL_ENV, "5"))
    originals = {tqdm.auto.tqdm, tqdm.std.tqdm}
    with contextlib.suppress(ImportError):
        import tqdm.notebook

        originals.add(tqdm.notebook.tqdm)

    class FileTqdm(tqdm.std.tqdm):
        """tqdm writing plain lines to the build's progress file."""

        def __init__(self, *args: object, **kwargs: object) -> None:
            # Bars refresh every half second; the file keeps one line per `interval` of them.
            kwargs.update(
                file=_LineFile(path, interval), ascii=True, ncols=100, mininterval=0.5,
                miniters=1,
            )
            super().__init__(*args, **kwargs)

    tqdm.auto.tqdm = FileTqdm
    for name, module in list(sys.modules.items()):
        if name.startswith("pruneaudit") and getattr(module, "tqdm", None) in originals:
            module.tqdm = FileTqdm
    return True


# ------------------------------------------------------------------------------ threads


def others_busy(window: float = 0.5) -> float:
    """Cores that processes other than this one and its parent and children kept busy over the
    last ``window`` seconds (psutil's system CPU times less this process tree's)."""
    start, mine, wall = system_busy_seconds(), own_busy_seconds(), time.monotonic()
    time.sleep(window)
    elapsed = time.monotonic() - wall
    busy = (system_busy_seconds() - start) - (own_busy_seconds() - mine)
    return max(0.0, busy / elapsed)


def choose_threads(
    setting: str | None = None, cores: int | None = None, load: float | None = None
) -> tuple[int, str]:
    """torch's thread count and why: ``setting`` (default ``$PRUNEAUDIT_THREADS``) when given,
    else the cores free: ``cores - load`` rounded, between 1 and cores, where ``load``
    (default :func:`pruneaudit.book.progress.others_busy`, over half a second) is the cores
    other processes keep busy now: an idle machine gets every core, also right after an
    install (the load average, which lags by minutes, is not used)."""
    fixed = fixed_threads(setting if setting is not None else os.environ.get(THREADS_ENV, ""))
    if fixed is not None:
        return fixed, f"set by {THREADS_ENV}"
    cores = cores if cores is not None else os.cpu_count() or 1
    load = load if load is not None else others_busy()
    free = free_threads(cores, load)
    return free, (
        f"{cores} cores, other processes busy {load:.1f} cores now: {free} free "
        f"(set {THREADS_ENV} to choose)"
    )


# ------------------------------------------------------------------------------ runner side


class Monitor:
    """Prints a notebook's progress while papermill runs it: the code cell running out of how
    many (pass :meth:`cell_started` as papermill's ``on_cell_start``) and the kernel's progress
    lines from ``progress_file``. Use as a context manager (a thread tails the file)."""

    def __init__(
        self,
        name: str,
        n_code_cells: int,
        progress_file: Path,
        stream: TextIO | None = None,
        tty: bool | None = None,
        poll: float = 0.5,
    ) -> None:
        self.name, self.total, self.file = name, n_code_cells, Path(progress_file)
        self.stream = stream if stream is not None else sys.stdout
        self.tty = self.stream.isatty() if tty is None else tty
        self.poll, self.cell, self._offset = poll, 0, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._tail, daemon=True)
        self._status = ""
        self.start = time.perf_counter()

    def __enter__(self) -> Monitor:
        self.file.write_text("")
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self._read()
        if self.tty and self._status:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
        self.file.unlink(missing_ok=True)

    def cell_started(self, cell: dict, cell_index: int, **_: object) -> None:
        """papermill's ``on_cell_start`` hook: count code cells."""
        if cell.get("cell_type") == "code" and str(cell.get("source", "")).strip():
            self.cell += 1
            self._emit(f"cell {self.cell}/{self.total}")

    def _emit(self, what: str) -> None:
        elapsed = time.perf_counter() - self.start
        line = f"[{self.name}] {elapsed:6.0f} s  {what}"
        if self.tty:
            self._status = line
            self.stream.write("\r\x1b[K" + line[:160])
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def _read(self) -> None:
        if not self.file.is_file():
            return
        with self.file.open() as f:
            f.seek(self._offset)
            text = f.read()
        complete = text[: text.rfind("\n") + 1]
        self._offset += len(complete.encode())
        for line in complete.splitlines():
            if line.strip():
                self._emit(f"cell {self.cell}/{self.total}  {line.strip()}")

    def _tail(self) -> None:
        while not self._stop.wait(self.poll):
            self._read()
