"""Settings: where the data and the results store live, the compute device, the protocol version."""

from __future__ import annotations

import os
from pathlib import Path

#: Bump when a change to training, pruning or evaluation changes results (part of every run key).
PROTOCOL_VERSION = "1"

DATA_ENV = "PRUNEAUDIT_DATA"
STORE_ENV = "PRUNEAUDIT_STORE"
DEVICE_ENV = "PRUNEAUDIT_DEVICE"


def data_root(root: str | os.PathLike | None = None) -> Path:
    """The data root: ``root`` if given, else ``$PRUNEAUDIT_DATA``, else ``./data``."""
    return Path(root if root is not None else os.environ.get(DATA_ENV, "data")).expanduser()


def store_root(root: str | os.PathLike | None = None) -> Path:
    """The results store: ``root`` if given, else ``$PRUNEAUDIT_STORE``, else ``./results``."""
    return Path(root if root is not None else os.environ.get(STORE_ENV, "results")).expanduser()


def device_setting(value: str | None = None) -> str:
    """The device setting: ``value`` if given, else ``$PRUNEAUDIT_DEVICE``, else ``auto``.

    One of ``auto`` (CUDA when available, else the CPU), ``cpu``, ``cuda`` or ``cuda:N``.
    """
    setting = (value if value is not None else os.environ.get(DEVICE_ENV, "auto")).strip()
    kind, _, index = setting.partition(":")
    if kind not in ("auto", "cpu", "cuda") or (index and (kind != "cuda" or not index.isdigit())):
        from pruneaudit.errors import PruneAuditError

        raise PruneAuditError(
            f"device must be auto, cpu, cuda or cuda:N (N a GPU index), got {setting!r}"
        )
    return setting


def set_device(value: str) -> str:
    """Make ``value`` (checked by :func:`device_setting`) this process's device setting."""
    os.environ[DEVICE_ENV] = device_setting(value)
    return os.environ[DEVICE_ENV]
