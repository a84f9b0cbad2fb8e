"""Command line: ``pruneaudit grid run`` runs a grid of runs, ``pruneaudit store ls`` lists runs.

Examples::

    pruneaudit grid run grid.yaml --executor dask --scheduler-address tcp://head:8786
    pruneaudit grid run --dataset mnist --model lenet --technique l1_unstructured \\
        --treatment finetune --iteration 1 2 3 --seed 0 1 --epochs 1 --train-size 512
    pruneaudit store ls --store results --where dataset=mnist

Flags given on the command line replace the same fields of the YAML file. ``none`` stands for a
dense run in ``--technique``/``--treatment``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

import pandas as pd

from pruneaudit import __version__
from pruneaudit.errors import PruneAuditError

#: (flag, RunSpec field, value type) for the grid axes settable by flags.
_AXES = (
    ("--dataset", "dataset", str),
    ("--model", "model", str),
    ("--technique", "technique", str),
    ("--treatment", "treatment", str),
    ("--iteration", "iteration", int),
    ("--seed", "seed", int),
    ("--epochs", "epochs", int),
    ("--lr", "lr", float),
    ("--batch-size", "batch_size", int),
    ("--train-size", "train_size", int),
    ("--test-size", "test_size", int),
    ("--val-fraction", "val_fraction", float),
)


def _none_or(kind: type):
    def parse(text: str):
        return None if text.lower() in ("none", "null", "dense") else kind(text)

    parse.__name__ = kind.__name__
    return parse


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pruneaudit", description="Run grids of training and pruning runs; list results."
    )
    parser.add_argument("--version", action="version", version=f"pruneaudit {__version__}")
    groups = parser.add_subparsers(dest="group", required=True)

    grid = groups.add_parser("grid", help="grids of runs").add_subparsers(
        dest="command", required=True
    )
    run = grid.add_parser("run", help="run the missing runs of a grid")
    run.add_argument("grid_file", nargs="?", help="YAML mapping of run fields to values or lists")
    axes = run.add_argument_group("grid axes (each takes one or more values)")
    for flag, name, kind in _AXES:
        parse = _none_or(kind) if name in ("technique", "treatment", "train_size", "test_size") \
            else kind
        axes.add_argument(flag, dest=name, nargs="+", type=parse, metavar=name.upper())
    axes.add_argument("--no-augment", dest="augment", action="store_const", const=[False])
    run.add_argument("--executor", choices=("local", "dask"), default="local")
    run.add_argument("--scheduler-address", help="address of a running Dask scheduler")
    run.add_argument("--n-workers", type=int, help="workers of the LocalCluster started for dask")
    store_help = "results store folder (default $PRUNEAUDIT_STORE or ./results)"
    run.add_argument("--store", help=store_help)
    run.add_argument("--data", help="data root (default $PRUNEAUDIT_DATA or ./data)")
    run.add_argument(
        "--task", default="pruneaudit.runs.grid:train_and_evaluate",
        help="module:function run for each spec (default %(default)s)",
    )
    run.add_argument("--no-progress", action="store_true", help="no progress bar")
    run.add_argument(
        "--device",
        default=None,
        help="auto (CUDA when available, else CPU), cpu, cuda or cuda:N (default "
        "$PRUNEAUDIT_DEVICE or auto); with --executor dask on a multi-GPU machine: one worker "
        "per GPU",
    )

    store = groups.add_parser("store", help="the results store").add_subparsers(
        dest="command", required=True
    )
    ls = store.add_parser("ls", help="list finished runs")
    ls.add_argument("--store", help=store_help)
    ls.add_argument("--where", nargs="+", default=[], metavar="FIELD=VALUE",
                    help="keep runs whose field equals the value")
    ls.add_argument("--csv", action="store_true", help="print CSV instead of a table")
    return parser


def _load_task(text: str):
    module, _, name = text.partition(":")
    if not module or not name:
        raise PruneAuditError(f"--task must look like 'module:function', got {text!r}")
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as err:
        raise PruneAuditError(f"cannot import task {text!r}: {err}") from None


def _grid_run(args: argparse.Namespace) -> int:
    from pruneaudit.runs.grid import Grid, read_grid_file, run_grid

    axes = read_grid_file(args.grid_file) if args.grid_file else {}
    for _, name, _ in _AXES:
        if getattr(args, name) is not None:
            axes[name] = getattr(args, name)
    if args.augment is not None:
        axes["augment"] = args.augment
    report = run_grid(
        Grid(axes),
        _load_task(args.task),
        args.store,
        executor=args.executor,
        scheduler_address=args.scheduler_address,
        n_workers=args.n_workers,
        progress=not args.no_progress,
        data_root=args.data,
        device=args.device,
    )
    return 0 if report.ok else 1


def _parse_value(text: str):
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return {"none": None, "true": True, "false": False}.get(text.lower(), text)


def _store_ls(args: argparse.Namespace) -> int:
    from pruneaudit.runs.store import ResultsStore

    filters = {}
    for item in args.where:
        name, sep, value = item.partition("=")
        if not sep:
            raise PruneAuditError(f"--where takes FIELD=VALUE, got {item!r}")
        filters[name] = _parse_value(value)
    frame = ResultsStore(args.store).runs(**filters)
    if args.csv:
        frame.to_csv(sys.stdout, index=False)
    else:
        shown = frame.assign(key=frame["key"].str[:12])
        with pd.option_context("display.max_rows", None, "display.width", 200):
            print(shown.to_string(index=False) if len(shown) else "no finished runs")
        print(f"{len(frame)} runs in {ResultsStore(args.store).root}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``pruneaudit`` command; returns the exit status."""
    args = _parser().parse_args(argv)
    try:
        if args.group == "grid":
            return _grid_run(args)
        return _store_ls(args)
    except PruneAuditError as err:
        print(f"pruneaudit: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
