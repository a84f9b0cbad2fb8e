"""Dask worker plugin that gives each worker of a local cluster its own device (one per GPU).

Imported only when a Dask cluster is started (it needs ``distributed``); the placement rule
itself is :func:`pruneaudit.runs.grid.worker_devices`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from distributed.diagnostics.plugin import WorkerPlugin

from pruneaudit import config, runtime


class DevicePlugin(WorkerPlugin):
    """Worker ``name`` (its index in a ``LocalCluster``: 0, 1, ...) gets the device setting
    ``devices[name mod len(devices)]`` as ``$PRUNEAUDIT_DEVICE`` in its process; a worker
    whose name is not an index gets ``devices[0]``."""

    name = "pruneaudit-device"

    def __init__(self, devices: Sequence[str]) -> None:
        self.devices = [config.device_setting(d) for d in devices]

    def setup(self, worker: Any) -> None:
        text = str(worker.name)
        index = int(text) if text.isdigit() else 0
        runtime.set_device(self.devices[index % len(self.devices)])
