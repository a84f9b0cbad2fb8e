"""Run the study notebooks with a profile (papermill) and build the book (Jupyter Book).

The command line (``pruneaudit build|run|compute|plan``, or ``python -m pruneaudit``) is
:mod:`pruneaudit.cli`; the book's Reproducing page and the README explain its options.

The profile is read once into a :class:`~pruneaudit.book.profiles.Profile` (with the ``-p``
overrides) and made into one :class:`~pruneaudit.book.builder.plan.BuildPlan` before any kernel
starts (:func:`~pruneaudit.book.builder.plan.make_plan`: every parameter checked, the order,
each notebook's job, the stamp, the expected duration); :func:`build` runs it. Executed
notebooks go to ``<path-output>/book/studies/<name>.ipynb`` (the repository's ``book/studies`` by
default; a build elsewhere, e.g. the tests', first copies the book's sources there), each with a
banner cell and ``metadata.pruneaudit`` recording its profile, overrides and build date; ``build``
refuses to assemble pages of different profiles or overrides unless ``--allow-mixed``. Then
``jupyter-book build`` renders them (execution off in ``_config.yml``); study pages whose executed
notebook does not exist are left out of the toc used.

While a notebook runs, :class:`pruneaudit.book.builder.progress.Monitor` prints which cell runs
and the kernel's training progress; per-notebook durations go to ``book/studies/_timings.json``,
from which the next build states its expected duration. ``--jobs N`` runs up to N notebooks at
once, each in a process of its own, a notebook after those it reads
(:mod:`pruneaudit.book.builder.parallel`; CPU only: on a GPU two study processes slow each other).
"""

from __future__ import annotations

import contextlib
import datetime
import json
import logging
import math
import os
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from unittest import mock

import yaml
from nbclient.exceptions import CellTimeoutError

from pruneaudit import timing
from pruneaudit.book.builder import parallel
from pruneaudit.book.builder import progress as book_progress
from pruneaudit.book.builder.plan import (
    JUPYTER_BOOK,
    BuildPlan,
    build_stamp,
    make_plan,
    probe_here,
    write_plan_page,
)
from pruneaudit.book.builder.replication import replication_overrides  # noqa: F401  (kept here)
from pruneaudit.book.paths import REPO, STUDIES, TIMINGS, phases_path
from pruneaudit.book.profiles import (
    Job,
    Profile,
    notebook_path,
)
from pruneaudit.book.report.assets import stage_sources, vendor_assets
from pruneaudit.book.report.banner import banner_text
from pruneaudit.book.report.front import write_front_page, write_verdicts_page
from pruneaudit.book.report.launch import origin_url, write_config
from pruneaudit.book.report.pages import load_timings, prepare_pages
from pruneaudit.errors import PruneAuditError, check_positive_int
from pruneaudit.runtime import KernelRecord

KERNEL_NAME = "python3"
#: The kernel's own log above warnings only (its warning about TCP without encryption between
#: two local processes says nothing to a user); errors and tracebacks still show.
KERNEL_QUIET = ["--IPKernelApp.log_level=ERROR"]
#: Seconds one cell may run before the notebook is run again once (unset: no limit). A kernel
#: whose reply to a finished cell never reaches the client (a rare hang of papermill/nbclient,
#: seen once under heavy load) then costs one rerun, not a build that never ends; the tests'
#: smoke builds set it.
CELL_TIMEOUT_ENV = "PRUNEAUDIT_CELL_TIMEOUT"
#: Key of the executed notebook's metadata that records how it was built.
METADATA_KEY = "pruneaudit"
#: Kernel and client messages that say nothing to a reader or builder.
QUIET_ENV = {
    "PYDEVD_DISABLE_FILE_VALIDATION": "1",
    "JUPYTER_PLATFORM_DIRS": "1",
    "PYTHONWARNINGS": "ignore",
}


# ---------------------------------------------------------------------------------------------
# Execution


