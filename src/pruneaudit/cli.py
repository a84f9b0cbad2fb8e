"""The ``pruneaudit`` command line: the book's commands and the runs' grid and store.

``pruneaudit build|run|compute|plan|live`` (also ``python -m pruneaudit`` and, as before,
``python -m pruneaudit.book``) and ``pruneaudit grid run`` / ``pruneaudit store ls``. Each
``--help`` is a few usage lines and examples; the README ("Usage") and the book's Reproducing
page explain the options.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import textwrap
import time
from collections.abc import Sequence

from pruneaudit import __version__
from pruneaudit.errors import PruneAuditError

#: What ``pruneaudit --help`` prints (``{prog}``: the command's name).
USAGE = """\
usage: {prog} <command> [options]

commands:
  plan      what a build would train and how long it would take (trains nothing)
  build     run the study notebooks and build the HTML book
  run       run one study notebook
  compute   run the studies into the results store, without notebooks
  live      JupyterLab over copies of the notebooks, for workshops
  grid run  run the missing runs of a grid of training and pruning runs
  store ls  list the finished runs of a results store

examples:
  {prog} plan --profile quick -p 01_population_ols.seeds=[0,1]
  {prog} build --profile smoke --only 03_pareto_selection
  {prog} compute --profile quick --device cuda --export results.zip

A command's options: {prog} <command> --help. The README's "Usage" section and
the book's Reproducing page explain them.
"""
#: ``pruneaudit grid run --help``'s examples.
GRID_EXAMPLES = """examples:
  pruneaudit grid run grid.yaml --executor dask --scheduler-address tcp://head:8786
  pruneaudit grid run --dataset mnist --model lenet --technique l1_unstructured \\
      --treatment finetune --iteration 1 2 3 --seed 0 1 --epochs 1 --train-size 512
"""
#: The commands of the book (the rest are the runs' ``grid`` and ``store``).
BOOK_COMMANDS = ("build", "run", "compute", "plan", "live")
#: Each book command's examples, shown under its options.
EXAMPLES = {
    "build": ("--profile quick", "--profile smoke --only 03_pareto_selection --jobs 2",
              "--profile quick --seed-offset 1000 --path-output /tmp/replication"),
    "run": ("02_qmnist_writers --profile smoke -p seeds=[0,1,2]",),
    "plan": ("--profile quick", "--profile paper --only 01_population_ols -p seeds=[0,1]"),
    "live": ("--profile smoke --port 8890 --fresh",),
}


def _examples(prog: str, command: str) -> str:
    return "examples:\n" + "\n".join(f"  {prog} {command} {e}" for e in EXAMPLES[command])


def _book_parser(prog: str, command: str) -> argparse.ArgumentParser:
    """The parser of the book's ``command`` (``build``, ``run``, ``compute``, ``plan``, ``live``):
    only its own is made, so that one command's help imports nothing another needs."""
    from pruneaudit.book.paths import REPO

    parser = argparse.ArgumentParser(prog=prog)
    sub = parser.add_subparsers(dest="command", required=True)
    if command == "compute":
        from pruneaudit.book import compute

        compute.add_parser(sub)
    helps = {"build": "run the notebooks and build the HTML book", "run": "run one notebook",
             "plan": "what a build would train and how long it would take"}
    for command, text in [(c, t) for c, t in helps.items() if c == command]:
        p = sub.add_parser(command, help=text, description=text + ".", epilog=_examples(
            prog, command), formatter_class=argparse.RawDescriptionHelpFormatter)
        if command == "run":
            p.add_argument("name", help="notebook name in nbs/, e.g. 00_template")
        p.add_argument("--profile", default="quick", help="smoke, quick, paper or a YAML path")
        p.add_argument("-p", dest="params", action="append", default=[], metavar="KEY=VALUE",
                       help="a parameter's value (NAME.key for one notebook)")
        p.add_argument("--seed-offset", type=int, default=0, metavar="N",
                       help="a replication: every seed list moved by N")
        if command != "run":
            p.add_argument("--only", nargs="+", metavar="NAME", help="only these notebooks")
        if command == "build":
            p.add_argument("--path-output", default=str(REPO), help="HTML in <this>/_build/html")
            p.add_argument("--no-execute", action="store_true", help="reuse executed notebooks")
            p.add_argument("--allow-mixed", action="store_true",
                           help="assemble pages of different profiles or overrides")
            p.add_argument("--import", dest="results", metavar="FILE",
                           help="first add the results of FILE (compute --export) to the store")
            p.add_argument("--jobs", type=int, default=1, metavar="N",
                           help="run up to N notebooks at once (CPU only)")
    if command != "live":
        return parser
    live = sub.add_parser("live", help="JupyterLab for workshops", epilog=_examples(prog, "live"),
                          description="JupyterLab on 127.0.0.1 over copies of the notebooks in "
                          "live/.", formatter_class=argparse.RawDescriptionHelpFormatter)
    live.add_argument("--profile", default="quick", help="the profile the copies hold")
    live.add_argument("--port", type=int, default=8888)
    live.add_argument("--fresh", action="store_true", help="replace the copies in live/")
    live.add_argument("--no-browser", action="store_true", help="do not open a browser")
    return parser


