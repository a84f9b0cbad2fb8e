"""Results store: keys, round trip, cache hits and atomic writes."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from pruneaudit.errors import PruneAuditError
from pruneaudit.runs import ResultsStore, Run, RunSpec
from pruneaudit.runs import spec as spec_mod
from pruneaudit.runs import store as store_mod
from pruneaudit.training.device import environment, resolve_device

BASE = RunSpec(dataset="mnist", model="lenet", epochs=1, train_size=512, test_size=256)


def fake_result(seed: int = 0, n: int = 20, classes: int = 10):
    """A made-up evaluation: per-class table, predictions and a small checkpoint."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, classes, n)
    preds = np.where(rng.random(n) < 0.7, labels, rng.integers(0, classes, n))
    table = pd.DataFrame(
        {
            "class": np.arange(classes),
            "accuracy": [
                float((preds[labels == c] == c).mean()) if (labels == c).any() else np.nan
                for c in range(classes)
            ],
            "n": np.bincount(labels, minlength=classes),
            "sparsity": 0.0,
        }
    )
    predictions = pd.DataFrame({"index": np.arange(n), "label": labels, "prediction": preds})
    gen = torch.Generator().manual_seed(seed)
    checkpoint = {"conv.weight": torch.randn(3, 2, generator=gen), "mask": torch.ones(3, 2)}
    return table, predictions, checkpoint


# --------------------------------------------------------------------------- keys

