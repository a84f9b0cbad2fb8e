"""Device placement of grid tasks: the setting reaches every task, one Dask worker per GPU."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest

from pruneaudit import cli, config, runtime
from pruneaudit.errors import PruneAuditError
from pruneaudit.runs import ResultsStore, RunSpec, run_grid
from pruneaudit.runs.grid import worker_devices
from pruneaudit.runs.workers import DevicePlugin, worker_device

SEEN: list[str | None] = []


def recording_task(
    spec: RunSpec, store_root: str, data_root: str, runtime: runtime.Runtime
) -> str:
    """Saves a made-up run after noting the device setting of the runtime it was handed."""
    SEEN.append(runtime.device_setting())
    labels = np.arange(10)
    table = pd.DataFrame({"class": labels, "accuracy": 1.0, "n": 1})
    preds = pd.DataFrame({"index": labels, "label": labels, "prediction": labels})
    ResultsStore(store_root).save(spec, table, preds)
    return spec.key


@pytest.mark.parametrize(
    ("setting", "n_workers", "gpus", "expected"),
    [
        ("auto", None, 4, ["cuda:0", "cuda:1", "cuda:2", "cuda:3"]),
        ("cuda", None, 2, ["cuda:0", "cuda:1"]),
        ("cuda", 5, 2, ["cuda:0", "cuda:1", "cuda:0", "cuda:1", "cuda:0"]),
        ("cuda:1", None, 4, ["cuda:1"]),
        ("cuda:1", 3, 4, ["cuda:1"] * 3),
        ("cpu", 3, 4, ["cpu"] * 3),
        ("auto", 2, 0, ["cpu", "cpu"]),
    ],
)
def test_worker_devices(setting, n_workers, gpus, expected):
    assert worker_devices(setting, n_workers, gpus) == expected


def test_worker_devices_cpu_default_is_the_cpu_count():
    assert worker_devices("cpu", None, 0) == ["cpu"] * (os.cpu_count() or 1)


def test_worker_devices_refuses_cuda_without_gpus():
    with pytest.raises(PruneAuditError, match="no CUDA device"):
        worker_devices("cuda", None, 0)


class _FakeWorker:
    def __init__(self, name):
        self.name = name


def test_device_plugin_sets_each_worker_by_index(monkeypatch):
    monkeypatch.setenv(config.DEVICE_ENV, "auto")  # restored (unset) after the test
    plugin = DevicePlugin(["cuda:0", "cuda:1", "cuda:2"])
    for name, expected in [(0, "cuda:0"), (2, "cuda:2"), (4, "cuda:1"), ("tcp-x", "cuda:0")]:
        plugin.setup(_FakeWorker(name))
        assert plugin.device == expected  # the worker's copy of the plugin keeps its device
    assert worker_device() is None  # not on a worker
    with pytest.raises(PruneAuditError, match="device must be"):
        DevicePlugin(["gpu0"])


def test_local_runner_runs_tasks_with_the_device_and_restores_it(tmp_path, monkeypatch):
    monkeypatch.setenv(config.DEVICE_ENV, "auto")
    SEEN.clear()
    specs = [RunSpec("mnist", "lenet", seed=s) for s in (0, 1)]
    report = run_grid(specs, recording_task, tmp_path, progress=False,
                      runtime=runtime.Runtime(device="cpu"))
    assert report.ok and SEEN == ["cpu", "cpu"]
    assert config.device_setting() == "auto"  # the environment as it was
    with pytest.raises(PruneAuditError, match="device must be"):
        run_grid(specs, recording_task, tmp_path, progress=False,
                 runtime=runtime.Runtime(device="tpu"))


@pytest.mark.slow
def test_dask_workers_get_their_own_device():
    """Real worker processes of a LocalCluster: the plugin gives worker i its entry."""
    from dask.distributed import Client, LocalCluster

    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
        dashboard_address=None,
    ) as cluster, Client(cluster) as client:
        client.register_plugin(DevicePlugin(["cuda:0", "cuda:1"]))
        names = {info["name"]: addr for addr, info in client.scheduler_info()["workers"].items()}
        # the device each worker's plugin keeps, read by a task on that worker (as a run's is)
        seen = {addr: client.submit(worker_device, workers=[addr], pure=False).result()
                for addr in names.values()}
    assert {name: seen[addr] for name, addr in names.items()} == {0: "cuda:0", 1: "cuda:1"}


def test_cli_device_flag(tmp_path, capsys):
    argv = ["grid", "run", "--dataset", "mnist", "--model", "lenet", "--seed", "0",
            "--store", str(tmp_path), "--task", f"{__name__}:recording_task", "--no-progress"]
    SEEN.clear()
    assert cli.main([*argv, "--device", "cpu"]) == 0
    assert SEEN == ["cpu"]
    assert cli.main([*argv, "--device", "gpu"]) != 0
    assert "device must be auto, cpu, cuda or cuda:N" in capsys.readouterr().err
