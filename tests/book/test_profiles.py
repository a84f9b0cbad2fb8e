"""A notebook's parameters are its study's Params, checked once (by building it) before any
kernel starts."""

from __future__ import annotations

import dataclasses
import time
import types
from dataclasses import dataclass
from pathlib import Path

import pytest

from pruneaudit import book
from pruneaudit.book import profiles
from pruneaudit.book.builder import runner
from pruneaudit.errors import PruneAuditError, check_range
from pruneaudit.runtime import KernelRecord
from pruneaudit.studies.params import StudyParams


def test_template_parameters_are_typed() -> None:
    declared = book.notebook_parameters("00_template")
    assert declared["iterations"] == book.Parameter("iterations", int, 20)
    assert {k: p.kind for k, p in declared.items()} == {
        "n_classes": int,
        "iterations": int,
        "seed": int,
        "data_root": str | None,
        "store": str | None,
        "device": str,
    }


def test_wrong_type_fails_before_any_kernel_and_fast(tmp_path: Path) -> None:
    book.Profile.read("smoke").values("00_template")  # warm: imports
    start = time.perf_counter()
    with pytest.raises(
        PruneAuditError, match=r"^notebook 00_template: bad Study 0 \(template\) parameters: "
        r"iterations must be int, got 'two'$"
    ):
        book.run_notebook("00_template", "smoke", {"iterations": "two"}, tmp_path)
    assert time.perf_counter() - start < 1.0
    assert list(tmp_path.iterdir()) == []


def test_validation_time_per_notebook() -> None:
    """Every notebook of every profile validates in well under a second (no kernel)."""
    for profile in book.PROFILE_NAMES:
        content = book.Profile.read(profile).content()
        for name in [n for n in content if n != "common"]:
            book.Profile.read(content).values(name)  # warm the study module imports
            start = time.perf_counter()
            book.Profile.read(content).values(name)
            assert time.perf_counter() - start < 0.5, (profile, name)


def test_a_notebook_is_the_study_registered_under_its_page() -> None:
    study = book.study_of("03_pareto_selection")
    assert study.package == "pruneaudit.studies.pareto_selection"
    assert study.page == "03_pareto_selection" and study.name == "Study 3"
    assert book.study_of("00_template").package == "pruneaudit.studies.template"
    with pytest.raises(PruneAuditError, match=r"unknown notebook '99_no_such_study'.*00_template"):
        book.study_of("99_no_such_study")


