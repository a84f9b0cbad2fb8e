"""Results stores written by older code are read by this code without retraining.

- commit 188de9a: before the package layout moved and before runs recorded their device
  (issue 10 item 6, issue 12): every run found, read as CPU runs;
- commit c1ec739: the last code whose run keys held the package version (issue 19): every run
  found under its legacy key and read as the spec it is today.

Both trained LeNets with the population trainer's legacy scheme (a member's bits could depend on
its companions), so their runs are read as specs of that scheme (``trainer=1``); today's specs
of the same runs (the current scheme) do not find them, and would be trained anew.
"""

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
from pruneaudit.runs import ResultsStore, RunSpec, iterative, populations, trained
from pruneaudit.runs.spec import LEGACY_TRAINER_SCHEME, TRAINER_SCHEME
from pruneaudit.runs.store import legacy_keys

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

VERSIONED_KEYS_SCRIPT = textwrap.dedent(
    """
    import json, sys
    from pruneaudit.runs import ResultsStore, RunSpec, populations

    store, root = ResultsStore(sys.argv[1]), sys.argv[2]
    base = RunSpec("mnist", "lenet", epochs=1, train_size=64, test_size=40)
    populations.run_population(populations.member_specs(base, [0, 1]), store, root, progress=False)
    gradual = populations.member_specs(base, [0], 0.5)
    populations.run_population(gradual, store, root, progress=False)
    populations.run_series([base], "l1_unstructured", "finetune", 1, store, root, progress=False)
    print(json.dumps(store.keys()))
    """
)
#: (commit, script that writes a store with that commit's code, whether runs record env.json)
OLD_CODE = {
    "188de9a": (OLD_SCRIPT, False),
    "c1ec739": (VERSIONED_KEYS_SCRIPT, True),
}


@pytest.fixture(scope="module", params=sorted(OLD_CODE))
def old_store(request, tmp_path_factory, data_root):
    """(store root, keys, whether runs have env.json) of a store written by old code in a
    subprocess."""
    commit = request.param
    script, recorded = OLD_CODE[commit]
    git = shutil.which("git")
    if git is None or subprocess.run(
        [git, "-C", REPO, "rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}"],
        capture_output=True,
    ).returncode:
        pytest.skip(f"commit {commit} is not in this checkout's git history")
    tmp = tmp_path_factory.mktemp("legacy")
    archive = subprocess.run(
        [git, "-C", REPO, "archive", commit, "src"], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(tmp)], input=archive, check=True)
    env = {**os.environ, "PYTHONPATH": str(tmp / "src"), "OMP_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp / "store"), str(data_root)],
        capture_output=True, text=True, env=env, cwd=tmp,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return tmp / "store", json.loads(done.stdout.strip().splitlines()[-1]), recorded


def _refuse_training(*args, **kwargs):
    raise AssertionError("a stored run was trained again")


@pytest.mark.slow
def test_old_store_is_read_without_retraining(old_store, data_root, monkeypatch):
    root, old_keys, recorded = old_store
    monkeypatch.setattr(training, "train_packed", _refuse_training)
    store = ResultsStore(root)
    base = RunSpec(
        "mnist", "lenet", epochs=1, train_size=64, test_size=40, trainer=LEGACY_TRAINER_SCHEME
    )
    dense = populations.member_specs(base, [0, 1])
    gradual = populations.member_specs(base, [0], 0.5)
    series = iterative.series_specs(base, "l1_unstructured", "finetune", 1)
    specs = [*dense, *gradual, *series]
    # stored under the keys of the package version 0.1.0 (devices never changed the keys)
    assert {legacy_keys(s)[0] for s in specs} == set(old_keys)
    assert not {s.key for s in specs} & set(old_keys)
    before = sorted(str(p.relative_to(root)) for p in root.rglob("*"))
    pop = populations.run_population(dense, store, str(data_root), progress=False)
    assert pop.preds.shape == (2, 40)
    populations.run_population(gradual, store, str(data_root), progress=False)
    frame = iterative.run_series(
        [base], "l1_unstructured", "finetune", 1, store, str(data_root), progress=False
    )
    assert set(frame["iteration"]) == {0, 1}
    for key in old_keys:
        run = store.load(key)
        assert run.device_type == "cpu"
        # without env.json: written before devices were recorded, a CPU run
        assert (run.path / "env.json").exists() == recorded
        assert recorded or run.env["recorded"] is False
    model = trained.load_model(series[1], store, str(data_root))
    assert model is not None
    # read as today's specs: current keys everywhere, no version column, nothing written
    assert store.keys() == sorted({s.key for s in specs})
    listing = store.runs(seed=0)
    assert set(listing["key"]) == {s.key for s in specs if s.seed == 0}
    assert "version" not in listing.columns
    for spec in specs:
        run = store.load(spec.key)
        assert run.spec == spec and run.path.name == legacy_keys(spec)[0]
        assert set(run.classes["key"]) == {spec.key} and "version" not in run.classes.columns
    assert store.get_or_run(dense[0], _refuse_training).spec == dense[0]
    assert sorted(str(p.relative_to(root)) for p in root.rglob("*")) == before
    # today's specs of these runs (the current trainer scheme) are not in the store
    assert not any(store.has(s.replace(trainer=TRAINER_SCHEME)) for s in specs)


@pytest.mark.slow
def test_a_population_is_not_mixed_across_device_types(old_store, tmp_path, data_root):
    """An old (CPU) run beside a run marked as made on CUDA: one clear error, no table."""
    root, old_keys, _ = old_store
    copy = tmp_path / "store"
    shutil.copytree(root, copy)
    store = ResultsStore(copy)
    base = RunSpec(
        "mnist", "lenet", epochs=1, train_size=64, test_size=40, trainer=LEGACY_TRAINER_SCHEME
    )
    dense = populations.member_specs(base, [0, 1])
    (store.path(dense[1]) / "env.json").write_text(json.dumps({"device": "cuda"}))
    with pytest.raises(PruneAuditError, match=r"different device types \(1 on cpu .* 1 on cuda"):
        populations.population(dense, store)
    with pytest.raises(PruneAuditError, match="different device types"):
        store.collect(dense, table="predictions")
    assert len(populations.population(dense[:1], store).specs) == 1  # one type alone is fine
