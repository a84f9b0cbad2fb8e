"""Wall time per phase: outermost phase wins, totals written and read back."""

from __future__ import annotations

import time

import pytest

from pruneaudit import timing
from pruneaudit.errors import PruneAuditError


def test_nested_phases_count_once_for_the_outermost(tmp_path) -> None:
    timing.reset()
    with timing.phase("training"):
        time.sleep(0.02)
        with timing.phase("store"):
            time.sleep(0.02)
    with timing.phase("store"):
        time.sleep(0.01)
    spent = timing.totals()
    assert spent["training"] >= 0.04 and 0.01 <= spent["store"] < 0.03
    assert spent["evaluation"] == spent["pruning"] == 0

    @timing.phase("evaluation")
    def evaluate() -> int:
        time.sleep(0.01)
        return 1

    assert evaluate() + evaluate() == 2 and timing.totals()["evaluation"] >= 0.02
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
