"""Grids of runs and the runner that executes them locally or on a Dask cluster.

A :class:`Grid` maps :class:`~pruneaudit.runs.RunSpec` fields to lists of values and expands to
their product. :func:`run_grid` skips the runs already in the results store and executes the rest
with ``executor="local"`` (in this process, one after another) or a :class:`Dask` executor
(``dask.distributed``: the scheduler at its ``scheduler_address``, else a ``LocalCluster`` of its
``n_workers`` single-threaded worker processes on 127.0.0.1; ``"dask"`` is ``Dask()``). Each
task writes its own run to the store (atomically, on the worker) and returns its key; the driver
only collects keys, so every worker needs the store and the data root at the same paths (a
shared filesystem) and the same package version (checked by each task; run keys do not contain
it). A failing task is reported with its configuration and traceback and does not stop the
others. Killing the runner at any moment loses at most the runs in flight: running the grid
again executes only the missing runs.

Devices: ``device`` (default: ``$PRUNEAUDIT_DEVICE``, else ``auto``) is the device setting of
every task: each task gets a :class:`~pruneaudit.runtime.Runtime` of that device (its fourth
argument). For a ``LocalCluster`` on a machine with G > 1 CUDA devices and a setting of ``auto``
or ``cuda``, the runner starts one worker per GPU (unless ``Dask.n_workers`` says otherwise) and
a worker plugin gives worker i the device ``cuda:(i mod G)``
(:func:`worker_devices`); with an explicit ``cuda:N`` every worker uses that GPU. Workers of an
external scheduler use the setting as given (for a multi-GPU host, start them with dask-cuda or
one ``CUDA_VISIBLE_DEVICES`` per worker, so that ``auto`` finds that worker's GPU).

Iteratively pruned runs depend on their predecessor (iteration k on k-1, iteration 1 on the dense
run): the runner adds missing predecessors to the work and schedules each run after its
predecessor (``parent=iterative_parent``).
"""

from __future__ import annotations

import dataclasses
import itertools
import os
import time
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pruneaudit import __version__, config
from pruneaudit.errors import PruneAuditError, check_choice
from pruneaudit.runs.spec import RunSpec
from pruneaudit.runs.store import ResultsStore
from pruneaudit.runtime import Runtime

EXECUTORS = ("local", "dask")
#: RunSpec fields a grid may set (``extra`` is a nested mapping of its own axes).
GRID_FIELDS = tuple(f.name for f in dataclasses.fields(RunSpec))

#: A task: ``task_fn(spec, store_root, data_root, runtime)`` saves run ``spec`` to the store.
TaskFn = Callable[[RunSpec, str, str, Runtime], Any]


# --------------------------------------------------------------------------- grids


def _axis(value: object) -> list:
    return list(value) if isinstance(value, list | tuple) else [value]


class Grid:
    """The product of RunSpec fields, each a list of values (a single value is a one-item list).

    ``extra`` is a mapping of study-specific names to values or lists, expanded the same way.
    Dense combinations (``technique`` None) ignore ``treatment`` and ``iteration`` (they become
    None and 0) and appear once. Every spec is built, hence validated, when the grid is made::

        Grid({"dataset": "mnist", "model": "lenet", "seed": [0, 1],
              "technique": ["l1_unstructured", "random_unstructured"],
              "treatment": "finetune", "iteration": [1, 2]})
    """

    def __init__(self, axes: Mapping[str, Any] | None = None, /, **more: Any) -> None:
        axes = {**(axes or {}), **more}
        for name in axes:
            if name not in GRID_FIELDS:
                check_choice("grid field", name, GRID_FIELDS)
        extra = axes.get("extra") or {}
        if not isinstance(extra, Mapping):
            raise PruneAuditError(
                f"grid 'extra' must be a mapping of names to values, got {extra!r}"
            )
        self.axes = {k: _axis(v) for k, v in axes.items() if k != "extra"}
        self.extra_axes = {k: _axis(v) for k, v in extra.items()}
        for name, values in [*self.axes.items(), *self.extra_axes.items()]:
            if not values:
                raise PruneAuditError(f"grid axis {name!r} has no values")
        self._specs = self._expand()

    def _expand(self) -> list[RunSpec]:
        names, extra_names = list(self.axes), list(self.extra_axes)
        out: dict[str, RunSpec] = {}
        for values in itertools.product(*self.axes.values(), *self.extra_axes.values()):
            kwargs = dict(zip(names, values[: len(names)], strict=True))
            kwargs["extra"] = dict(zip(extra_names, values[len(names) :], strict=True))
            if kwargs.get("technique") is None:
                kwargs["treatment"], kwargs["iteration"] = None, 0
            if "dataset" not in kwargs or "model" not in kwargs:
                raise PruneAuditError("a grid needs at least a 'dataset' and a 'model'")
            spec = RunSpec(**kwargs)
            out.setdefault(spec.key, spec)
        return list(out.values())

    @classmethod
    def from_yaml(cls, path: str | os.PathLike) -> Grid:
        """A grid from a YAML file (see :func:`read_grid_file`)."""
        return cls(read_grid_file(path))

    def specs(self) -> list[RunSpec]:
        """The runs, in a fixed order (the product in the order the fields were given)."""
        return list(self._specs)

    def __iter__(self):
        return iter(self._specs)

    def __len__(self) -> int:
        return len(self._specs)

    def __repr__(self) -> str:
        return f"Grid({len(self)} runs over {', '.join([*self.axes, *self.extra_axes])})"


