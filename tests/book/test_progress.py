"""Progress lines while the book builds (never in a cell output) and the thread choice."""

from __future__ import annotations

import io
import os
import sys
import time
from pathlib import Path

import pytest
import tqdm.auto
from hypothesis import given
from hypothesis import strategies as st

from pruneaudit import book, runtime
from pruneaudit.book.builder import progress
from pruneaudit.errors import PruneAuditError


def test_threads_from_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(book.THREADS_ENV, "3")
    assert book.choose_threads() == (3, f"set by {book.THREADS_ENV}")
    for bad in ("0", "two", "-1"):
        with pytest.raises(PruneAuditError, match="must be a positive integer"):
            book.choose_threads(bad)


@given(cores=st.integers(1, 64))
def test_threads_default_to_the_cores_given(cores: int) -> None:
    n, why = book.choose_threads("", cores)
    assert n == cores
    assert f"the {cores} cores this process may use" in why and book.THREADS_ENV in why


def test_the_cores_are_this_processs_affinity(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 3, 5}, raising=False)
    assert runtime.usable_cores() == 3 and book.choose_threads("")[0] == 3
    monkeypatch.delattr(os, "sched_getaffinity", raising=False)  # a system without affinity
    assert runtime.usable_cores() == 64


def _tqdm_names() -> dict[str, object]:
    import tqdm.auto

    names = {name: getattr(module, "tqdm", None) for name, module in list(sys.modules.items())
             if name.startswith("pruneaudit")}
    return {**names, "tqdm.auto": tqdm.auto.tqdm}


def test_runtime_bars_write_lines_not_output_and_patch_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    from pruneaudit.training import loop  # noqa: F401  (a module that shows progress)

    path = tmp_path / "progress"
    names = _tqdm_names()
    process = runtime.Runtime(progress_file=path, progress_interval=0.0)
    for _ in process.bar(range(4), desc="train 2 x LeNet", unit="model-epochs"):
        pass
    assert _tqdm_names() == names  # no module's tqdm was replaced
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""
    lines = path.read_text().splitlines()
    assert lines[-1].startswith("train 2 x LeNet: 100%") and "4/4" in lines[-1]
    assert all("\r" not in line for line in lines)
    assert isinstance(runtime.Runtime().bar(total=1, disable=True), type(tqdm.auto.tqdm()))


def _monitor_run(tmp_path: Path, tty: bool) -> str:
    stream = io.StringIO()
    path = tmp_path / "progress"
    with book.Monitor("03_x", 3, path, stream, tty=tty, poll=0.01) as monitor:
        monitor.cell_started({"cell_type": "markdown", "source": "# t"}, 0)
        monitor.cell_started({"cell_type": "code", "source": "x = 1"}, 1)
        monitor.cell_started({"cell_type": "code", "source": "train()"}, 2)
        with path.open("a") as f:
            f.write("train 2 x LeNet:  50%|#####     | 2/4 [00:02<00:02]\n")
        time.sleep(0.2)
    assert not path.exists()
    return stream.getvalue()


def test_monitor_plain_lines_for_a_log(tmp_path: Path) -> None:
    lines = _monitor_run(tmp_path, tty=False).splitlines()
    assert len(lines) == 3
    assert lines[0].startswith("[03_x]") and lines[0].endswith("cell 1/3")
    assert lines[1].endswith("cell 2/3")
    assert lines[2].endswith("cell 2/3  train 2 x LeNet:  50%|#####     | 2/4 [00:02<00:02]")
    assert "\r" not in "".join(lines)


def test_monitor_rewrites_one_line_on_a_terminal(tmp_path: Path) -> None:
    text = _monitor_run(tmp_path, tty=True)
    assert "\n" not in text and text.count("\r\x1b[K") == 4


@pytest.fixture
def others_keep_both_cores_busy(monkeypatch: pytest.MonkeyPatch) -> dict[str, float]:
    """psutil's counters faked: while time passes (``time.sleep``, or ``clock["t"]`` moved),
    other processes keep 2.0 cores busy and this process tree 0.5 of them."""
    import types

    import psutil

    clock = {"t": 0.0, "system": 100.0, "own": 10.0}

    def sleep(seconds: float) -> None:
        clock["t"] += seconds
        clock["system"] += 2.0 * seconds
        clock["own"] += 0.5 * seconds

    class Proc:
        def __init__(self, *a) -> None:
            pass

        def cpu_times(self):
            return types.SimpleNamespace(user=clock["own"], system=0.0)

        def parent(self):
            return None

        def children(self, recursive=False):
            return []

    class Times(tuple):
        pass

    def system_times():
        t = Times((clock["system"], 0.0, 500.0))
        t.idle, t.iowait = 500.0, 0.0  # type: ignore[attr-defined]
        return t

    monkeypatch.setattr(psutil, "Process", Proc)
    monkeypatch.setattr(psutil, "cpu_times", system_times)
    monkeypatch.setattr(time, "sleep", sleep)
    monkeypatch.setattr(time, "monotonic", lambda: clock["t"])
    return clock


def test_other_processes_are_measured_and_this_one_is_not(others_keep_both_cores_busy) -> None:
    """A reading of the free cores: the system's busy CPU seconds over the window less this
    process tree's (2.0 - 0.5 cores over 1.5 s)."""
    reader = runtime.FreeCores(cores=2, clock=time.monotonic, min_window=0.0)
    time.sleep(1.5)
    assert reader.load() == pytest.approx(1.5)
    time.sleep(1.5)
    assert reader.threads() == 1  # 2 cores, 1.5 busy: one free


def test_a_busy_moment_at_the_start_does_not_lower_the_threads(
    others_keep_both_cores_busy, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Other processes keep the 2 cores busy as the build starts: the count stays at the 2
    cores the process may use (it once dropped to 1), in the plan and in a kernel's start."""
    import torch

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.delenv(book.THREADS_ENV, raising=False)
    assert book.choose_threads() == (2, book.choose_threads("", 2)[1])
    before = torch.get_num_threads()
    kernel = runtime.Runtime(follow=True)
    try:
        time.sleep(0.5)  # the busy moment, as the kernel starts
        assert kernel.start()[0] == 2 and torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


def test_log_lines_are_throttled_across_bars_so_short_bars_show_progress(monkeypatch, tmp_path):
    """One line per interval across the bars that share a gate (a runtime's): a run of short
    bars (one population each) writes their in-progress states, not a 0% line per bar."""
    now = {"t": 100.0}
    monkeypatch.setattr(time, "monotonic", lambda: now["t"])
    gate = runtime.LineGate()
    for bar in range(3):  # three bars of 4 s each, refreshed every second
        out = runtime.LineFile(tmp_path / "log", interval=5.0, gate=gate)
        for step in range(4):
            out.write(f"\rbar {bar}: {step}/4")
            now["t"] += 1.0
    lines = (tmp_path / "log").read_text().splitlines()
    assert lines == ["bar 0: 0/4", "bar 1: 1/4", "bar 2: 2/4"]
    now["t"] += 10.0
    assert out.write("\r  \r") == 4  # a blank refresh writes no line
    assert len((tmp_path / "log").read_text().splitlines()) == 3


def test_file_bars_refresh_often_and_leave_the_throttle_to_the_file(tmp_path: Path) -> None:
    bar = runtime.Runtime(progress_file=tmp_path / "log").bar(total=9, desc="train")
    try:
        assert bar.mininterval == 0.5 and bar.miniters == 1
    finally:
        bar.close()


def test_the_interval_is_short_on_a_terminal_and_long_in_a_log() -> None:
    assert progress.interval(True) < progress.interval(False)