def test_study_params_built_with_all_values(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = {}

    @dataclass(frozen=True, kw_only=True)
    class Params(StudyParams):
        n_classes: int = 10
        iterations: int = 20
        seed: int = 0

        def rules(self):
            seen.update(self.as_dict())
            yield lambda: check_range("iterations", self.iterations, 1, 6)

    fake = types.SimpleNamespace(params=Params)
    monkeypatch.setattr(profiles, "study_of", lambda name: fake)
    book.Profile.read("smoke").values("00_template")
    assert seen == {
        "n_classes": 3, "iterations": 5, "seed": 0, "data_root": None, "store": None,
        "device": "auto",
    }
    with pytest.raises(PruneAuditError, match=r"00_template: .*iterations must be in \[1, 6\]"):
        book.Profile.read("smoke", {"iterations": 7}).values("00_template")


def test_the_params_are_the_only_declaration(monkeypatch: pytest.MonkeyPatch) -> None:
    """The notebook's parameters are its Params' fields: a field the profile does not give takes
    the Params' default, and one without a default must be given."""

    @dataclass(frozen=True, kw_only=True)
    class Params(StudyParams):
        n_classes: int = 10
        iterations: int = 20
        seed: int = 0
        extra: int

    with pytest.raises(PruneAuditError, match="unknown notebook '00_templat'"):
        book.notebook_parameters("00_templat")
    monkeypatch.setattr(profiles, "study_of", lambda name: types.SimpleNamespace(params=Params))
    assert book.notebook_parameters("00_template")["extra"].default is dataclasses.MISSING
    with pytest.raises(PruneAuditError, match=r"^notebook 00_template: extra of .*Params has no "
                       r"default; give it in the profile's 00_template section or with "
                       r"-p 00_template.extra=VALUE$"):
        book.Profile.read("smoke").values("00_template")
    assert book.Profile.read("smoke", {"extra": 4}).values("00_template")["extra"] == 4


def test_build_checks_every_notebook_before_running_any(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("a kernel was started")

    monkeypatch.setattr(runner, "run_notebook", never)
    monkeypatch.setattr(runner, "run_job", never)
    with pytest.raises(PruneAuditError, match="iterations must be int, got 'two'"):
        book.build("smoke", overrides={"00_template.iterations": "two"}, path_output=tmp_path)
    assert not (tmp_path / "book" / "studies").exists()


def test_source_notebooks_are_valid_and_carry_no_outputs() -> None:
    """Every notebook in nbs/ validates as nbformat 4.5 (each cell has an id), holds no outputs
    and has one cell tagged parameters."""
    import json

    import nbformat

    for path in sorted(profiles.NBS.glob("*.ipynb")):
        raw = json.loads(path.read_text())  # as written: nbformat.read would add missing ids
        assert all("id" in cell for cell in raw["cells"]), path.name
        nb = nbformat.read(path, as_version=4)
        nbformat.validate(nb)
        code = [c for c in nb.cells if c.cell_type == "code"]
        assert all(not c.outputs and c.execution_count is None for c in code), path.name
        tagged = [c for c in code if "parameters" in c.metadata.get("tags", [])]
        assert len(tagged) == 1, path.name


# --------------------------------------------------------------------------- declared reads


def test_build_order_follows_declared_reads() -> None:
    from pruneaudit.book.profiles import build_order

    reads = {"a": {}, "b": {"x": "c"}, "c": {"y": "a"}, "d": {}}
    order = build_order(["b", "d", "c", "a"], lambda n: reads[n])
    assert order == ["a", "c", "b", "d"]  # each after what it reads, otherwise as given
    assert build_order(["b"], lambda n: reads[n]) == ["b"]  # read, not run: not added
    # the project's own declaration: Study 5 reads Study 4
    assert build_order(["05_robustness", "04_compression_impact"]) == [
        "04_compression_impact", "05_robustness"]


def test_a_cycle_of_reads_is_one_clear_error() -> None:
    from pruneaudit.book.profiles import build_order

    reads = {"a": {"x": "b"}, "b": {"y": "c"}, "c": {"z": "a"}}
    with pytest.raises(PruneAuditError, match=r"in a cycle: a -> b -> c -> a"):
        build_order(["a"], lambda n: reads[n])


def test_a_missing_read_notebook_is_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from pruneaudit.book import profiles
    from pruneaudit.studies import robustness

    monkeypatch.setattr(robustness.Params, "READS", {"study4": "04_gone"})
    with pytest.raises(PruneAuditError, match="reads the parameters of 04_gone, which is not a"):
        profiles.notebook_reads("05_robustness")


def test_study_5_gets_study_4s_parameters_under_the_same_build() -> None:
    from pruneaudit.book import profiles

    assert profiles.notebook_reads("05_robustness") == {"study4": "04_compression_impact"}
    overrides = {"04_compression_impact.epochs": 3, "members": 3, "04_compression_impact.lr": 0.2}
    params = profiles.Profile.read("smoke", overrides).parameters("05_robustness")
    study4 = params["study4"]
    want = profiles.Profile.read("smoke", {"04_compression_impact.epochs": 3,
                                           "04_compression_impact.lr": 0.2}).values(
        "04_compression_impact")
    assert study4 == want and study4["epochs"] == 3 and study4["lr"] == 0.2
    assert study4["seeds"] == [0, 1, 2]  # the smoke profile's section, not the cell's defaults
    # a bare key reaches the notebook read when it declares it (as when that one is built)
    assert profiles.overrides_for("04_compression_impact", {"epochs": 3, "members": 3}) == {
        "epochs": 3}
    values = profiles.Profile.read("smoke", overrides).values("05_robustness")
    assert values["study4"] == want and values["members"] == 3
    with pytest.raises(PruneAuditError, match="study4 of notebook 05_robustness is set from"):
        profiles.Profile.read("smoke", {"05_robustness.study4": {}}).parameters("05_robustness")
    # Study 5's rules see Study 4's populations before any kernel starts
    with pytest.raises(PruneAuditError, match="members must be an integer in 2..3"):
        profiles.Profile.read("smoke", {"members": 4}).values("05_robustness")


def _count_parses(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The profile files parsed from now on (the parse cache emptied first)."""
    parsed: list[Path] = []
    load = profiles._load_yaml

    def counted(path: Path) -> object:
        parsed.append(path)
        return load(path)

    monkeypatch.setattr(profiles, "_PARSED", {})
    monkeypatch.setattr(profiles, "_load_yaml", counted)
    return parsed


def test_a_profile_file_is_parsed_once_per_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pruneaudit.book.report import pages

    parsed = _count_parses(monkeypatch)
    first = profiles.Profile.read("smoke")
    again = profiles.Profile.read("smoke", {"seed": 1})
    pages.read_profiles(["smoke"])
    assert [p.name for p in parsed] == ["smoke.yml"]
    assert again.sections == first.sections and again.sections is not first.sections
    again.sections["00_template"]["iterations"] = 99  # a copy: the next read is the file's
    assert profiles.Profile.read("smoke").sections["00_template"]["iterations"] == 5
    custom = tmp_path / "custom.yml"
    custom.write_text("00_template:\n  iterations: 2\n")
    profiles.Profile.read(custom)
    custom.write_text("00_template:\n  iterations: 3\n  n_classes: 4\n")  # changed: read again
    assert profiles.Profile.read(custom).sections["00_template"]["iterations"] == 3
    assert [p.name for p in parsed] == ["smoke.yml", "custom.yml", "custom.yml"]


@pytest.mark.slow
def test_a_build_parses_the_profile_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The runner parses the profile once and the kernel reads none (the file is gone before
    the notebook runs); the kernel gets the seconds the profile states from the runner."""
    parsed = _count_parses(monkeypatch)
    path = tmp_path / "one.yml"
    path.write_text("00_template: {n_classes: 3, iterations: 5}\nmeasured:\n  00_template: 12.5\n")
    profile = profiles.Profile.read(path)
    path.unlink()
    monkeypatch.setenv("PRUNEAUDIT_STORE", str(tmp_path / "results"))
    out = runner.run_notebook("00_template", profile, out_dir=tmp_path / "studies")
    assert [p.name for p in parsed] == ["one.yml"]
    assert runner.read_stamp(out)["profile"] == str(path.resolve())
    stated = KernelRecord(profile="x", measured=12.5).environ()
    assert book.build_info(stated)["seconds"] == 12.5
    assert book.build_info(KernelRecord(profile="x").environ())["seconds"] is None
