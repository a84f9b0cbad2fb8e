"""A build's plan (make_plan): its order, jobs, stamp and expected time; the ``plan``
command's lines, its errors (build's), and that it trains nothing."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
import yaml

from pruneaudit import book, cli, runtime
from pruneaudit.book.builder import plan as book_plan
from pruneaudit.book.builder.plan import make_plan
from pruneaudit.book.profiles import Job, Profile
from pruneaudit.runs.cost import StudyCost
from pruneaudit.runs.store import ResultsStore

FIELDS = ("population", "models", "model-epochs", "evaluations", "min")


def test_the_plan_holds_order_jobs_stamp_and_expected_time(tmp_path: Path) -> None:
    profile = Profile.read("smoke", {"04_compression_impact.epochs": 3})
    plan = make_plan(profile, ["05_robustness", "04_compression_impact"], tmp_path)
    assert plan.order == ("04_compression_impact", "05_robustness")  # Study 5 reads Study 4
    assert list(plan.jobs) == list(plan.order)
    for name, job in plan.jobs.items():
        assert isinstance(job, Job) and job.name == name
        assert job.parameters == profile.parameters(name)
        assert job.values == profile.values(name)
    assert plan.jobs["05_robustness"].values["study4"]["epochs"] == 3
    assert plan.stamp["profile"] == "smoke"
    assert plan.stamp["overrides"] == {"04_compression_impact.epochs": 3}
    # nothing recorded in tmp_path, nothing stated: at least the studies' training
    assert plan.each["05_robustness"].source == "training"
    assert plan.expected.startswith("profile smoke: expected at least ")
    assert plan.expected.endswith("plus jupyter-book: not timed yet)")
    book.record_timing(tmp_path, "smoke", "04_compression_impact", 90.0)
    book.record_timing(tmp_path, "smoke", "05_robustness", 30.0)
    timed = make_plan(profile, ["05_robustness"], tmp_path)
    assert timed.order == ("05_robustness",) and timed.seconds == 30.0
    assert timed.expected == book_plan.headline(
        "smoke", book_plan.expectations(tmp_path, "smoke", ["05_robustness"]))
    with pytest.raises(AttributeError):
        timed.order = ()  # type: ignore[misc]


def test_a_plan_line_per_study_counts_what_its_cost_states(tmp_path: Path) -> None:
    plan = make_plan(Profile.read("smoke", {"store": str(tmp_path / "store")}),
                     ["00_template", "02_qmnist_writers"], tmp_path)
    costs = plan.costs
    for name in plan.order:
        study = book.study_of(name)
        workloads = study.cost(plan.profile.study_params(name))
        cost = costs[name]
        assert isinstance(cost, StudyCost)
        assert cost.models == sum(w.models for w in workloads) > 0
        assert cost.model_epochs == sum(w.model_epochs for w in workloads)
        assert cost.evaluations == sum(w.evaluations for w in workloads)
        assert cost.seconds > 0 and cost.source == "probed"  # an empty store: LeNet's probed
    lines = plan.lines()
    assert len(lines) == len(plan.order) + 2 and lines[0].startswith(plan.expected + "; ")
    for name, line in zip(plan.order, lines[1:], strict=False):
        assert line.startswith(f"{name}: ") and all(f in line for f in FIELDS)
    assert lines[-1].startswith(f"{book_plan.JUPYTER_BOOK}: ")


def _minutes(line: str) -> float:
    """The minutes a printed plan line states ("under 0.1 min" counts 0)."""
    said = re.search(r"(about|at least|under) (\d+\.\d) min", line)
    assert said, line
    return 0.0 if said[1] == "under" else float(said[2])


def _check_sum(lines: list[str]) -> float:
    """The lines' minutes add up to the first line's, exactly as printed; that sum."""
    total = _minutes(lines[0])
    known = [line for line in lines[1:] if "duration unknown" not in line]
    assert total == pytest.approx(round(sum(_minutes(line) for line in known), 1), abs=1e-9)
    return total


def test_the_lines_add_up_to_the_first_line(tmp_path: Path, monkeypatch) -> None:
    """A profile whose lines come from each source: 00_template's recorded time (90 s),
    01_population_ols's stated 120 s times the probes' ratio 0.4 / 0.2, 02_qmnist_writers's
    training alone at LeNet's probed 0.5 s per 10k images, the pages' stated 30 s scaled."""
    from pruneaudit.runs import probe

    profile = tmp_path / "synthetic.yml"  # the smoke values, with a measurement of its own
    smoke = {name: values or {} for name, values in Profile.read("smoke").content().items()}
    profile.write_text(yaml.safe_dump(smoke) + "measured_probe: 0.2\n"
                       "measured:\n  01_population_ols: 120\n  jupyter-book: 30\n")
    monkeypatch.setattr(book_plan, "probe_here", lambda: 0.4)
    monkeypatch.setattr(probe, "speed_probe", lambda: 0.5)
    read = Profile.read(profile, {"store": str(tmp_path / "store")})
    book.record_timing(tmp_path, read.label, "00_template", 90.0, new_runs=0)
    names = ["00_template", "01_population_ols", "02_qmnist_writers"]
    plan = make_plan(read, names, tmp_path)
    lines = plan.lines()
    images = sum(w.images for w in book.study_of("02_qmnist_writers").cost(
        read.study_params("02_qmnist_writers")))
    training = round(images / 10_000 * 0.5 / 60, 1)
    assert lines[1].startswith("00_template: about 1.5 min (the last build's time; it stored "
                               "no new run then")
    assert lines[2].startswith("01_population_ols: about 4.0 min (the stated cold build's, "
                               "scaled by the speed probes)")
    assert lines[3].startswith("02_qmnist_writers: ") and "its training alone" in lines[3]
    assert lines[4].startswith("jupyter-book: about 1.0 min (the stated cold build's")
    assert _check_sum(lines) == pytest.approx(1.5 + 4.0 + training + 1.0)
    assert lines[0].startswith(f"profile {read.label}: expected at least ")  # training alone
    assert plan.seconds == pytest.approx(_minutes(lines[0]) * 60)


def test_plan_prints_every_study_and_trains_nothing(tmp_path: Path, capsys) -> None:
    store = tmp_path / "store"
    assert cli.main(["plan", "--profile", "smoke", "-p", f"store={store}"]) == 0
    lines = capsys.readouterr().out.splitlines()
    names = Profile.read("smoke").notebooks
    assert [line.split(":")[0] for line in lines[1:]] == [*names, book_plan.JUPYTER_BOOK]
    for line in lines[1:-1]:
        assert all(f in line for f in FIELDS), line
    assert lines[0].startswith("profile smoke: expected")
    assert f"torch threads {runtime.usable_cores()} (" in lines[0]
    assert f"{runtime.THREADS_ENV}=N sets another count" in lines[0]
    _check_sum(lines)
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
    plan = make_plan(Profile.read("smoke"), ["00_template"], tmp_path)
    text = book_plan.write_plan_page(plan, tmp_path).read_text()
    assert "profile smoke" in text and plan.expected in text
    assert "| 00_template |" in text and "model-epochs" in text
    assert f"| {book_plan.JUPYTER_BOOK} |" in text


def test_study_cost_text_says_an_unknown_rate() -> None:
    cost = StudyCost(None, 2, 4, 2, math.nan, "no")
    assert cost.text().startswith("? populations, 2 models, 4 model-epochs, 2 evaluations")
    assert "minutes unknown" in cost.text()
    assert StudyCost(1, 1, 1, 1, 600.0, "recorded").text().startswith("1 population, ")
    assert "about 10.0 min" in StudyCost(3, 1, 1, 1, 600.0, "recorded").text()