def kernel_name() -> str:
    """The kernel to execute with: ``python3`` when it runs this interpreter.

    ipykernel installs its ``python3`` kernelspec into the virtual environment, and jupyter-client
    starts a spec whose command is ``python`` with the running interpreter. When another
    ``python3`` spec (e.g. a user-level one) shadows it, a spec named ``pruneaudit`` is installed
    into this environment (``sys.prefix``) and used.
    """
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    manager = KernelSpecManager()
    with contextlib.suppress(NoSuchKernel):
        command = manager.get_kernel_spec(KERNEL_NAME).argv[0]
        if command in ("python", "python3", sys.executable):
            return KERNEL_NAME
    with contextlib.suppress(NoSuchKernel):
        if manager.get_kernel_spec("pruneaudit").argv[0] == sys.executable:
            return "pruneaudit"
    subprocess.run(
        [sys.executable, "-m", "ipykernel", "install", "--sys-prefix", "--name", "pruneaudit"],
        check=True,
        capture_output=True,
    )
    return "pruneaudit"


@contextlib.contextmanager
def _environment(**values: str) -> Iterator[None]:
    """``values`` in this process's environment, which the kernel started inside the block
    inherits (papermill passes a kernel no environment of its own), restored after: the
    package's one hand-off through the environment (the kernel's record,
    :class:`~pruneaudit.runtime.KernelRecord`, and the quiet settings of :data:`QUIET_ENV`)."""
    with mock.patch.dict(os.environ, values):
        yield


def strip_widgets(path: Path) -> None:
    """Remove saved ipywidgets state and widget views from an executed notebook.

    The static book shows no live widget (see :func:`pruneaudit.charts.show_widget`); without
    saved state Jupyter Book also loads no widget JavaScript (no CDN request).
    """
    import nbformat

    nb = nbformat.read(path, as_version=4)
    nb.metadata.pop("widgets", None)
    view = "application/vnd.jupyter.widget-view+json"
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if view in data:
                data.pop(view)
                if not data:
                    data["text/plain"] = ""
    nbformat.write(nb, path)


#: The heading of the section that ends a study page: how to re-run it, and what built it.
RERUN_HEADING = "## Re-run this page"


