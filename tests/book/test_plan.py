"""A build's plan (Profile.plan): its order, jobs, stamp and expected time; the ``plan``
command's lines, its errors (build's), and that it trains nothing."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from pruneaudit import book, cli
from pruneaudit.book import plan as book_plan
from pruneaudit.book.profiles import Job, Profile
from pruneaudit.runs.cost import StudyCost
from pruneaudit.runs.store import ResultsStore

FIELDS = ("population", "models", "model-epochs", "evaluations", "min")


def test_the_plan_holds_order_jobs_stamp_and_expected_time(tmp_path: Path) -> None:
    profile = Profile.read("smoke", {"04_compression_impact.epochs": 3})
    plan = profile.plan(["05_robustness", "04_compression_impact"], tmp_path)
    assert plan.order == ("04_compression_impact", "05_robustness")  # Study 5 reads Study 4
    assert list(plan.jobs) == list(plan.order)
    for name, job in plan.jobs.items():
        assert isinstance(job, Job) and job.name == name
        assert job.parameters == profile.parameters(name)
        assert job.values == profile.values(name)
    assert plan.jobs["05_robustness"].values["study4"]["epochs"] == 3
    assert plan.stamp["profile"] == "smoke"
    assert plan.stamp["overrides"] == {"04_compression_impact.epochs": 3}
    assert plan.seconds is None and "unknown" in plan.expected  # nothing recorded in tmp_path
    book.record_timing(tmp_path, "smoke", "04_compression_impact", 90.0)
    book.record_timing(tmp_path, "smoke", "05_robustness", 30.0)
    timed = profile.plan(["05_robustness"], tmp_path)
    assert timed.order == ("05_robustness",) and timed.seconds == 30.0
    assert timed.expected == book.expected_duration(tmp_path, "smoke", ["05_robustness"])
    with pytest.raises(AttributeError):
        timed.order = ()  # type: ignore[misc]


def test_a_plan_line_per_study_counts_what_its_cost_states(tmp_path: Path) -> None:
    plan = Profile.read("smoke", {"store": str(tmp_path / "store")}).plan(
        ["00_template", "02_qmnist_writers"], tmp_path)
    costs = plan.costs
    for name in plan.order:
        study = book.study_module(name)
        workloads = study.cost(plan.profile.study_params(name))
        cost = costs[name]
        assert isinstance(cost, StudyCost)
        assert cost.models == sum(w.models for w in workloads) > 0
        assert cost.model_epochs == sum(w.model_epochs for w in workloads)
        assert cost.evaluations == sum(w.evaluations for w in workloads)
        assert cost.seconds > 0 and cost.source == "probed"  # an empty store: LeNet's probed
    lines = plan.lines()
    assert len(lines) == len(plan.order) + 1 and lines[-1] == plan.expected
    for name, line in zip(plan.order, lines, strict=False):
        assert line.startswith(f"{name}: ") and all(f in line for f in FIELDS)


def test_plan_prints_every_study_and_trains_nothing(tmp_path: Path, capsys) -> None:
    store = tmp_path / "store"
    assert cli.main(["plan", "--profile", "smoke", "-p", f"store={store}"]) == 0
    lines = capsys.readouterr().out.splitlines()
    names = Profile.read("smoke").notebooks
    assert [line.split(":")[0] for line in lines[:-1]] == names
    for line in lines[:-1]:
        assert all(f in line for f in FIELDS), line
    assert lines[-1].startswith("profile smoke: expected")
    assert not store.exists() or ResultsStore(store).keys() == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--only", "03_pareto"], "unknown notebook '03_pareto'"),
        (["-p", "03_pareto_selection.epochs=two"], "epochs must be int, got 'two'"),
        (["-p", "epoch=2"], "'epoch' is not a parameter of any selected notebook"),
    ],
)
def test_plan_errors_are_builds(tmp_path: Path, capsys, args: list[str], message: str) -> None:
    said = []
    for command in (["plan"], ["build", "--path-output", str(tmp_path / "out")]):
        assert cli.main([*command, "--profile", "smoke", *args]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and message in err
        said.append(err)
    assert said[0] == said[1]
    assert not (tmp_path / "out").exists()  # build stopped before staging anything


def test_the_plan_page_is_a_table_of_the_plan(tmp_path: Path) -> None:
    plan = Profile.read("smoke").plan(["00_template"], tmp_path)
    text = book_plan.write_plan_page(plan, tmp_path).read_text()
    assert "profile smoke" in text and plan.expected in text
    assert "| 00_template |" in text and "model-epochs" in text


def test_study_cost_text_says_an_unknown_rate() -> None:
    cost = StudyCost(None, 2, 4, 2, math.nan, "no")
    assert cost.text().startswith("? populations, 2 models, 4 model-epochs, 2 evaluations")
    assert "minutes unknown" in cost.text()
    assert StudyCost(1, 1, 1, 1, 600.0, "recorded").text().startswith("1 population, ")
    assert "about 10.0 min" in StudyCost(3, 1, 1, 1, 600.0, "recorded").text()
