"""The smoke book of a test run: where it goes and how it is built, once per run.

Run as a script (``python tests/smoke_book.py <folder>``) by ``tests/conftest.py`` at the start
of a run, so that the book builds while the other tests run; the book's tests wait for it
(:func:`build` takes a file lock: the first process builds, the others reuse its build).
"""

from __future__ import annotations

import fcntl
import os
import sys
import time
import traceback
from pathlib import Path

#: Notebooks built at once: the book's build is the run's longest path, and it runs at a
#: higher priority than the test processes (``tests/conftest.py``), so it takes two cores.
JOBS = min(2, os.cpu_count() or 1)
#: The xdist group of the book's read-only page checks, the run's longest chain of checks:
#: ``tests/conftest.py`` puts each test that reads an open page in it and takes it first.
PAGES_GROUP = "book_pages"
#: The fixtures that need the smoke book (``book_html`` asks for it at run time; a test's
#: fixture closure holds it wherever a fixture it uses, such as ``server``, depends on it).
FIXTURES = frozenset({"smoke_book", "book_html"})


def folder(tmp_path_factory) -> Path:
    """The run's smoke book folder: in the temporary folder all pytest-xdist workers share."""
    base = tmp_path_factory.getbasetemp()
    return (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "smoke_book"


def build(base: Path) -> Path:
    """The smoke book in ``base`` (its HTML folder), built by the first process that asks (a
    file lock makes the others wait for it and reuse it). A build that failed is not tried
    again in the same run: the others raise its error (kept in ``<base>.failed``)."""
    from pruneaudit import book

    html = base / "_build" / "html"
    failed = base.parent / f"{base.name}.failed"
    base.mkdir(parents=True, exist_ok=True)
    with open(base.parent / f"{base.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if failed.exists():
            raise RuntimeError(f"the run's smoke book failed to build:\n{failed.read_text()}")
        if not (html / "index.html").exists():
            try:
                book.build("smoke", path_output=base, progress=False, jobs=JOBS)
            except BaseException:
                failed.write_text(traceback.format_exc())
                raise
    return html


if __name__ == "__main__":
    start = time.perf_counter()
    build(Path(sys.argv[1]))
    print(f"smoke book ready after {time.perf_counter() - start:.0f} s", flush=True)