def add_banner(path: Path, stamp: Mapping[str, object], params: Mapping[str, object]) -> None:
    """Insert the banner (a note naming the profile, overrides and date) in the page's
    "Re-run this page" section, after the cell that opens it (else at the page's end), never
    at its top, which belongs to the answer; record ``stamp`` and the parameters in
    ``metadata.pruneaudit`` of the executed notebook ``path``."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    cell = nbformat.v4.new_markdown_cell(f":::{{note}}\n{banner_text(stamp)}\n:::")
    cell.metadata["tags"] = ["pruneaudit-banner"]
    opens = [i for i, c in enumerate(nb.cells)
             if c.cell_type == "markdown" and RERUN_HEADING in c.source]
    nb.cells.insert(opens[-1] + 1 if opens else len(nb.cells), cell)
    nb.metadata[METADATA_KEY] = {**stamp, "parameters": json.loads(json.dumps(params))}
    nbformat.write(nb, path)


def read_stamp(path: Path) -> dict | None:
    """The ``metadata.pruneaudit`` of an executed notebook (None when it has none)."""
    meta = json.loads(path.read_text()).get("metadata", {})
    return meta.get(METADATA_KEY)


def _code_cells(name: str) -> int:
    cells = json.loads(notebook_path(name).read_text())["cells"]
    return sum(c["cell_type"] == "code" and "".join(c["source"]).strip() != "" for c in cells)


def run_notebook(
    name: str,
    profile: str | os.PathLike | Mapping | Profile = "smoke",
    overrides: Mapping[str, object] | None = None,
    out_dir: str | os.PathLike = STUDIES,
    *,
    progress: bool = False,
    stamp: Mapping[str, object] | None = None,
    threads: int | None = None,
) -> Path:
    """Execute ``nbs/<name>.ipynb`` with the profile's parameters into ``out_dir/<name>.ipynb``.

    ``profile``: a :class:`~pruneaudit.book.profiles.Profile` (``overrides`` None: its own), or
    what :meth:`Profile.read <pruneaudit.book.profiles.Profile.read>` takes. Parameters are
    validated first (no kernel; a Profile validates each notebook once). Runs in the repository
    root; tells the kernel, in one record (:class:`~pruneaudit.runtime.KernelRecord` in
    ``$PRUNEAUDIT_KERNEL``), that it builds the static book, where its page goes,
    its build stamp (profile, overrides, date), the seconds the profile states for it, where to
    write progress lines and its thread count (``threads``, None: it chooses); the kernel
    gets its checked parameters as papermill's and reads no profile. ``progress`` prints the
    running cell and training progress. On failure the executed copy is kept as
    ``<name>.failed.ipynb`` and the error names the cell's exception; the output path is only
    written on success.
    """
    profile = Profile.read(profile, overrides)
    (job,) = profile.jobs([name]).values()
    stamp = dict(stamp or build_stamp(profile, profile.overrides))
    return run_job(job, stamp, out_dir, progress=progress, threads=threads)


def run_job(
    job: Job,
    stamp: Mapping[str, object],
    out_dir: str | os.PathLike = STUDIES,
    *,
    progress: bool = False,
    threads: int | None = None,
) -> Path:
    """Execute the notebook of ``job`` (its resolved and checked values, a plan's job) with the
    build ``stamp`` into ``out_dir/<name>.ipynb`` as :func:`run_notebook` says."""
    import papermill

    name, params, values = job.name, job.parameters, job.values
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    target, partial, failed = (out_dir / f"{name}{s}.ipynb" for s in ("", ".partial", ".failed"))
    progress_file = out_dir / f".{name}.progress"
    stream = sys.stdout if progress else open(os.devnull, "w")  # noqa: SIM115
    tty = stream.isatty()
    record = KernelRecord(
        page_dir=str(out_dir.resolve()), notebook=name, profile=str(stamp["profile"]),
        overrides=dict(stamp.get("overrides", {})), date=str(stamp["date"]),
        measured=_seconds(job.measured), progress_file=str(progress_file.resolve()),
        progress_interval=book_progress.interval(tty), threads=threads, static=True,
    )
    env = {**record.environ(), **QUIET_ENV}
    # OpenMP threads that wait by spinning hold their cores between torch's parallel regions: on
    # a machine that other processes keep busy a 2-thread build then ran 4-15x slower than at one
    # thread. Waiting passively costs nothing when idle; a value the user set is kept.
    env.setdefault("OMP_WAIT_POLICY", os.environ.get("OMP_WAIT_POLICY", "PASSIVE"))
    timeout = _cell_timeout()
    try:
        for attempt in (1, 2):
            monitor = book_progress.Monitor(
                name, _code_cells(name) + 1, progress_file, stream, tty
            )
            try:
                with _environment(**env), _quiet(), monitor:
                    papermill.execute_notebook(
                        str(notebook_path(name)),
                        str(partial),
                        parameters=params,
                        kernel_name=kernel_name(),
                        cwd=str(REPO),
                        progress_bar=False,
                        on_cell_start=monitor.cell_started,
                        extra_arguments=KERNEL_QUIET,
                        execution_timeout=timeout,
                    )
                break
            except (CellTimeoutError, RuntimeError) as err:
                retry = _worth_another_try(err, timeout)
                if retry is None:
                    raise
                why, fix = retry
                if attempt == 2:
                    raise PruneAuditError(f"notebook {name}: {why} twice; {fix}") from None
                print(f"[{name}] {why}: running the notebook again", file=stream, flush=True)
    except papermill.PapermillExecutionError as err:
        os.replace(partial, failed)
        raise PruneAuditError(
            f"notebook {name} failed in cell {err.exec_count}: {err.ename}: {err.evalue} "
            f"(executed copy: {failed})"
        ) from None
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    finally:
        if stream is not sys.stdout:
            stream.close()
    return _finish(partial, target, failed, stamp, values)


def _finish(partial: Path, target: Path, failed: Path, stamp: Mapping[str, object],
            values: Mapping[str, object]) -> Path:
    """The executed notebook ``partial`` without widgets, with its banner, moved to ``target``
    (a failed copy of an earlier try removed)."""
    strip_widgets(partial)
    add_banner(partial, stamp, values)
    os.replace(partial, target)
    failed.unlink(missing_ok=True)
    return target


def _worth_another_try(err: BaseException, timeout: float | None) -> tuple[str, str] | None:
    """What went wrong and what to do if it happens twice, when it is worth running the
    notebook once more: a cell that ran past ``timeout`` (a kernel reply that never came), or a
    kernel that died as it started. The latter is jupyter_client's known race: it picks free
    ports, closes them and hands them to the new kernel, and another process starting at the
    same moment (the tests start kernels beside a ``--jobs 2`` build) may bind one first. None
    for any other error."""
    if isinstance(err, CellTimeoutError):
        return f"a cell ran longer than ${CELL_TIMEOUT_ENV}={timeout:g} s", "raise or unset it"
    if isinstance(err, RuntimeError) and "died before replying to kernel_info" in str(err):
        return ("the kernel died as it started",
                "is another process taking its ports, or is the memory full?")
    return None


def _seconds(measured: float | str | None) -> float | None:
    """The seconds a profile states for a notebook, None when it states none."""
    text = str(measured if measured is not None else "").strip()
    return float(text) if text else None


def _cell_timeout() -> float | None:
    """``$PRUNEAUDIT_CELL_TIMEOUT`` in seconds (:data:`CELL_TIMEOUT_ENV`), None when unset."""
    text = os.environ.get(CELL_TIMEOUT_ENV, "").strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not value > 0:
        raise PruneAuditError(
            f"${CELL_TIMEOUT_ENV} must be a number of seconds > 0, got {text!r}: fix or unset it"
        )
    return value


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Silence the client's messages that say nothing to a user (TCP without encryption, paths
    migration, papermill's INFO log)."""
    loggers = [logging.getLogger(n) for n in ("papermill", "traitlets", "asyncio")]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        for lg, level in zip(loggers, levels, strict=True):
            lg.setLevel(level)


# ---------------------------------------------------------------------------------------------
# Timings


def record_timing(
    studies: Path,
    profile: str,
    notebook: str,
    seconds: float,
    new_runs: int | None = None,
    phases: Mapping[str, float] | None = None,
    probe: float | None = None,
) -> Path:
    """Add (or replace) ``{profile, notebook, seconds, date, cores, machine, new_runs, phases,
    probe}`` in ``studies/_timings.json``; ``new_runs``: runs (trained models, stored
    evaluations) the notebook added to the results store (0: it found all it needed stored, or
    stores none); ``phases``: its seconds per phase (:mod:`pruneaudit.timing`), when measured;
    ``probe``: the build's speed probe (:func:`pruneaudit.runs.speed_probe`), when run."""
    path = Path(studies) / TIMINGS
    rows = load_timings(studies, strict=False)
    rows = [r for r in rows if (r["profile"], r["notebook"]) != (profile, notebook)]
    rows.append(
        {
            "profile": profile,
            "notebook": notebook,
            "seconds": round(seconds, 1),
            "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "cores": os.cpu_count(),
            "machine": timing.machine(),
            "new_runs": new_runs,
            "phases": dict(phases) if phases else None,
            "probe": None if probe is None else round(probe, 4),
        }
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(sorted(rows, key=lambda r: (r["profile"], r["notebook"])), indent=1))
    return path


# ---------------------------------------------------------------------------------------------
# Book


def check_same_build(
    studies: Path, names: Sequence[str], stamp: Mapping[str, object], *, allow_mixed: bool = False
) -> None:
    """Every executed page ``studies/<name>.ipynb`` was built with ``stamp``'s profile and
    overrides; otherwise one error naming the pages and their profiles (unless ``allow_mixed``)."""
    want = (stamp["profile"], dict(stamp.get("overrides", {})))
    odd = []
    for name in names:
        path = Path(studies) / f"{name}.ipynb"
        if not path.is_file():
            continue
        got = read_stamp(path) or {"profile": "unknown (no build record)", "overrides": {}}
        if (got.get("profile"), dict(got.get("overrides") or {})) != want:
            odd.append(f"{name} ({got.get('profile')}, overrides {got.get('overrides') or {}})")
    if odd and not allow_mixed:
        raise PruneAuditError(
            f"the book would mix builds: this build is profile {want[0]} with overrides "
            f"{want[1] or {}}, but {'; '.join(odd)}. Rerun those notebooks with this profile, "
            f"build into another --path-output, or pass --allow-mixed"
        )


def _toc_for_existing(toc: Path, out: Path, source: Path = REPO) -> list[str]:
    """Write ``toc`` to ``out`` without entries whose file does not exist under ``source``;
    return those."""
    content = yaml.safe_load(toc.read_text())
    dropped: list[str] = []

    def exists(entry: dict) -> bool:
        if "file" not in entry:
            return True
        stem = source / entry["file"]
        if any(stem.with_suffix(s).is_file() for s in (".md", ".ipynb")) or stem.is_file():
            return True
        dropped.append(entry["file"])
        return False

    def prune(node: dict) -> dict:
        for key in ("parts", "chapters", "sections"):
            if key in node:
                node[key] = [prune(e) for e in node[key] if exists(e)]
        return node

    content = prune(content)
    content["parts"] = [p for p in content.get("parts", []) if p.get("chapters")]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(yaml.safe_dump(content, sort_keys=False))
    return dropped


def build(
    profile: str | os.PathLike | Profile = "quick",
    notebooks: Sequence[str] | None = None,
    overrides: Mapping[str, object] | None = None,
    path_output: str | os.PathLike = REPO,
    *,
    execute: bool = True,
    allow_mixed: bool = False,
    progress: bool = True,
    jobs: int = 1,
) -> Path:
    """Run the profile's notebooks (or ``notebooks``), then build the HTML book; return its folder.

    ``profile`` (a :class:`~pruneaudit.book.profiles.Profile`, ``overrides`` None: its own; or a
    name or YAML path) is read once and made into one plan before anything runs
    (:func:`~pruneaudit.book.builder.plan.make_plan`: every parameter checked, the
    build order, each notebook's job, the stamp and the expected duration), which
    :func:`~pruneaudit.book.builder.runner.run_plan` runs. Executed notebooks go to
    ``<path_output>/book/studies`` (the book's sources are copied to ``path_output`` first when
    it is not the repository); the HTML to ``<path_output>/_build/html``; warnings are errors.
    The pages must share one profile and overrides unless ``allow_mixed``; study pages whose
    executed notebook is missing are left out of the toc used. ``jobs``: how many notebooks run
    at once (:mod:`pruneaudit.book.builder.parallel`), on the CPU only: on a GPU two study processes
    slow each other, so more than one is refused there.
    """
    jobs = check_positive_int("jobs", jobs)
    if jobs > 1 and execute and _cuda():
        raise PruneAuditError(
            f"jobs={jobs}: notebooks share this machine's GPU and slow each other; run them one "
            "at a time (--jobs 1)"
        )
    output = Path(path_output).resolve()
    studies = output / "book" / "studies"
    plan = make_plan(Profile.read(profile, overrides), notebooks, studies)
    say = print if progress else (lambda *a, **k: None)
    source = stage_sources(output)
    skipped = [n for n in plan.in_profile if n not in plan.order or not execute]
    check_same_build(studies, skipped, plan.stamp, allow_mixed=allow_mixed)
    vendor_assets(source / "book" / "_static" / "vendor")
    if execute:
        run_plan(plan, studies, progress=progress, jobs=jobs)
    write_plan_page(plan, studies)
    prepare_pages(studies)
    write_front_page(studies)
    write_verdicts_page(studies)
    toc = output / "_build" / "_toc.yml"
    dropped = _toc_for_existing(source / "_toc.yml", toc, source)
    if dropped:
        say(f"not in this build (no executed notebook yet): {', '.join(dropped)}")
    pages = [p.stem for p in studies.glob("*.ipynb") if "." not in p.stem]
    check_same_build(studies, pages, plan.stamp, allow_mixed=allow_mixed)
    config = output / "_build" / "_config.yml"  # with the launch buttons' repository, if any
    say(write_config(source, config, origin_url()))
    seconds = _jupyter_book(source, output, toc, config)
    if execute:  # the pages' assembly, shown by the next build
        record_timing(studies, str(plan.stamp["profile"]), JUPYTER_BOOK, seconds,
                      probe=probe_here())
    return output / "_build" / "html"


def run_plan(plan: BuildPlan, studies: Path, *, progress: bool = True, jobs: int = 1) -> None:
    """Execute the notebooks of ``plan`` into ``studies`` (up to ``jobs`` at once, each after
    those it reads) and record each one's duration (:func:`record_timing`); print the plan's
    lines first when ``progress`` (:meth:`~pruneaudit.book.builder.plan.BuildPlan.lines`: the
    expected duration and torch's threads, then each notebook's expected minutes, which add up
    to it)."""
    say = print if progress else (lambda *a, **k: None)
    for line in plan.lines() if progress else []:
        say(line, flush=True)
    probe = probe_here()  # measured once per process: the plan's, where it scaled the duration

    def timed(name: str) -> tuple[float, int | None, dict[str, float] | None]:
        return _timed_job(plan.jobs[name], plan.stamp, studies, progress)

    needs = {n: list(reads) for n, reads in plan.needs.items()}
    for name, (seconds, new_runs, phases) in parallel.run_each(plan.order, needs, timed, jobs):
        record_timing(studies, str(plan.stamp["profile"]), name, seconds, new_runs, phases,
                      probe)
        say(f"executed {name} ({seconds:.1f} s)", flush=True)


def _jupyter_book(source: Path, output: Path, toc: Path, config: Path) -> float:
    """Render the book of ``source`` into ``output/_build/html`` with ``toc`` and ``config``;
    its seconds, or one error quoting the build's warnings and errors."""
    jupyter_book = Path(sys.executable).with_name("jupyter-book")
    command = [str(jupyter_book) if jupyter_book.exists() else "jupyter-book", "build", str(source)]
    # --keep-going: every warning is reported before the build fails, not the first alone
    command += ["--warningiserror", "--keep-going", "--path-output", str(output),
                "--toc", str(toc), "--config", str(config)]
    # autodoc (book/api.md) documents the package that runs this build, wherever it is installed
    src = str(Path(__file__).resolve().parents[2])
    path = os.pathsep.join(p for p in (src, os.environ.get("PYTHONPATH")) if p)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=source, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": path})
    if done.returncode:
        log = (done.stdout + done.stderr).splitlines()
        causes = [line for line in log if "warning" in line.lower() or "error" in line.lower()]
        raise PruneAuditError(
            f"jupyter-book build failed (exit {done.returncode}):\n" + "\n".join(causes[-20:])
        )
    return time.perf_counter() - start


def _timed_job(
    job: Job, stamp: Mapping[str, object], studies: Path, progress: bool
) -> tuple[float, int | None, dict[str, float] | None]:
    """Run ``job`` (:func:`run_job`); its seconds, the runs its kernel added to the store and
    its phases (as the kernel counted them: :mod:`pruneaudit.timing`)."""
    start = time.perf_counter()
    run_job(job, stamp, studies, progress=progress,
            threads=book_progress.fixed_threads())  # else kernels follow free cores
    seconds = time.perf_counter() - start
    left = phases_path(studies, job.name)
    phases, new_runs = timing.read(left), timing.read_new_runs(left)
    left.unlink(missing_ok=True)
    return seconds, new_runs, phases


def _cuda() -> bool:
    import torch

    return torch.cuda.is_available()

