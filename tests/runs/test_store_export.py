"""Results store: light results (every run but its checkpoint) exported to one archive and
imported into another store; bad archives refused whole, nothing half-written."""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch

from pruneaudit.errors import PruneAuditError
from pruneaudit.runs import ResultsStore, RunSpec
from pruneaudit.runs import archive as archive_mod
from pruneaudit.runs import spec as spec_mod

BASE = RunSpec(dataset="mnist", model="lenet", epochs=1, train_size=512, test_size=256)


def _fake(seed: int) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """A made-up evaluation of 50 examples of 10 classes and a small checkpoint."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 10, 50)
    preds = np.where(rng.random(50) < 0.7, labels, rng.integers(0, 10, 50))
    table = pd.DataFrame({"class": np.arange(10), "accuracy": rng.random(10),
                          "n": np.bincount(labels, minlength=10), "sparsity": 0.0})
    predictions = pd.DataFrame({"index": np.arange(50), "label": labels, "prediction": preds})
    return table, predictions, {"conv.weight": torch.randn(64, 64)}


@pytest.fixture
def source(tmp_path: Path) -> ResultsStore:
    """A store of four runs with checkpoints, one with ``env.json``."""
    store = ResultsStore(tmp_path / "source")
    for seed in (0, 1, 2, 7):
        env = {"device": "cpu", "name": "test"} if seed == 0 else None
        store.save(BASE.replace(seed=seed), *_fake(seed), env=env)
    return ResultsStore(store.root)


def _specs() -> list[RunSpec]:
    return [BASE.replace(seed=s) for s in (0, 1, 2, 7)]


def test_export_then_import_carries_every_run_but_the_checkpoints(
    source: ResultsStore, tmp_path: Path
):
    archive = tmp_path / "light.zip"
    assert source.export_results(archive) == 4
    names = zipfile.ZipFile(archive).namelist()
    assert archive_mod.ARCHIVE_MANIFEST in names
    assert not [n for n in names if n.endswith("checkpoint.pt") or n.endswith("DONE")]
    assert sum(n.endswith("env.json") for n in names) == 1
    target = ResultsStore(tmp_path / "target")
    assert target.import_results(archive) == (4, 0)
    assert target.keys() == source.keys()
    for spec in _specs():
        here, there = target.load(spec), source.load(spec)
        assert here.spec == there.spec
        pd.testing.assert_frame_equal(here.classes, there.classes)
        pd.testing.assert_frame_equal(here.predictions, there.predictions)
        assert here.env == there.env
        assert there.has_checkpoint and not here.has_checkpoint
    assert not list((target.root / "tmp").iterdir())
    assert target.import_results(archive) == (0, 4)  # nothing twice


def test_import_keeps_the_runs_a_store_has(source: ResultsStore, tmp_path: Path):
    archive = tmp_path / "light.zip"
    source.export_results(archive)
    target = ResultsStore(tmp_path / "target")
    target.save(BASE.replace(seed=1), *_fake(1))
    assert target.import_results(archive) == (3, 1)
    assert target.load(BASE.replace(seed=1)).has_checkpoint  # its own copy, checkpoint kept


def _with_an_old_key(store: ResultsStore, spec: RunSpec) -> None:
    """Make ``spec``'s run in ``store`` a run of pruneaudit 0.1.0: its spec.json with the package
    version, under the key it had then."""
    path = store.path(spec)
    fields = {**spec.as_dict(), "version": "0.1.0"}
    (path / "spec.json").write_text(json.dumps(fields, sort_keys=True, indent=1) + "\n")
    os.renames(path, store._folder(spec_mod.canonical_key(fields)))


def test_a_store_or_an_archive_of_runs_under_old_keys_is_refused(
    source: ResultsStore, tmp_path: Path
):
    archive = tmp_path / "light.zip"
    source.export_results(archive)
    first = next(n for n in zipfile.ZipFile(archive).namelist() if _first_spec(n))
    old = _rewrite(archive, tmp_path / "old.zip", lambda n, d: (
        n, d.replace(b"{", b'{"version": "0.1.0", ', 1)) if n == first else (n, d))
    target = ResultsStore(tmp_path / "target")
    with pytest.raises(PruneAuditError, match=r"holds 1 runs under keys of an older pruneaudit "
                       r"\(before 2026-11-25.*export the results again") as err:
        target.import_results(old)
    assert "\n" not in str(err.value) and target.keys() == []  # nothing written
    _with_an_old_key(source, BASE.replace(seed=7))
    with pytest.raises(PruneAuditError, match="holds 1 runs under keys of an older pruneaudit"):
        ResultsStore(source.root).export_results(tmp_path / "again.zip")
    assert not (tmp_path / "again.zip").exists()


def test_export_of_an_empty_store_is_refused(tmp_path: Path):
    with pytest.raises(PruneAuditError, match="no finished run to export"):
        ResultsStore(tmp_path / "empty").export_results(tmp_path / "x.zip")
    assert not (tmp_path / "x.zip").exists()


def test_a_failed_export_leaves_no_file(
    source: ResultsStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    archive = tmp_path / "light.zip"
    archive.write_bytes(b"an older export")
    calls = []

    def fail_on_third(self, *args, **kwargs):
        calls.append(args)
        if len(calls) == 3:
            raise OSError(28, "No space left on device")
        return write(self, *args, **kwargs)

    write = zipfile.ZipFile.write
    monkeypatch.setattr(zipfile.ZipFile, "write", fail_on_third)
    with pytest.raises(OSError, match="No space"):
        source.export_results(archive)
    assert archive.read_bytes() == b"an older export"  # the old file stands, whole
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".partial")] == []


def _rewrite(archive: Path, out: Path, change) -> Path:
    """A copy of ``archive`` with ``change(name, data) -> (name, data) | None`` applied."""
    with zipfile.ZipFile(archive) as src, zipfile.ZipFile(out, "w") as dst:
        for name in src.namelist():
            item = change(name, src.read(name))
            if item is not None:
                dst.writestr(*item)
    return out


def _first_spec(name: str) -> bool:
    return name.startswith("runs/") and name.endswith("spec.json")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda n, d: None if n == archive_mod.ARCHIVE_MANIFEST else (n, d), "has no pruneaudit"),
        (lambda n, d: (n, b"{") if n == archive_mod.ARCHIVE_MANIFEST else (n, d), "unreadable"),
        (lambda n, d: (n, d.replace(b'"format": 2', b'"format": 9')), "format 9"),
        (lambda n, d: None if n.endswith("predictions.parquet") else (n, d),
         "lacks predictions.parquet"),
        (lambda n, d: (n.replace("spec.json", "checkpoint.pt"), d) if _first_spec(n) else (n, d),
         "not a run's results file"),
        (lambda n, d: (n, d.replace(b'"epochs": 1', b'"epochs": 2')) if _first_spec(n)
         else (n, d), "whose spec.json has the key"),
        (lambda n, d: None if n.endswith("examples/0.parquet") else (n, d), "lacks examples/0"),
        (lambda n, d: (n, d.replace(b'"examples": [\n  0', b'"examples": [\n  null'))
         if n == archive_mod.ARCHIVE_MANIFEST else (n, d), "lacks predictions.parquet of run"),
        (lambda n, d: (n, d) if n.startswith(("runs/", "examples/"))
         or n in (archive_mod.ARCHIVE_MANIFEST, archive_mod.PACKED) else None,
         None),  # unchanged: imports
    ],
)
def test_an_altered_archive_is_refused_whole(
    source: ResultsStore, tmp_path: Path, change, message
):
    archive = tmp_path / "light.zip"
    source.export_results(archive)
    altered = _rewrite(archive, tmp_path / "altered.zip", change)
    target = ResultsStore(tmp_path / "target")
    if message is None:
        assert target.import_results(altered) == (4, 0)
        return
    with pytest.raises(PruneAuditError, match=message) as err:
        target.import_results(altered)
    assert "export it again" in str(err.value) and "\n" not in str(err.value)
    assert target.keys() == []  # nothing written


def test_a_run_missing_from_the_manifest_is_refused(source: ResultsStore, tmp_path: Path):
    archive = tmp_path / "light.zip"
    source.export_results(archive)

    def drop_one(name: str, data: bytes):
        if name != archive_mod.ARCHIVE_MANIFEST:
            return name, data
        manifest = json.loads(data)
        return name, json.dumps({**manifest, "runs": manifest["runs"][1:]})

    altered = _rewrite(archive, tmp_path / "altered.zip", drop_one)
    with pytest.raises(PruneAuditError, match="lists 3 runs in its manifest but holds 4"):
        ResultsStore(tmp_path / "target").import_results(altered)


def test_missing_garbage_and_truncated_archives(source: ResultsStore, tmp_path: Path):
    target = ResultsStore(tmp_path / "target")
    with pytest.raises(PruneAuditError, match="does not exist.*--export FILE"):
        target.import_results(tmp_path / "nothing.zip")
    garbage = tmp_path / "garbage.zip"
    garbage.write_bytes(b"not a zip archive at all")
    with pytest.raises(PruneAuditError, match="not a readable zip archive"):
        target.import_results(garbage)
    archive = tmp_path / "light.zip"
    source.export_results(archive)
    data = archive.read_bytes()
    truncated = tmp_path / "truncated.zip"
    truncated.write_bytes(data[: len(data) // 2])
    with pytest.raises(PruneAuditError, match="not a readable zip archive"):
        target.import_results(truncated)
    flipped = bytearray(data)
    member = zipfile.ZipFile(archive).infolist()[2]  # a parquet table
    start = member.header_offset + 30 + len(member.filename)  # after its local header
    flipped[start + member.compress_size // 2] ^= 0xFF
    corrupt = tmp_path / "corrupt.zip"
    corrupt.write_bytes(bytes(flipped))
    # a flipped byte fails the member's CRC, or its deflate stream first: one error either way
    with pytest.raises(PruneAuditError, match=r"is corrupt \(file runs/|not a readable zip"):
        target.import_results(corrupt)
    assert target.keys() == []


def test_runs_of_one_test_set_share_its_examples_and_read_back_the_same(tmp_path: Path):
    """Format 2 stores a test set's examples once and each run's predictions where they
    differ from the label; every run reads back the same frame (other dtypes, none wrong, all
    wrong, a frame not of the packed form kept as its file)."""
    store = ResultsStore(tmp_path / "source")
    table, predictions, _ = _fake(0)
    labels = predictions["label"].to_numpy()
    frames = [predictions, predictions.assign(prediction=labels),  # none wrong
              predictions.assign(prediction=(labels + 1) % 10),  # all wrong
              predictions.astype({"label": "uint8", "prediction": "int16"}),
              predictions.assign(index=predictions["index"] * 0.5)]  # another test set
    frames.append(predictions.astype({"prediction": "float64"}))  # not packed: its file
    for seed, frame in enumerate(frames):
        store.save(BASE.replace(seed=seed), table, frame)
    archive = tmp_path / "light.zip"
    store.export_results(archive)
    with zipfile.ZipFile(archive) as z:
        names = z.namelist()
        manifest = json.loads(z.read(archive_mod.ARCHIVE_MANIFEST))
    assert sorted(n for n in names if n.startswith("examples/")) == [
        "examples/0.parquet", "examples/1.parquet", "examples/2.parquet"]
    assert sum(n.endswith("/predictions.parquet") for n in names) == 1
    sets = manifest["examples"]
    assert sets.count(None) == 1  # the float predictions' run
    assert sorted(sets.count(n) for n in range(3)) == [1, 1, 3]  # 3 runs share one test set
    target = ResultsStore(tmp_path / "target")
    assert target.import_results(archive) == (len(frames), 0)
    for seed, frame in enumerate(frames):
        pd.testing.assert_frame_equal(target.load(BASE.replace(seed=seed)).predictions, frame)


def test_a_format_1_archive_still_imports(source: ResultsStore, tmp_path: Path):
    """An archive of format 1 (every run's files as stored) reads as before."""
    archive = tmp_path / "old.zip"
    folders = [p.parent for p in source.root.glob("runs/*/*/DONE")]
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr(archive_mod.ARCHIVE_MANIFEST, json.dumps(
            {"format": 1, "checkpoints": False, "runs": [f.name for f in folders]}))
        for folder in folders:
            for file in folder.iterdir():
                if file.name not in ("DONE", "checkpoint.pt"):
                    z.write(file, f"runs/{folder.name}/{file.name}")
    target = ResultsStore(tmp_path / "target")
    assert target.import_results(archive) == (4, 0)
    for spec in _specs():
        pd.testing.assert_frame_equal(target.load(spec).predictions, source.load(spec).predictions)
