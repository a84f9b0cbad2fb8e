"""A results store written by the code of commit 188de9a (before the package layout moved and
before runs recorded their device) is read by this code without retraining (issue 10 item 6,
issue 12): same run keys, every run found, read as CPU runs."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from pruneaudit import training
from pruneaudit.errors import PruneAuditError
from pruneaudit.runs import ResultsStore, RunSpec, populations

OLD_COMMIT = "188de9a"
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

OLD_SCRIPT = textwrap.dedent(
    """
    import json, sys
    from pruneaudit.experiments import member_specs, run_population, run_series
    from pruneaudit.store import ResultsStore, RunSpec

    store, root = ResultsStore(sys.argv[1]), sys.argv[2]
    base = RunSpec("mnist", "lenet", epochs=1, train_size=64, test_size=40)
    dense = member_specs(base, [0, 1])
    gradual = member_specs(base, [0], 0.5)
    run_population(dense, store, root, progress=False)
    run_population(gradual, store, root, progress=False)
    run_series([base], "l1_unstructured", "finetune", 1, store, root, progress=False)
    print(json.dumps(store.keys()))
    """
)


@pytest.fixture(scope="module")
def old_store(tmp_path_factory, data_root):
    """(store root, keys) of a store written by the old code in a subprocess."""
    git = shutil.which("git")
    if git is None or subprocess.run(
        [git, "-C", REPO, "rev-parse", "--verify", "--quiet", f"{OLD_COMMIT}^{{commit}}"],
        capture_output=True,
    ).returncode:
        pytest.skip(f"commit {OLD_COMMIT} is not in this checkout's git history")
    tmp = tmp_path_factory.mktemp("legacy")
    archive = subprocess.run(
        [git, "-C", REPO, "archive", OLD_COMMIT, "src"], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(tmp)], input=archive, check=True)
    env = {**os.environ, "PYTHONPATH": str(tmp / "src"), "OMP_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, "-c", OLD_SCRIPT, str(tmp / "store"), str(data_root)],
        capture_output=True, text=True, env=env, cwd=tmp,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return tmp / "store", json.loads(done.stdout.strip().splitlines()[-1])


def _refuse_training(*args, **kwargs):
    raise AssertionError("a stored run was trained again")


def test_old_store_is_read_without_retraining(old_store, data_root, monkeypatch):
    root, old_keys = old_store
    monkeypatch.setattr(training, "train_population", _refuse_training)
    monkeypatch.setattr(populations.training, "train_population", _refuse_training)
    store = ResultsStore(root)
    base = RunSpec("mnist", "lenet", epochs=1, train_size=64, test_size=40)
    dense = populations.member_specs(base, [0, 1])
    gradual = populations.member_specs(base, [0], 0.5)
    series = populations.series_specs(base, "l1_unstructured", "finetune", 1)
    new_keys = {s.key for s in [*dense, *gradual, *series]}
    assert new_keys == set(old_keys)  # the keys of CPU runs did not change
    pop = populations.run_population(dense, store, str(data_root), progress=False)
    assert pop.preds.shape == (2, 40)
    populations.run_population(gradual, store, str(data_root), progress=False)
    frame = populations.run_series(
        [base], "l1_unstructured", "finetune", 1, store, str(data_root), progress=False
    )
    assert set(frame["iteration"]) == {0, 1}
    for key in old_keys:  # no env.json: written before devices were recorded, a CPU run
        run = store.load(key)
        assert not (run.path / "env.json").exists()
        assert run.device_type == "cpu" and run.env["recorded"] is False
    model = populations.load_model(series[1], store, str(data_root))
    assert model is not None


def test_a_population_is_not_mixed_across_device_types(old_store, tmp_path, data_root):
    """An old (CPU) run beside a run marked as made on CUDA: one clear error, no table."""
    root, old_keys = old_store
    copy = tmp_path / "store"
    shutil.copytree(root, copy)
    store = ResultsStore(copy)
    base = RunSpec("mnist", "lenet", epochs=1, train_size=64, test_size=40)
    dense = populations.member_specs(base, [0, 1])
    (store.path(dense[1]) / "env.json").write_text(json.dumps({"device": "cuda"}))
    with pytest.raises(PruneAuditError, match=r"different device types \(1 on cpu .* 1 on cuda"):
        populations.population(dense, store)
    with pytest.raises(PruneAuditError, match="different device types"):
        store.collect(dense, table="predictions")
    assert len(populations.population(dense[:1], store).specs) == 1  # one type alone is fine