def canonical_key(spec: RunSpec, **more) -> str:
    d = {f.name: getattr(spec, f.name) for f in dataclasses.fields(spec)}
    d["extra"] = dict(d["extra"])
    text = json.dumps({**d, **more}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def test_key_is_pinned():
    """A change to this key would orphan every stored run: bump PROTOCOL_VERSION instead (or,
    for the stacked models' runs only, the trainer scheme, as the canonical blocks did)."""
    assert BASE.key == "32da6ecfb761c3afb728b2770cf9c59d367e3fbaaba25f07e881689def39e7ca"
    legacy = BASE.replace(trainer=spec_mod.LEGACY_TRAINER_SCHEME)  # its key before the scheme
    assert legacy.key == "aed47d3d003ad91cb087becb9ef77abff4fb6ba63636eac499c672e229d432f2"


def test_package_version_is_not_part_of_the_key(monkeypatch):
    import pruneaudit

    assert "version" not in BASE.as_dict()
    monkeypatch.setattr(pruneaudit, "__version__", "9.9.9")
    assert RunSpec(**BASE.as_dict()).key == BASE.key
    with pytest.raises(PruneAuditError, match="extra key 'version'"):
        BASE.with_extra(version="0.1.0")


def _store_of_0_1_0(root, specs) -> ResultsStore:
    """A store whose runs of ``specs`` were written by pruneaudit 0.1.0: each spec.json with the
    package version, the folder named by the key of that time (its fields and ``version``)."""
    store = ResultsStore(root)
    for spec in specs:
        path = store.save(spec, *fake_result(spec.seed)).path
        fields = {**spec.as_dict(), "version": "0.1.0"}
        (path / "spec.json").write_text(json.dumps(fields, sort_keys=True, indent=1) + "\n")
        os.renames(path, store._folder(spec_mod.canonical_key(fields)))
    return ResultsStore(root)


OLD_KEYS = r"holds 2 runs under keys of an older pruneaudit \(before 2026-11-25.*delete the store"


def test_a_store_of_runs_under_old_keys_is_refused_with_one_line_and_nothing_written(tmp_path):
    """pruneaudit 0.1.0's keys held the package version: this code reads no such run. Any
    lookup that misses, and any read of such a run, gives one error naming the fix; no run is
    made or written."""
    legacy = BASE.replace(trainer=spec_mod.LEGACY_TRAINER_SCHEME)  # what 0.1.0 trained
    assert spec_mod.canonical_key({**legacy.as_dict(), "version": "0.1.0"}) == (
        "ebf5975e6f8ae5712af897b31c30a4a304efb7d41fc55d901e84f69ba320fbcf")  # 0.1.0's BASE.key
    store = _store_of_0_1_0(tmp_path, [legacy, legacy.replace(seed=1)])
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    calls = []
    for look in (lambda: store.has(legacy), lambda: store.path(BASE),
                 lambda: store.get_or_run(BASE, calls.append),
                 lambda: store.save(BASE, *fake_result()), lambda: store.runs(),
                 lambda: store.load(store.keys()[0]), lambda: store.collect([legacy])):
        with pytest.raises(PruneAuditError, match=OLD_KEYS) as err:
            look()
        assert "\n" not in str(err.value) and "--store" in str(err.value)
    assert calls == []
    after = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    assert after == before


def test_a_store_of_current_runs_reads_its_specs_once_at_the_first_miss(tmp_path, monkeypatch):
    """Looking runs up costs no pass over the store while they hit; the first miss reads the
    store's specs once for runs under old keys, and later misses do not read them again."""
    store = ResultsStore(tmp_path)
    store.save(BASE, *fake_result())
    store = ResultsStore(tmp_path)
    reads = []
    real = store_mod._is_old
    monkeypatch.setattr(store_mod, "_is_old", lambda folder: reads.append(folder) or real(folder))
    assert store.has(BASE) and store.load(BASE).spec == BASE and reads == []
    assert not store.has(BASE.replace(seed=1)) and len(reads) == 1
    assert not store.has(BASE.replace(seed=2)) and len(reads) == 1


def test_key_is_sha256_of_canonical_json():
    spec = BASE.replace(extra={"level": 0.25, "note": "x"})
    assert spec.key == canonical_key(spec)
    assert len(spec.key) == 64


def test_key_ignores_order_of_fields_and_extra():
    a = BASE.replace(extra={"a": 1, "b": "two"})
    b = BASE.replace(extra=(("b", "two"), ("a", 1)))
    assert a == b and a.key == b.key
    shuffled = dict(reversed(list(a.as_dict().items())))
    assert RunSpec.from_dict(shuffled).key == a.key


@pytest.mark.slow
def test_key_is_stable_across_processes():
    code = (
        "from pruneaudit.runs import RunSpec;"
        "print(RunSpec('mnist','lenet',epochs=1,train_size=512,test_size=256).key)"
    )
    env = {**os.environ, "PYTHONHASHSEED": "123"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert out.stdout.strip() == BASE.key


def test_every_field_changes_the_key():
    pruned = BASE.replace(technique="l1_unstructured", treatment="finetune", iteration=1)
    changes = {
        "dataset": ("dataset", "fashion_mnist", BASE),
        "model": ("model", "alexnet", BASE),
        "technique": ("technique", "random_unstructured", pruned),
        "treatment": ("treatment", "rewind", pruned),
        "iteration": ("iteration", 2, pruned),
        "seed": ("seed", 1, BASE),
        "epochs": ("epochs", 2, BASE),
        "lr": ("lr", 0.02, BASE),
        "batch_size": ("batch_size", 64, BASE),
        "augment": ("augment", False, BASE),
        "train_size": ("train_size", None, BASE),
        "test_size": ("test_size", 100, BASE),
        "val_fraction": ("val_fraction", 0.1, BASE),
        "extra": ("extra", {"level": 0.5}, BASE),
        "protocol": ("protocol", "0", BASE),
        "trainer": ("trainer", spec_mod.LEGACY_TRAINER_SCHEME, BASE),
    }
    assert set(changes) == {f.name for f in dataclasses.fields(RunSpec)}
    keys = {BASE.key, pruned.key}
    for name, value, start in changes.values():
        changed = start.replace(**{name: value})
        assert changed.key != start.key, name
        keys.add(changed.key)
    assert len(keys) == len(changes) + 2
    assert BASE.replace(extra={"level": 0.5}).key != BASE.replace(extra={"level": 0.7}).key


def test_lr_int_and_float_give_one_key():
    assert BASE.replace(lr=1).key == BASE.replace(lr=1.0).key


specs = st.builds(
    RunSpec,
    dataset=st.sampled_from(["mnist", "fashion_mnist", "qmnist"]),
    model=st.sampled_from(["lenet", "vgg11"]),
    seed=st.integers(0, 10**6),
    epochs=st.integers(1, 50),
    lr=st.floats(1e-5, 1.0),
    batch_size=st.integers(1, 512),
    train_size=st.none() | st.integers(1, 60000),
    val_fraction=st.floats(0.0, 0.9),
    extra=st.dictionaries(
        st.text("abcxyz_", min_size=1, max_size=5).filter(lambda k: k not in {"n", "level"}),
        st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=4),
        max_size=3,
    ),
)


@settings(max_examples=60, deadline=None)
@given(specs, specs)
def test_key_identifies_the_spec(a, b):
    assert RunSpec.from_dict(json.loads(json.dumps(a.as_dict()))) == a
    assert RunSpec.from_dict(json.loads(json.dumps(a.as_dict()))).key == a.key
    assert (a.key == b.key) == (a == b)


# --------------------------------------------------------------------------- round trip

def test_round_trip(tmp_path):
    store = ResultsStore(tmp_path)
    spec = BASE.replace(seed=3, extra={"level": 0.3})
    table, predictions, checkpoint = fake_result(3)
    saved = store.save(spec, table, predictions, checkpoint, env=environment())
    assert isinstance(saved, Run) and store.has(spec) and store.has(spec.key)
    run = ResultsStore(tmp_path).load(spec.key)
    assert run.spec == spec
    pd.testing.assert_frame_equal(run.predictions, predictions)
    pd.testing.assert_frame_equal(run.classes[table.columns.tolist()], table)
    for name, value in spec.columns().items():
        assert (run.classes[name] == value).all() if value is not None else run.classes[
            name
        ].isna().all()
    loaded = run.checkpoint()
    assert loaded.keys() == checkpoint.keys()
    for name in checkpoint:
        assert torch.equal(loaded[name], checkpoint[name])
    assert sorted(os.listdir(run.path)) == [
        "DONE", "checkpoint.pt", "classes.parquet", "env.json", "predictions.parquet", "spec.json"
    ]
    assert run.env["device"] == run.device_type == resolve_device().type
    assert run.env["torch"] == torch.__version__
    assert not list((tmp_path / "tmp").iterdir())


def test_predictions_are_stored_compactly_and_read_back_the_same(tmp_path):
    """A 10,000-example run's predictions (a test set's size) take under a quarter of what
    pyarrow's defaults write (its index was a 10,000-entry dictionary; about a seventh on real
    predictions), and read back the same frame; a float index (no delta encoding) is stored
    too."""
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 10, 10_000)
    predictions = pd.DataFrame({"index": np.arange(10_000), "label": labels,
                                "prediction": np.where(rng.random(10_000) < 0.9, labels, 3)})
    run = ResultsStore(tmp_path).save(BASE, fake_result()[0], predictions)
    pd.testing.assert_frame_equal(run.predictions, predictions)
    default = tmp_path / "default.parquet"
    predictions.to_parquet(default, index=False)
    stored = (run.path / "predictions.parquet").stat().st_size
    assert stored * 4 < default.stat().st_size, (stored, default.stat().st_size)
    floats = predictions.assign(index=predictions["index"].astype(float))
    run = ResultsStore(tmp_path).save(BASE.replace(seed=1), fake_result()[0], floats)
    pd.testing.assert_frame_equal(run.predictions, floats)


