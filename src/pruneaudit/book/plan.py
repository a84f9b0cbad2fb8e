"""A build's plan, made once before anything runs: the notebooks' order, each one's job, the
build stamp, the expected duration, and what each study will train.

:meth:`Profile.plan <pruneaudit.book.profiles.Profile.plan>` returns a :class:`BuildPlan`; the
runner's ``build`` runs it, the ``plan`` command prints it (:func:`plan_lines`), ``compute``
prints its lines before it starts, and the Reproducing page shows the last build's plan
(:func:`write_plan_page`). What a study trains is its own statement, ``cost(params)`` of its
package (``Workload`` rows), summed by :func:`pruneaudit.runs.cost.study_cost` at this
machine's recorded training rates.
"""

from __future__ import annotations

import datetime
import importlib
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pruneaudit import timing
from pruneaudit.book.profiles import Job, Profile, profile_label
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


def expected(
    studies: Path,
    profile: str,
    names: Sequence[str],
    stated: Mapping[str, float] | None = None,
    stated_on: str = "",
    stated_probe: float | None = None,
) -> tuple[float | None, str]:
    """The build's expected seconds (None: unknown) and a sentence saying them: from the
    recorded timings (``studies/_timings.json``), else from the profile's stated measurement
    (``stated``, made on the machine ``stated_on``, whose speed probe gave ``stated_probe``),
    scaled by this machine's speed probe (:func:`pruneaudit.runs.speed_probe`) where the
    profile states one and the build runs on the CPU; the sentence names the other machine where
    the duration is not scaled; else unknown."""
    from pruneaudit.book.pages import load_timings

    rows = load_timings(studies, strict=False)
    seconds = {r["notebook"]: r["seconds"] for r in rows if r["profile"] == profile}
    names = [*names, JUPYTER_BOOK]
    known = [n for n in names if n in seconds]
    if not known:
        stated_known = [n for n in names if n in (stated or {})]
        if not stated_known:
            return None, f"profile {profile}: expected duration unknown (no recorded timings yet)"
        total = sum(stated[n] for n in stated_known)  # type: ignore[index]
        probe = probe_here() if stated_probe else None
        if probe is not None:
            scaled = total * probe / stated_probe  # type: ignore[operator]
            return scaled, (
                f"profile {profile}: expected about {scaled / 60:.1f} min: the profile's stated "
                f"cold build ({total / 60:.1f} min on {stated_on or 'its machine'}) times this "
                f"machine's speed probe ({probe:.3f} against {stated_probe:.3f} s per 10k "
                "images per model; no timings recorded here yet)")
        text = (f"profile {profile}: expected about {total / 60:.1f} min from the profile's "
                "stated measurement (a cold build; no timings recorded here yet)")
        if stated_on and stated_on != (here := timing.machine()):
            text += f"; it ran on {stated_on}, this is {here}: expect another time"
        return total, text
    total = sum(seconds[n] for n in known)
    text = f"profile {profile}: expected about {total / 60:.1f} min from the last build's timings"
    warm = [r["notebook"] for r in rows
            if r["profile"] == profile and r["notebook"] in known and r.get("new_runs") == 0]
    if warm:
        text += f" ({', '.join(warm)} stored no new run then: longer if runs must train)"
    missing = [n for n in names if n not in seconds and n != JUPYTER_BOOK]
    if missing:
        text += f" (plus {', '.join(missing)}: not timed yet)"
    return total, text


def probe_here() -> float | None:
    """This machine's speed probe (:func:`pruneaudit.runs.speed_probe`; about ten seconds,
    once per process), or None where the build's device setting is not the CPU."""
    from pruneaudit.runs.probe import speed_probe
    from pruneaudit.training.device import resolve_device

    return speed_probe() if resolve_device().type == "cpu" else None


def expected_duration(
    studies: Path,
    profile: str,
    names: Sequence[str],
    stated: Mapping[str, float] | None = None,
    stated_on: str = "",
    stated_probe: float | None = None,
) -> str:
    """The sentence of :func:`~pruneaudit.book.plan.expected`: the profile's expected duration."""
    return expected(studies, profile, names, stated, stated_on, stated_probe)[1]


