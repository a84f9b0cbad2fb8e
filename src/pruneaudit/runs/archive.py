"""Results archives (``ResultsStore.export_results``): a zip of finished runs without their
checkpoints, with a manifest; opened and checked whole before any run is read from it.

Format 2 packs the runs' predictions (:class:`PackedPredictions`): the examples of a test set
(``index``, ``label``) are stored once, as ``examples/<n>.parquet``, however many runs were
evaluated on them, and the root table ``predictions.parquet`` holds each run's predictions
only where they differ from the label (``run``, ``row``, ``prediction``). A run's
``predictions.parquet`` is read back as the same frame. Parquet and zip compress each file on
its own, so the labels, repeated in every run's file, and the predictions, mostly equal to
them, made most of a format 1 archive (every run's ``predictions.parquet`` as it is stored),
which this version still reads. A run whose predictions do not have that form (other columns,
a label or prediction that is not an integer) keeps its file.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from pruneaudit.errors import PruneAuditError
from pruneaudit.runs.spec import (
    OLD_VERSION_FIELD,
    PREDICTION_COLUMNS,
    RunSpec,
    canonical_key,
    predictions_parquet,
)

#: The manifest of a results archive (``ResultsStore.export_results``) and its format.
ARCHIVE_MANIFEST = "pruneaudit-results.json"
ARCHIVE_FORMAT = 2
#: The formats this version reads (1: every run's predictions.parquet as a file).
READABLE_FORMATS = (1, 2)
#: A format 2 archive's table of the predictions that differ from the label.
PACKED = "predictions.parquet"
_ARCHIVED_RUN = re.compile(r"runs/([0-9a-f]{64})/([a-z.]+)")
_EXAMPLES = re.compile(r"examples/(\d+)\.parquet")


def open_archive(path: Path) -> zipfile.ZipFile:
    """The results archive ``path``, opened and checked readable (every file's CRC)."""
    again = "export it again (pruneaudit compute --profile P --export FILE)"
    if not path.is_file():
        raise PruneAuditError(f"results archive {str(path)!r} does not exist; {again}")
    try:
        archive = zipfile.ZipFile(path)
        bad = archive.testzip()
    except (zipfile.BadZipFile, zlib.error, OSError, EOFError) as err:
        raise PruneAuditError(
            f"results archive {str(path)!r} is not a readable zip archive ({err}); {again}"
        ) from None
    if bad is not None:
        archive.close()
        raise PruneAuditError(f"results archive {str(path)!r} is corrupt (file {bad}); {again}")
    return archive


def archived_runs(
    archive: zipfile.ZipFile, path: Path, required: tuple[str, ...], light: tuple[str, ...]
) -> tuple[dict[str, list[str]], dict]:
    """Run folder name -> its files in a results archive, and the archive's manifest, every run
    checked: the manifest lists exactly the archive's runs, each has its ``required`` files (and
    only ``light`` ones) and a spec whose key is its folder's name (an archive of runs under keys
    of an older pruneaudit, whose specs carry ``version``, is refused with one error)."""

    def refuse(problem: str) -> PruneAuditError:
        return _refusal(path, problem)

    names = archive.namelist()
    if ARCHIVE_MANIFEST not in names:
        raise refuse(f"has no {ARCHIVE_MANIFEST}")
    try:
        manifest = json.loads(archive.read(ARCHIVE_MANIFEST))
        listed = list(manifest["runs"])
        version = manifest["format"]
    except (ValueError, KeyError, TypeError):
        raise refuse(f"has an unreadable {ARCHIVE_MANIFEST}") from None
    if version not in READABLE_FORMATS:
        raise refuse(f"has format {version!r}, this version reads formats "
                     f"{', '.join(map(str, READABLE_FORMATS))}")
    runs: dict[str, list[str]] = {}
    for name in names:
        if name == ARCHIVE_MANIFEST or (version == 2 and (
                name == PACKED or _EXAMPLES.fullmatch(name))):
            continue
        match = _ARCHIVED_RUN.fullmatch(name)
        if match is None or match[2] not in light:
            raise refuse(f"holds {name!r}, which is not a run's results file")
        runs.setdefault(match[1], []).append(match[2])
    if sorted(runs) != sorted(listed):
        raise refuse(f"lists {len(listed)} runs in its manifest but holds {len(runs)}")
    old = 0
    for key, files in runs.items():
        missing = [f for f in required if f not in files]
        if missing:
            raise refuse(f"lacks {', '.join(missing)} of run {key}")
        try:
            fields = json.loads(archive.read(f"runs/{key}/spec.json"))
            if OLD_VERSION_FIELD in fields:
                old += 1
                continue
            RunSpec.from_dict(fields)
            own = canonical_key(fields)  # a folder's name: the key of the spec as written
        except (ValueError, TypeError, PruneAuditError) as err:
            raise refuse(f"has an unreadable spec.json for run {key} ({err})") from None
        if key != own:
            raise refuse(f"holds run {key} whose spec.json has the key {own}")
    if old:
        raise PruneAuditError(
            f"results archive {str(path)!r} holds {old} runs under keys of an older pruneaudit "
            "(before 2026-11-25, when run keys held the package version), which this version "
            "does not read; export the results again from a store of this version"
        )
    return runs, manifest


def _refusal(path: Path, problem: str) -> PruneAuditError:
    return PruneAuditError(
        f"results archive {str(path)!r} {problem}; it was not written by "
        "ResultsStore.export_results (compute --export) or was altered: export it again"
    )


def _parquet(frame: pd.DataFrame, **options: object) -> bytes:
    buffer = io.BytesIO()
    frame.to_parquet(buffer, index=False, **{"compression": "zstd", **options})
    return buffer.getvalue()


class PackedPredictions:
    """Format 2's predictions, gathered run by run (:meth:`add`) while an archive is written
    (see the module docstring); :meth:`files` are the archive's files that hold them."""

    def __init__(self) -> None:
        self.examples: list[pd.DataFrame] = []
        self._sets: dict[str, int] = {}
        self._rows: list[tuple[int, np.ndarray, np.ndarray]] = []

    def add(self, run: int, frame: pd.DataFrame) -> tuple[int, str] | None:
        """Pack run number ``run``'s predictions; return its examples' number and its
        predictions' dtype, or None where the frame does not have the packed form."""
        if (list(frame.columns) != list(PREDICTION_COLUMNS)
                or not isinstance(frame.index, pd.RangeIndex) or frame.index.start != 0
                or not all(pd.api.types.is_integer_dtype(frame[c])
                           for c in ("label", "prediction"))):
            return None
        examples = frame[["index", "label"]]
        digest = hashlib.sha256(pd.util.hash_pandas_object(examples, index=False).to_numpy()
                                .tobytes() + str(examples.dtypes.to_dict()).encode()).hexdigest()
        if digest not in self._sets:
            self._sets[digest] = len(self.examples)
            self.examples.append(examples)
        label, prediction = frame["label"].to_numpy(), frame["prediction"].to_numpy()
        wrong = np.flatnonzero(prediction != label)
        self._rows.append((run, wrong, prediction[wrong]))
        return self._sets[digest], str(prediction.dtype)

    def files(self) -> dict[str, bytes]:
        """The archive's files of the packed predictions: each test set's examples and the
        table of the predictions that differ from the label."""
        files = {f"examples/{n}.parquet": _parquet(e, **predictions_parquet(e))
                 for n, e in enumerate(self.examples)}
        runs, rows, values = (
            [np.full(len(w), r, np.int32) for r, w, _ in self._rows],
            [w.astype(np.int32) for _, w, _ in self._rows],
            [v.astype(np.int64) for _, _, v in self._rows],
        )
        table = pd.DataFrame({
            "run": np.concatenate(runs or [np.zeros(0, np.int32)]),
            "row": np.concatenate(rows or [np.zeros(0, np.int32)]),
            "prediction": np.concatenate(values or [np.zeros(0, np.int64)]),
        })
        files[PACKED] = _parquet(table, column_encoding={"run": "DELTA_BINARY_PACKED",
                                                         "row": "DELTA_BINARY_PACKED"},
                                 use_dictionary=["prediction"])
        return files


def write_archive(archive: zipfile.ZipFile, folders: list[Path], light: tuple[str, ...]) -> None:
    """Write the runs in ``folders`` to ``archive`` in this version's format: each run's
    ``light`` files but its predictions where they are packed, the packed predictions
    (:class:`PackedPredictions`) and the manifest."""
    manifest: dict = {"format": ARCHIVE_FORMAT, "checkpoints": False,
                      "runs": [f.name for f in folders], "examples": [], "predictions": []}
    packed = PackedPredictions()
    for n, folder in enumerate(folders):
        where = packed.add(n, pd.read_parquet(folder / "predictions.parquet"))
        manifest["examples"].append(None if where is None else where[0])
        manifest["predictions"].append(None if where is None else where[1])
        for name in light:
            if (folder / name).is_file() and not (where and name == "predictions.parquet"):
                archive.write(folder / name, f"runs/{folder.name}/{name}")
    for name, data in packed.files().items():
        archive.writestr(name, data)
    archive.writestr(ARCHIVE_MANIFEST, json.dumps(manifest, indent=1) + "\n")


def packed_predictions(
    archive: zipfile.ZipFile, path: Path, runs: dict[str, list[str]], manifest: dict
) -> dict[str, Callable[[], pd.DataFrame]]:
    """Run folder name -> a function giving its predictions frame, for the runs whose
    predictions a format 2 archive packs, every one checked (its examples exist, its rows lie
    within them); a run with neither its own ``predictions.parquet`` nor packed predictions is
    refused. ``runs`` and ``manifest``: :func:`archived_runs`'."""
    listed = list(manifest["runs"])
    if manifest["format"] == 1:
        sets, dtypes = [None] * len(listed), [None] * len(listed)
    else:
        try:
            sets, dtypes = list(manifest["examples"]), list(manifest["predictions"])
            if not len(sets) == len(dtypes) == len(listed):
                raise ValueError("lengths")
            dtypes = [None if d is None else np.dtype(d) for d in dtypes]
        except (KeyError, TypeError, ValueError):
            raise _refusal(path, f"has an unreadable {ARCHIVE_MANIFEST}") from None
    packed = [i for i, s in enumerate(sets) if s is not None]
    for i, name in enumerate(listed):
        has_file = "predictions.parquet" in runs[name]
        if has_file and sets[i] is not None:
            raise _refusal(path, f"holds run {name}'s predictions twice")
        if not has_file and sets[i] is None:
            raise _refusal(path, f"lacks predictions.parquet of run {name}")
        if sets[i] is not None and not (isinstance(sets[i], int) and dtypes[i] is not None
                                        and dtypes[i].kind in "iu"):
            raise _refusal(path, f"has an unreadable {ARCHIVE_MANIFEST}")
    if not packed:
        return {}
    numbers = sorted({sets[i] for i in packed})
    names = set(archive.namelist())
    missing = [n for n in [PACKED, *(f"examples/{s}.parquet" for s in numbers)] if n not in names]
    if missing:
        raise _refusal(path, f"lacks {missing[0]} (of the predictions of its packed runs)")
    try:
        table = pd.read_parquet(io.BytesIO(archive.read(PACKED)))
        examples = {s: pd.read_parquet(io.BytesIO(archive.read(f"examples/{s}.parquet")))
                    for s in numbers}
    except (OSError, ValueError) as err:
        raise _refusal(path, f"has an unreadable packed table ({err})") from None
    if list(table.columns) != ["run", "row", "prediction"] or not table["run"].isin(packed).all():
        raise _refusal(path, f"has a {PACKED} that does not match its manifest")
    groups = dict(list(table.groupby("run", sort=False)))
    makers: dict[str, Callable[[], pd.DataFrame]] = {}
    for i in packed:
        rows = groups.get(i, table.iloc[:0])
        frame = examples[sets[i]]
        if list(frame.columns) != ["index", "label"] or (
                len(rows) and not (rows["row"].min() >= 0 and rows["row"].max() < len(frame))):
            raise _refusal(path, f"has packed predictions of run {listed[i]} that do not fit "
                           "its examples")
        makers[listed[i]] = _unpacker(frame, dtypes[i], rows["row"].to_numpy(),
                                      rows["prediction"].to_numpy())
    return makers


def _unpacker(
    examples: pd.DataFrame, dtype: np.dtype, rows: np.ndarray, values: np.ndarray
) -> Callable[[], pd.DataFrame]:
    def frame() -> pd.DataFrame:
        prediction = examples["label"].to_numpy().astype(dtype)
        prediction[rows] = values.astype(dtype)
        return examples.assign(prediction=prediction)

    return frame


__all__ = [
    "ARCHIVE_FORMAT",
    "ARCHIVE_MANIFEST",
    "PACKED",
    "READABLE_FORMATS",
    "PackedPredictions",
    "archived_runs",
    "open_archive",
    "packed_predictions",
    "write_archive",
]
