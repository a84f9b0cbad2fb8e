"""Several notebooks at once (``build --jobs N``): order, overlap and errors of
:func:`pruneaudit.book.builder.parallel.run_each`, with a stand-in for a notebook that leaves its
start and end times in a file (the workers are other processes)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pandas as pd
import pytest

from pruneaudit.book.builder import parallel
from pruneaudit.errors import PruneAuditError


def _notebook(folder: Path, seconds: float = 0.4, fails: str = ""):
    def run(name: str) -> str:
        start = time.time()
        if name == fails:
            raise PruneAuditError(f"notebook {name} failed")
        time.sleep(seconds)
        (folder / f"{name}.json").write_text(json.dumps([start, time.time()]))
        return name.upper()

    return run


def _times(folder: Path) -> dict[str, list[float]]:
    return {p.stem: json.loads(p.read_text()) for p in folder.glob("*.json")}


def test_independent_notebooks_overlap_and_a_reader_waits(tmp_path: Path) -> None:
    names = ["a", "b", "c"]
    needs = {"c": ["a"], "a": ["not_built"]}  # a need outside the build is not waited for
    out = dict(parallel.run_each(names, needs, _notebook(tmp_path), workers=2))
    assert out == {"a": "A", "b": "B", "c": "C"}
    t = _times(tmp_path)
    assert t["a"][0] < t["b"][1] and t["b"][0] < t["a"][1], "a and b did not run side by side"
    assert t["c"][0] >= t["a"][1], "c started before a, whose parameters it reads, ended"


def test_a_notebook_others_wait_for_starts_first(tmp_path: Path) -> None:
    """d reads c: of a, b and c, ready at once, c starts in the first pair (beside a), and b
    only once one of them has ended; d then runs beside b instead of after it."""
    out = dict(parallel.run_each(["a", "b", "c", "d"], {"d": ["c"]}, _notebook(tmp_path),
                                 workers=2))
    assert set(out) == {"a", "b", "c", "d"}
    t = _times(tmp_path)
    first_end = min(t["a"][1], t["c"][1])
    assert t["c"][0] < first_end and t["a"][0] < first_end, "c and a did not start together"
    assert t["b"][0] >= first_end - 0.05, "b started before c, which d waits for"


def test_waiting_on_counts_every_notebook_downstream() -> None:
    """Brute force on a chain and a fork: a <- b <- c, a <- d; e alone; x is not built."""
    needs = {"b": ["a"], "c": ["b"], "d": ["a", "x"]}
    assert parallel._waiting_on(["a", "b", "c", "d", "e"], needs) == {
        "a": 3, "b": 1, "c": 0, "d": 0, "e": 0}


def test_one_worker_runs_in_order_in_this_process(tmp_path: Path) -> None:
    seen = []
    out = list(parallel.run_each(["x", "y"], {}, lambda n: seen.append(n) or n, workers=1))
    assert out == [("x", "x"), ("y", "y")] and seen == ["x", "y"]


def test_a_failure_stops_what_waits_for_it_and_lets_the_others_end(tmp_path: Path) -> None:
    run = _notebook(tmp_path, seconds=0.6, fails="a")
    with pytest.raises(PruneAuditError, match="notebook a failed"):
        list(parallel.run_each(["a", "b", "c"], {"c": ["a"]}, run, workers=2))
    assert set(_times(tmp_path)) == {"b"}  # b ended; c, which reads a, never started


@pytest.mark.parametrize("workers", [0, -1, 1.5, True, "2"])
def test_bad_jobs_is_one_error(workers: object) -> None:
    with pytest.raises(PruneAuditError, match="jobs must be a positive integer"):
        list(parallel.run_each(["a"], {}, str, workers))


def test_a_build_on_a_gpu_runs_one_notebook_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    from pruneaudit.book.builder import runner

    monkeypatch.setattr(runner, "_cuda", lambda: True)
    with pytest.raises(PruneAuditError, match="slow each other; run them one at a time"):
        runner.build("smoke", jobs=2)
    with pytest.raises(PruneAuditError, match="jobs must be a positive integer"):
        runner.build("smoke", jobs=0)


@pytest.mark.slow
def test_two_jobs_store_and_find_what_one_job_does(tmp_path: Path, data_root: Path) -> None:
    """Studies 3, 4 and 5 of the smoke profile executed one at a time and two at a time
    (``build --jobs 2``: Studies 4 and 3 side by side, then 5, which reads 4's populations),
    each into an empty store: the same run keys, the same predictions and the same findings.
    The processes race for the cores; what they store and find does not."""
    from pruneaudit.book.builder import runner
    from pruneaudit.book.builder.plan import make_plan
    from pruneaudit.book.profiles import Profile
    from pruneaudit.runs.store import ResultsStore

    names = ["03_pareto_selection", "04_compression_impact", "05_robustness"]
    built = {}
    for jobs in (1, 2):
        store, studies = tmp_path / f"store{jobs}", tmp_path / f"studies{jobs}"
        profile = Profile.read("smoke", {"store": str(store), "data_root": str(data_root)})
        runner.run_plan(make_plan(profile, names, studies), studies, progress=False, jobs=jobs)
        findings = {n: json.loads((studies / f"{n}.findings.json").read_text()) for n in names}
        built[jobs] = (ResultsStore(store), findings)
    (one, found_one), (two, found_two) = built[1], built[2]
    keys = one.keys()  # a ResultsStore is not a mapping
    assert keys and sorted(keys) == sorted(two.keys())
    for key in keys:
        a, b = one.load(key), two.load(key)
        pd.testing.assert_frame_equal(a.predictions, b.predictions)
    assert found_one == found_two
