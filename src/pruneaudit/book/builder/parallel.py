"""Several notebooks of a build at once, each in its own process (``build --jobs N``).

A notebook starts once every notebook whose parameters it reads (``needs``) has finished, since
it may read their results from the store (Study 5 reads Study 4's populations); the others run
side by side, at most ``workers`` at a time, each in a forked process of its own (a kernel's
environment, working folder and logging stay its own). Of the notebooks ready to start, those
that more notebooks wait for (directly or not) start first: a chain such as Study 4 then
Study 5 starts at once instead of after the notebooks named before it. Results come back in
the order the notebooks finish. When one fails, no other starts; those running finish (their
kernels shut down cleanly), then the first error is raised.

The standard library does the work: :class:`graphlib.TopologicalSorter` says which notebooks
are ready, :class:`concurrent.futures.ProcessPoolExecutor` runs them and
:func:`concurrent.futures.wait` says when one has finished.
"""

from __future__ import annotations

import graphlib
import multiprocessing
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import TypeVar

from pruneaudit.errors import check_positive_int

T = TypeVar("T")

#: The attribute of a worker's own process object that holds its ``run`` (see :func:`_start`).
_RUN_ATTRIBUTE = "_pruneaudit_run"


def run_each(
    names: Sequence[str],
    needs: Mapping[str, Sequence[str]],
    run: Callable[[str], T],
    workers: int,
) -> Iterator[tuple[str, T]]:
    """``(name, run(name))`` for every name, ``names`` in an order that respects ``needs``
    (name -> the names that must finish first; names not in ``names`` are ignored). One worker:
    in this process, in order. More: forked processes (``run``'s result must survive pickling).

    The workers are forked, not spawned: ``run`` is typically a closure (the build runner's
    ``timed``), which cannot be pickled, while a forked worker inherits it. Forking a process
    whose torch threads have started (the runner's speed probe trains on the CPU first) is safe
    here because a worker runs no torch itself: it drives a notebook whose kernel is a new
    process (started by exec), with torch threads of its own. Builds on a GPU run one notebook
    at a time (the runner refuses more), so no worker inherits a CUDA context either.
    """
    workers = check_positive_int("jobs", workers)
    if workers == 1:
        for name in names:
            yield name, run(name)
        return
    if not names:
        return
    order = graphlib.TopologicalSorter(_before(names, needs))
    order.prepare()
    waiting = _waiting_on(names, needs)
    rank = {name: (-waiting[name], i) for i, name in enumerate(names)}  # else as given
    ready: list[str] = []
    running: dict[Future, str] = {}
    failure: BaseException | None = None
    with ProcessPoolExecutor(
        min(workers, len(names)), mp_context=multiprocessing.get_context("fork"),
        initializer=_start, initargs=(run,),  # with fork, initargs reach the child unpickled
    ) as pool:
        while running or (failure is None and order.is_active()):
            if failure is None:  # after a failure, nothing more starts
                ready = sorted([*ready, *order.get_ready()], key=rank.__getitem__)
                while ready and len(running) < workers:
                    name = ready.pop(0)
                    running[pool.submit(_call, name)] = name
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in [f for f in running if f in finished]:  # at once: in start order
                name = running.pop(future)
                try:
                    value = future.result()
                except BaseException as err:  # the child's error, raised once all have ended
                    failure = failure or err
                    continue
                order.done(name)
                yield name, value
    if failure is not None:
        raise failure


def _start(run: Callable[[str], object]) -> None:
    """The worker's initializer, called in the forked child only: keep ``run`` on the child's
    own process object, where :func:`_call` finds it. Nothing is kept in this module, and the
    parent's process object never gets the attribute."""
    setattr(multiprocessing.current_process(), _RUN_ATTRIBUTE, run)


def _call(name: str) -> object:
    """``run(name)`` in a worker (the ``run`` :func:`_start` kept)."""
    return getattr(multiprocessing.current_process(), _RUN_ATTRIBUTE)(name)


def _before(names: Sequence[str], needs: Mapping[str, Sequence[str]]) -> dict[str, set[str]]:
    """Each of ``names`` -> those of ``names`` that must finish before it."""
    return {n: {m for m in needs.get(n, ()) if m in names} for n in names}


def _waiting_on(names: Sequence[str], needs: Mapping[str, Sequence[str]]) -> dict[str, int]:
    """How many of ``names`` wait, directly or through others, for each of ``names``."""
    before = _before(names, needs)
    after: dict[str, set[str]] = {n: set() for n in names}  # n -> all that wait for n
    # dependents first: each one's own set is complete before its needs take it up
    for name in reversed(list(graphlib.TopologicalSorter(before).static_order())):
        for first in before[name]:
            after[first] |= {name} | after[name]
    return {n: len(after[n]) for n in names}