@dataclass(frozen=True)
class BuildPlan:
    """A build of a profile, decided before anything runs (made by
    :meth:`Profile.plan <pruneaudit.book.profiles.Profile.plan>`).

    ``order``: the notebooks in build order; ``needs``: the notebooks each one reads (it runs
    after those among ``order``); ``jobs``: each one's resolved and checked values (``Job``);
    ``costs``: what each study will train (a ``StudyCost`` of its ``cost(params)``, or why that
    is not known); ``stamp``: what every page records of the build; ``seconds`` and
    ``expected``: its expected duration (None when unknown) and the sentence saying it;
    ``in_profile``: the notebooks the profile names (whether built now or not).
    """

    profile: Profile
    order: tuple[str, ...]
    needs: Mapping[str, tuple[str, ...]]
    jobs: Mapping[str, Job]
    costs: Mapping[str, StudyCost | str]
    stamp: Mapping[str, object]
    seconds: float | None
    expected: str
    in_profile: tuple[str, ...]

    @classmethod
    def make(cls, profile: Profile, order: Sequence[str], needs: Mapping[str, tuple[str, ...]],
             jobs: Mapping[str, Job], params: Mapping[str, object], studies: Path,
             date: str | None = None) -> BuildPlan:
        """The plan of ``order`` under ``profile`` (``params``: each study's checked
        parameters, None for a notebook without), its costs counted (:func:`study_cost_of`),
        stamped now (or at ``date``), with the duration expected from the timings recorded in
        ``studies``."""
        costs = {name: study_cost_of(params[name]) for name in order}
        stamp = {"profile": profile.label, "overrides": dict(profile.overrides),
                 "date": date or _now()}  # build_stamp's, the label already made
        seconds, text = expected(Path(studies), profile.label, order, profile.measured,
                                 profile.measured_on, profile.measured_probe)
        return cls(profile, tuple(order), dict(needs), dict(jobs), dict(costs), stamp, seconds,
                   text, tuple(sorted(profile.sections)))

    def lines(self) -> list[str]:
        """One line per study (``NAME: N populations, models, model-epochs, evaluations,
        minutes``), then the expected duration."""
        rows = [f"{n}: {c if isinstance(c, str) else c.text()}" for n, c in self.costs.items()]
        return [*rows, self.expected]


def study_cost_of(params: object) -> StudyCost | str:
    """What a study will train with its checked ``params`` (None: a notebook without study
    parameters): :func:`~pruneaudit.runs.cost.study_cost` of the ``cost(params)`` of the
    study package that defines ``params``' type, or a sentence saying why that is not known."""
    package = type(params).__module__.rpartition(".")[0]
    cost = None if params is None else getattr(importlib.import_module(package), "cost", None)
    if cost is None:
        return "trains nothing (its study states no cost)"
    try:
        from pruneaudit.training.device import resolve_device

        device = resolve_device(getattr(params, "device", "cpu")).type
        return study_cost(cost(params), getattr(params, "store", None), device)
    except (PruneAuditError, OSError) as err:  # a data set not found, say
        return f"cost unknown: {err}"


def plan_lines(
    profile: str | os.PathLike | Mapping | Profile,
    notebooks: Sequence[str] | None = None,
    overrides: Mapping[str, object] | None = None,
) -> list[str]:
    """The plan's lines (:meth:`BuildPlan.lines`) of ``notebooks`` under ``profile``: what
    ``plan`` prints, and ``build`` and ``compute`` before they start."""
    return Profile.read(profile, overrides).plan(notebooks).lines()


def write_plan_page(plan: BuildPlan, studies: Path) -> Path:
    """Write ``studies/_plan.md`` (the Reproducing page's fragment): the build's stamp, each
    study's planned training and the expected duration, as a table."""
    rows = ["| Notebook | Planned |", "|---|---|"]
    for name, cost in plan.costs.items():
        rows.append(f"| {name} | {cost if isinstance(cost, str) else cost.text()} |")
    text = (f"The plan of the last build (profile {plan.stamp['profile']}, "
            f"{plan.stamp['date']}): {plan.expected}.\n\n" + "\n".join(rows) + "\n")
    path = Path(studies) / PLAN_PAGE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path
