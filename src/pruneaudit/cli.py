"""The ``pruneaudit`` command line: one parser, a subcommand per task (also ``python -m
pruneaudit``).

The book's ``build``, ``run``, ``compute``, ``plan`` and ``live``; the runs' ``grid run`` and
``store ls``; and the commands that write the book's pages and the package's data from committed
files: ``appendix``, ``pooled``, ``accounting``, ``claims-log``, ``params``, ``gpu-rates`` and
``between-builds``. Each command's code is its module's (imported when the command runs, so that
one command's help imports nothing another needs); this module only parses. Each ``--help`` is a
few usage lines and examples; the README ("Usage") and the book's Reproducing page explain the
options.
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

#: The examples under ``pruneaudit --help``.
EXAMPLES_TOP = """\
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
#: The commands of the book (the runs' are ``grid`` and ``store``, the pages' and data's the
#: rest).
BOOK_COMMANDS = ("build", "run", "compute", "plan", "live")
#: Each command's examples (its arguments), shown under its options.
EXAMPLES = {
    "build": ("--profile quick", "--profile smoke --only 03_pareto_selection --jobs 2",
              "--profile quick --seed-offset 1000 --path-output /tmp/replication"),
    "run": ("02_qmnist_writers --profile smoke -p seeds=[0,1,2]",),
    "plan": ("--profile quick", "--profile paper --only 01_population_ols -p seeds=[0,1]"),
    "compute": ("--profile quick --device cuda --export results.zip",),
    "live": ("--profile smoke --port 8890 --fresh",),
    "appendix": ("benchmarks/out", "benchmarks/out --check"),
    "pooled": ("benchmarks/out/builds/quick", "benchmarks/out/builds/quick --check"),
    "accounting": ("", "--check"),
    "claims-log": ("", "--page", '--log "why the claim changed" --seen no'),
    "params": ("--cell pareto_selection", "--cell template --write"),
    "gpu-rates": ("benchmarks/out/gpu_training_cuda_costs.csv",),
    "between-builds": ("benchmarks/out/builds/quick",),
}


def _examples(prog: str, command: str) -> str:
    return "examples:\n" + "\n".join(f"  {prog} {command} {e}".rstrip()
                                       for e in EXAMPLES[command])


def _command(sub: argparse._SubParsersAction, prog: str, name: str, text: str,
             description: str | None = None) -> argparse.ArgumentParser:
    """Add the command ``name`` (``text``: its one-line help) with its examples, if any."""
    description = description or text[0].upper() + text[1:] + "."
    return sub.add_parser(name, help=text, description=textwrap.fill(description, 88),
                          epilog=_examples(prog, name) if name in EXAMPLES else None,
                          formatter_class=argparse.RawDescriptionHelpFormatter)


