"""The workshop page's exercises, run as the page words them, and the output each states.

Each exercise is a ``{exercise}`` block labelled ``ws-N``; its ``{solution}`` block holds the
terminal lines (``.venv/bin/pruneaudit run NAME --profile smoke -p ...``), which
are given to the runner's command line (:func:`pruneaudit.cli.main`): the same parsing,
profile, overrides and checks. Only the kernel is left out: the notebook's execution is the
smoke book's test, so here the study runs in this process from the checked parameters the
kernel would build (:meth:`~pruneaudit.book.profiles.Profile.study_params`), on one temporary
results store shared by the exercises. Each test checks the numbers of the exercise's
*Expected output* sentence against the run.
"""

from __future__ import annotations

import re
import shlex
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pruneaudit import cli, config
from pruneaudit.audit.findings import findings_frame
from pruneaudit.book.builder import runner
from pruneaudit.book.paths import BOOK
from pruneaudit.book.profiles import Profile, study_of
from pruneaudit.runs.store import ResultsStore

pytestmark = pytest.mark.slow

WORKSHOP = BOOK / "workshop.md"
PREFIX = [".venv/bin/pruneaudit"]
#: The profiles of the exercises: smoke, and real data at the quick profile (the last).
PROFILES = ("smoke", "quick")
QUICK = 7


def blocks(text: str, kind: str) -> dict[int, str]:
    """Exercise number -> the body of its ``{kind}`` block (``exercise`` labelled ``ws-N``, or
    the ``solution`` of ``ws-N``)."""
    found: dict[int, str] = {}
    for head, body in re.findall(r"^````\{" + kind + r"\}([^\n]*)\n(.*?)^````$", text,
                                 flags=re.MULTILINE | re.DOTALL):
        label = re.search(r"ws-(\d+)", head if kind == "solution" else body)
        assert label, f"a {kind} block without its ws-N label: {head}"
        found[int(label.group(1))] = body
    return found


def terminal_lines(text: str) -> dict[int, list[list[str]]]:
    """Exercise number -> its solution's terminal lines, each the arguments after the command
    (inline code starting with ``.venv/bin/pruneaudit``)."""
    found: dict[int, list[list[str]]] = {}
    for number, body in blocks(text, "solution").items():
        lines = [shlex.split(code) for code in re.findall(r"`([^`\n]+)`", body)]
        found[int(number)] = [line[len(PREFIX):] for line in lines if line[:len(PREFIX)] == PREFIX]
    return found


def expected(number: int) -> str:
    """Exercise ``number``'s *Expected output* sentence, on one line."""
    body = blocks(WORKSHOP.read_text(), "exercise")[number]
    _, _, rest = body.partition("*Expected output*:")
    assert rest, f"exercise {number} states no expected output"
    return " ".join(rest.split())


def test_the_line_parser() -> None:
    text = ("````{exercise} A\n:label: ws-1\n\nx\n````\n\n"
            "````{solution} ws-1\n:class: dropdown\n\n"
            "Terminal: `.venv/bin/pruneaudit run 01_x --profile smoke`.\n````\n"
            "````{solution} ws-2\n:class: dropdown\n\n`python -m x` and\n"
            '`.venv/bin/pruneaudit run 02_y -p "s=[0, 1]"`.\n````\n')
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
        self._result = study_of(name).run(params, self.store, progress=False)
        return self.out / f"{name}.ipynb"

    def run(self, argv: list[str]) -> Ran:
        assert "--profile" in argv and argv[argv.index("--profile") + 1] in PROFILES, argv
        self._result = None
        before, start = len(self.store.keys()), time.perf_counter()
        status = cli.main(argv)
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


def test_every_exercise_has_a_terminal_line_and_an_expected_output(workshop: Workshop) -> None:
    text = WORKSHOP.read_text()
    assert sorted(workshop.lines) == sorted(blocks(text, "exercise")) == list(range(1, QUICK + 1))
    for number, lines in workshop.lines.items():
        assert lines, f"exercise {number} has no terminal line"
        profile = "quick" if number == QUICK else "smoke"
        for argv in lines:
            assert argv[:1] == ["run"] and argv[argv.index("--profile") + 1] == profile, argv
        assert expected(number)
    assert "make live LIVE_ARGS=\"--profile smoke\"" in text
    assert not re.search(r"(?<![/\w.])python -m", text), "a terminal line without .venv/bin/"


