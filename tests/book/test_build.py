"""Notebook runner and book build: parameters, validation, offline HTML."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import nbformat
import pytest
import yaml

from pruneaudit import book, timing
from pruneaudit.book.builder import plan as book_plan
from pruneaudit.book.builder import runner
from pruneaudit.book.paths import TEMPLATE, study_notebooks
from pruneaudit.errors import PruneAuditError
from pruneaudit.runtime import KernelRecord

from .conftest import executed

STUDIES = study_notebooks()
EXTERNAL_LOAD = re.compile(r"<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)=\"(?:https?:)?//")


def sentence(studies: Path, profile: str, names: list[str], stated: dict | None = None,
             stated_on: str = "") -> str:
    """The sentence of a build's expected duration as its plan says it: the plan's
    :func:`~book_plan.headline` of each notebook's :func:`~book_plan.expectations`."""
    return book_plan.headline(profile, book_plan.expectations(studies, profile, names, stated),
                              stated_on)


# --- the built book ----------------------------------------------------------------------------


def test_book_pages_exist_and_load_nothing_external(smoke_book: Path) -> None:
    for page in ["index.html", "book/intro.html", "book/reproducing.html"]:
        assert (smoke_book / page).is_file(), page
    assert (smoke_book / "book/studies/00_template.html").is_file()
    for name in STUDIES:
        assert (smoke_book / f"book/studies/{name}.html").is_file(), name
    pages = list(smoke_book.rglob("*.html"))
    assert len(pages) >= 4
    for page in pages:
        text = page.read_text()
        assert not EXTERNAL_LOAD.search(text), f"{page} loads a resource from another host"
        assert "cdn." not in text.lower(), f"{page} mentions a CDN"
    for vendored in ["vendor/vega-bundle.js", "mathjax/tex-chtml.js", "mathjax/LICENSE"]:
        assert (smoke_book / "_static" / vendored).is_file()
    template = (smoke_book / "book/studies/00_template.html").read_text()
    assert "vega-bundle.js" in template and 'class="pruneaudit-chart"' in template
    for name in ["00_template", *STUDIES]:  # every page's live control: a note, no widget
        page = (smoke_book / f"book/studies/{name}.html").read_text()
        assert "Live control, in the notebook only" in page, name
        assert "widget-view" not in page and "jupyter-widgets" not in page, name


def test_root_page_redirects_to_the_first_page_with_the_tab_icon(smoke_book: Path) -> None:
    """``index.html`` (book/_extra) leads to the table of contents' root page and names the
    tab icon, as every page does: without one a browser asks the server for /favicon.ico."""
    first = yaml.safe_load((book.REPO / "_toc.yml").read_text())["root"]
    root = (smoke_book / "index.html").read_text()
    assert f'url={first}.html"' in root and f'href="{first}.html"' in root
    assert 'rel="icon" href="_static/favicon.svg"' in root
    assert (smoke_book / "_static" / "favicon.svg").is_file()
    intro = (smoke_book / f"{first}.html").read_text()
    assert 'rel="icon" href="../_static/favicon.svg"' in intro


def test_executed_notebook_shows_parameters_and_versions(smoke_book: Path) -> None:
    nb = nbformat.read(executed(smoke_book) / "00_template.ipynb", as_version=4)
    text = "".join(
        o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
    )
    assert "n_classes = 3" in text  # from the smoke profile, not the notebook's default 4
    for library in ["python", "torch", "numpy", "altair", "pruneaudit"]:
        assert f"  {library} " in text
    assert "Data root:" in text
    assert "widgets" not in nb.metadata


# --- running notebooks -------------------------------------------------------------------------


