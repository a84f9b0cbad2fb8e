"""Shared fixtures."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import smoke_book

REPO = Path(__file__).resolve().parents[1]

#: torch threads of a test process (a single model trained at 1 and at 2 threads differs bitwise).
#: Set in each process that runs tests (:func:`pytest_configure`); pytest-xdist's controller
#: runs none and never imports torch (4 s at the start of the run, before the book's build).
TEST_THREADS = int(os.environ.get("PRUNEAUDIT_TEST_THREADS", "1"))
# A notebook cell of the smoke profile takes seconds: one that has not answered in 15 minutes is
# the rare lost kernel reply, and the runner runs its notebook again (book.builder.runner).
os.environ.setdefault("PRUNEAUDIT_CELL_TIMEOUT", "900")


#: How much lower the test processes' CPU priority is than the smoke book's build (``nice``).
BUILD_FIRST = 5


def _needs_book(item: pytest.Item) -> bool:
    return bool(smoke_book.FIXTURES & set(getattr(item, "fixturenames", ())))


def _order(item: pytest.Item) -> int:
    """Where a test runs: the tests of the smoke book last, so that the book builds
    (:func:`_smoke_book_early`) while the other tests run; with two or more test processes,
    the page checks first: one process waits for the book and takes them as soon as it is
    ready (the run's longest chain of checks), while the others run the rest."""
    if not _needs_book(item):
        return 1
    groups = {m.args[0] if m.args else m.kwargs.get("name")
              for m in item.iter_markers("xdist_group")}
    several = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) >= 2
    return 0 if several and smoke_book.PAGES_GROUP in groups else 2


@pytest.fixture(autouse=True)
def _threads_as_set() -> Iterator[None]:
    """Every test ends with the test process's torch threads (``book.setup`` starts a kernel's
    runtime, which sets torch's count for good)."""
    yield
    import torch

    torch.set_num_threads(TEST_THREADS)


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(config, items) -> None:
    """Tests that read the book's open pages (the ``shown`` fixture) run in one test process,
    pytest-xdist's ``loadgroup`` group :data:`smoke_book.PAGES_GROUP`, so that each page opens
    once per viewport and run, not once per process (one group, not one per viewport: the phone
    pages were opened in both, and the phone group, taken last, ran alone at the run's end).
    Tests marked ``cuda`` run only where torch sees a CUDA device (skipped elsewhere); the
    order is :func:`_order`'s."""
    for item in items:
        if "shown" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group(smoke_book.PAGES_GROUP))
    items.sort(key=_order)  # stable: the same order in every pytest-xdist worker
    import torch

    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA device (torch.cuda.is_available() is False)")
    for item in items:
        if "cuda" in item.keywords:
            item.add_marker(skip)


#: Set by the controller of a whole ``make test`` run once it has started the smoke book's build
#: (:func:`pytest_configure`); its workers then start none.
STARTED_ENV = "PRUNEAUDIT_TEST_SMOKE_BOOK_STARTED"


def _start_build(tmp_path_factory: pytest.TempPathFactory) -> subprocess.Popen:
    folder = smoke_book.folder(tmp_path_factory)
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder.parent / "smoke_book.log", "w") as log:
        return subprocess.Popen(
            [sys.executable, smoke_book.__file__, str(folder)], stdout=log, stderr=log
        )


def _whole_fast_run(config: pytest.Config) -> bool:
    """Is this the controller of ``make test``'s run (every test path, no ``-k``, not only the
    slow tests) under pytest-xdist, with no built book given? Its selection needs the book."""
    return (
        not hasattr(config, "workerinput")
        and bool(config.getoption("numprocesses", None))
        and not config.getoption("collectonly")
        and not config.getoption("keyword")
        and config.getoption("markexpr") in ("", "not slow")
        and config.args_source is pytest.Config.ArgsSource.TESTPATHS
        and not os.environ.get("PRUNEAUDIT_BOOK_HTML")
    )


@pytest.hookimpl(trylast=True)  # after the tmp_path plugin's own configure
def pytest_configure(config: pytest.Config) -> None:
    """The controller of a whole run starts the smoke book's build before its workers start and
    collect (about 25 s of imports each); the workers, at a lower priority from the start,
    leave the CPU to it (the build is the run's longest path). Each process that runs tests
    sets its torch threads (:data:`TEST_THREADS`)."""
    if _whole_fast_run(config):
        config._smoke_book_build = _start_build(config._tmp_path_factory)
        os.environ[STARTED_ENV] = "1"
    elif hasattr(config, "workerinput") and os.environ.get(STARTED_ENV):
        os.nice(BUILD_FIRST)
    if hasattr(config, "workerinput") or not config.getoption("numprocesses", None):
        import torch

        torch.set_num_threads(TEST_THREADS)


def pytest_unconfigure(config: pytest.Config) -> None:
    build = getattr(config, "_smoke_book_build", None)
    if build is not None:
        build.wait()


@pytest.fixture(scope="session", autouse=True)
def _smoke_book_early(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[None]:
    """Start building the run's smoke book (``smoke_book.py``, in the background, once per run:
    in the first pytest-xdist worker) when a selected test needs it, ``$PRUNEAUDIT_BOOK_HTML``
    names no built book and the run's controller has not started it; its tests wait for it."""
    wanted = any(_needs_book(item) for item in request.session.items)
    if not wanted or os.environ.get("PRUNEAUDIT_BOOK_HTML") or os.environ.get(STARTED_ENV):
        yield
        return
    proc = None
    if os.environ.get("PYTEST_XDIST_WORKER", "gw0") == "gw0":
        proc = _start_build(tmp_path_factory)
    # The book is the run's longest path: the test processes (not its build, started above)
    # yield the CPU to it; a lower priority only matters while the build runs.
    os.nice(BUILD_FIRST)
    yield
    if proc is not None:
        proc.wait()


@pytest.fixture(scope="session")
def data_root() -> Path:
    """The real data root: $PRUNEAUDIT_DATA, else ../shared/data. In CI a missing root fails."""
    root = Path(os.environ.get("PRUNEAUDIT_DATA", REPO.parent / "shared" / "data"))
    if not (root / "MNIST" / "raw").is_dir():
        message = f"real data expected under {root} (set PRUNEAUDIT_DATA to the data folder)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return root
