"""A build's plan, made once before anything runs: the notebooks' order, each one's job, the
build stamp, the expected duration, torch's threads, and what each study will train.

:func:`make_plan` makes a profile's :class:`BuildPlan`; the runner's ``build`` runs it, the
``plan`` command prints it (:meth:`BuildPlan.lines`), ``compute`` prints its study lines before it
starts, and the Reproducing page shows the last build's plan (:func:`write_plan_page`). What a
study trains is its own statement, ``cost(params)`` of its package (``Workload`` rows), summed
by :func:`pruneaudit.runs.cost.study_cost`.

One expectation: each notebook's line states its expected minutes, from one source each
(:func:`expectations`: the last build's time, else the profile's stated cold build scaled by the
speed probes, else its training at this machine's rate), and the first line's total is the sum
of the lines' minutes as shown (:func:`total_minutes`)."""

from __future__ import annotations

import datetime
import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pruneaudit import timing
from pruneaudit.book.paths import STUDIES
from pruneaudit.book.profiles import Job, Profile, notebook_reads, profile_label, study_of
from pruneaudit.errors import PruneAuditError
from pruneaudit.runs.cost import StudyCost, study_cost

#: The timings record of the pages' assembly by Jupyter Book (beside the notebooks').
JUPYTER_BOOK = "jupyter-book"
#: The Reproducing page's fragment with the last build's plan, beside the executed pages.
PLAN_PAGE = "_plan.md"


def build_stamp(
    profile: str | os.PathLike | Mapping | Profile,
    overrides: Mapping[str, object] | None,
    date: str | None = None,
) -> dict:
    """What a page records of its build: profile label, overrides, date (UTC, to the minute)."""
    return {"profile": profile_label(profile), "overrides": dict(overrides or {}),
            "date": date or _now()}


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")


@dataclass(frozen=True)
class Expected:
    """One notebook's expected seconds (None: unknown) and where they come from (``source``:
    ``timed``, ``scaled``, ``stated``, ``training`` or ``unknown``; ``note``: a remark)."""

    seconds: float | None
    source: str
    note: str = ""

    @property
    def minutes(self) -> float | None:
        """The seconds in minutes rounded to 0.1, as the line shows them and the total adds
        them (:func:`total_minutes`)."""
        return None if self.seconds is None else round(self.seconds / 60, 1)

    def text(self) -> str:
        """``about 3.2 min (the last build's time)``, ``under 0.1 min (...)`` or ``duration
        unknown (not timed yet)``."""
        said = SOURCES[self.source] + (f"; {self.note}" if self.note else "")
        if self.minutes is None:
            return f"duration unknown ({said})"
        shown = "under 0.1" if self.minutes == 0 and self.seconds else f"about {self.minutes:.1f}"
        return f"{shown} min ({said})"


#: What each source of an :class:`Expected` says on its line.
SOURCES = {
    "timed": "the last build's time",
    "scaled": "the stated cold build's, scaled by the speed probes",
    "stated": "the profile's stated cold build",
    "training": "its training alone, at this machine's rate",
    "unknown": "not timed yet",
}


def expectations(
    studies: Path,
    profile: str,
    names: Sequence[str],
    stated: Mapping[str, float] | None = None,
    stated_probe: float | None = None,
    costs: Mapping[str, StudyCost | str] | None = None,
) -> dict[str, Expected]:
    """Each notebook's :class:`Expected` (``names``, then :data:`JUPYTER_BOOK`): its time in
    the last build of ``profile`` (``studies/_timings.json``); else the profile's ``stated``
    cold build of it, times this machine's speed probe over the stated one (``stated_probe``;
    :func:`probe_here`, on the CPU only); else the training its ``costs`` count; else unknown."""
    from pruneaudit.book.report.pages import load_timings

    timed = {r["notebook"]: r for r in load_timings(studies, strict=False)
             if r["profile"] == profile}
    stated, costs = stated or {}, costs or {}
    probe = probe_here() if stated_probe and any(
        n in stated and n not in timed for n in [*names, JUPYTER_BOOK]) else None
    out = {}
    for name in [*names, JUPYTER_BOOK]:
        cost = costs.get(name)
        if name in timed:
            warm = "it stored no new run then: longer if runs must train"
            out[name] = Expected(float(timed[name]["seconds"]), "timed",
                                 warm if timed[name].get("new_runs") == 0 else "")
        elif name in stated and probe is not None:
            out[name] = Expected(stated[name] * probe / stated_probe, "scaled")  # type: ignore[operator]
        elif name in stated:
            out[name] = Expected(float(stated[name]), "stated")
        elif isinstance(cost, StudyCost) and not math.isnan(cost.seconds):
            out[name] = Expected(cost.seconds, "training")
        else:
            out[name] = Expected(None, "unknown")
    return out


