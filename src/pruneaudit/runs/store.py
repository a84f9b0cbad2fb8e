"""Results store: every run keyed by a hash of its full configuration, written atomically.

Layout under the store root::

    runs/<key[:2]>/<key>/spec.json            the RunSpec (canonical JSON)
                         classes.parquet      per-class accuracy: class, accuracy, n (+ measured
                                              columns such as sparsity); the spec's columns
                                              are added when read (stores before 2026-11-28
                                              wrote them into the file too)
                         predictions.parquet  per-example: index, label, prediction
                         checkpoint.pt        optional state dict of plain tensors
                         env.json             where the run was made: device type and name,
                                              torch / CUDA / numpy / python / pruneaudit versions
                         DONE                 written last
    tmp/<key>.<host>.<pid>.<uuid>/            runs being written

A run is written into its own folder under ``tmp/``, every file is fsynced, ``DONE`` is written
last, and the folder is then renamed onto ``runs/...`` in one ``os.rename``. A folder without
``DONE``, or one still under ``tmp/``, is never read as finished, so a crash at any moment leaves
either the whole run or nothing. When two writers race for one key the first rename wins and the
other's copy is discarded (both are the same run). Checkpoints load with
``torch.load(weights_only=True)``, which refuses pickles that would run code.

Devices: the run key does not contain the device (so the keys of CPU runs are those of the code
before devices existed, and a stored run is reused on any device). Instead ``env.json`` records
the device type, and :meth:`ResultsStore.collect` (which every population and series is read
through) refuses to put runs made on different device types into one table, with one error that
names them. The recorded device is the device setting of the process that made the run (an int8
model is evaluated on the CPU even in a CUDA process; its run records the process's device, like
the runs it was made from). A run without ``env.json`` was written before the file existed, by
code that trained on the CPU only: it counts as a CPU run. The store does not describe the
device itself (it imports no domain module): the code that makes a run passes ``env``
(:func:`pruneaudit.training.device.environment`); a run saved without it has no ``env.json``.

Light results: :meth:`ResultsStore.export_results` writes every finished run's files but its
checkpoint (``spec.json``, ``classes.parquet``, ``env.json``; the predictions packed across
runs, :mod:`pruneaudit.runs.archive`) to one zip archive, with a manifest
``pruneaudit-results.json`` listing the run folders; the archive is written under a
temporary name and renamed. :meth:`ResultsStore.import_results` checks the whole archive first
(readable, every file's CRC, the manifest, each run's files and its spec against its folder's
key) and then writes each run it lacks by the protocol above (whole or not at all). A run
imported so has no checkpoint: what is computed from its tables needs none, but a series cannot
be continued from it.

Keys of older stores: the package version was part of every key until 2026-11-25 (every
``spec.json`` of then has a ``version`` field, :data:`~pruneaudit.runs.spec.OLD_VERSION_FIELD`).
This code does not read such runs. A store that holds any is refused with one error that counts them
and names the fix (:func:`old_keys_error`), before anything is trained or written: when a
lookup first misses (a hit is a run under its current key; the store's runs are read once per
store object, so a store of current runs costs one pass at its first miss) and when such a
run's ``spec.json`` is read (:meth:`ResultsStore.load`, :meth:`ResultsStore.runs`, export).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import os
import shutil
import socket
import time
import uuid
import zipfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from pruneaudit import config, timing
from pruneaudit.errors import PruneAuditError, check_choice, check_frame
from pruneaudit.runs.archive import (
    archived_runs,
    open_archive,
    packed_predictions,
    write_archive,
)
from pruneaudit.runs.spec import (
    CLASS_COLUMNS,
    OLD_VERSION_FIELD,
    PREDICTION_COLUMNS,
    RunSpec,
    predictions_parquet,
)
from pruneaudit.timing import phase

_FILES = ("spec.json", "classes.parquet", "predictions.parquet")
_CHECKPOINT = "checkpoint.pt"
_ENV = "env.json"
#: What a run written before ``env.json`` existed counts as (that code ran on the CPU only).
LEGACY_ENV: dict[str, Any] = {"device": "cpu", "recorded": False}
_DONE = "DONE"
#: A tmp folder from another host (or whose owner cannot be checked) is stale after this long.
STALE_AFTER_S = 24 * 3600
#: A run's files in a results archive: all but its checkpoint (``env.json`` when it has one).
_LIGHT = (*_FILES, _ENV)


@dataclass(frozen=True)
class Run:
    """A finished run read from the store; its tables are read when first used."""

    spec: RunSpec
    path: Path = field(repr=False)

    @functools.cached_property
    def classes(self) -> pd.DataFrame:
        """Per-class accuracy (``classes.parquet``), with the run's spec columns and current key
        (:meth:`RunSpec.columns`; older stores wrote them into the file, and are read as such)."""
        with phase("store"):
            classes = pd.read_parquet(self.path / "classes.parquet")
        if "key" not in classes.columns:
            return classes.assign(**self.spec.columns())
        return classes

    @functools.cached_property
    def predictions(self) -> pd.DataFrame:
        """Per-example predictions (``predictions.parquet``)."""
        with phase("store"):
            return pd.read_parquet(self.path / "predictions.parquet")

    @property
    def env(self) -> dict[str, Any]:
        """Where the run was made (``env.json``); :data:`~pruneaudit.runs.store.LEGACY_ENV` for
        runs written without it."""
        path = self.path / _ENV
        if not path.is_file():
            return dict(LEGACY_ENV)
        return json.loads(path.read_text())

    @property
    def device_type(self) -> str:
        """``cpu`` or ``cuda``: the device type the run was made on."""
        return str(self.env.get("device", "cpu"))

    @property
    def has_checkpoint(self) -> bool:
        return (self.path / _CHECKPOINT).is_file()

    def checkpoint(self) -> dict[str, Any]:
        """The saved state dict, loaded with ``torch.load(weights_only=True)``.

        A file that holds anything but tensors and plain containers (for example a pickle that
        would run code when loaded) is refused with a
        :class:`~pruneaudit.errors.PruneAuditError`; nothing in it runs.
        """
        import pickle

        import torch

        path = self.path / _CHECKPOINT
        if not path.is_file():
            raise PruneAuditError(f"run {self.spec.key} has no checkpoint (looked for {path})")
        try:
            return torch.load(path, map_location="cpu", weights_only=True)
        except pickle.UnpicklingError as err:
            first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
            raise PruneAuditError(
                f"refused to load checkpoint {path}: it is not a plain state dict of tensors "
                f"(torch.load(weights_only=True) says: {first}). Delete the run folder "
                f"{self.path} and run it again."
            ) from None


def _fsync_file(path: Path) -> None:
    with open(path, "rb") as fh:
        os.fsync(fh.fileno())


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _before_publish(stage: str, tmp: Path) -> None:
    """Called after each file of a run is written into ``tmp`` (tests patch it to crash there)."""


class ResultsStore:
    """Finished runs under ``root`` (default :func:`pruneaudit.config.store_root`)."""

    def __init__(self, root: str | os.PathLike | None = None) -> None:
        self.root = config.store_root(root).resolve()
        self._writable = False
        self._checked = False  # no run under an older key (read once, at the first miss)

    def __repr__(self) -> str:
        return f"ResultsStore({str(self.root)!r})"

    # -- paths -------------------------------------------------------------------------------
    def path(self, spec_or_key: RunSpec | str) -> Path:
        """Folder of a run: where it is stored if it is finished, else where :meth:`save` will
        write it."""
        found = self._locate(spec_or_key)
        if found is not None:
            return found
        key = spec_or_key.key if isinstance(spec_or_key, RunSpec) else spec_or_key
        return self._folder(key)

    def _folder(self, key: str) -> Path:
        return self.root / "runs" / key[:2] / key

    def _locate(self, spec_or_key: RunSpec | str) -> Path | None:
        """The folder of the finished run, or None (the store checked for runs under older keys
        first, see the module docstring)."""
        key = spec_or_key.key if isinstance(spec_or_key, RunSpec) else spec_or_key
        folder = self._folder(key)
        if self._finished(folder):
            return folder
        self._check_no_old_keys()
        return None

    def _check_no_old_keys(self) -> None:
        """Raise :func:`old_keys_error` if a finished run of this store has a spec of an older
        key layout; the runs are read once per store object (an import adds none: an archive of
        such runs is refused)."""
        if self._checked:
            return
        old = sum(_is_old(done.parent) for done in self._done_files())
        if old:
            raise old_keys_error(self.root, old)
        self._checked = True

    def _spec_fields(self, folder: Path) -> dict[str, Any]:
        """The fields of the run in ``folder`` (its ``spec.json``); :func:`old_keys_error` for
        a run under an older key."""
        fields = json.loads((folder / "spec.json").read_text())
        if OLD_VERSION_FIELD in fields:
            raise old_keys_error(
                self.root, sum(_is_old(done.parent) for done in self._done_files())
            )
        return fields

    def _done_files(self) -> list[Path]:
        runs = self.root / "runs"
        return sorted(runs.glob(f"*/*/{_DONE}")) if runs.is_dir() else []

    def _finished(self, path: Path) -> bool:
        return (path / _DONE).is_file()

    # -- writing -----------------------------------------------------------------------------
    def check_writable(self) -> None:
        """Raise a clear error unless a file can be created under the store root (probe write)."""
        if self._writable:
            return
        try:
            (self.root / "tmp").mkdir(parents=True, exist_ok=True)
            probe = self.root / "tmp" / f".probe.{uuid.uuid4().hex}"
            probe.write_bytes(b"")
            probe.unlink()
        except OSError as err:
            raise PruneAuditError(
                f"results store {str(self.root)!r} is not writable ({err.strerror or err}); "
                f"pass a writable folder (--store, ResultsStore(root)) or set "
                f"${config.STORE_ENV}"
            ) from None
        self._writable = True
        self.clean_tmp()

    def clean_tmp(self, stale_after_s: float = STALE_AFTER_S) -> list[Path]:
        """Remove abandoned temporary run folders; return those removed.

        A folder is abandoned when it was made on this host by a process that no longer exists, or
        when it is older than ``stale_after_s`` (folders from other hosts sharing the store).
        """
        tmp = self.root / "tmp"
        removed: list[Path] = []
        if not tmp.is_dir():
            return removed
        host = socket.gethostname()
        now = time.time()
        for entry in tmp.iterdir():
            parts = entry.name.split(".")
            if not entry.is_dir() or len(parts) != 4:
                continue
            _, owner_host, pid, _ = parts
            try:
                stale = now - entry.stat().st_mtime > stale_after_s
                if owner_host == host and pid.isdigit():
                    stale = stale or not _alive(int(pid))
            except OSError:
                continue
            if stale:
                shutil.rmtree(entry, ignore_errors=True)
                removed.append(entry)
        return removed

    @phase("store")
    def save(
        self,
        spec: RunSpec,
        classes: pd.DataFrame,
        predictions: pd.DataFrame,
        checkpoint: Mapping[str, Any] | None = None,
        env: Mapping[str, Any] | None = None,
    ) -> Run:
        """Write a run atomically and return it as read back from the store.

        ``classes`` needs the columns class, accuracy, n (further measured columns such as sparsity
        are kept; the spec's columns are added when read: ``spec.json`` holds them, which keeps a
        10-class table at about 3 KB instead of 11-15 KB); ``predictions`` needs index, label,
        prediction.
        ``checkpoint`` is a state dict of plain tensors. ``env`` (where the run was made:
        :func:`pruneaudit.training.device.environment`) is written to ``env.json``; without it
        the run has none and counts as a CPU run. If the run already exists it is kept.
        """
        if not isinstance(spec, RunSpec):
            raise PruneAuditError(f"spec must be a RunSpec, got {type(spec).__name__}")
        classes = check_frame("classes", classes, CLASS_COLUMNS, allow_empty=True)
        predictions = check_frame(
            "predictions", predictions, PREDICTION_COLUMNS, allow_empty=True
        )
        cols = spec.columns()
        clash = [c for c in classes.columns if c in cols]
        if clash:
            raise PruneAuditError(f"classes must not carry the spec's columns {clash}")
        self.check_writable()
        if self.has(spec):
            return self.load(spec)
        final = self._folder(spec.key)

        tmp = self._tmp_dir(spec.key)
        tmp.mkdir(parents=True)
        try:
            spec_text = json.dumps(spec.as_dict(), sort_keys=True, indent=1)
            (tmp / "spec.json").write_text(spec_text + "\n")
            _before_publish("spec", tmp)
            classes.reset_index(drop=True).to_parquet(
                tmp / "classes.parquet", index=False, compression="zstd"
            )
            _before_publish("classes", tmp)
            predictions = predictions.reset_index(drop=True)
            predictions.to_parquet(tmp / "predictions.parquet", index=False,
                                   **predictions_parquet(predictions))
            _before_publish("predictions", tmp)
            if checkpoint is not None:
                import torch

                torch.save(dict(checkpoint), tmp / _CHECKPOINT)
                _before_publish("checkpoint", tmp)
            if env is not None:
                (tmp / _ENV).write_text(json.dumps(dict(env), sort_keys=True) + "\n")
                _before_publish("env", tmp)
            for name in os.listdir(tmp):
                _fsync_file(tmp / name)
            (tmp / _DONE).write_text(spec.key + "\n")
            _fsync_file(tmp / _DONE)
            _fsync_dir(tmp)
            _before_publish("done", tmp)
            self._publish(tmp, final)
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
        return self.load(spec)

    def _tmp_dir(self, key: str) -> Path:
        name = f"{key}.{socket.gethostname()}.{os.getpid()}.{uuid.uuid4().hex}"
        return self.root / "tmp" / name

    def _publish(self, tmp: Path, final: Path) -> None:
        final.parent.mkdir(parents=True, exist_ok=True)
        if final.exists() and not self._finished(final):
            # Not written by this store's protocol (a finished run is only ever renamed in whole):
            # move it out of the way rather than trust it.
            aside = self._tmp_dir(final.name)
            with contextlib.suppress(OSError):
                os.rename(final, aside)
            shutil.rmtree(aside, ignore_errors=True)
        try:
            os.rename(tmp, final)
        except OSError:
            if not self._finished(final):  # the race was lost to a finished run: keep that one
                raise
            return
        _fsync_dir(final.parent)
        timing.count_stored()

    def get_or_run(
        self,
        spec: RunSpec,
        fn: Callable[[RunSpec], tuple],
    ) -> Run:
        """The stored run for ``spec``; if there is none, ``fn(spec)`` makes it and it is saved.

        ``fn`` returns ``(classes, predictions)`` or ``(classes, predictions, checkpoint)``, the
        arguments of :meth:`save`. An existing run is returned without calling ``fn``.
        """
        if self.has(spec):
            return self.load(spec)
        self.check_writable()
        out = fn(spec)
        if not isinstance(out, tuple) or len(out) not in (2, 3):
            raise PruneAuditError(
                "the run function must return (classes, predictions) or "
                f"(classes, predictions, checkpoint), got {type(out).__name__}"
            )
        return self.save(spec, *out)

    # -- light results ---------------------------------------------------------------------
    def export_results(self, path: str | os.PathLike) -> int:
        """Write every finished run without its checkpoint to the zip archive ``path`` (see the
        module docstring); return the number of runs. ``path`` appears whole or not at all."""
        path = Path(path)
        folders = [done.parent for done in self._done_files()]
        old = sum(_is_old(folder) for folder in folders)
        if old:
            raise old_keys_error(self.root, old)
        if not folders:
            raise PruneAuditError(
                f"the results store {str(self.root)!r} has no finished run to export; compute "
                "the studies into it first (pruneaudit compute)"
            )
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f".{path.name}.{uuid.uuid4().hex}.partial")
        try:
            with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as archive:
                write_archive(archive, folders, _LIGHT)
            _fsync_file(partial)
            os.replace(partial, path)
        finally:
            partial.unlink(missing_ok=True)
        return len(folders)

    def import_results(self, path: str | os.PathLike) -> tuple[int, int]:
        """Add the runs of a results archive (:meth:`export_results`) that this store lacks;
        return (runs added, runs already here). The archive is checked whole before any run is
        written; one clear error names what is wrong with it."""
        path = Path(path)
        self.check_writable()
        with open_archive(path) as archive:
            runs, manifest = archived_runs(archive, path, _FILES[:2], _LIGHT)
            packed = packed_predictions(archive, path, runs, manifest)
            added = 0
            for name, files in runs.items():
                if self._finished(self._folder(name)):
                    continue
                tmp = self._tmp_dir(name)
                tmp.mkdir(parents=True)
                try:
                    for file in files:
                        (tmp / file).write_bytes(archive.read(f"runs/{name}/{file}"))
                    if name in packed:
                        frame = packed[name]()
                        frame.to_parquet(tmp / "predictions.parquet", index=False,
                                         **predictions_parquet(frame))
                    for file in os.listdir(tmp):
                        _fsync_file(tmp / file)
                    (tmp / _DONE).write_text(name + "\n")
                    _fsync_file(tmp / _DONE)
                    _fsync_dir(tmp)
                    self._publish(tmp, self._folder(name))
                finally:
                    if tmp.exists():
                        shutil.rmtree(tmp, ignore_errors=True)
                added += 1
        return added, len(runs) - added

    # -- reading -----------------------------------------------------------------------------
    def has(self, spec_or_key: RunSpec | str) -> bool:
        """Whether a finished run exists."""
        return self._locate(spec_or_key) is not None

    @phase("store")
    def load(self, spec_or_key: RunSpec | str) -> Run:
        """A finished run; a clear error if there is none."""
        path = self._locate(spec_or_key)
        if path is None:
            key = spec_or_key.key if isinstance(spec_or_key, RunSpec) else spec_or_key
            raise PruneAuditError(f"no finished run {key} in the results store {str(self.root)!r}")
        return Run(spec=RunSpec.from_dict(self._spec_fields(path)), path=path)

    def keys(self) -> list[str]:
        """Keys of all finished runs, sorted."""
        return sorted(p.parent.name for p in self._done_files())

    def runs(self, **filters: Any) -> pd.DataFrame:
        """One row per finished run: ``key``, the spec's fields and its ``extra`` flattened.

        ``filters`` keep rows whose column equals the value (or is in it, for a list or tuple),
        e.g. ``store.runs(dataset="mnist", seed=[0, 1])``.
        """
        names = [f.name for f in dataclasses.fields(RunSpec) if f.name != "extra"]
        rows = []
        for key in self.keys():
            spec = self._spec_fields(self._folder(key))
            extra = spec.pop("extra", {})
            rows.append({"key": key, **{n: spec.get(n) for n in names}, **extra})
        frame = pd.DataFrame(rows, columns=None if rows else ["key", *names])
        for name, value in filters.items():
            if name not in frame.columns:
                raise PruneAuditError(
                    f"unknown filter {name!r}; accepted: {', '.join(map(repr, frame.columns))}"
                )
            values = list(value) if isinstance(value, list | tuple | set) else [value]
            frame = frame[frame[name].isin(values) | (frame[name].isna() & (None in values))]
        return frame.reset_index(drop=True)

    @phase("store")
    def collect(self, specs: Iterable[RunSpec | str], table: str = "classes") -> pd.DataFrame:
        """Concatenate the runs' ``classes`` (or ``predictions``) tables into one tidy frame.

        Each row carries the run's ``key`` and spec columns. Raises if a run is missing.
        """
        check_choice("table", table, ("classes", "predictions"))
        items = list(specs)
        missing = [s for s in items if not self.has(s)]
        if missing:
            names = ", ".join(s.key[:12] if isinstance(s, RunSpec) else s[:12] for s in missing[:5])
            raise PruneAuditError(
                f"{len(missing)} of {len(items)} runs are not in the results store "
                f"{str(self.root)!r} (first: {names}); run them first (run_grid / get_or_run)"
            )
        frames, specs = [], []
        devices: dict[str, list[str]] = {}
        for item in items:
            run = self.load(item)
            devices.setdefault(run.device_type, []).append(run.spec.key)
            frames.append(run.classes if table == "classes" else run.predictions)
            specs.append(run.spec)
        _check_one_device(devices, self.root)
        if not frames:
            return pd.DataFrame(columns=["key", *CLASS_COLUMNS])
        out = pd.concat(frames, ignore_index=True)
        if table == "predictions":
            out = _with_spec_columns(out, specs, [len(f) for f in frames])
        return out


def _with_spec_columns(
    frame: pd.DataFrame, specs: list[RunSpec], lengths: list[int]
) -> pd.DataFrame:
    """``frame`` (the runs' rows, run after run) with each run's :meth:`RunSpec.columns` on its
    rows: what ``assign(**spec.columns())`` per run and a concat give, in one pass (columns
    typed as that concat types them: one-row frames concatenated, then repeated)."""
    columns = pd.concat(
        [pd.DataFrame([spec.columns()]) for spec in specs], ignore_index=True
    )
    repeated = columns.iloc[np.repeat(np.arange(len(specs)), lengths)].reset_index(drop=True)
    return pd.concat([frame.drop(columns=list(repeated.columns), errors="ignore"), repeated],
                     axis=1)


def _check_one_device(devices: Mapping[str, list[str]], root: Path) -> None:
    """Refuse runs made on different device types in one table (see the module docstring)."""
    if len(devices) <= 1:
        return
    parts = "; ".join(
        f"{len(keys)} on {kind} (first {keys[0][:12]})" for kind, keys in sorted(devices.items())
    )
    raise PruneAuditError(
        f"these runs were made on different device types ({parts}) in the results store "
        f"{str(root)!r}; a population or series must come from one device type. Make the "
        "missing runs with the same device setting (--device / $PRUNEAUDIT_DEVICE / the "
        "notebook's device parameter) in a separate store, or delete the runs of the other type"
    )


def _is_old(folder: Path) -> bool:
    """Whether the run in ``folder`` has a spec of an older key layout (see the module
    docstring)."""
    return OLD_VERSION_FIELD in json.loads((folder / "spec.json").read_text())


def old_keys_error(root: Path, count: int) -> PruneAuditError:
    """The one error for a store at ``root`` holding ``count`` runs under keys of an older
    pruneaudit."""
    return PruneAuditError(
        f"results store {str(root)!r} holds {count} runs under keys of an older pruneaudit "
        f"(before 2026-11-25, when run keys held the package version), which this version "
        f"does not read; "
        f"delete the store folder or re-run with a fresh --store (ResultsStore(root), "
        f"${config.STORE_ENV})"
    )


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
