"""The studies' computations without notebooks: every selected study's runs into the results store.

Command line::

    pruneaudit compute --profile quick [--device auto|cpu|cuda|cuda:N]
                       [--only NAME ...] [-p key=value ...] [--export FILE]

For each selected notebook (default: the profile's), in build order, :func:`run_studies` builds
the study's checked ``Params`` from the profile as the page's ``book.setup`` builds them
(:meth:`Profile.study_params <pruneaudit.book.profiles.Profile.study_params>`; the profile, the
overrides and every notebook's parameters are checked first, with the same one-line errors as
``build``; a study that reads another's parameters, Study 5 Study 4's, resolves them from the
same profile) and calls its ``run(params, store, runtime=...)`` with the process's one
:class:`~pruneaudit.runtime.Runtime` (on the study's device), which trains what the results
store lacks.
``--device`` is ``-p device=...`` for every selected study. A later ``build`` with the same
profile and overrides over that store trains nothing.

``--export FILE`` then writes the runs of that store without their checkpoints to one archive
(:meth:`ResultsStore.export_results <pruneaudit.runs.store.ResultsStore.export_results>`), a
few MB that ``build --import FILE`` adds to another machine's store
(:func:`import_results`), so that a GPU machine's results come back light and the book is
rendered elsewhere. A store made only of imported runs renders the book, but cannot extend a
series (a further pruning round starts from a checkpoint): compute that in the full store.

Progress is printed as ``build`` prints it (:class:`pruneaudit.book.builder.progress.Monitor`): the
study's training bars as lines, then ``computed NAME (seconds, new runs)``. This module imports
none of the notebook stack (nbformat, nbclient, papermill, Jupyter).
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from pruneaudit import config, runtime
from pruneaudit.book.builder import progress as book_progress
from pruneaudit.book.builder.plan import make_plan
from pruneaudit.book.profiles import Profile, parse_overrides, study_of
from pruneaudit.errors import PruneAuditError
from pruneaudit.runs.store import ResultsStore

#: The parameter ``--device`` sets.
DEVICE = "device"


@dataclass(frozen=True)
class Computed:
    """One study computed: its notebook, results store, seconds and the runs it added to the
    store (0: it found every run it needed stored)."""

    notebook: str
    store: Path
    seconds: float
    new_runs: int


def study_run(name: str) -> Callable:
    """The ``run(params, store, *, progress, runtime)`` of notebook ``name``'s study."""
    return study_of(name).run


def run_studies(
    profile: str | os.PathLike | Mapping | Profile,
    notebooks: Sequence[str] | None = None,
    overrides: Mapping[str, object] | None = None,
    *,
    progress: bool = True,
    stream: TextIO | None = None,
) -> list[Computed]:
    """Run the study of every selected notebook (default: the profile's) into the results store,
    in build order; return what each computed.

    ``profile``: a :class:`~pruneaudit.book.profiles.Profile` (``overrides`` None: its own) or
    what :meth:`Profile.read <pruneaudit.book.profiles.Profile.read>` takes. Every parameter is
    checked before anything runs. One :class:`~pruneaudit.runtime.Runtime`, made here, holds the
    process's settings and is handed to every study's ``run``: each study runs on its ``device``
    parameter, with torch's thread count chosen as a page's setup chooses it (restored at the
    end); ``progress`` prints its progress to
    ``stream`` (default stdout). Notebooks whose study has no ``run`` are skipped (said).
    """
    profile = Profile.read(profile, overrides)
    names = profile.check(notebooks)
    stream = stream if stream is not None else sys.stdout
    say = (lambda text: print(text, file=stream, flush=True)) if progress else (lambda text: None)
    for line in make_plan(profile, names).study_lines() if progress else []:  # what each will train
        say(line)
    todo = [(name, study_run(name)) for name in names]
    process = runtime.Runtime(threads=runtime.fixed_threads(), follow=True)
    done = []
    with runtime.threads_at(None):  # torch's count restored at the end
        threads, why = process.start()
        say(f"profile {profile.label}: computing {', '.join(n for n, _ in todo)}; "
            f"torch threads {threads} ({why})")
        for name, run in todo:
            params = profile.study_params(name)
            store = ResultsStore(params.store)
            before = len(store.keys())
            start = time.perf_counter()
            with process.settings(device=params.device), _monitor(process, name, progress, stream):
                run(params, store, progress=progress, runtime=process)
            seconds = time.perf_counter() - start
            new = len(store.keys()) - before
            done.append(Computed(name, store.root, seconds, new))
            say(f"computed {name} ({seconds:.1f} s, {new} new runs in {store.root})")
    return done


