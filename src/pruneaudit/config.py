"""Settings: where the data and the results store live, the compute device, the protocol version.

Paths are the same from ``make``, papermill, the command line or a live kernel whose working
directory is elsewhere: relative settings resolve against the repository root, never the
working directory.

- **Data root**, in this order: the setting (``root=`` / the notebooks' ``data_root`` parameter,
  else ``$PRUNEAUDIT_DATA``), else ``<repo>/data``, else the sibling ``<repo>/../shared/data``
  where the project's offline copy lives. Without a setting, a dataset is read from the first of
  the two folders that holds it (:func:`data_roots`, :func:`dataset_root`).
- **Device** and **precision** of training: the value given, else ``$PRUNEAUDIT_DEVICE`` /
  ``$PRUNEAUDIT_PRECISION``, else ``auto`` / ``fp32``, checked (:func:`device_setting`,
  :func:`precision_setting`); a :class:`pruneaudit.runtime.Runtime`'s setting comes before the
  environment's in :meth:`Runtime.device_setting <pruneaudit.runtime.Runtime.device_setting>`
  and :meth:`~pruneaudit.runtime.Runtime.precision_setting`, which the trainer reads. Nothing
  here writes the environment, and this module imports no other of the package but
  :mod:`pruneaudit.errors`.
- **Results store**: the setting (``root=`` / the ``store`` parameter, else
  ``$PRUNEAUDIT_STORE``), else ``<repo>/results``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from pruneaudit.errors import PruneAuditError

#: Bump when a change to training, pruning or evaluation changes results (part of every run key).
PROTOCOL_VERSION = "1"

DATA_ENV = "PRUNEAUDIT_DATA"
STORE_ENV = "PRUNEAUDIT_STORE"
DEVICE_ENV = "PRUNEAUDIT_DEVICE"
PRECISION_ENV = "PRUNEAUDIT_PRECISION"
#: Training precisions: float32 throughout, or bfloat16 autocast (CUDA only).
PRECISIONS = ("fp32", "bf16")

#: The repository root (the package is installed editable from ``<repo>/src``).
REPO = Path(__file__).resolve().parents[2]


def _in_repo(value: str | os.PathLike) -> Path:
    """``value`` with ``~`` expanded; a relative path is taken relative to :data:`REPO`."""
    path = Path(value).expanduser()
    return path if path.is_absolute() else REPO / path


def data_roots(root: str | os.PathLike | None = None) -> list[Path]:
    """The folders searched for data, in order: the setting alone when there is one (``root``,
    else ``$PRUNEAUDIT_DATA``), else ``<repo>/data`` then ``<repo>/../shared/data``."""
    setting = root if root is not None else os.environ.get(DATA_ENV) or None
    if setting is not None:
        return [_in_repo(setting)]
    return [REPO / "data", REPO.parent / "shared" / "data"]


def data_root(root: str | os.PathLike | None = None) -> Path:
    """The data root: the first of :func:`data_roots` that exists (the first one if none does,
    where ``download=True`` puts the files)."""
    roots = data_roots(root)
    return next((r for r in roots if r.is_dir()), roots[0])


def dataset_root(folder: str, root: str | os.PathLike | None = None) -> Path:
    """The first of :func:`data_roots` holding ``folder`` (a dataset's folder, e.g. ``MNIST``),
    else :func:`data_root`."""
    return next((r for r in data_roots(root) if (r / folder).is_dir()), data_root(root))


def store_root(root: str | os.PathLike | None = None) -> Path:
    """The results store: ``root`` if given, else ``$PRUNEAUDIT_STORE``, else ``<repo>/results``
    (relative settings resolve against the repository)."""
    setting = root if root is not None else os.environ.get(STORE_ENV) or "results"
    return _in_repo(setting)


def _setting(
    name: str,
    env: str,
    default: str,
    value: str | None,
    valid: Callable[[str], bool],
    expected: str,
) -> str:
    """``value`` if given, else ``$env``, else ``default``, stripped; an error naming the
    ``expected`` values unless ``valid(setting)``."""
    setting = (value if value is not None else os.environ.get(env, default)).strip()
    if not valid(setting):
        raise PruneAuditError(f"{name} must be {expected}, got {setting!r}")
    return setting


def _is_device(setting: str) -> bool:
    kind, _, index = setting.partition(":")
    return kind in ("auto", "cpu", "cuda") and not (
        index and (kind != "cuda" or not index.isdigit())
    )


def device_setting(value: str | None = None) -> str:
    """The device setting: ``value`` if given, else ``$PRUNEAUDIT_DEVICE``, else ``auto`` (the
    runtime's comes first in :meth:`pruneaudit.runtime.Runtime.device_setting`).

    One of ``auto`` (CUDA when available, else the CPU), ``cpu``, ``cuda`` or ``cuda:N``.
    """
    return _setting(
        "device", DEVICE_ENV, "auto", value, _is_device, "auto, cpu, cuda or cuda:N (N a GPU index)"
    )


def precision_setting(value: str | None = None) -> str:
    """The training precision: ``value`` if given, else ``$PRUNEAUDIT_PRECISION``, else ``fp32``
    (a runtime's comes first in :meth:`pruneaudit.runtime.Runtime.precision_setting`).

    ``fp32`` (float32 throughout, TF32 off) or ``bf16`` (bfloat16 autocast of the forward pass
    on CUDA; parameters, gradients and updates stay float32; refused on the CPU).
    """
    return _setting(
        "precision", PRECISION_ENV, "fp32", value, PRECISIONS.__contains__, " or ".join(PRECISIONS)
    )
