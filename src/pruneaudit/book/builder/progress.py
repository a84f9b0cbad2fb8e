"""Progress while the book builds, on the builder's terminal or log, never in a page.

Kernel side: the book's runner names a progress file in the kernel's record
(:class:`pruneaudit.runtime.KernelRecord`); :func:`pruneaudit.book.setup` gives it to the
kernel's runtime, whose progress bars (:meth:`pruneaudit.runtime.Runtime.bar`, what the package's
training shows) then append plain lines (``train 2 x LeNet on qmnist:  40%|####  | 4/10
[00:10<00:15, ...]``: models, model-epochs, time left) to that file; nothing reaches a cell
output.

Runner side: :class:`Monitor` prints, per notebook, which code cell runs out of how many
(papermill's ``on_cell_start`` hook) and tails the progress file: on a terminal one status line
rewritten in place, in a log (not a tty) plain lines.

Why a file, and not tqdm's callbacks: the bars run in the kernel, another process, and tqdm's
hooks (``tqdm.contrib``'s, a ``tqdm`` subclass's ``display``) run where the bar does, so
something must carry the lines across. The kernel's own channel is its cell output, which
becomes the page (papermill records every stream message there); a file beside the page, which
tqdm writes through its ``file=`` argument, reaches the runner and never the page.

Threads: :func:`choose_threads` (:func:`pruneaudit.runtime.choose_threads`) sets torch's thread
count to the cores this process may use unless ``$PRUNEAUDIT_THREADS`` sets it; that is the
count a kernel starts with, and the trainer then re-reads the free cores before each population
(:class:`pruneaudit.runtime.Runtime`).
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path
from typing import TextIO

from pruneaudit.runtime import THREADS_ENV, choose_threads, fixed_threads

#: Seconds between two progress lines, across all bars: on a terminal and in a log.
TTY_INTERVAL, LOG_INTERVAL = 1.0, 10.0


def interval(tty: bool) -> float:
    """Seconds between two progress lines: :data:`TTY_INTERVAL` on a terminal, else
    :data:`LOG_INTERVAL`."""
    return TTY_INTERVAL if tty else LOG_INTERVAL


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


__all__ = [
    "LOG_INTERVAL", "THREADS_ENV", "TTY_INTERVAL", "Monitor", "choose_threads", "fixed_threads",
    "interval",
]
