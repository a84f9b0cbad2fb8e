"""Several notebooks of a build at once, each in its own process (``build --jobs N``).

A notebook starts once every notebook whose parameters it reads (``needs``) has finished, since
it may read their results from the store (Study 5 reads Study 4's populations); the others run
side by side, at most ``workers`` at a time, each in a forked process of its own (a kernel's
environment, working folder and logging stay its own). Of the notebooks ready to start, those
that more notebooks wait for (directly or not) start first: a chain such as Study 4 then
Study 5 starts at once instead of after the notebooks named before it. Results come back in
the order the notebooks finish. When one fails, no other starts; those running finish (their
kernels shut down cleanly), then the first error is raised.
"""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TypeVar

from pruneaudit.errors import check_positive_int

T = TypeVar("T")

#: Seconds between looks at the running notebooks.
POLL = 0.2
#: The function the forked workers call (set before they fork: a closure cannot be pickled).
_RUN: Callable[[str], object] | None = None


def run_each(
    names: Sequence[str],
    needs: Mapping[str, Sequence[str]],
    run: Callable[[str], T],
    workers: int,
) -> Iterator[tuple[str, T]]:
    """``(name, run(name))`` for every name, ``names`` in an order that respects ``needs``
    (name -> the names that must finish first; names not in ``names`` are ignored). One worker:
    in this process, in order. More: forked processes (``run`` and its result must survive the
    fork and pickling)."""
    workers = check_positive_int("jobs", workers)
    if workers == 1:
        for name in names:
            yield name, run(name)
        return
    global _RUN
    _RUN = run
    context = multiprocessing.get_context("fork")
    waiting = _waiting_on(names, needs)
    pending = sorted(names, key=lambda n: -waiting[n])  # stable: else in the order given
    running: dict[str, multiprocessing.pool.AsyncResult] = {}
    done: set[str] = set()
    failure: BaseException | None = None
    with context.Pool(min(workers, len(names))) as pool:
        while pending or running:
            if failure is None:
                for name in [n for n in pending if _ready(n, needs, names, done)]:
                    if len(running) >= workers:
                        break
                    pending.remove(name)
                    running[name] = pool.apply_async(_call, (name,))
            else:
                pending.clear()
            finished = [n for n, r in running.items() if r.ready()]
            if not finished:
                time.sleep(POLL)
                continue
            for name in finished:
                result = running.pop(name)
                try:
                    value = result.get()
                except BaseException as err:  # the child's error, raised once all have ended
                    failure = failure or err
                    continue
                done.add(name)
                yield name, value
    if failure is not None:
        raise failure


def _call(name: str) -> object:
    return _RUN(name)


def _waiting_on(names: Sequence[str], needs: Mapping[str, Sequence[str]]) -> dict[str, int]:
    """How many of ``names`` wait, directly or through others, for each of ``names``."""
    before = {n: {m for m in needs.get(n, ()) if m in names} for n in names}
    waiting = dict.fromkeys(names, 0)
    for name in names:
        seen: set[str] = set()
        stack = list(before[name])
        while stack:
            first = stack.pop()
            if first not in seen:
                seen.add(first)
                stack.extend(before[first])
        for first in seen:
            waiting[first] += 1
    return waiting


def _ready(name: str, needs: Mapping[str, Sequence[str]], names: Sequence[str],
           done: set[str]) -> bool:
    return all(n in done for n in needs.get(name, ()) if n in names)