@pytest.mark.parametrize("spec", [BASE, BASE.replace(technique="l1_unstructured", iteration=2,
                                                    treatment="finetune",
                                                    extra={"level": 0.5, "corruption": "fog"})])
def test_classes_hold_only_the_measured_columns_and_read_as_before(tmp_path, spec):
    """``classes.parquet`` holds the measured columns alone (the spec is ``spec.json``), at
    under a third of the size; read back, the frame is the one the store wrote before (the
    spec's columns added to each row), and a run written that older way reads the same."""
    table = fake_result()[0].assign(sparsity=0.25)
    run = ResultsStore(tmp_path / "new").save(spec, table, fake_result()[1])
    older = tmp_path / "older.parquet"
    table.assign(**spec.columns()).to_parquet(older, index=False)  # what the store wrote before
    pd.testing.assert_frame_equal(run.classes, pd.read_parquet(older))
    stored = run.path / "classes.parquet"
    assert list(pd.read_parquet(stored).columns) == ["class", "accuracy", "n", "sparsity"]
    assert stored.stat().st_size * 3 < older.stat().st_size, (stored.stat(), older.stat())
    shutil.copy(older, stored)
    pd.testing.assert_frame_equal(Run(run.spec, run.path).classes, pd.read_parquet(older))


def test_run_without_checkpoint(tmp_path):
    store = ResultsStore(tmp_path)
    run = store.save(BASE, *fake_result()[:2])
    assert not (run.path / "env.json").exists()  # no env given: none recorded, a CPU run
    assert run.device_type == "cpu" and run.env["recorded"] is False
    assert not run.has_checkpoint
    with pytest.raises(PruneAuditError, match="no checkpoint"):
        run.checkpoint()