def read_grid_file(path: str | os.PathLike) -> dict[str, Any]:
    """The YAML mapping of run fields to a value or a list (and ``extra:`` to a mapping)."""
    import yaml

    try:
        axes = yaml.safe_load(Path(path).read_text())
    except OSError as err:
        raise PruneAuditError(f"cannot read grid file {str(path)!r}: {err.strerror}") from None
    except yaml.YAMLError as err:
        raise PruneAuditError(f"grid file {str(path)!r} is not valid YAML: {err}") from None
    if not isinstance(axes, Mapping):
        raise PruneAuditError(
            f"grid file {str(path)!r} must hold a mapping of run fields to values"
        )
    return dict(axes)


def iterative_parent(spec: RunSpec) -> RunSpec | None:
    """The run that ``spec`` continues: iteration k-1, the dense run for k = 1, None for k = 0."""
    if spec.iteration == 0:
        return None
    if spec.iteration == 1:
        return spec.replace(technique=None, treatment=None, iteration=0)
    return spec.replace(iteration=spec.iteration - 1)


# --------------------------------------------------------------------------- report


@dataclass
class GridReport:
    """What :func:`run_grid` did: runs executed, found in the store, and failed (with traceback)."""

    done: list[RunSpec] = field(default_factory=list)
    skipped: list[RunSpec] = field(default_factory=list)
    failed: list[tuple[RunSpec, str]] = field(default_factory=list)
    wall_s: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.failed

    def summary(self) -> str:
        lines = [
            f"grid: {len(self.done)} done, {len(self.skipped)} skipped (already stored), "
            f"{len(self.failed)} failed in {self.wall_s:.1f} s"
        ]
        for spec, tb in self.failed:
            config_text = ", ".join(f"{k}={v!r}" for k, v in spec.as_dict().items())
            lines += [f"FAILED {spec.key[:12]}: {config_text}", tb.rstrip()]
        return "\n".join(lines)


# --------------------------------------------------------------------------- execution


def _execute(
    task_fn: TaskFn,
    spec: RunSpec,
    store_root: str,
    data_root: str,
    device: str | None,
    version: str,
    *parents: Any,
) -> str:
    """Run one task on a worker; raise with a clear message if it cannot or did not save.

    ``version`` is the driver's package version: the worker refuses the task if its own differs
    (run keys do not contain it, so the check is made here). The task gets a fresh
    :class:`~pruneaudit.runtime.Runtime` of ``device``; None: the device a Dask worker's
    :class:`pruneaudit.runs.workers.DevicePlugin` gave it, else the environment's."""
    for p in parents:
        if isinstance(p, _Failure):
            raise PruneAuditError(f"not run: its predecessor {p.key[:12]} failed")
    if version != __version__ or spec.protocol != config.PROTOCOL_VERSION:
        raise PruneAuditError(
            f"this worker has pruneaudit {__version__} (protocol {config.PROTOCOL_VERSION}) but "
            f"the run was declared with {version} (protocol {spec.protocol}); install the "
            "same version on the driver and every worker"
        )
    if device is None:
        from pruneaudit.runs.workers import worker_device

        device = worker_device()
    task_fn(spec, store_root, data_root, Runtime(device=device))
    if not ResultsStore(store_root).has(spec):
        raise PruneAuditError(
            f"task {getattr(task_fn, '__qualname__', task_fn)!r} returned without saving run "
            f"{spec.key[:12]} to the store {store_root!r}"
        )
    return spec.key


@dataclass(frozen=True)
class _Failure:
    key: str


def _plan(
    specs: Sequence[RunSpec], store: ResultsStore, parent: Callable | None
) -> tuple[list[RunSpec], list[RunSpec], dict[str, str | None]]:
    """(runs to execute, parents first; runs already stored; key -> parent key to wait for)."""
    todo: dict[str, RunSpec] = {}
    waits: dict[str, str | None] = {}
    skipped: list[RunSpec] = []

    def visit(spec: RunSpec) -> None:
        if spec.key in todo:
            return
        before = parent(spec) if parent is not None else None
        if before is not None and not store.has(before):
            visit(before)
            waits[spec.key] = before.key
        else:
            waits[spec.key] = None
        todo[spec.key] = spec

    for spec in dict.fromkeys(specs):
        if store.has(spec):
            skipped.append(spec)
        else:
            visit(spec)
    return list(todo.values()), skipped, waits