def pct(value: float) -> str:
    return f"{100 * value:.1f}%"


def test_1_a_second_run_trains_nothing(workshop: Workshop) -> None:
    (first,), (second,) = workshop.exercise(1), workshop.exercise(1)
    assert first.status == second.status == 0
    assert second.new_runs == 0, "the second run trained or evaluated again"
    qw = study_of("02_qmnist_writers")
    tables = [findings_frame(qw.findings(r.result)) for r in (first, second)]
    pd.testing.assert_frame_equal(*tables)
    assert f"adds {second.new_runs} results to the store" in expected(1)


def test_2_one_more_pruning_round_is_sparser(workshop: Workshop) -> None:
    base = workshop.smoke("02_qmnist_writers")
    (more,) = workshop.exercise(2)
    assert more.status == 0
    assert more.result.params.iterations == base.result.params.iterations + 1
    assert more.result.sparsity.mean() > base.result.sparsity.mean()
    assert np.allclose(more.result.sparsity, 1 - 0.8 ** more.result.params.iterations, atol=0.01)
    stated = (f"{pct(more.result.sparsity.mean())} of the weights pruned instead of "
              f"{pct(base.result.sparsity.mean())}")
    assert stated in expected(2)


def test_3_one_more_seed_is_one_more_member(workshop: Workshop) -> None:
    (more,) = workshop.exercise(3)
    base = workshop.smoke("04_compression_impact")
    assert more.status == 0 and base.new_runs == 0, "the smoke members are the first ones"
    assert len(more.result.populations.seeds) == len(base.result.populations.seeds) + 1
    members = len(more.result.runs.baseline.preds)
    assert members == len(more.result.populations.seeds)
    assert f"{members} members per population instead of {members - 1}" in expected(3)


def test_4_the_weights_move_the_pick_to_either_end(workshop: Workshop) -> None:
    sparse, fair = workshop.exercise(4)
    assert sparse.status == fair.status == 0 and fair.new_runs == 0
    pick = sparse.result.chosen.iloc[0]
    candidates = sparse.result.candidates.frame
    assert pick["sparsity"] == candidates["sparsity"].max()
    assert f"the sparsest candidate, {pct(pick['sparsity'])} of the weights pruned" in expected(4)
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
    levels = " and ".join(f"{100 * t:.0f}%" for t in params.levels)
    assert f"{len(relative)} rows in the robustness table, one per pruning level ({levels})" \
        in expected(5)


def test_6_a_bad_value_is_refused_before_any_training(
    workshop: Workshop, capsys: pytest.CaptureFixture[str]
) -> None:
    (bad,) = workshop.exercise(6)
    assert bad.status == 2 and bad.result is None and bad.new_runs == 0
    message = expected(6).split("`")[1]
    assert message == "epochs must be int, got 'two'" and message in capsys.readouterr().err


def stated_ranges(text: str) -> list[tuple[float, float]]:
    """The ``between A% and B%`` ranges of an expected output, in order, as fractions."""
    return [(float(lo) / 100, float(hi) / 100)
            for lo, hi in re.findall(r"between (\d+(?:\.\d+)?)% and (\d+(?:\.\d+)?)%", text)]


def test_7_real_data_at_the_quick_profile(workshop: Workshop) -> None:
    (real,) = workshop.exercise(QUICK)
    assert real.status == 0 and real.result.params.train_size == 30_000
    points, text = real.result.points, expected(QUICK)
    (dense_lo, dense_hi), (pick_lo, pick_hi) = stated_ranges(text)[:2]
    assert dense_lo <= points.loc[points["technique"] == "dense", "accuracy"].item() <= dense_hi
    pruned = points[points["iteration"] > 0]
    top3 = set(pruned.nlargest(3, "accuracy")["label"])  # the floor lowered to keep 3
    for _, pick in real.result.chosen.iterrows():
        assert pick["label"] in top3 and pick_lo <= pick["accuracy"] <= pick_hi
    last = points[points["iteration"] == points["iteration"].max()].set_index("technique")
    assert last.loc["l1_structured", "accuracy"] > last.loc["random_structured", "accuracy"]