def test_runs_lists_and_filters(tmp_path):
    store = ResultsStore(tmp_path)
    assert store.runs().empty and "seed" in store.runs().columns
    for seed in range(3):
        store.save(BASE.replace(seed=seed), *fake_result(seed)[:2])
    store.save(BASE.replace(seed=0, extra={"level": 0.5}), *fake_result(9)[:2])
    frame = store.runs()
    assert len(frame) == 4 and frame["key"].is_unique
    assert set(store.runs(seed=[1, 2])["seed"]) == {1, 2}
    assert len(store.runs(seed=0)) == 2
    assert len(store.runs(level=0.5)) == 1
    with pytest.raises(PruneAuditError, match="unknown filter 'seeds'"):
        store.runs(seeds=0)


def test_collect_is_tidy_and_complete(tmp_path):
    store = ResultsStore(tmp_path)
    wanted = [BASE.replace(seed=s) for s in (0, 1)]
    for spec in wanted:
        store.save(spec, *fake_result(spec.seed)[:2])
    classes = store.collect(wanted)
    assert len(classes) == 20
    assert classes.groupby("seed")["class"].apply(list).tolist() == [list(range(10))] * 2
    preds = store.collect(wanted, table="predictions")
    assert len(preds) == 40 and set(preds["key"]) == {s.key for s in wanted}
    with pytest.raises(PruneAuditError, match="1 of 3 runs are not in the results store"):
        store.collect([*wanted, BASE.replace(seed=7)])


# --------------------------------------------------------------------------- cache

def test_get_or_run_calls_fn_once(tmp_path):
    calls = []

    def fn(spec):
        calls.append(spec)
        return fake_result(spec.seed)

    first = ResultsStore(tmp_path).get_or_run(BASE, fn)
    second = ResultsStore(tmp_path).get_or_run(BASE, fn)
    assert calls == [BASE]
    pd.testing.assert_frame_equal(first.classes, second.classes)
    ResultsStore(tmp_path).get_or_run(BASE.replace(seed=1), fn)
    assert len(calls) == 2


def test_get_or_run_rejects_a_bad_return(tmp_path):
    store = ResultsStore(tmp_path)
    with pytest.raises(PruneAuditError, match="must return"):
        store.get_or_run(BASE, lambda spec: fake_result()[0])
    assert store.keys() == []


def test_save_rejects_bad_frames_and_writes_nothing(tmp_path):
    store = ResultsStore(tmp_path)
    table, predictions, _ = fake_result()
    with pytest.raises(PruneAuditError, match=r"classes lacks column\(s\) \['n'\]"):
        store.save(BASE, table.drop(columns="n"), predictions)
    with pytest.raises(PruneAuditError, match="predictions must be a pandas DataFrame"):
        store.save(BASE, table, predictions.to_numpy())
    with pytest.raises(PruneAuditError, match="spec's columns"):
        store.save(BASE, table.assign(seed=0), predictions)
    assert store.keys() == [] and not store.has(BASE)


# --------------------------------------------------------------------------- atomicity