@dataclass(frozen=True)
class Dask:
    """The Dask executor of :func:`run_grid`: the running scheduler at ``scheduler_address``
    (e.g. ``"tcp://10.0.0.5:8786"``), else a ``LocalCluster`` of ``n_workers`` (default: the CPU
    count, or one per GPU) single-threaded processes started for the call."""

    scheduler_address: str | None = None
    n_workers: int | None = None

    def __post_init__(self) -> None:
        n = self.n_workers
        if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
            raise PruneAuditError(f"n_workers must be a positive integer, got {n!r}")


@dataclass(frozen=True)
class _Task:
    """What every run of a grid executes: ``fn`` with the store's and the data's paths, at the
    device setting ``device`` (None: the worker's own)."""

    fn: TaskFn
    store_root: str
    data_root: str
    device: str | None

    def args(self, spec: RunSpec) -> tuple:
        """The leading arguments of :func:`_execute` for ``spec``."""
        return self.fn, spec, self.store_root, self.data_root, self.device, __version__


def run_grid(
    grid_or_specs: Grid | Iterable[RunSpec],
    task_fn: TaskFn | None = None,
    store: ResultsStore | str | os.PathLike | None = None,
    executor: str | Dask = "local",
    progress: bool = True,
    *,
    data_root: str | os.PathLike | None = None,
    parent: Callable[[RunSpec], RunSpec | None] | None = iterative_parent,
    runtime: Runtime | None = None,
) -> GridReport:
    """Execute the runs of a grid that are not in the store yet; return a :class:`GridReport`.

    ``task_fn(spec, store_root, data_root, runtime)`` (default :func:`train_and_evaluate`) must
    save the run ``spec`` to the store at ``store_root``, with ``runtime`` (a fresh
    :class:`~pruneaudit.runtime.Runtime` of the task's device); it must be importable by the
    workers (a module-level function of an installed module). ``executor`` is ``"local"`` or a
    :class:`Dask` (its scheduler, or the workers of a local cluster; ``"dask"``: ``Dask()``).
    ``parent`` gives the run a run depends on (None: runs are independent). A summary is printed
    at the end; ``progress`` shows the process's progress bar over tasks. ``runtime``: the
    process's :class:`~pruneaudit.runtime.Runtime` (None: one from the environment), whose
    device setting is the tasks'; see the module docstring for one Dask worker per GPU.
    """
    runtime = Runtime() if runtime is None else runtime
    device = runtime.device_setting()
    if not isinstance(executor, Dask) and check_choice("executor", executor, EXECUTORS) == "dask":
        executor = Dask()
    task_fn = train_and_evaluate if task_fn is None else task_fn
    store = store if isinstance(store, ResultsStore) else ResultsStore(store)
    specs = grid_or_specs.specs() if isinstance(grid_or_specs, Grid) else list(grid_or_specs)
    for spec in specs:
        if not isinstance(spec, RunSpec):
            raise PruneAuditError(f"a grid holds RunSpecs, got {type(spec).__name__}")
    store.check_writable()
    task = _Task(task_fn, str(store.root), str(config.data_root(data_root).resolve()), device)

    start = time.perf_counter()
    todo, skipped, waits = _plan(specs, store, parent)
    report = GridReport(skipped=skipped)
    if todo:
        with runtime.bar(total=len(todo), disable=not progress, desc="grid", unit="run") as bar:
            if isinstance(executor, Dask):
                _run_dask(todo, waits, task, report, bar, executor)
            else:
                _run_local(todo, waits, task, report, bar)
    report.wall_s = time.perf_counter() - start
    print(report.summary())
    return report


def _run_local(
    todo: list[RunSpec], waits: dict[str, str | None], task: _Task, report: GridReport,
    bar: Any,
) -> None:
    status: dict[str, Any] = {}
    for spec in todo:
        wait = waits[spec.key]
        parents = [status[wait]] if wait is not None else []
        try:
            status[spec.key] = _execute(*task.args(spec), *parents)
            report.done.append(spec)
        except Exception:
            status[spec.key] = _Failure(spec.key)
            report.failed.append((spec, traceback.format_exc()))
        bar.update()


