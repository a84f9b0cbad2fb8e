"""Wall time per phase: outermost phase wins, totals written and read back."""

from __future__ import annotations

import types

import pytest

from pruneaudit import timing
from pruneaudit.errors import PruneAuditError


def test_nested_phases_count_once_for_the_outermost(tmp_path, monkeypatch) -> None:
    now = [0.0]  # a clock of our own: the sums are exact, whatever the machine's load

    def sleep(seconds: float) -> None:
        now[0] += seconds

    monkeypatch.setattr(timing, "time", types.SimpleNamespace(perf_counter=lambda: now[0]))
    timing.reset()
    with timing.phase("training"):
        sleep(0.02)
        with timing.phase("store"):
            sleep(0.02)
    with timing.phase("store"):
        sleep(0.01)
    spent = timing.totals()
    assert spent["training"] == pytest.approx(0.04) and spent["store"] == pytest.approx(0.01)
    assert spent["evaluation"] == spent["pruning"] == 0

    @timing.phase("evaluation")
    def evaluate() -> int:
        sleep(0.01)
        return 1

    assert evaluate() + evaluate() == 2
    assert timing.totals()["evaluation"] == pytest.approx(0.02)
    timing.write(tmp_path / "t.json")
    assert timing.read(tmp_path / "t.json") == pytest.approx(timing.totals(), abs=0.01)
    assert timing.read(tmp_path / "missing.json") is None
    timing.reset()
    assert sum(timing.totals().values()) == 0


def test_unknown_phase() -> None:
    with (
        pytest.raises(PruneAuditError, match="unknown phase 'trainig'.*'training'"),
        timing.phase("trainig"),
    ):
        pass


def test_runs_the_store_adds_are_counted_once(tmp_path) -> None:
    import pandas as pd

    from pruneaudit.runs.spec import RunSpec
    from pruneaudit.runs.store import ResultsStore

    store = ResultsStore(tmp_path / "store")
    classes = pd.DataFrame({"class": [0], "accuracy": [1.0], "n": [1]})
    predictions = pd.DataFrame({"index": [0], "label": [0], "prediction": [0]})
    timing.reset()
    for seed in (0, 1, 1):  # the third is stored already: kept, not counted
        store.save(RunSpec("mnist", "lenet", seed=seed), classes, predictions)
    timing.write(tmp_path / "t.json")
    assert timing.read_new_runs(tmp_path / "t.json") == 2
    assert set(timing.read(tmp_path / "t.json")) == set(timing.PHASES)
    assert timing.read_new_runs(tmp_path / "missing.json") is None
    timing.reset()
    timing.write(tmp_path / "t.json")
    assert timing.read_new_runs(tmp_path / "t.json") == 0


def test_machine_names_the_cpu_its_vector_width_and_cores(monkeypatch, tmp_path) -> None:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nmodel name\t: AMD EPYC 7B13\nflags\t\t: fpu sse2 avx2\n")
    real = timing.Path
    monkeypatch.setattr(timing, "Path", lambda p: cpuinfo if p == "/proc/cpuinfo" else real(p))
    monkeypatch.setattr(timing.os, "cpu_count", lambda: 2)
    assert timing.machine() == "AMD EPYC 7B13, AVX2, 2 cores"
    cpuinfo.write_text("model name\t: Intel Xeon\nflags\t\t: avx2 avx512f\n")
    assert timing.machine() == "Intel Xeon, AVX-512, 2 cores"
