"""Settings: where the data and the results store live, and the protocol version."""

from __future__ import annotations

import os
from pathlib import Path

#: Bump when a change to training, pruning or evaluation changes results (part of every run key).
PROTOCOL_VERSION = "1"

DATA_ENV = "PRUNEAUDIT_DATA"
STORE_ENV = "PRUNEAUDIT_STORE"


def data_root(root: str | os.PathLike | None = None) -> Path:
    """The data root: ``root`` if given, else ``$PRUNEAUDIT_DATA``, else ``./data``."""
    return Path(root if root is not None else os.environ.get(DATA_ENV, "data")).expanduser()


def store_root(root: str | os.PathLike | None = None) -> Path:
    """The results store: ``root`` if given, else ``$PRUNEAUDIT_STORE``, else ``./results``."""
    return Path(root if root is not None else os.environ.get(STORE_ENV, "results")).expanduser()