def worker_devices(setting: str, n_workers: int | None, gpus: int) -> list[str]:
    """The device setting of each worker of a local cluster on a machine with ``gpus`` GPUs.

    ``auto`` (with GPUs) or ``cuda``: one worker per GPU by default, worker i on
    ``cuda:(i mod gpus)``; ``cuda:N``: every worker on it; ``cpu`` or ``auto`` without GPUs: the
    CPU, ``n_workers`` default the CPU count. Returns one entry per worker.
    """
    setting = config.device_setting(setting)
    if setting in ("auto", "cuda") and gpus > 0:
        return [f"cuda:{i % gpus}" for i in range(n_workers or gpus)]
    if setting.startswith("cuda") and gpus == 0:
        raise PruneAuditError(
            f"device {setting!r} asked for, but this machine has no CUDA device; use 'cpu' or "
            "'auto'"
        )
    count = n_workers or (1 if setting.startswith("cuda:") else os.cpu_count() or 1)
    return ["cpu" if setting == "auto" else setting] * count


def _run_dask(
    todo: list[RunSpec],
    waits: dict[str, str | None],
    task: _Task,
    report: GridReport,
    bar: Any,
    dask: Dask,
) -> None:
    from dask.distributed import Client, LocalCluster, as_completed

    cluster = None
    scheduler_address = dask.scheduler_address
    if scheduler_address is None:
        from pruneaudit.runs.workers import DevicePlugin
        from pruneaudit.training.device import cuda_devices

        devices = worker_devices(task.device, dask.n_workers, cuda_devices())
        cluster = LocalCluster(
            n_workers=len(devices),
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
        )
        client = Client(cluster)
        client.register_plugin(DevicePlugin(devices))
        task = replace(task, device=None)  # each worker's own, set by the plugin
    else:
        try:
            client = Client(scheduler_address)
        except (OSError, TimeoutError, ValueError) as err:
            raise PruneAuditError(
                f"cannot reach the Dask scheduler at {scheduler_address!r} ({err}); start it "
                "first (see 'Running on a cluster' in the README) or use executor='local'"
            ) from None
    try:
        futures = {}
        for spec in todo:
            wait = waits[spec.key]
            deps = [futures[wait]] if wait is not None else []
            futures[spec.key] = client.submit(
                _execute, *task.args(spec), *deps,
                key=f"pruneaudit-run-{spec.key[:16]}-{os.urandom(4).hex()}",
                retries=0,
            )
        by_future = {f.key: s for s, f in zip(todo, futures.values(), strict=True)}
        for future in as_completed(list(futures.values())):
            spec = by_future[future.key]
            if future.status == "finished":
                report.done.append(spec)
            else:
                exc = future.exception()
                tb = "".join(traceback.format_exception(type(exc), exc, future.traceback()))
                report.failed.append((spec, tb))
            bar.update()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


# --------------------------------------------------------------------------- the standard task


def train_and_evaluate(
    spec: RunSpec,
    store_root: str | os.PathLike | None = None,
    data_root: str | os.PathLike | None = None,
    runtime: Runtime | None = None,
) -> str:
    """Make run ``spec`` (and any missing predecessor) in the store with ``runtime`` (default: a
    fresh :class:`~pruneaudit.runtime.Runtime` from the environment); return its key.

    The runs are those the study notebooks make, byte for byte: a dense run (iteration 0, no
    technique) or a gradual-pruning population member
    (:func:`~pruneaudit.runs.populations.member_specs`) is made by
    :func:`~pruneaudit.runs.populations.run_population`; iteration k >= 1 of an iterative-pruning
    series by :func:`~pruneaudit.runs.iterative.run_series`, which resumes from the last stored
    iteration of the series. Quantized and corrupted evaluations derive from stored runs and are
    made by their own functions in :mod:`pruneaudit.runs.compressed`.
    """
    from pruneaudit.runs import iterative, populations

    store = ResultsStore(store_root)
    root = None if data_root is None else str(data_root)
    if store.has(spec):
        return spec.key
    extra = dict(spec.extra)
    if spec.iteration > 0:
        if extra:
            raise PruneAuditError(
                f"an iterative-pruning run takes no extra settings, got {extra}; "
                "train_and_evaluate makes dense, gradual and iteratively pruned runs"
            )
        iterative.run_series(
            [spec], spec.technique, spec.treatment, spec.iteration, store, root, progress=False,
            runtime=runtime,
        )
    elif (spec.technique is None and not extra) or (
        spec.kind == "gradual"
        and spec == populations.member_specs(spec, [spec.seed], spec.level)[0]
    ):
        populations.run_population([spec], store, root, progress=False, runtime=runtime)
    else:
        raise PruneAuditError(
            f"train_and_evaluate makes dense runs, gradual-pruning members "
            f"(populations.member_specs) and iteratively pruned runs; {spec.as_dict()} is none "
            "of these (quantized and corrupted runs: runs.run_quantized / run_corrupted)"
        )
    return spec.key