@pytest.mark.parametrize("stage", ["spec", "classes", "predictions", "checkpoint", "env", "done"])
def test_failure_mid_save_leaves_nothing_finished(tmp_path, monkeypatch, stage):
    def crash(at, tmp):
        if at == stage:
            raise RuntimeError(f"crash after {at}")

    monkeypatch.setattr(store_mod, "_before_publish", crash)
    store = ResultsStore(tmp_path)
    with pytest.raises(RuntimeError, match="crash"):
        store.save(BASE, *fake_result(), env={"device": "cpu"})
    assert not store.has(BASE) and store.keys() == [] and store.runs().empty
    assert not store.path(BASE).exists()
    monkeypatch.undo()
    assert store.get_or_run(BASE, lambda spec: fake_result()).spec == BASE


def test_unfinished_folders_are_never_read(tmp_path):
    store = ResultsStore(tmp_path)
    run = store.save(BASE, *fake_result())
    # A copy of a whole run without DONE, in place, and a finished copy still under tmp/.
    other = BASE.replace(seed=5)
    partial = store.path(other)
    partial.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(run.path, partial)
    (partial / "DONE").unlink()
    pending = tmp_path / "tmp" / f"{BASE.replace(seed=6).key}.otherhost.1.abc"
    shutil.copytree(run.path, pending)
    assert not store.has(other) and store.keys() == [BASE.key]
    with pytest.raises(PruneAuditError, match="no finished run"):
        store.load(other)
    # Saving the run for real replaces the unfinished folder.
    store.save(other, *fake_result(5))
    assert store.has(other) and store.load(other).spec == other


def test_stale_tmp_folders_are_cleaned(tmp_path):
    store = ResultsStore(tmp_path)
    tmp = tmp_path / "tmp"
    host = os.uname().nodename
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    mine = tmp / f"{'a' * 64}.{host}.{os.getpid()}.x1"
    gone = tmp / f"{'b' * 64}.{host}.{dead}.x2"
    old = tmp / f"{'c' * 64}.elsewhere.1.x3"
    young = tmp / f"{'d' * 64}.elsewhere.1.x4"
    for d in (mine, gone, old, young):
        d.mkdir(parents=True)
    os.utime(old, (0, 0))
    removed = store.clean_tmp()
    assert sorted(removed) == sorted([gone, old])
    assert mine.exists() and young.exists()


def test_losing_a_race_keeps_the_winner(tmp_path, monkeypatch):
    store = ResultsStore(tmp_path)
    winner = fake_result(1)

    def rival(stage, tmp):
        if stage == "done":
            monkeypatch.setattr(store_mod, "_before_publish", lambda *a: None)
            ResultsStore(tmp_path).save(BASE, *winner)

    monkeypatch.setattr(store_mod, "_before_publish", rival)
    run = store.save(BASE, *fake_result(2))
    pd.testing.assert_frame_equal(run.predictions, winner[1])
    assert store.keys() == [BASE.key] and not list((tmp_path / "tmp").iterdir())


def test_the_store_imports_no_domain_module():
    """Arrows point down (STYLE.md principle 3): the store reads and writes runs, it does not
    train, prune or describe devices; its only package imports are settings, errors, specs and
    its archive format."""
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(store_mod))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module == "pruneaudit":
            imported |= {f"pruneaudit.{a.name}" for a in node.names}  # from pruneaudit import x
        elif isinstance(node, ast.ImportFrom):
            imported.add(node.module)
    ours = {m for m in imported if m.split(".")[0] == "pruneaudit"}
    assert ours == {
        "pruneaudit.config", "pruneaudit.errors", "pruneaudit.runs.archive",
        "pruneaudit.runs.spec", "pruneaudit.timing",
    }


def test_a_table_is_not_mixed_across_device_types(tmp_path):
    """A run written without env.json (a CPU run) beside one made on CUDA: one clear error, no
    table; one type alone is fine."""
    store = ResultsStore(tmp_path)
    cpu, cuda = BASE, BASE.replace(seed=1)
    store.save(cpu, *fake_result(0)[:2])
    store.save(cuda, *fake_result(1)[:2], env={"device": "cuda"})
    with pytest.raises(PruneAuditError, match=r"different device types \(1 on cpu .* 1 on cuda"):
        store.collect([cpu, cuda])
    with pytest.raises(PruneAuditError, match="different device types"):
        store.collect([cpu, cuda], table="predictions")
    assert len(store.collect([cpu])) == 10
