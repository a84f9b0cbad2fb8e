"""The workshop page's exercises, run as the page words them.

Each exercise's terminal line (``.venv/bin/python -m pruneaudit.book run NAME --profile smoke
-p ...``) is read from ``book/workshop.md`` and given to the runner's command line
(:func:`pruneaudit.book.runner.main`): the same parsing, profile, overrides and checks. Only the
kernel is left out: the notebook's execution is the smoke book's test, so here the study runs in
this process from the checked parameters the kernel would build
(:meth:`~pruneaudit.book.profiles.Profile.study_params`), on one temporary results store shared
by the exercises, and each test checks the change its exercise names.
"""

from __future__ import annotations

import importlib
import re
import shlex
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pruneaudit import config
from pruneaudit.audit.findings import findings_frame
from pruneaudit.book import runner
from pruneaudit.book.paths import BOOK
from pruneaudit.book.profiles import Profile, study_module
from pruneaudit.runs.store import ResultsStore

pytestmark = pytest.mark.slow

WORKSHOP = BOOK / "workshop.md"
PREFIX = [".venv/bin/python", "-m", "pruneaudit.book"]


def terminal_lines(text: str) -> dict[int, list[list[str]]]:
    """Exercise number -> its terminal lines, each the arguments after ``-m pruneaudit.book``
    (an exercise is a numbered item ``N. **Title.**``; a line is inline code starting with
    ``.venv/bin/python -m pruneaudit.book``)."""
    found: dict[int, list[list[str]]] = {}
    parts = re.split(r"^(\d+)\. \*\*", text, flags=re.MULTILINE)
    for number, body in zip(parts[1::2], parts[2::2], strict=True):
        lines = [shlex.split(code) for code in re.findall(r"`([^`\n]+)`", body)]
        found[int(number)] = [line[3:] for line in lines if line[:3] == PREFIX]
    return found


def test_the_line_parser() -> None:
    text = ("1. **A.** Terminal: `.venv/bin/python -m pruneaudit.book run 01_x --profile smoke`.\n"
            "2. **B.** `python -m x` and\n   `.venv/bin/python -m pruneaudit.book run 02_y "
            '-p "s=[0, 1]"`.\n')
    assert terminal_lines(text) == {
        1: [["run", "01_x", "--profile", "smoke"]],
        2: [["run", "02_y", "-p", "s=[0, 1]"]],
    }


@dataclass
class Ran:
    """What a terminal line did: the runner's exit status, the study's result (None when the
    line was refused), the runs it added to the store, its seconds."""

    status: int
    result: object
    new_runs: int
    seconds: float


class Workshop:
    """Runs the page's terminal lines through the runner's command line, each notebook's study
    in this process on one results store."""

    def __init__(self, store: Path, out: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.store, self.out = ResultsStore(store), out
        self.lines = terminal_lines(WORKSHOP.read_text())
        self._result: object = None
        monkeypatch.setattr(runner, "run_notebook", self._run_study)

    def _run_study(self, name: str, profile: Profile, **_: object) -> Path:
        params = profile.study_params(name)
        module = study_module(name)
        assert module is not None, name
        self._result = importlib.import_module(module.__name__).run(
            params, self.store, progress=False)
        return self.out / f"{name}.ipynb"

    def run(self, argv: list[str]) -> Ran:
        assert "--profile" in argv and argv[argv.index("--profile") + 1] == "smoke", argv
        self._result = None
        before, start = len(self.store.keys()), time.perf_counter()
        status = runner.main(argv)
        ran = Ran(status, self._result, len(self.store.keys()) - before,
                  time.perf_counter() - start)
        print(f"{shlex.join(argv)}: {ran.new_runs} new runs in {ran.seconds:.0f} s")  # with -s
        return ran

    def exercise(self, number: int) -> list[Ran]:
        lines = self.lines.get(number)
        assert lines, f"exercise {number} of {WORKSHOP.name} states no terminal line"
        return [self.run(argv) for argv in lines]

    def smoke(self, name: str) -> Ran:
        """The notebook at the smoke profile, unchanged (the exercises' point of comparison)."""
        return self.run(["run", name, "--profile", "smoke"])


@pytest.fixture(scope="module")
def workshop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workshop]:
    base = tmp_path_factory.mktemp("workshop")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(config.STORE_ENV, str(base / "results"))
        yield Workshop(base / "results", base / "studies", mp)


def test_every_exercise_has_a_terminal_line_at_smoke(workshop: Workshop) -> None:
    assert sorted(workshop.lines) == [1, 2, 3, 4, 5, 6]
    for number, lines in workshop.lines.items():
        assert lines, f"exercise {number} has no terminal line"
        for argv in lines:
            assert argv[:1] == ["run"] and argv[argv.index("--profile") + 1] == "smoke", argv
    text = WORKSHOP.read_text()
    assert "make live LIVE_ARGS=\"--profile smoke\"" in text
    assert not re.search(r"(?<![/\w.])python -m", text), "a terminal line without .venv/bin/"


def test_1_a_second_run_trains_nothing(workshop: Workshop) -> None:
    (first,), (second,) = workshop.exercise(1), workshop.exercise(1)
    assert first.status == second.status == 0
    assert second.new_runs == 0, "the second run trained or evaluated again"
    qw = study_module("02_qmnist_writers")
    tables = [findings_frame(qw.findings(r.result)) for r in (first, second)]
    pd.testing.assert_frame_equal(*tables)


def test_2_one_more_pruning_round_is_sparser(workshop: Workshop) -> None:
    base = workshop.smoke("02_qmnist_writers")
    (more,) = workshop.exercise(2)
    assert more.status == 0
    assert more.result.params.iterations == base.result.params.iterations + 1
    assert more.result.sparsity.mean() > base.result.sparsity.mean()
    assert np.allclose(more.result.sparsity, 1 - 0.8 ** more.result.params.iterations, atol=0.01)


def test_3_one_more_seed_is_one_more_member(workshop: Workshop) -> None:
    (more,) = workshop.exercise(3)
    base = workshop.smoke("04_compression_impact")
    assert more.status == 0 and base.new_runs == 0, "the smoke members are the first ones"
    assert len(more.result.populations.seeds) == len(base.result.populations.seeds) + 1


def test_4_the_weights_move_the_pick_to_either_end(workshop: Workshop) -> None:
    sparse, fair = workshop.exercise(4)
    assert sparse.status == fair.status == 0 and fair.new_runs == 0
    pick = sparse.result.chosen.iloc[0]
    candidates = sparse.result.candidates.frame
    assert pick["sparsity"] == candidates["sparsity"].max()
    pick = fair.result.chosen.iloc[0]
    assert pick["unfairness_max_min"] == candidates["unfairness_max_min"].min()


def test_5_one_corruption_at_one_severity(workshop: Workshop) -> None:
    (one,) = workshop.exercise(5)
    assert one.status == 0
    params = one.result.params
    assert (params.corruption_names, params.severities) == (("rotate",), (5,))
    relative = one.result.relative
    assert list(relative["corruption"]) == ["rotate"] * len(params.levels)
    assert "clean_change_pct" in relative


def test_6_a_bad_value_is_refused_before_any_training(
    workshop: Workshop, capsys: pytest.CaptureFixture[str]
) -> None:
    (bad,) = workshop.exercise(6)
    assert bad.status == 2 and bad.result is None and bad.new_runs == 0
    assert "epochs must be int, got 'two'" in capsys.readouterr().err