def total_minutes(expected: Mapping[str, Expected]) -> float | None:
    """The build's expected minutes: the sum of its lines' minutes as they are shown (each
    rounded to 0.1), None when no line's is known. The one sum of a plan's expectation."""
    known = [e.minutes for e in expected.values() if e.minutes is not None]
    return round(sum(known), 1) if known else None


def headline(
    profile: str,
    expected: Mapping[str, Expected],
    stated_on: str = "",
    stated_probe: float | None = None,
) -> str:
    """The sentence of a build's expected duration: :func:`total_minutes` of ``expected``
    ("at least" where a line counts its training alone or is unknown) and where its lines come
    from (the probes' ratio where stated times are scaled; the other machine where they are
    not)."""
    total = total_minutes(expected)
    if total is None:
        return f"profile {profile}: expected duration unknown (no recorded timings yet)"
    by = {s: [n for n, e in expected.items() if e.source == s] for s in SOURCES}
    said = []
    if by["timed"]:
        said.append("the last build's timings")
    if by["scaled"]:
        probe, machine = probe_here(), stated_on or "its machine"
        cold = sum(e.seconds for e in expected.values() if e.source == "scaled") / 60 * (
            stated_probe / probe)  # type: ignore[operator]
        said.append(f"the profile's stated cold build ({cold:.1f} min on {machine}) times this "
                    f"machine's speed probe ({probe:.3f} against {stated_probe:.3f} s per 10k "
                    "images per model)")
    if by["stated"]:
        said.append("the profile's stated cold build")
        if stated_on and stated_on != (here := timing.machine()):
            said[-1] += f" (it ran on {stated_on}, this is {here}: expect another time)"
    if by["training"]:
        said.append("where nothing is timed or stated, the training alone")
    if by["unknown"]:
        said.append(f"plus {', '.join(by['unknown'])}: not timed yet")
    bound = "at least" if by["training"] or by["unknown"] else "about"
    return (f"profile {profile}: expected {bound} {total:.1f} min, the sum of the lines below "
            f"({'; '.join(said)})")


def probe_here() -> float | None:
    """This machine's speed probe (:func:`pruneaudit.runs.speed_probe`; about ten seconds,
    once per process), or None where the build's device setting is not the CPU."""
    from pruneaudit.runs.probe import speed_probe
    from pruneaudit.training.device import resolve_device

    return speed_probe() if resolve_device().type == "cpu" else None