def _book_commands(sub: argparse._SubParsersAction, prog: str) -> None:
    """The book's commands: ``plan``, ``build``, ``run``, ``compute``, ``live``."""
    from pruneaudit.book.paths import REPO

    helps = {"plan": "what a build would train and how long it would take",
             "build": "run the study notebooks and build the HTML book",
             "run": "run one study notebook"}
    for command, text in helps.items():
        p = _command(sub, prog, command, text)
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
    p = _command(sub, prog, "compute", "run the studies into the results store, without "
                 "notebooks", "Run each selected study's run(params, store) into the results "
                 "store (no notebook, no Jupyter); a later build with the same profile trains "
                 "nothing.")
    p.add_argument("--profile", default="quick", help="smoke, quick, paper or a YAML path")
    p.add_argument("-p", dest="params", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--only", nargs="+", metavar="NAME", help="compute only these notebooks")
    p.add_argument("--device", help="auto, cpu, cuda or cuda:N for every study (-p device=...)")
    p.add_argument("--export", metavar="FILE",
                   help="then write the store's results without checkpoints to FILE (a zip)")
    p = _command(sub, prog, "live", "JupyterLab over copies of the notebooks, for workshops",
                 "JupyterLab on 127.0.0.1 over copies of the notebooks in live/.")
    p.add_argument("--profile", default="quick",
                   help="the profile whose values the copies hold (smoke, quick, paper)")
    p.add_argument("--port", type=int, default=8888)
    p.add_argument("--fresh", action="store_true", help="replace the copies in live/")
    p.add_argument("--no-browser", action="store_true", help="do not open a browser")


def _check(parser: argparse.ArgumentParser, where: str) -> None:
    """A page command's ``--check``: write nothing, exit 1 where ``where``."""
    parser.add_argument("--check", action="store_true", help=f"write nothing; exit 1 where {where}")


def _page_commands(sub: argparse._SubParsersAction, prog: str) -> None:
    """The commands that write the book's pages and the package's data from committed files."""
    p = _command(sub, prog, "appendix", "write the Benchmarks appendix from the benchmarks' "
                 "reports", "Write the book's Benchmarks appendix (book/appendix_benchmarks.md) "
                 "and the paper-cost fragment from the benchmarks' reports.")
    p.add_argument("reports", help="the benchmarks' report folder")
    _check(p, "a committed page is not what this writes")
    p = _command(sub, prog, "pooled", "write the page Pooled over builds from the builds",
                 "Write the book's page Pooled over builds (book/pooled.md) from the committed "
                 "builds.")
    p.add_argument("builds", help="one profile's builds, a folder per build")
    _check(p, "the committed page differs")
    p = _command(sub, prog, "accounting", "write the page Every claim accounted for",
                 "Write the book's page Every claim accounted for (book/accounting.md) from the "
                 "package's accounting and the studies' declared claims.")
    _check(p, "the committed page differs")
    p = _command(sub, prog, "claims-log", "list claims changed without a changelog entry",
                 "List the claims whose declaration changed without an entry in the package's "
                 "changelog (exit 1 where there are any); --log appends one entry per such claim.")
    p.add_argument("--log", metavar="REASON", help="append an entry per unlogged claim")
    p.add_argument("--seen", choices=("yes", "no"), help="had our estimate been seen?")
    p.add_argument("--verdicts", help="CSV: claim,verdict_before,verdict_after")
    p.add_argument("--page", action="store_true", help="write book/_claims_changelog.md")
    p = _command(sub, prog, "params", "print or write a notebook's parameters cell",
                 "Print (or --write) a study notebook's parameters cell, generated from the "
                 "study's Params.")
    p.add_argument("--cell", metavar="STUDY", required=True,
                   help="study package (template, pareto_selection, ...)")
    p.add_argument("--write", action="store_true",
                   help="rewrite the cell tagged parameters of nbs/NN_STUDY.ipynb")
    p = _command(sub, prog, "gpu-rates", "install the GPU benchmark's hours as package data",
                 "Install the GPU benchmark's measured training hours as the package's data "
                 "(the hours the study pages state).")
    p.add_argument("costs", help="the GPU benchmark's cost table (CSV)")
    _check(p, "the package's table differs")
    p = _command(sub, prog, "between-builds", "re-estimate the between-build ratios",
                 "Re-estimate the package's between-build ratios (data/between_builds.csv) from "
                 "the builds under each ROOT.")
    p.add_argument("roots", nargs="+", metavar="ROOT", help="a folder of one profile's builds")


def _profile(args: argparse.Namespace):
    """The profile of a parsed ``build``, ``run`` or ``plan``, with its ``-p`` and
    ``--seed-offset`` overrides (``-p`` wins)."""
    from pruneaudit.book.profiles import Profile, parse_overrides

    overrides = parse_overrides(args.params)
    profile = Profile.read(args.profile)
    if args.seed_offset:
        from pruneaudit.book.builder.replication import replication_overrides

        names = [args.name] if args.command == "run" else args.only
        overrides = {**replication_overrides(profile, names, args.seed_offset), **overrides}
    return profile.with_overrides(overrides)


def _book(args: argparse.Namespace) -> int:
    """Run a parsed book command; the exit status."""
    if args.command == "compute":
        from pruneaudit.book.builder import compute

        return compute.command(args.profile, args.params, args.only, args.device, args.export)
    if args.command == "live":
        from pruneaudit.book.builder import live

        return live.serve(args.port, args.profile, fresh=args.fresh,
                          open_browser=not args.no_browser)
    profile = _profile(args)
    if args.command == "plan":
        from pruneaudit.book.builder.plan import make_plan

        print("\n".join(make_plan(profile, args.only).lines()))
        return 0
    from pruneaudit.book.builder import compute, runner

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


class _TopFormatter(argparse.RawDescriptionHelpFormatter):
    """``pruneaudit --help``: each command's help beside its name (argparse measures the
    commands' names one indent short, and would put the longest's help on the next line)."""

    def add_argument(self, action: argparse.Action) -> None:
        super().add_argument(action)
        if isinstance(action, argparse._SubParsersAction):
            longest = max(map(len, action.choices)) + self._current_indent + self._indent_increment
            self._action_max_length = max(self._action_max_length, longest)


def _parser(prog: str = "pruneaudit") -> argparse.ArgumentParser:
    """The command line's one parser: a subcommand per task."""
    parser = argparse.ArgumentParser(
        prog=prog, usage="%(prog)s <command> [options]", epilog=EXAMPLES_TOP.format(prog=prog),
        formatter_class=_TopFormatter,
    )
    parser._positionals.title = "commands"  # listed first, before the options
    parser.add_argument("--version", action="version", version=f"pruneaudit {__version__}",
                        help="show the version and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="<command>", prog=prog)
    _book_commands(sub, prog)

    grid = sub.add_parser("grid", help="grid run: run the missing runs of a grid of runs",
                          description="Grids of training and pruning runs.").add_subparsers(
        dest="action", required=True
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

    store = sub.add_parser("store", help="store ls: list the finished runs of a results store",
                           description="The results store.").add_subparsers(
        dest="action", required=True
    )
    ls = store.add_parser("ls", help="list finished runs")
    ls.add_argument("--store", help=store_help)
    ls.add_argument("--where", nargs="+", default=[], metavar="FIELD=VALUE",
                    help="keep runs whose field equals the value")
    ls.add_argument("--csv", action="store_true", help="print CSV instead of a table")
    _page_commands(sub, prog)
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
    from pruneaudit.runtime import Runtime

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
        runtime=Runtime(device=args.device),
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


#: Each page and data command: (module, function, the parsed arguments it takes).
_PAGE_COMMANDS = {
    "appendix": ("pruneaudit.book.report.appendix", "write_pages", ("reports", "check")),
    "pooled": ("pruneaudit.book.report.pooled", "write_page", ("builds", "check")),
    "accounting": ("pruneaudit.book.report.accounting", "write_page", ("check",)),
    "claims-log": ("pruneaudit.studies.claims_log", "check_log",
                   ("log", "seen", "verdicts", "page")),
    "params": ("pruneaudit.studies.params", "print_cell", ("cell", "write")),
    "gpu-rates": ("pruneaudit.runs.gpu_rates", "install_or_check", ("costs", "check")),
    "between-builds": ("pruneaudit.audit.between_builds", "reestimate", ("roots",)),
}


def _run(args: argparse.Namespace) -> int:
    """Run a parsed command; the exit status."""
    if args.command == "grid":
        return _grid_run(args)
    if args.command == "store":
        return _store_ls(args)
    if args.command in BOOK_COMMANDS:
        return _book(args)
    module, function, names = _PAGE_COMMANDS[args.command]
    return getattr(importlib.import_module(module), function)(
        *(getattr(args, name) for name in names))


def main(argv: Sequence[str] | None = None, prog: str = "pruneaudit") -> int:
    """Entry point of the ``pruneaudit`` command (and ``python -m pruneaudit``); returns the
    exit status (``--help`` and a parse error exit as argparse exits)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = _parser(prog)
    if not argv or argv[0] in ("-h", "--help"):
        print(parser.format_help(), end="")
        return 0 if argv else 2
    if argv[0] == "compute":
        # OpenMP threads that wait by spinning hold their cores between torch's parallel regions,
        # as the runner says for its kernels; set before torch loads (a user's value is kept).
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    args = parser.parse_args(argv)
    try:
        return _run(args)
    except PruneAuditError as err:  # the runs' commands name the program, as they always have
        where = f"{prog}: " if args.command in ("grid", "store") else ""
        print(f"{where}error: {err}", file=sys.stderr)
        return 2
