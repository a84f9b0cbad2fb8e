"""Results archives (``ResultsStore.export_results``): a zip of finished runs without their
checkpoints, with a manifest; opened and checked whole before any run is read from it."""

from __future__ import annotations

import json
import re
import zipfile
import zlib
from pathlib import Path

from pruneaudit.errors import PruneAuditError
from pruneaudit.runs.spec import RunSpec, canonical_key

#: The manifest of a results archive (``ResultsStore.export_results``) and its format.
ARCHIVE_MANIFEST = "pruneaudit-results.json"
ARCHIVE_FORMAT = 1
_ARCHIVED_RUN = re.compile(r"runs/([0-9a-f]{64})/([a-z.]+)")


def open_archive(path: Path) -> zipfile.ZipFile:
    """The results archive ``path``, opened and checked readable (every file's CRC)."""
    again = "export it again (python -m pruneaudit.book compute --profile P --export FILE)"
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
) -> dict[str, list[str]]:
    """Run folder name -> its files in a results archive, every run checked: the manifest lists
    exactly the archive's runs, each has its ``required`` files (and only ``light`` ones) and a
    spec whose key (current or legacy) is its folder's name."""

    def refuse(problem: str) -> PruneAuditError:
        return PruneAuditError(
            f"results archive {str(path)!r} {problem}; it was not written by "
            "ResultsStore.export_results (compute --export) or was altered: export it again"
        )

    names = archive.namelist()
    if ARCHIVE_MANIFEST not in names:
        raise refuse(f"has no {ARCHIVE_MANIFEST}")
    try:
        manifest = json.loads(archive.read(ARCHIVE_MANIFEST))
        listed = list(manifest["runs"])
        version = manifest["format"]
    except (ValueError, KeyError, TypeError):
        raise refuse(f"has an unreadable {ARCHIVE_MANIFEST}") from None
    if version != ARCHIVE_FORMAT:
        raise refuse(f"has format {version!r}, this version reads format {ARCHIVE_FORMAT}")
    runs: dict[str, list[str]] = {}
    for name in names:
        if name == ARCHIVE_MANIFEST:
            continue
        match = _ARCHIVED_RUN.fullmatch(name)
        if match is None or match[2] not in light:
            raise refuse(f"holds {name!r}, which is not a run's results file")
        runs.setdefault(match[1], []).append(match[2])
    if sorted(runs) != sorted(listed):
        raise refuse(f"lists {len(listed)} runs in its manifest but holds {len(runs)}")
    for key, files in runs.items():
        missing = [f for f in required if f not in files]
        if missing:
            raise refuse(f"lacks {', '.join(missing)} of run {key}")
        try:
            fields = json.loads(archive.read(f"runs/{key}/spec.json"))
            RunSpec.from_dict(fields)
            own = canonical_key(fields)  # a folder's name: the key of the spec as written
        except (ValueError, TypeError, PruneAuditError) as err:
            raise refuse(f"has an unreadable spec.json for run {key} ({err})") from None
        if key != own:
            raise refuse(f"holds run {key} whose spec.json has the key {own}")
    return runs


__all__ = ["ARCHIVE_FORMAT", "ARCHIVE_MANIFEST", "archived_runs", "open_archive"]