@dataclass(frozen=True)
class BuildPlan:
    """A build of a profile, decided before anything runs (made by :func:`make_plan`).

    ``order``: the notebooks in build order; ``needs``: the notebooks each one reads (it runs
    after those among ``order``); ``jobs``: each one's resolved and checked values (``Job``);
    ``costs``: what each study will train (a ``StudyCost`` of its ``cost(params)``, or why that
    is not known); ``stamp``: what every page records of the build; ``each``: each notebook's
    expected time (and the pages' assembly's, :func:`expectations`); ``seconds`` and
    ``expected``: their sum (None when unknown) and the sentence saying it (:func:`headline`);
    ``in_profile``: the notebooks the profile names (whether built now or not); ``threads``:
    torch's thread count for the build and why (:func:`pruneaudit.runtime.choose_threads`).
    """

    profile: Profile
    order: tuple[str, ...]
    needs: Mapping[str, tuple[str, ...]]
    jobs: Mapping[str, Job]
    costs: Mapping[str, StudyCost | str]
    stamp: Mapping[str, object]
    each: Mapping[str, Expected]
    seconds: float | None
    expected: str
    in_profile: tuple[str, ...]
    threads: tuple[int, str]

    @classmethod
    def make(cls, profile: Profile, order: Sequence[str], needs: Mapping[str, tuple[str, ...]],
             jobs: Mapping[str, Job], params: Mapping[str, object], studies: Path,
             date: str | None = None) -> BuildPlan:
        """The plan of ``order`` under ``profile`` (``params``: each study's checked
        parameters), its costs counted (:func:`study_cost_of`),
        stamped now (or at ``date``), with each notebook's duration expected from the timings
        recorded in ``studies``, else the profile's stated ones, else its training."""
        from pruneaudit import runtime

        costs = {name: study_cost_of(study_of(name).cost, params[name]) for name in order}
        stamp = {"profile": profile.label, "overrides": dict(profile.overrides),
                 "date": date or _now()}  # build_stamp's, the label already made
        each = expectations(Path(studies), profile.label, order, profile.measured,
                            profile.measured_probe, costs)
        total = total_minutes(each)
        text = headline(profile.label, each, profile.measured_on, profile.measured_probe)
        return cls(profile, tuple(order), dict(needs), dict(jobs), dict(costs), stamp, each,
                   None if total is None else total * 60, text,
                   tuple(sorted(profile.sections)), runtime.choose_threads())

    def first_line(self) -> str:
        """The expected duration and torch's threads: what a build prints first."""
        count, why = self.threads
        return f"{self.expected}; torch threads {count} ({why})"

    def study_lines(self) -> list[str]:
        """One line per notebook (``NAME: about M min (source); N populations, models,
        model-epochs, evaluations``)."""
        return [f"{name}: {self.each[name].text()}; {_counts(self.costs[name])}"
                for name in self.order]

    def lines(self) -> list[str]:
        """:meth:`first_line`, then :meth:`study_lines`, then the pages' assembly: the lines'
        minutes add up to the first line's."""
        book = f"{JUPYTER_BOOK}: {self.each[JUPYTER_BOOK].text()}; the pages' assembly"
        return [self.first_line(), *self.study_lines(), book]


def _counts(cost: StudyCost | str) -> str:
    return cost if isinstance(cost, str) else cost.counts()


def study_cost_of(cost: Callable[[Any], list], params: Any) -> StudyCost | str:
    """What a study will train with its checked ``params``:
    :func:`~pruneaudit.runs.cost.study_cost` of the study's ``cost(params)``, or a sentence
    saying why that is not known."""
    try:
        from pruneaudit.training.device import resolve_device

        device = resolve_device(getattr(params, "device", "cpu")).type
        return study_cost(cost(params), getattr(params, "store", None), device)
    except (PruneAuditError, OSError) as err:  # a data set not found, say
        return f"cost unknown: {err}"


def make_plan(
    profile: Profile, notebooks: Sequence[str] | None = None, studies: Path | None = None
) -> BuildPlan:
    """The build of ``notebooks`` (default: the profile's) under ``profile`` as one
    :class:`BuildPlan`, all decided here: checked
    (:meth:`~pruneaudit.book.profiles.Profile.check`), in build order, each notebook's job and
    the notebooks it reads, what each study will train, the stamp and the expected duration
    (from the timings recorded in ``studies``, default the book's pages)."""
    order = profile.check(notebooks)
    jobs = profile.jobs(order)
    needs: dict[str, tuple[str, ...]] = {}
    params: dict[str, object] = {}
    for name in order:  # a loop, not a comprehension: the profile's path stays short
        needs[name] = tuple(notebook_reads(name).values())
        params[name] = profile.study_params(name)
    return BuildPlan.make(profile, order, needs, jobs, params,
                          STUDIES if studies is None else studies)


def write_plan_page(plan: BuildPlan, studies: Path) -> Path:
    """Write ``studies/_plan.md`` (the Reproducing page's fragment): the build's stamp, its
    expected duration and each notebook's (they add up to it) and planned training, as a
    table."""
    rows = ["| Notebook | Expected | Planned |", "|---|---|---|"]
    for name, expect in plan.each.items():
        planned = _counts(plan.costs[name]) if name in plan.costs else "the pages' assembly"
        rows.append(f"| {name} | {expect.text()} | {planned} |")
    text = (f"The plan of the last build (profile {plan.stamp['profile']}, "
            f"{plan.stamp['date']}): {plan.expected}.\n\n" + "\n".join(rows) + "\n")
    path = Path(studies) / PLAN_PAGE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path
