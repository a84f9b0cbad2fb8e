"""Dask worker plugin that gives each worker of a local cluster its own device (one per GPU).

Imported only when a Dask cluster is started (it needs ``distributed``); the placement rule
itself is :func:`pruneaudit.runs.grid.worker_devices`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from distributed.diagnostics.plugin import WorkerPlugin

from pruneaudit import config


class DevicePlugin(WorkerPlugin):
    """Worker ``name`` (its index in a ``LocalCluster``: 0, 1, ...) gets the device setting
    ``devices[name mod len(devices)]``, kept by the worker's copy of the plugin
    (:attr:`device`, read by :func:`worker_device`); a worker whose name is not an index gets
    ``devices[0]``."""

    name = "pruneaudit-device"

    def __init__(self, devices: Sequence[str]) -> None:
        self.devices = [config.device_setting(d) for d in devices]
        self.device: str | None = None

    def setup(self, worker: Any) -> None:
        text = str(worker.name)
        index = int(text) if text.isdigit() else 0
        self.device = self.devices[index % len(self.devices)]


def worker_device() -> str | None:
    """The device setting :class:`DevicePlugin` gave the Dask worker this runs on (None: not on
    a worker, or on one without the plugin)."""
    from distributed import get_worker

    try:
        plugin = get_worker().plugins.get(DevicePlugin.name)
    except ValueError:  # not in a worker
        return None
    return getattr(plugin, "device", None)
