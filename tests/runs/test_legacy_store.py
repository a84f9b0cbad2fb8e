"""Results stores written by older code whose run keys held the package version (0.1.0) are
refused by this code with one error line that names the fix; nothing is trained or written.

- commit 188de9a: before the package layout moved and before runs recorded their device
  (issue 10 item 6, issue 12);
- commit c1ec739: the last code whose run keys held the package version (issue 19).
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
from pruneaudit.runs import ResultsStore, RunSpec, iterative, populations

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
    raise AssertionError("a run was trained in a store of older keys")


@pytest.mark.slow
def test_old_store_is_refused_with_one_line_and_nothing_written(old_store, data_root, monkeypatch):
    root, old_keys, _ = old_store
    monkeypatch.setattr(training, "train_packed", _refuse_training)
    base = RunSpec("mnist", "lenet", epochs=1, train_size=64, test_size=40)
    dense = populations.member_specs(base, [0, 1])
    before = sorted(str(p.relative_to(root)) for p in root.rglob("*"))
    message = (rf"results store '{root}' holds {len(old_keys)} runs under keys of an older "
               r"pruneaudit \(before 2026-11-25.*delete the store folder or re-run with a "
               r"fresh --store")
    for attempt in (
        lambda: populations.run_population(dense, ResultsStore(root), str(data_root),
                                           progress=False),
        lambda: iterative.run_series([base], "l1_unstructured", "finetune", 1,
                                     ResultsStore(root), str(data_root), progress=False),
        lambda: ResultsStore(root).load(old_keys[0]),
        lambda: ResultsStore(root).runs(seed=0),
    ):
        with pytest.raises(PruneAuditError, match=message) as err:
            attempt()
        assert "\n" not in str(err.value)
    assert sorted(str(p.relative_to(root)) for p in root.rglob("*")) == before