def test_unknown_parameter_is_named_and_nothing_written(tmp_path: Path) -> None:
    with pytest.raises(PruneAuditError, match=r"unknown parameter 'iteration'.*'iterations'"):
        book.run_notebook("00_template", "smoke", {"iteration": 3}, tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_test_build_leaves_the_repository_book_alone(
    smoke_book: Path, repo_studies_before: dict[str, int]
) -> None:
    from .conftest import _snapshot

    assert (executed(smoke_book) / "00_template.ipynb").is_file()
    assert _snapshot(book.STUDIES) == repo_studies_before


def test_every_page_has_the_banner_and_build_record(smoke_book: Path) -> None:
    pages = sorted(executed(smoke_book).glob("[0-9][0-9]_*.ipynb"))
    assert pages
    for page in pages:
        if "." in page.stem:
            continue
        stamp = book.read_stamp(page)
        assert stamp["profile"] == "smoke" and stamp["overrides"] == {}, page.name
        html = (smoke_book / "book" / "studies" / f"{page.stem}.html").read_text()
        assert f"Profile smoke, overrides: none, built {stamp['date']}" in html, page.name
    template = nbformat.read(executed(smoke_book) / "00_template.ipynb", as_version=4)
    assert template.metadata["pruneaudit"]["parameters"]["n_classes"] == 3


def test_no_progress_bar_or_kernel_warning_in_outputs(smoke_book: Path) -> None:
    for page in executed(smoke_book).glob("*.ipynb"):
        nb = nbformat.read(page, as_version=4)
        for cell in nb.cells:
            for output in cell.get("outputs", []):
                text = output.get("text", "") + str(output.get("data", {}).get("text/plain", ""))
                assert not re.search(r"\d+%\|", text), (page.name, text[:200])
                assert "without encryption" not in text, page.name


def test_timings_recorded(smoke_book: Path) -> None:
    rows = json.loads((executed(smoke_book) / book.TIMINGS).read_text())
    names = {r["notebook"] for r in rows if r["profile"] == "smoke"}
    notebooks = set(book.Profile.read("smoke").notebooks)
    assert names == notebooks | {runner.JUPYTER_BOOK}
    assert all(r["seconds"] > 0 and r["cores"] >= 1 and r["date"] for r in rows)
    assert all(r["machine"] == timing.machine() for r in rows)
    # each study's kernel measured its phases; the ones that train spent time training
    phases = {r["notebook"]: r["phases"] for r in rows if r["notebook"] in notebooks}
    assert all(set(p) == set(timing.PHASES) for p in phases.values()), phases
    study3 = next(r for r in rows if r["notebook"] == "03_pareto_selection")
    assert phases["03_pareto_selection"]["store"] > 0  # it reads its runs, stored or new
    assert (phases["03_pareto_selection"]["training"] > 0) == (study3["new_runs"] > 0)
    assert sum(phases["03_pareto_selection"].values()) <= study3["seconds"]
    assert not list(executed(smoke_book).glob(".*.phases.json"))
    said = sentence(executed(smoke_book), "smoke", sorted(names))
    assert said.startswith("profile smoke: expected about")


@pytest.mark.slow
def test_an_unregistered_notebook_fails_before_its_kernel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A notebook's parameters are its registered study's ``Params`` (nothing parses the cell
    back): a notebook no study registers gets one error naming the registered pages, before
    any kernel starts, and nothing is written."""
    from pruneaudit.book import profiles

    nbs, out = tmp_path / "nbs", tmp_path / "out"
    nbs.mkdir()
    monkeypatch.setattr(profiles, "NBS", nbs)  # a notebook of its own, not in the repo's nbs/
    nb = nbformat.v4.new_notebook()
    params = nbformat.v4.new_code_cell("n: int = 1")
    params.metadata["tags"] = ["parameters"]
    nb.cells = [params, nbformat.v4.new_code_cell("raise SystemExit('the kernel ran')")]
    nbformat.write(nb, nbs / "zz_kernel_check.ipynb")
    with pytest.raises(PruneAuditError, match=r"unknown notebook 'zz_kernel_check'; accepted: "
                       r"'00_template'"):
        book.run_notebook("zz_kernel_check", {}, None, out)
    assert not any(out.glob("zz_kernel_check*")) if out.exists() else True


def test_unknown_profile_and_notebook() -> None:
    with pytest.raises(PruneAuditError, match="unknown profile 'smok'.*'smoke'"):
        book.Profile.read("smok")
    with pytest.raises(PruneAuditError, match="unknown notebook '00_templat'"):
        book.notebook_path("00_templat")


# --- parameters --------------------------------------------------------------------------------


def test_parameters_precedence_common_notebook_override() -> None:
    profile = {"common": {"seed": 1, "unused": 5}, "00_template": {"iterations": 2, "seed": 3}}
    assert book.Profile.read(profile).parameters("00_template") == {"seed": 3, "iterations": 2}
    got = book.Profile.read(
        profile, {"seed": 7, "00_template.n_classes": 9, "other.x": 1}
    ).parameters("00_template")
    assert got == {"seed": 7, "iterations": 2, "n_classes": 9}


def test_profile_parameter_must_be_declared() -> None:
    with pytest.raises(
        PruneAuditError, match="unknown parameter 'epochs' for notebook 00_template"
    ):
        book.Profile.read({"00_template": {"epochs": 1}}).parameters("00_template")


def test_every_profile_fits_the_notebooks() -> None:
    for name in book.PROFILE_NAMES:
        profile = book.Profile.read(name)
        for notebook in profile.notebooks:
            profile.parameters(notebook)
        book.check_common(profile.notebooks, profile.common)


def test_common_parameter_nobody_declares() -> None:
    with pytest.raises(PruneAuditError, match="'epoch' declared by none of 00_template"):
        book.check_common(["00_template"], {"seed": 0, "epoch": 1})


def test_parse_overrides_reads_yaml_values() -> None:
    got = book.parse_overrides(["epochs=2", "models=[lenet, alexnet]", "root=null", "w=0.5"])
    assert got == {"epochs": 2, "models": ["lenet", "alexnet"], "root": None, "w": 0.5}
    with pytest.raises(PruneAuditError, match="key=value"):
        book.parse_overrides(["epochs"])


def test_print_provenance(capsys: pytest.CaptureFixture[str]) -> None:
    record = book.print_provenance({"epochs": 1, "data_root": "/some/where"})
    out = capsys.readouterr().out
    assert "epochs = 1" in out and "Data root: /some/where" in out
    assert set(book.VERSIONED) <= set(record["versions"])


# --- build stamps ------------------------------------------------------------------------------


def _stamped(folder: Path, name: str, profile: str, overrides: dict | None = None) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Page")]
    path = folder / f"{name}.ipynb"
    nbformat.write(nb, path)
    book.add_banner(path, book.build_stamp(profile, overrides, "2026-01-01 00:00 UTC"), {"a": 1})


def test_add_banner_after_the_title(tmp_path: Path) -> None:
    _stamped(tmp_path, "01_x", "quick", {"epochs": 2})
    nb = nbformat.read(tmp_path / "01_x.ipynb", as_version=4)
    assert nb.cells[0].source == "# Page"
    assert nb.cells[1].source == (
        ":::{note}\nProfile quick, overrides: epochs=2, built 2026-01-01 00:00 UTC.\n:::"
    )
    assert book.read_stamp(tmp_path / "01_x.ipynb") == {
        "profile": "quick", "overrides": {"epochs": 2}, "date": "2026-01-01 00:00 UTC",
        "parameters": {"a": 1},
    }


def test_banner_when_run_by_hand() -> None:
    assert book.build_info({}) is None
    assert book.banner_text(None).startswith("Run by hand")
    record = KernelRecord(profile="smoke", overrides={"seed": 1}, date="d")
    info = book.build_info(record.environ())
    assert book.banner_text(info) == "Profile smoke, overrides: seed=1, built d."


def test_mixed_builds_refused_unless_allowed(tmp_path: Path) -> None:
    _stamped(tmp_path, "01_a", "quick")
    _stamped(tmp_path, "02_b", "smoke")
    _stamped(tmp_path, "03_c", "quick", {"epochs": 1})
    nbformat.write(nbformat.v4.new_notebook(), tmp_path / "04_d.ipynb")  # no record
    stamp = book.build_stamp("quick", None)
    with pytest.raises(PruneAuditError) as err:
        book.check_same_build(tmp_path, ["01_a", "02_b", "03_c", "04_d", "05_e"], stamp)
    text = str(err.value)
    assert "01_a" not in text and "05_e" not in text
    assert "02_b (smoke, overrides {})" in text
    assert "03_c (quick, overrides {'epochs': 1})" in text
    assert "04_d (unknown (no build record)" in text and "--allow-mixed" in text
    book.check_same_build(tmp_path, ["01_a", "02_b"], stamp, allow_mixed=True)
    book.check_same_build(tmp_path, ["01_a"], stamp)


def test_build_without_execute_refuses_a_mixed_book(tmp_path: Path) -> None:
    studies = tmp_path / "book" / "studies"
    studies.mkdir(parents=True)
    _stamped(studies, "00_template", "smoke")
    with pytest.raises(PruneAuditError, match=r"profile quick.*00_template \(smoke"):
        book.build("quick", ["00_template"], path_output=tmp_path, execute=False, progress=False)


def test_timings_and_expected_duration(tmp_path: Path) -> None:
    assert "unknown" in sentence(tmp_path, "quick", ["01_a"])
    book.record_timing(tmp_path, "quick", "01_a", 60.0)
    book.record_timing(tmp_path, "quick", "01_a", 120.0)  # replaces
    book.record_timing(tmp_path, "smoke", "01_a", 5.0)
    rows = book.load_timings(tmp_path)
    assert [(r["profile"], r["seconds"]) for r in rows] == [("quick", 120.0), ("smoke", 5.0)]
    said = sentence(tmp_path, "quick", ["01_a", "02_b"])
    assert said == "profile quick: expected at least 2.0 min, the sum of the lines below " \
        "(the last build's timings; plus 02_b, jupyter-book: not timed yet)"
    book.record_timing(tmp_path, "quick", "jupyter-book", 30.0)
    assert sentence(tmp_path, "quick", ["01_a"]) == (
        "profile quick: expected about 2.5 min, the sum of the lines below (the last build's "
        "timings)")
    book.record_timing(tmp_path, "quick", "01_a", 30.0, new_runs=0)
    assert book.load_timings(tmp_path)[0]["new_runs"] == 0
    each = book_plan.expectations(tmp_path, "quick", ["01_a"])
    assert each["01_a"].text() == ("about 0.5 min (the last build's time; it stored no new run "
                                   "then: longer if runs must train)")


def test_expected_duration_falls_back_to_the_stated_measurement(tmp_path: Path) -> None:
    profile = tmp_path / "p.yml"
    profile.write_text("common: {seed: 0}\nmeasured:\n  01_a: 60\n  jupyter-book: 30\n"
                       "01_a: {epochs: 1}\n")
    assert set(book.Profile.read(profile).content()) == {"common", "01_a"}
    stated = book.Profile.read(profile).measured
    assert stated == {"01_a": 60.0, "jupyter-book": 30.0}
    said = sentence(tmp_path, "quick", ["01_a"], stated)
    assert said == ("profile quick: expected about 1.5 min, the sum of the lines below (the "
                    "profile's stated cold build)")
    book.record_timing(tmp_path, "quick", "01_a", 120.0)  # recorded timings come first
    assert sentence(tmp_path, "quick", ["01_a"], stated) == (
        "profile quick: expected about 2.5 min, the sum of the lines below (the last build's "
        "timings; the profile's stated cold build)")  # 01_a's 120 s timed, the pages' 30 stated
    profile.write_text("measured:\n  01_a: soon\n")
    with pytest.raises(PruneAuditError, match="'measured' must map notebook names to seconds"):
        book.Profile.read(profile)


def test_the_stated_measurement_names_its_machine_where_it_is_not_this_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    profile = tmp_path / "p.yml"
    profile.write_text('measured_on: "Chip A, AVX-512, 2 cores"\nmeasured:\n  01_a: 60\n'
                       "01_a: {epochs: 1}\n")
    read = book.Profile.read(profile)
    assert read.measured_on == "Chip A, AVX-512, 2 cores" and set(read.sections) == {"01_a"}
    monkeypatch.setattr(timing, "machine", lambda: "Chip B, AVX2, 2 cores")
    said = sentence(tmp_path, "quick", ["01_a"], read.measured, read.measured_on)
    assert said.endswith("(the profile's stated cold build (it ran on Chip A, AVX-512, 2 cores, "
                         "this is Chip B, AVX2, 2 cores: expect another time); plus "
                         "jupyter-book: not timed yet)")
    monkeypatch.setattr(timing, "machine", lambda: "Chip A, AVX-512, 2 cores")
    said = sentence(tmp_path, "quick", ["01_a"], read.measured, read.measured_on)
    assert said.endswith("(the profile's stated cold build; plus jupyter-book: not timed yet)")
    profile.write_text("measured_on: [1, 2]\n")
    with pytest.raises(PruneAuditError, match="'measured_on' must name a machine in words"):
        book.Profile.read(profile)


def test_the_stated_measurement_is_scaled_by_the_speed_probes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A profile that states its build's probe gets that build's duration times this machine's
    probe over it (60 + 30 s at 0.4 against 0.2 s per 10k images: 180 s); without a probe here
    (another device) or in the profile, the duration is the stated one, unscaled."""
    from pruneaudit.book.builder import plan

    profile = tmp_path / "p.yml"
    profile.write_text('measured_on: "Chip A, AVX-512, 2 cores"\nmeasured_probe: 0.2\n'
                       "measured:\n  01_a: 60\n  jupyter-book: 30\n01_a: {epochs: 1}\n")
    read = book.Profile.read(profile)
    assert read.measured_probe == 0.2 and set(read.sections) == {"01_a"}
    assert read.with_overrides({"seed": 1}).measured_probe == 0.2
    monkeypatch.setattr(plan, "probe_here", lambda: 0.4)
    each = plan.expectations(tmp_path, "quick", ["01_a"], read.measured, read.measured_probe)
    assert plan.total_minutes(each) * 60 == pytest.approx(180.0)
    said = plan.headline("quick", each, read.measured_on, read.measured_probe)
    assert said == ("profile quick: expected about 3.0 min, the sum of the lines below (the "
                    "profile's stated cold build (1.5 min on Chip A, AVX-512, 2 cores) times "
                    "this machine's speed probe (0.400 against 0.200 s per 10k images per "
                    "model))")
    template = tmp_path / "t.yml"
    template.write_text("measured_probe: 0.2\nmeasured:\n  00_template: 60\n  jupyter-book: 30\n"
                        "00_template: {}\n")
    stated = book_plan.make_plan(book.Profile.read(template), ["00_template"], tmp_path)
    assert stated.seconds == 180.0
    monkeypatch.setattr(plan, "probe_here", lambda: None)
    assert plan.total_minutes(plan.expectations(tmp_path, "quick", ["01_a"], read.measured,
                                                read.measured_probe)) * 60 == 90.0
    monkeypatch.setattr(plan, "probe_here", lambda: pytest.fail("probed without a stated probe"))
    unscaled = plan.expectations(tmp_path, "quick", ["01_a"], read.measured)
    assert plan.total_minutes(unscaled) * 60 == 90.0
    for bad in ("0", "-1", "fast", "true"):
        profile.write_text(f"measured_probe: {bad}\n01_a: {{}}\n")
        with pytest.raises(PruneAuditError, match="'measured_probe' must be the measured build"):
            book.Profile.read(profile)


def test_a_timing_record_keeps_the_build_probe(tmp_path: Path) -> None:
    book.record_timing(tmp_path, "quick", "01_a", 60.0, probe=0.26789)
    book.record_timing(tmp_path, "quick", "02_b", 60.0)
    assert [r["probe"] for r in book.load_timings(tmp_path)] == [0.2679, None]


# --- toc and benchmark tables ------------------------------------------------------------------


def test_toc_drops_only_missing_pages(tmp_path: Path) -> None:
    toc = tmp_path / "toc.yml"
    toc.write_text(
        "format: jb-book\nroot: book/intro\nparts:\n"
        "  - caption: A\n    chapters:\n      - file: book/reproducing\n"
        "      - file: book/studies/no_such_study\n"
        "  - caption: B\n    chapters:\n      - file: book/nothing_here\n"
    )
    dropped = runner._toc_for_existing(toc, tmp_path / "out.yml")
    assert dropped == ["book/studies/no_such_study", "book/nothing_here"]
    out = (tmp_path / "out.yml").read_text()
    assert "book/reproducing" in out and "caption: B" not in out


def test_strip_widgets(tmp_path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {}}
    view = {"application/vnd.jupyter.widget-view+json": {"model_id": "x"}}
    nb.cells = [
        nbformat.v4.new_code_cell("w", outputs=[nbformat.v4.new_output("display_data", view)])
    ]
    path = tmp_path / "w.ipynb"
    nbformat.write(nb, path)
    book.strip_widgets(path)
    again = nbformat.read(path, as_version=4)
    assert "widgets" not in again.metadata
    assert "application/vnd.jupyter.widget-view+json" not in again.cells[0].outputs[0]["data"]


def test_unreadable_timings_do_not_stop_a_build(tmp_path: Path) -> None:
    # the expected-duration line reads leniently; the Reproducing page strictly (test_site_pages)
    (tmp_path / "_timings.json").write_text("{not json")
    assert "unknown" in sentence(tmp_path, "quick", ["01_a"])
    book.record_timing(tmp_path, "quick", "01_a", 60.0)  # rewrites the file whole
    assert [r["seconds"] for r in book.load_timings(tmp_path)] == [60.0]


# --- the one list of studies -------------------------------------------------------------------


def test_the_studies_are_the_registered_pages_but_the_template(monkeypatch) -> None:
    from pruneaudit.book import paths
    from pruneaudit.studies import registry

    assert STUDIES[0] == "01_population_ols" and TEMPLATE not in STUDIES
    assert (TEMPLATE, *STUDIES) == registry.PAGES
    monkeypatch.setattr(paths, "PAGES", (TEMPLATE, "01_a", "06_new_study"))
    assert paths.study_notebooks() == ("01_a", "06_new_study")


@pytest.mark.parametrize("profile", book.PROFILE_NAMES)
def test_every_study_is_in_every_profile_and_the_toc(profile: str) -> None:
    """Every registered study is in every book profile (its values, or its defaults), its
    profile file states none of them, and the book lists its page."""
    assert sorted(book.Profile.read(profile).sections) == sorted((TEMPLATE, *STUDIES))
    stated = yaml.safe_load((book.PROFILES / f"{profile}.yml").read_text())
    assert set(stated) <= {"measured", "measured_on", "measured_probe"}, profile
    toc = yaml.safe_load((book.REPO / "_toc.yml").read_text())
    files = [c["file"] for part in toc["parts"] for c in part["chapters"]]
    missing = [n for n in (TEMPLATE, *STUDIES) if f"book/studies/{n}" not in files]
    assert not missing, f"_toc.yml does not list {missing}"


@pytest.mark.slow
def test_a_cell_past_the_timeout_reruns_its_notebook_once(tmp_path, monkeypatch):
    import papermill
    from nbclient.exceptions import CellTimeoutError

    real, calls = papermill.execute_notebook, []

    def flaky(*args, **kwargs):
        calls.append(kwargs["execution_timeout"])
        if len(calls) == 1:
            raise CellTimeoutError("no reply")
        return real(*args, **kwargs)

    monkeypatch.setattr(papermill, "execute_notebook", flaky)
    monkeypatch.setenv(runner.CELL_TIMEOUT_ENV, "300")
    out = runner.run_notebook("00_template", "smoke", None, tmp_path)
    assert out.is_file() and calls == [300.0, 300.0]
    monkeypatch.setattr(papermill, "execute_notebook",
                        lambda *a, **k: (_ for _ in ()).throw(CellTimeoutError("no reply")))
    with pytest.raises(PruneAuditError, match="longer than .PRUNEAUDIT_CELL_TIMEOUT=300 s twice"):
        runner.run_notebook("00_template", "smoke", None, tmp_path / "again")
    monkeypatch.setenv(runner.CELL_TIMEOUT_ENV, "soon")
    with pytest.raises(PruneAuditError, match="must be a number of seconds > 0, got 'soon'"):
        runner.run_notebook("00_template", "smoke", None, tmp_path / "bad")


def test_a_kernel_that_dies_as_it_starts_reruns_its_notebook_once(tmp_path, monkeypatch):
    """jupyter_client's port race kills a starting kernel now and then: the notebook runs once
    more; a second death is one clear error, and any other error passes through untouched."""
    import papermill

    calls = []

    def dies(times: int, message: str = "Kernel died before replying to kernel_info"):
        def execute(source, target, **kwargs):
            calls.append(target)
            if len(calls) <= times:
                raise RuntimeError(message)
            shutil.copy(source, target)
        return execute

    monkeypatch.setattr(papermill, "execute_notebook", dies(1))
    out = runner.run_notebook("00_template", "smoke", None, tmp_path)
    assert out.is_file() and len(calls) == 2
    calls.clear()
    monkeypatch.setattr(papermill, "execute_notebook", dies(2))
    with pytest.raises(PruneAuditError, match="kernel died as it started twice; is another"):
        runner.run_notebook("00_template", "smoke", None, tmp_path / "again")
    assert not list((tmp_path / "again").glob("*.ipynb"))
    calls.clear()
    monkeypatch.setattr(papermill, "execute_notebook", dies(1, "something else"))
    with pytest.raises(RuntimeError, match="^something else$"):
        runner.run_notebook("00_template", "smoke", None, tmp_path / "other")
    assert len(calls) == 1


def test_smoke_findings_follow_their_claims(smoke_book):
    """Every row of the smoke build's findings JSON carries its claim and comparability (one row
    per declared claim); only a ``same`` row with a paper value has a ``paper_band``, and no
    ``reproduced`` row's interval leaves it; an ``analogue`` says a direction only; a ``beyond``
    row never uses a word that compares with the paper and is never a headline."""
    from pruneaudit import audit
    from pruneaudit.audit.claims import fingerprint
    from pruneaudit.book.profiles import study_of

    analogue = (audit.SAME_DIRECTION, audit.OPPOSITE, audit.EFFECT_ABSENT, audit.INCONCLUSIVE)
    beyond = (audit.PRESENT, audit.OTHER_SIGN, audit.EFFECT_ABSENT, audit.INCONCLUSIVE)
    checked = 0
    for path in sorted(executed(smoke_book).glob("[0-9][0-9]_*.findings.json")):
        rows = json.loads(path.read_text())
        declared = study_of(path.name.split(".")[0]).claims()
        assert {r["claim"] for r in rows} == set(declared), path.name  # a claim may have cells
        # one estimate, one row
        assert not audit.repeated_estimates([audit.from_json(r) for r in rows]), path.name
        for row in rows:
            kind, said = row["comparability"], (path.name, row["claim"], row["verdict"])
            # the verdict traces to the claim it used
            assert row["fingerprint"] == fingerprint(declared[row["claim"]]), said
            # as declared, or untested by this build's parameters (e.g. unequal budgets)
            assert kind in (declared[row["claim"]].comparability, "not comparable",
                            "not testable"), said
            if row["verdict"] in audit.UNTESTED:  # e.g. a trend on fewer than three levels
                assert row["basis"] and not row["paper_band"], said
                continue
            if kind == "analogue":
                assert row["verdict"] in analogue and not row["paper_band"], said
                assert row["size"] == "", said
            if kind == "beyond":
                assert row["verdict"] in beyond and not row["headline"], said
                assert row["paper"] is None and not row["paper_band"], said
            if row["headline"]:
                assert kind in ("same", "analogue"), said
            if kind != "same" or row["paper"] is None:
                continue
            checked += 1
            assert row["paper_band"], f"{path.name}: {row['finding']} has no paper_band"
            low, high = row["paper_band"]
            if row["verdict"] == audit.REPRODUCED:
                assert low <= row["ci_low"] <= row["ci_high"] <= high, said
    assert checked >= 5