def _profile(args: argparse.Namespace):
    """The profile of a parsed ``build``, ``run`` or ``plan``, with its ``-p`` and
    ``--seed-offset`` overrides (``-p`` wins)."""
    from pruneaudit.book.profiles import Profile, parse_overrides

    overrides = parse_overrides(args.params)
    profile = Profile.read(args.profile)
    if args.seed_offset:
        from pruneaudit.book.replication import replication_overrides

        names = [args.name] if args.command == "run" else args.only
        overrides = {**replication_overrides(profile, names, args.seed_offset), **overrides}
    return profile.with_overrides(overrides)


def _book(args: argparse.Namespace, argv: Sequence[str]) -> int:
    """Run a parsed book command; one-line errors; the exit status."""
    if args.command == "compute":
        from pruneaudit.book import compute

        return compute.command(args)
    if args.command == "live":
        from pruneaudit.book import live

        return live.main(list(argv[1:]))
    profile = _profile(args)
    if args.command == "plan":
        from pruneaudit.book.plan import make_plan

        print("\n".join(make_plan(profile, args.only).lines()))
        return 0
    from pruneaudit.book import compute, runner

    if args.command == "run":
        print(runner.run_notebook(args.name, profile, progress=True))
        return 0
    start = time.perf_counter()
    if args.results:
        added, had = compute.import_results(profile, args.only, args.results)
        print(f"imported {added} runs from {args.results} ({had} already stored)")
    html = runner.build(profile, args.only, None, args.path_output, execute=not args.no_execute,
                        allow_mixed=args.allow_mixed, jobs=args.jobs)
    print(f"book built in {time.perf_counter() - start:.1f} s: {html / 'index.html'}")
    return 0


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


def _parser(prog: str = "pruneaudit") -> argparse.ArgumentParser:
    """The parser of the runs' commands, ``grid run`` and ``store ls``."""
    parser = argparse.ArgumentParser(
        prog=prog, description="Run grids of training and pruning runs; list results."
    )
    groups = parser.add_subparsers(dest="group", required=True)

    grid = groups.add_parser("grid", help="grids of runs").add_subparsers(
        dest="command", required=True
    )
    flags = " ".join(flag for flag, _, _ in _AXES)
    run = grid.add_parser(
        "run", help="run the missing runs of a grid", epilog=GRID_EXAMPLES,
        usage=f"{prog} grid run [GRID_FILE] [--AXIS V [V ...] ...] [options]",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.add_argument("grid_file", nargs="?", metavar="GRID_FILE",
                     help="YAML mapping of run fields to values or lists")
    axes = run.add_argument_group(
        "grid axes", "each takes one or more values (V [V ...]), as the grid file's fields:\n"
        + textwrap.fill(flags, 74) + "\n--no-augment   train without augmentation")
    for flag, name, kind in _AXES:
        parse = _none_or(kind) if name in ("technique", "treatment", "train_size", "test_size") \
            else kind
        axes.add_argument(flag, dest=name, nargs="+", type=parse, help=argparse.SUPPRESS)
    axes.add_argument("--no-augment", dest="augment", action="store_const", const=[False],
                      help=argparse.SUPPRESS)
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
        help="auto, cpu, cuda or cuda:N (default $PRUNEAUDIT_DEVICE or auto; with dask: "
        "one worker per GPU)",
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


def _executor(args: argparse.Namespace):
    """The grid's executor: ``"local"``, or with ``--executor dask`` a
    :class:`~pruneaudit.runs.grid.Dask` of ``--scheduler-address`` and ``--n-workers``."""
    from pruneaudit.runs.grid import Dask

    dask = Dask(args.scheduler_address, args.n_workers)  # checks n_workers
    if args.executor == "dask":
        return dask
    if args.scheduler_address is not None:
        raise PruneAuditError("scheduler_address needs executor='dask'")
    return args.executor


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
        executor=_executor(args),
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
    import pandas as pd

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


def main(argv: Sequence[str] | None = None, prog: str = "pruneaudit") -> int:
    """Entry point of the ``pruneaudit`` command (and ``python -m pruneaudit``,
    ``python -m pruneaudit.book``); returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE.format(prog=prog), end="")
        return 0 if argv else 2
    if argv[0] == "--version":
        print(f"pruneaudit {__version__}")
        return 0
    if argv[0] == "compute":
        # OpenMP threads that wait by spinning hold their cores between torch's parallel regions,
        # as the runner says for its kernels; set before torch loads (a user's value is kept).
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    try:
        if argv[0] in BOOK_COMMANDS:
            return _book(_book_parser(prog, argv[0]).parse_args(argv), argv)
        args = _parser(prog).parse_args(argv)
        if args.group == "grid":
            return _grid_run(args)
        return _store_ls(args)
    except PruneAuditError as err:  # the book's commands say "error:", as they always have
        where = "" if argv[0] in BOOK_COMMANDS else f"{prog}: "
        print(f"{where}error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
