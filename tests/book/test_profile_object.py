"""A profile read once (book.Profile): its sections, its overrides, each notebook's parameters
resolved and validated once, and the runner handing the one object on."""

from __future__ import annotations

from pathlib import Path

import pytest

from pruneaudit import book, cli
from pruneaudit.book import profiles
from pruneaudit.book.builder import runner
from pruneaudit.book.profiles import Profile
from pruneaudit.errors import PruneAuditError

YAML = """common: {seed: 4}
measured:
  00_template: 12
  jupyter-book: 3.5
00_template: {iterations: 2}
"""


@pytest.fixture
def custom(tmp_path: Path) -> Path:
    path = tmp_path / "custom.yml"
    path.write_text(YAML)
    return path


def test_sections_measurement_and_label(custom: Path) -> None:
    profile = Profile.read(custom)
    assert profile.path == custom
    assert profile.label == str(custom.resolve())
    assert profile.common == {"seed": 4}
    assert profile.sections == {"00_template": {"iterations": 2}}
    assert profile.notebooks == ["00_template"]
    assert profile.measured == {"00_template": 12.0, "jupyter-book": 3.5}
    assert profile.overrides == {}
    assert profile.content() == {"common": {"seed": 4}, "00_template": {"iterations": 2}}
    assert Profile.read("smoke").label == "smoke"
    assert Profile.read({"00_template": {}}).label == "custom"
    assert Profile.read({"00_template": {}}).measured == {}


def test_the_file_is_read_once(custom: Path) -> None:
    profile = Profile.read(custom, {"n_classes": 5})
    custom.write_text("00_template: {iterations: 9}\n")  # what a second read would see
    assert profile.parameters("00_template") == {"seed": 4, "iterations": 2, "n_classes": 5}
    assert profile.values("00_template")["n_classes"] == 5
    assert Profile.read(custom).sections == {"00_template": {"iterations": 9}}
    custom.write_text("common: [a, b\n")
    with pytest.raises(PruneAuditError, match=r"profile .*custom.yml is not valid YAML"):
        Profile.read(custom)


def test_same_answers_as_a_fresh_read() -> None:
    overrides = {"04_compression_impact.epochs": 3, "05_robustness.members": 2}
    profile = Profile.read("smoke", overrides)
    profile.values("05_robustness")  # cached: the answers below must not depend on it
    fresh = Profile.read("smoke", overrides)
    assert profile.parameters("05_robustness") == fresh.parameters("05_robustness")
    assert profile.with_overrides({"epochs": 3}).parameters(
        "04_compression_impact") == Profile.read(
        "smoke", {"04_compression_impact.epochs": 3}).parameters("04_compression_impact")
    assert profile.values("05_robustness") == fresh.values("05_robustness")
    assert profile.values("05_robustness")["study4"]["epochs"] == 3


def test_each_notebook_read_and_validated_once(monkeypatch: pytest.MonkeyPatch) -> None:
    parsed: list[str] = []
    real = profiles.notebook_parameters

    def counting(name: str) -> dict:
        parsed.append(name)
        return real(name)

    monkeypatch.setattr(profiles, "notebook_parameters", counting)
    profile = Profile.read("smoke")
    assert profile.check() == [
        "00_template", "01_population_ols", "02_qmnist_writers", "03_pareto_selection",
        "04_compression_impact", "05_robustness",
    ]
    first = profile.values("05_robustness")
    profile.parameters("05_robustness")
    profile.values("04_compression_impact")
    assert sorted(parsed) == sorted(set(parsed))  # every notebook's parameters read once
    assert profile.values("05_robustness") == first
    first["members"] = 99  # a caller's copy: the profile keeps its own
    assert profile.values("05_robustness")["members"] == 2
    moved = profile.with_overrides({"members": 3})
    assert moved.values("05_robustness")["members"] == 3 and moved.common == profile.common
    assert sorted(parsed) == sorted(set(parsed))  # with_overrides reads nothing again


def test_read_of_a_profile_keeps_or_replaces_its_overrides() -> None:
    profile = Profile.read("smoke", {"seed": 1})
    assert Profile.read(profile) is profile
    assert Profile.read(profile, {"seed": 2}).overrides == {"seed": 2}
    assert book.build_stamp(profile, profile.overrides, "d") == {
        "profile": "smoke", "overrides": {"seed": 1}, "date": "d"}


def test_check_keeps_the_error_messages() -> None:
    with pytest.raises(PruneAuditError, match="is not a parameter of any selected notebook"):
        Profile.read("smoke", {"no_such_key": 1}).check(["00_template"])
    with pytest.raises(PruneAuditError, match="unknown notebook '00_templat'"):
        Profile.read("smoke").check(["00_templat"])
    with pytest.raises(PruneAuditError, match="iterations must be int, got 'two'"):
        Profile.read("smoke", {"00_template.iterations": "two"}).check(["00_template"])
    with pytest.raises(PruneAuditError, match="'epoch' declared by none of 00_template"):
        Profile.read({"common": {"epoch": 1}, "00_template": {}}).check()


def test_build_reads_the_profile_once_and_hands_it_on(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, custom: Path
) -> None:
    reads: list[Path] = []
    real = profiles._read_profile
    handed: list[object] = []

    def counting(profile: object) -> tuple:
        got = real(profile)
        reads.append(got[0])
        return got

    class Stop(Exception):
        pass

    def fake_run(job: object, stamp: dict, *args: object, **kw: object):
        handed.append((job, stamp))
        raise Stop

    monkeypatch.setattr(profiles, "_read_profile", counting)
    monkeypatch.setattr(runner, "run_job", fake_run)
    with pytest.raises(Stop):
        book.build(custom, overrides={"n_classes": 4}, path_output=tmp_path, progress=False)
    assert reads == [custom]
    [(job, stamp)] = handed
    assert isinstance(job, profiles.Job) and job.name == "00_template"
    assert job.values["n_classes"] == 4 and job.parameters["n_classes"] == 4
    assert stamp["overrides"] == {"n_classes": 4}


def test_command_line_hands_one_profile_with_the_replication(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    handed: list[Profile] = []

    def fake_run(name: str, profile: Profile, *args: object, **kw: object) -> str:
        handed.append(profile)
        return "ran"

    monkeypatch.setattr(runner, "run_notebook", fake_run)
    argv = ["run", "05_robustness", "--profile", "smoke", "--seed-offset", "1000",
            "-p", "05_robustness.reference_seeds=[7, 8]"]
    assert cli.main(argv) == 0
    [profile] = handed
    assert profile.label == "smoke"
    assert profile.overrides["04_compression_impact.seeds"] == [1000, 1001, 1002]
    assert profile.overrides["05_robustness.reference_seeds"] == [7, 8]  # -p wins
    assert profile.values("05_robustness")["study4"]["seeds"] == [1000, 1001, 1002]


def test_study_params_are_the_checked_params_of_each_page():
    from pruneaudit.book.paths import study_notebooks
    from pruneaudit.book.profiles import Profile, study_of

    profile = Profile.read("smoke")
    for name in study_notebooks():
        params = profile.study_params(name)
        assert isinstance(params, study_of(name).params)
        values = profile.values(name)
        assert all(
            getattr(params, k) == (tuple(v) if isinstance(v, list) else v)
            for k, v in values.items() if k in params.names() and k != "study4"
        )