def results_store(
    profile: str | os.PathLike | Mapping | Profile, notebooks: Sequence[str] | None = None
) -> ResultsStore:
    """The results store of the selected notebooks (default: the profile's), from their
    ``store`` parameter; one error when they name several."""
    profile = Profile.read(profile)
    names = profile.check(notebooks)
    roots: dict[Path, list[str]] = {}
    for name in names:
        if "store" in profile.declared(name):
            root = ResultsStore(profile.values(name)["store"]).root
            roots.setdefault(root, []).append(name)
    if len(roots) > 1:
        parts = "; ".join(f"{root} ({', '.join(n)})" for root, n in roots.items())
        raise PruneAuditError(
            f"the selected notebooks use different results stores: {parts}; give them one "
            "(-p store=DIR) or select the notebooks of one store (--only)"
        )
    return ResultsStore(next(iter(roots), None))


def export_results(
    profile: str | os.PathLike | Mapping | Profile,
    notebooks: Sequence[str] | None,
    path: str | os.PathLike,
) -> int:
    """Export the selected notebooks' results store without checkpoints to the archive ``path``
    (:meth:`ResultsStore.export_results <pruneaudit.runs.store.ResultsStore.export_results>`);
    return the number of runs."""
    return results_store(profile, notebooks).export_results(path)


def import_results(
    profile: str | os.PathLike | Mapping | Profile,
    notebooks: Sequence[str] | None,
    path: str | os.PathLike,
) -> tuple[int, int]:
    """Add the runs of the archive ``path`` to the selected notebooks' results store
    (:meth:`ResultsStore.import_results <pruneaudit.runs.store.ResultsStore.import_results>`);
    return (runs added, runs it already had)."""
    return results_store(profile, notebooks).import_results(path)


@contextlib.contextmanager
def _monitor(
    process: runtime.Runtime, name: str, progress: bool, stream: TextIO
) -> Iterator[None]:
    """While a study runs: its training bars as ``build`` prints a notebook's (the runtime's
    bars write lines to a file tailed by :class:`~pruneaudit.book.builder.progress.Monitor`), the
    runtime's progress output restored after. Nothing when ``progress`` is off."""
    if not progress:
        yield
        return
    import tqdm

    tty = stream.isatty()
    progress_file = Path(tempfile.gettempdir()) / f".{name}.{os.getpid()}.progress"
    monitor = book_progress.Monitor(name, 1, progress_file, stream, tty)
    lines = process.settings(
        progress_file=progress_file, progress_interval=book_progress.interval(tty)
    )
    with monitor, lines, warnings.catch_warnings():
        warnings.simplefilter("ignore", tqdm.TqdmWarning)  # a bar's rounding, not the study's
        monitor.cell_started({"cell_type": "code", "source": "run"}, 0)
        yield


def command(profile: str = "quick", params: Sequence[str] = (),
            only: Sequence[str] | None = None, device: str | None = None,
            export: str | None = None) -> int:
    """``pruneaudit compute``: run the studies of ``profile`` (with the ``params`` overrides
    ``KEY=VALUE``, ``device`` as ``-p device=...``; ``only``: these notebooks) into the results
    store, then write its results without checkpoints to ``export``; the exit status."""
    overrides = parse_overrides(params)
    if device is not None:
        if DEVICE in overrides:
            raise PruneAuditError(
                f"--device {device} and -p device={overrides[DEVICE]} both set the device; "
                "give one"
            )
        overrides[DEVICE] = config.device_setting(device)
    read = Profile.read(profile, overrides)
    store = results_store(read, only) if export else None
    start = time.perf_counter()
    done = run_studies(read, only)
    new = sum(c.new_runs for c in done)
    studies = f"{len(done)} {'study' if len(done) == 1 else 'studies'}"
    print(f"computed {studies} in {time.perf_counter() - start:.1f} s: {new} new runs",
          flush=True)
    if store is not None:
        count = store.export_results(export)
        size = Path(export).stat().st_size / 1e6
        print(f"exported {count} runs without checkpoints to {export} ({size:.1f} MB)")
    return 0
