"""Following the profile from ``runner.build``: the modules of the functions that receive the
parsed :class:`~pruneaudit.book.profiles.Profile`, in call order, come back to no module more
than twice after leaving it (kernels, HTML build and Vega bundle stubbed: only the runner's own
path is traced; about 10 s under the tracer, so ``make test-slow``)."""

from __future__ import annotations

import collections
import shutil
import subprocess
import sys
from pathlib import Path

import papermill
import pytest

from pruneaudit.book import profiles
from pruneaudit.book.builder import runner

#: How often the profile's path may come back to a module it has left (a build of every
#: notebook of the profile: profiles -> plan -> profiles -> plan -> profiles, the whole build
#: planned at once by ``plan.make_plan``, which asks the profile for every notebook's checked
#: order, job and parameters in one go; before, the runner asked the profile again per
#: notebook).
MOST_REENTRIES = 2


def profile_path(build) -> list[str]:
    """The ``pruneaudit`` modules of the functions called with a ``Profile`` among their
    arguments while ``build()`` runs, consecutive repeats folded."""
    seen: list[str] = []

    def tracer(frame, event, arg) -> None:
        name = frame.f_globals.get("__name__", "")
        if event == "call" and name.startswith("pruneaudit") and any(
            isinstance(v, profiles.Profile) for v in frame.f_locals.values()
        ) and (not seen or seen[-1] != name):
            seen.append(name)

    sys.setprofile(tracer)
    try:
        build()
    finally:
        sys.setprofile(None)
    return seen


def reentries(path: list[str]) -> dict[str, int]:
    """How many times each module of ``path`` is entered again after it was left."""
    return {m: n - 1 for m, n in collections.Counter(path).items() if n > 1}


def test_reentries_counts_returns_to_a_module() -> None:
    assert reentries(["a", "b", "a", "c", "a"]) == {"a": 2}
    assert reentries(["a", "b", "c"]) == {}


@pytest.mark.slow
def test_the_profile_path_reenters_no_module_more_than_twice(tmp_path: Path, monkeypatch) -> None:
    def copy(source, target, parameters=None, **kwargs) -> None:
        shutil.copy(source, target)

    def html(command, *args, **kwargs):
        out = Path(command[2]) / "_build" / "html"
        out.mkdir(parents=True, exist_ok=True)
        (out / "index.html").write_text("stub")
        return subprocess.CompletedProcess(command, 0, "", "")

    monkeypatch.setattr(papermill, "execute_notebook", copy)
    monkeypatch.setattr(runner.subprocess, "run", html)
    monkeypatch.setattr(runner, "vendor_assets", lambda folder: folder)
    monkeypatch.setenv("PRUNEAUDIT_STORE", str(tmp_path / "results"))
    path = profile_path(lambda: runner.build("smoke", path_output=tmp_path, progress=False))
    # the runner hands the profile to its plan once and runs the plan: profiles -> plan -> ...
    assert path[0] == "pruneaudit.book.profiles" and "pruneaudit.book.builder.plan" in path
    assert max(reentries(path).values(), default=0) <= MOST_REENTRIES, " -> ".join(path)
