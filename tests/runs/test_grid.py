"""Grids, local and Dask executors, the standard task, crash and resume, the command line."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pandas as pd
import pytest
import torch
import yaml

from pruneaudit import cli, compress, data
from pruneaudit.errors import PruneAuditError
from pruneaudit.models import build_model
from pruneaudit.runs import (
    Dask,
    Grid,
    ResultsStore,
    RunSpec,
    grid,
    iterative_parent,
    run_grid,
    train_and_evaluate,
)

# A small real grid: 3 techniques x 2 treatments x 2 seeds, one pruning round after a dense run.
AXES = {
    "dataset": "mnist",
    "model": "lenet",
    "technique": ["l1_unstructured", "random_unstructured", "l1_structured"],
    "treatment": ["finetune", "rewind"],
    "iteration": 1,
    "seed": [0, 1],
    "epochs": 2,
    "lr": 0.1,
    "train_size": 1024,
    "test_size": 256,
}
N_RUNS = 3 * 2 * 2 + 2  # the pruned runs and their two dense predecessors
#: A run that fails on the worker: CIFAR-10 is not in the offline data folder.
BAD = RunSpec("cifar10", "lenet", epochs=1, train_size=64, test_size=64)
BAD_MESSAGE = "dataset 'cifar10'"


def small_result(spec: RunSpec):
    labels = np.arange(10)
    table = pd.DataFrame({"class": labels, "accuracy": 1.0, "n": 1})
    preds = pd.DataFrame(
        {"index": labels, "label": labels, "prediction": (labels + spec.seed) % 10}
    )
    return table, preds


def fake_task(spec: RunSpec, store_root: str, data_root: str, runtime: object) -> str:
    """A fast task: fails for seed 13, else saves a made-up run."""
    if spec.seed == 13:
        raise RuntimeError("boom on purpose")
    ResultsStore(store_root).save(spec, *small_result(spec))
    return spec.key


def lazy_task(spec: RunSpec, store_root: str, data_root: str, runtime: object) -> str:
    """A task that forgets to save its run."""
    return spec.key


def store_contents(store: ResultsStore, keys) -> dict:
    """Everything stored for the given runs: tables and checkpoint tensors."""
    out = {}
    for key in sorted(keys):
        run = store.load(key)
        ckpt = run.checkpoint() if run.has_checkpoint else {}
        out[key] = (run.spec, run.classes, run.predictions, ckpt)
    return out


def assert_same_runs(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for key in a:
        spec_a, classes_a, preds_a, ckpt_a = a[key]
        spec_b, classes_b, preds_b, ckpt_b = b[key]
        assert spec_a == spec_b
        pd.testing.assert_frame_equal(classes_a, classes_b)
        pd.testing.assert_frame_equal(preds_a, preds_b)
        assert ckpt_a.keys() == ckpt_b.keys()
        for name in ckpt_a:
            assert torch.equal(ckpt_a[name], ckpt_b[name]), (key, name)


# --------------------------------------------------------------------------- grids


def test_grid_expands_the_product_and_dense_runs_once():
    g = Grid(
        {"dataset": "mnist", "model": "lenet", "technique": [None, "l1_unstructured"]},
        treatment=["finetune", "rewind"],
        iteration=[1, 2],
        seed=[0, 1],
    )
    specs = g.specs()
    assert len(g) == len(specs) == 2 + 2 * 2 * 2
    assert len({s.key for s in specs}) == len(specs)
    dense = [s for s in specs if s.technique is None]
    assert [(s.seed, s.treatment, s.iteration) for s in dense] == [(0, None, 0), (1, None, 0)]
    assert list(g) == specs


def test_grid_extra_axes():
    g = Grid(dataset="mnist", model="lenet", extra={"level": [0.1, 0.5], "note": "x"})
    assert [dict(s.extra) for s in g] == [{"level": 0.1, "note": "x"}, {"level": 0.5, "note": "x"}]


@pytest.mark.parametrize(
    ("axes", "message"),
    [
        ({"dataset": "mnist", "model": "lenet", "seeds": [0]}, "grid field 'seeds'.*'seed'"),
        ({"dataset": "mnist"}, "needs at least a 'dataset' and a 'model'"),
        ({"dataset": "mnist", "model": "lenet", "seed": []}, "axis 'seed' has no values"),
        ({"dataset": "mnist", "model": ["lenet", "lenett"]}, "unknown model 'lenett'"),
        ({"dataset": "mnist", "model": "lenet", "epochs": [1, 0]}, "epochs must be a positive"),
        ({"dataset": "mnist", "model": "lenet", "extra": [1]}, "'extra' must be a mapping"),
    ],
)
def test_bad_grids_fail_before_running(axes, message):
    with pytest.raises(PruneAuditError, match=message):
        Grid(axes)


def test_grid_from_yaml(tmp_path):
    path = tmp_path / "grid.yaml"
    path.write_text(yaml.safe_dump(AXES, sort_keys=False))
    assert Grid.from_yaml(path).specs() == Grid(AXES).specs()
    path.write_text("dataset: [mnist\n")
    with pytest.raises(PruneAuditError, match="not valid YAML"):
        Grid.from_yaml(path)
    path.write_text("- mnist\n")
    with pytest.raises(PruneAuditError, match="must hold a mapping"):
        Grid.from_yaml(path)
    with pytest.raises(PruneAuditError, match="cannot read grid file"):
        Grid.from_yaml(tmp_path / "missing.yaml")


def test_iterative_parent_chain():
    spec = RunSpec("mnist", "lenet", "l2_structured", "rewind", iteration=3, seed=4)
    chain = [spec]
    while (p := iterative_parent(chain[-1])) is not None:
        chain.append(p)
    assert [s.iteration for s in chain] == [3, 2, 1, 0]
    assert chain[-1] == RunSpec("mnist", "lenet", seed=4)


# --------------------------------------------------------------------------- runner


def test_runner_skips_stored_runs_and_reports_failures(tmp_path, capsys):
    store = ResultsStore(tmp_path)
    specs = [RunSpec("mnist", "lenet", seed=s) for s in (0, 1, 13, 2)]
    report = run_grid(specs, fake_task, store, progress=False)
    assert [s.seed for s in report.done] == [0, 1, 2] and report.skipped == []
    [(failed, tb)] = report.failed
    assert failed.seed == 13 and "RuntimeError: boom on purpose" in tb and "fake_task" in tb
    out = capsys.readouterr().out
    assert "3 done, 0 skipped (already stored), 1 failed" in out
    assert "seed=13" in out and "boom on purpose" in out
    again = run_grid(specs, fake_task, store, progress=False)
    assert again.done == [] and len(again.skipped) == 3 and len(again.failed) == 1


def test_runner_adds_and_orders_predecessors(tmp_path):
    store = ResultsStore(tmp_path)
    spec = RunSpec("mnist", "lenet", "l1_unstructured", "finetune", iteration=2, seed=5)
    store.save(iterative_parent(iterative_parent(spec)), *small_result(spec))
    report = run_grid([spec], fake_task, store, progress=False)
    assert [s.iteration for s in report.done] == [1, 2]
    assert len(store.keys()) == 3
    bad = spec.replace(seed=13)
    report = run_grid([bad], fake_task, store, progress=False)
    assert report.done == [] and [s.iteration for s, _ in report.failed] == [0, 1, 2]
    assert "predecessor" in report.failed[2][1]


def test_runner_checks_the_task_saved_and_the_version(tmp_path):
    store = ResultsStore(tmp_path)
    report = run_grid([RunSpec("mnist", "lenet")], lazy_task, store, progress=False)
    assert "returned without saving" in report.failed[0][1]
    old = RunSpec("mnist", "lenet", protocol="0")
    report = run_grid([old], fake_task, store, progress=False)
    assert "install the same version" in report.failed[0][1]
    with pytest.raises(PruneAuditError, match="has pruneaudit .* declared with 0.0.1"):
        grid._execute(fake_task, RunSpec("mnist", "lenet"), str(tmp_path), "", None, "0.0.1")
    assert store.keys() == []


def test_runner_rejects_bad_arguments(tmp_path):
    specs = [RunSpec("mnist", "lenet")]
    with pytest.raises(PruneAuditError, match="unknown executor 'dusk'.*'dask'"):
        run_grid(specs, fake_task, tmp_path, executor="dusk")
    with pytest.raises(PruneAuditError, match="n_workers must be a positive integer"):
        run_grid(specs, fake_task, tmp_path, executor=Dask(n_workers=0))
    with pytest.raises(PruneAuditError, match="a grid holds RunSpecs"):
        run_grid([{"dataset": "mnist"}], fake_task, tmp_path)
    assert not (tmp_path / "runs").exists()


# --------------------------------------------------------------------------- the real task


def test_task_runs_equal_an_uninterrupted_series(tmp_path, data_root):
    """Rounds made one task at a time, each resumed from the store, equal one uninterrupted
    series of pruneaudit.experiments; the series prunes to 1 - 0.8**k and rewinds exactly."""
    from pruneaudit import runs

    spec = RunSpec(
        "mnist", "lenet", "l1_structured", "rewind", iteration=2, seed=3, epochs=1, lr=0.1,
        train_size=512, test_size=256,
    )
    chain = [iterative_parent(iterative_parent(spec)), iterative_parent(spec), spec]
    report = run_grid([spec], store=tmp_path / "tasks", data_root=data_root, progress=False)
    assert report.done == chain
    assert train_and_evaluate(spec, tmp_path / "tasks", data_root) == spec.key  # stored: no-op

    whole = ResultsStore(tmp_path / "whole")
    runs.run_series([spec], "l1_structured", "rewind", 2, whole, str(data_root), False)
    tasks = ResultsStore(tmp_path / "tasks")
    assert tasks.keys() == whole.keys() == sorted(s.key for s in chain)
    assert_same_runs(store_contents(tasks, tasks.keys()), store_contents(whole, whole.keys()))

    dense = tasks.load(chain[0]).checkpoint()
    init = compress.snapshot(build_model("lenet", 10, 1, 28, seed=3))
    assert all(torch.equal(dense["init." + n], t) for n, t in init.items())
    last = tasks.load(spec)
    assert last.classes["sparsity"].iloc[0] == pytest.approx(1 - 0.8**2, abs=0.02)
    labels = data.load("mnist", "test", root=data_root).labels[:256].numpy()
    np.testing.assert_array_equal(last.predictions["label"].to_numpy(), labels)


def test_task_rejects_runs_it_does_not_make(tmp_path, data_root):
    for spec in (
        RunSpec("mnist", "lenet", epochs=1, train_size=64, extra={"scheme": "float16"}),
        RunSpec("mnist", "lenet", epochs=1, train_size=64, extra={"level": 0.5}),
        RunSpec(**{**AXES, "technique": "l1_unstructured", "treatment": "rewind",
                   "seed": 0, "extra": {"note": 1}}),
    ):
        with pytest.raises(PruneAuditError, match="train_and_evaluate makes dense"):
            train_and_evaluate(spec, tmp_path, data_root)
    with pytest.raises(PruneAuditError, match=BAD_MESSAGE):
        train_and_evaluate(BAD, tmp_path, data_root)
    assert ResultsStore(tmp_path).keys() == []


def test_task_makes_gradual_members(tmp_path, data_root):
    from pruneaudit import runs

    base = RunSpec("mnist", "lenet", epochs=1, lr=0.1, train_size=256, test_size=64)
    [member] = runs.member_specs(base, [4], level=0.5)
    report = run_grid([member], store=tmp_path, data_root=data_root, progress=False)
    assert report.done == [member]
    assert ResultsStore(tmp_path).load(member).classes["sparsity"].iloc[0] == pytest.approx(
        0.5, abs=0.01
    )


@pytest.fixture(scope="module")
def local_grid(tmp_path_factory, data_root):
    """The small real grid (plus one failing run) with the local executor."""
    store = ResultsStore(tmp_path_factory.mktemp("local"))
    report = run_grid([*Grid(AXES), BAD], store=store, data_root=data_root, progress=False)
    return store, report


@pytest.mark.slow
def test_local_grid(local_grid):
    store, report = local_grid
    assert len(report.done) == N_RUNS and report.skipped == []
    [(failed, tb)] = report.failed
    assert failed == BAD and BAD_MESSAGE in tb
    classes = store.collect(report.done)
    assert classes.groupby("key").size().eq(10).all()
    assert classes["accuracy"].nunique() > 10  # the models learned different things
    pruned = classes[classes["iteration"] == 1]
    assert pruned["sparsity"].between(0.19, 0.21).all()


@pytest.mark.slow
def test_dask_local_cluster_gives_identical_results(local_grid, tmp_path, data_root):
    local_store, local_report = local_grid
    store = ResultsStore(tmp_path)
    report = run_grid(
        [*Grid(AXES), BAD], store=store, data_root=data_root, executor=Dask(n_workers=2),
        progress=False,
    )
    assert {s.key for s in report.done} == {s.key for s in local_report.done}
    assert [s for s, _ in report.failed] == [BAD]
    assert BAD_MESSAGE in report.failed[0][1]
    keys = store.keys()
    assert len(keys) == N_RUNS
    assert_same_runs(store_contents(store, keys), store_contents(local_store, keys))
    local = local_store.collect(keys).sort_values(["key", "class"], ignore_index=True)
    dask_ = store.collect(keys).sort_values(["key", "class"], ignore_index=True)
    pd.testing.assert_frame_equal(local, dask_)


# --------------------------------------------------------------------------- crash safety


def _cli(store_dir, grid_file, data_root) -> list[str]:
    return [
        sys.executable, "-m", "pruneaudit", "grid", "run", str(grid_file),
        "--store", str(store_dir), "--data", str(data_root), "--no-progress",
    ]


def _counts(output: str) -> tuple[int, int, int]:
    match = re.search(r"grid: (\d+) done, (\d+) skipped \(already stored\), (\d+) failed", output)
    assert match, output
    return tuple(int(g) for g in match.groups())


@pytest.mark.slow
def test_crash_and_resume(local_grid, tmp_path, data_root):
    """SIGKILL the runner in the middle of the grid; a restart runs only the missing runs."""
    local_store, _ = local_grid
    grid_file = tmp_path / "grid.yaml"
    grid_file.write_text(yaml.safe_dump(AXES))
    store_dir = tmp_path / "store"
    env = {**os.environ, "OMP_NUM_THREADS": "1"}  # the same thread count as this process
    proc = subprocess.Popen(
        _cli(store_dir, grid_file, data_root), env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    store = ResultsStore(store_dir)
    deadline = time.monotonic() + 300
    try:
        while not store.keys():
            assert proc.poll() is None, "the grid ended before it could be killed"
            assert time.monotonic() < deadline, "no run finished in time"
            time.sleep(0.02)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    finished = store.keys()
    assert 1 <= len(finished) < N_RUNS, "the kill did not land in the middle of the grid"
    stored_grid_runs = sum(store.has(s) for s in Grid(AXES))

    again = subprocess.run(
        _cli(store_dir, grid_file, data_root), env=env, capture_output=True, text=True, timeout=600
    )
    assert again.returncode == 0, again.stdout + again.stderr
    done, skipped, failed = _counts(again.stdout)
    print(f"killed after {len(finished)} of {N_RUNS} runs were stored; the restart ran {done}, "
          f"skipped {skipped} stored grid runs, {failed} failed")
    assert (done, skipped, failed) == (N_RUNS - len(finished), stored_grid_runs, 0)
    keys = store.keys()
    assert len(keys) == N_RUNS and set(finished) <= set(keys)
    assert not list((store_dir / "tmp").iterdir())
    assert_same_runs(store_contents(store, keys), store_contents(local_store, keys))


WRITER = textwrap.dedent(
    """
    import pathlib, sys, time
    import numpy as np, pandas as pd
    from pruneaudit.runs import store as store_mod
    from pruneaudit.runs import ResultsStore, RunSpec

    root, signal_file, stage = sys.argv[1:]

    def pause(at, tmp):
        if at == stage:  # written whole, then renamed: the test never reads it half-written
            pathlib.Path(signal_file + ".part").write_text(str(tmp))
            pathlib.Path(signal_file + ".part").rename(signal_file)
            time.sleep(600)

    store_mod._before_publish = pause
    labels = np.arange(10)
    table = pd.DataFrame({"class": labels, "accuracy": 1.0, "n": 1})
    preds = pd.DataFrame({"index": labels, "label": labels, "prediction": labels})
    checkpoint = {"w": __import__("torch").ones(3)}
    ResultsStore(root).save(RunSpec("mnist", "lenet"), table, preds, checkpoint)
    """
)


@pytest.mark.slow
@pytest.mark.parametrize("stage", ["classes", "done"])
def test_kill_during_a_write_leaves_nothing_finished(tmp_path, stage):
    signal_file = tmp_path / "writing"
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(tmp_path / "store"), str(signal_file), stage]
    )
    deadline = time.monotonic() + 120
    try:
        while not signal_file.exists():
            assert proc.poll() is None, "the writer ended early"
            assert time.monotonic() < deadline
            time.sleep(0.02)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    partial = signal_file.read_text()
    assert os.path.isdir(partial)  # the half-written run is there, under tmp/
    store = ResultsStore(tmp_path / "store")
    spec = RunSpec("mnist", "lenet")
    assert not store.has(spec) and store.keys() == [] and store.runs().empty
    with pytest.raises(PruneAuditError, match="no finished run"):
        store.load(spec)
    # The next writer removes the dead writer's folder and writes the run whole.
    store.save(spec, *small_result(spec))
    assert not os.path.exists(partial) and store.keys() == [spec.key]


# --------------------------------------------------------------------------- command line


def test_cli_grid_run_and_store_ls(tmp_path, capsys):
    grid_file = tmp_path / "grid.yaml"
    grid_file.write_text(yaml.safe_dump({"dataset": "mnist", "model": "lenet", "seed": [0, 1]}))
    store_dir = str(tmp_path / "store")
    common = ["--store", store_dir, "--task", f"{__name__}:fake_task", "--no-progress"]
    assert cli.main(["grid", "run", str(grid_file), "--seed", "4", "5", "6", *common]) == 0
    assert "3 done, 0 skipped" in capsys.readouterr().out
    assert sorted(ResultsStore(store_dir).runs()["seed"]) == [4, 5, 6]
    assert cli.main(["grid", "run", str(grid_file), "--seed", "4", "13", *common]) == 1
    assert "0 done, 1 skipped (already stored), 1 failed" in capsys.readouterr().out
    assert cli.main(["store", "ls", "--store", store_dir, "--where", "seed=5"]) == 0
    out = capsys.readouterr().out
    assert "1 runs in" in out and RunSpec("mnist", "lenet", seed=5).key[:12] in out
    assert cli.main(["store", "ls", "--store", store_dir, "--csv"]) == 0
    assert len(capsys.readouterr().out.strip().splitlines()) == 1 + 3


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["grid", "run", "--dataset", "mnst", "--model", "lenet"], "Did you mean 'mnist'"),
        (["grid", "run", "--dataset", "mnist", "--model", "lenet", "--task", "nope"],
         "module:function"),
        (["grid", "run", "--dataset", "mnist", "--model", "lenet", "--task", "os:nothing"],
         "cannot import task"),
        (["store", "ls", "--where", "seed"], "FIELD=VALUE"),
        (["grid", "run", "--dataset", "mnist", "--model", "lenet", "--scheduler-address",
          "tcp://127.0.0.1:1"], "scheduler_address needs executor='dask'"),
        (["grid", "run", "--dataset", "mnist", "--model", "lenet", "--executor", "dask",
          "--n-workers", "0"], "n_workers must be a positive integer"),
    ],
)
def test_cli_bad_input(tmp_path, capsys, argv, message):
    assert cli.main([*argv, "--store", str(tmp_path)]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()

