"""``pruneaudit compute``: the studies' runs into the results store without
notebooks or Jupyter; then a build over those results trains nothing, also from their light
export (no checkpoints) imported into an empty store."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from pruneaudit import cli, config
from pruneaudit.book.builder import compute, runner
from pruneaudit.book.paths import REPO
from pruneaudit.book.profiles import Profile
from pruneaudit.errors import PruneAuditError
from pruneaudit.runs import ResultsStore

#: The cheapest smoke study that trains (3 LeNets, 2 pruning rounds on 1,000 QMNIST digits).
STUDY = "02_qmnist_writers"
#: The notebook stack a machine that only computes may lack.
NOTEBOOK_STACK = ("nbclient", "nbformat", "papermill", "IPython", "ipykernel", "jupyter_client",
                  "myst_nb", "jupyter_book")
#: What only the pages use (charts, their JavaScript bundle, sub-group tables): such a machine
#: may lack it too.
PAGE_STACK = ("altair", "vl_convert", "fairlearn")
#: Every module a subprocess of :func:`_blocked` cannot import.
BLOCKED = (*NOTEBOOK_STACK, *PAGE_STACK)


def _blocked(code: str) -> list[str]:
    """``python -c code`` with every module of :data:`BLOCKED` unimportable."""
    block = f"import sys\nfor name in {BLOCKED!r}:\n    sys.modules[name] = None\n"
    return [sys.executable, "-c", block + code]


def _run(command: list[str]) -> subprocess.CompletedProcess:
    env = {**os.environ, "PRUNEAUDIT_THREADS": "1", "PYTHONWARNINGS": "ignore"}
    return subprocess.run(command, capture_output=True, text=True, cwd=REPO, env=env,
                          timeout=900)


@pytest.fixture(autouse=True)
def one_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """Torch's thread count is set, not chosen from the free cores (no follower left on); the
    OpenMP wait policy ``pruneaudit compute`` sets is the test's, restored after it."""
    monkeypatch.setenv("PRUNEAUDIT_THREADS", "1")
    monkeypatch.setenv("OMP_WAIT_POLICY", os.environ.get("OMP_WAIT_POLICY", "PASSIVE"))


@pytest.fixture(scope="module")
def computed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, compute.Computed]]:
    """The smoke profile's Study 2 computed once into a fresh store: (store root, what it says)."""
    root = tmp_path_factory.mktemp("computed") / "store"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PRUNEAUDIT_THREADS", "1")
        (done,) = compute.run_studies("smoke", [STUDY], {"store": str(root)}, progress=False)
    yield root, done


@pytest.mark.slow
def test_compute_and_study_runs_import_no_notebook_or_page_stack():
    """Importing the compute path and every study's ``run`` needs none of the notebook stack
    nor the pages' libraries (each blocked module would raise ImportError)."""
    code = ("import pruneaudit.book.builder.compute\n"
            "from pruneaudit.book import Profile, run_studies\n"
            "from pruneaudit.book.builder.compute import study_run\n"
            "from pruneaudit.book.paths import TEMPLATE, study_notebooks\n"
            "assert all(study_run(n) for n in (TEMPLATE, *study_notebooks()))\n"
            "print(sorted(m for m, v in sys.modules.items() if v is not None\n"
            f"             and m.split('.')[0] in {BLOCKED!r}))")
    done = _run(_blocked(code))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "[]"


@pytest.mark.slow
def test_compute_trains_what_the_store_lacks(computed):
    root, done = computed
    keys = ResultsStore(root).keys()
    assert done.notebook == STUDY and done.store == root.resolve()
    assert done.new_runs == len(keys) == 3 * 3  # 3 seeds: dense and 2 pruned rounds each
    assert done.seconds > 0


@pytest.mark.slow
def test_compute_again_without_notebook_stack_trains_nothing_and_exports(computed, tmp_path):
    root, _ = computed
    before = ResultsStore(root).keys()
    archive = tmp_path / "smoke.zip"
    args = ["compute", "--profile", "smoke", "--only", STUDY, "-p", f"store={root}",
            "--export", str(archive)]
    done = _run(_blocked(f"from pruneaudit import cli\nsys.exit(cli.main({args!r}))"))
    assert done.returncode == 0, done.stderr
    assert f"[{STUDY}]" in done.stdout  # progress as build prints it
    assert f"computed {STUDY} (" in done.stdout and "0 new runs in" in done.stdout
    assert f"exported {len(before)} runs without checkpoints to {archive}" in done.stdout
    assert ResultsStore(root).keys() == before
    names = zipfile.ZipFile(archive).namelist()
    assert not [n for n in names if n.endswith("checkpoint.pt")]
    checkpoints = sum(p.stat().st_size for p in root.rglob("checkpoint.pt"))
    assert archive.stat().st_size < checkpoints / 4


@pytest.mark.slow
def test_build_from_imported_light_results_trains_nothing(
    computed, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
):
    """compute --export, then build --import into an empty store: the build's record of the
    page says it stored no new run (nothing trained), and the page executed without the
    checkpoints. Only Jupyter Book's HTML step is left out (the pages are not rendered)."""
    root, _ = computed
    archive = tmp_path / "smoke.zip"
    ResultsStore(root).export_results(archive)
    target = tmp_path / "imported"
    real = subprocess.run

    def no_html(command, *args, **kwargs):
        if "jupyter-book" in str(command[0]):
            return subprocess.CompletedProcess(command, 0, "", "")
        return real(command, *args, **kwargs)

    monkeypatch.setattr(runner.subprocess, "run", no_html)
    out = tmp_path / "book"
    status = cli.main(["build", "--profile", "smoke", "--only", STUDY, "-p", f"store={target}",
                          "--import", str(archive), "--path-output", str(out)])
    said = capsys.readouterr()
    assert status == 0, said.err
    assert f"imported {len(ResultsStore(root).keys())} runs from {archive} (0 already" in said.out
    rows = json.loads((out / "book" / "studies" / "_timings.json").read_text())
    (row,) = [r for r in rows if r["notebook"] == STUDY]
    assert row["new_runs"] == 0
    assert ResultsStore(target).keys() == ResultsStore(root).keys()
    assert not list(target.rglob("checkpoint.pt"))
    assert (out / "book" / "studies" / f"{STUDY}.ipynb").is_file()


def _capture(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, object, str]]:
    """Replace every study's run by one that records (study, params, device setting)."""
    seen: list[tuple[str, object, str]] = []

    def fake(name: str):
        def run(params, store, *, progress=True, runtime=None):
            seen.append((name, params, runtime.device_setting()))
        return run

    monkeypatch.setattr(compute, "study_run", fake)
    return seen


def test_studies_get_the_pages_params_in_build_order(monkeypatch, tmp_path):
    """Study 5 runs after Study 4 and reads Study 4's parameters from the same profile and
    overrides, as its page does."""
    seen = _capture(monkeypatch)
    overrides = {"04_compression_impact.epochs": 3, "store": str(tmp_path)}
    names = ["05_robustness", "04_compression_impact"]
    done = compute.run_studies("smoke", names, overrides, progress=False)
    assert [c.notebook for c in done] == [name for name, *_ in seen]
    assert [name for name, *_ in seen] == ["04_compression_impact", "05_robustness"]
    profile = Profile.read("smoke", overrides)
    assert seen[1][1] == profile.study_params("05_robustness")
    assert seen[1][1].study4 == seen[0][1] == profile.study_params("04_compression_impact")
    assert seen[0][1].epochs == 3
    assert all(c.new_runs == 0 and c.store == tmp_path.resolve() for c in done)


def test_device_option_is_the_device_parameter(monkeypatch, capsys, tmp_path):
    seen = _capture(monkeypatch)
    monkeypatch.delenv(config.DEVICE_ENV, raising=False)
    args = ["compute", "--profile", "smoke", "--only", STUDY, "--device", "cpu",
            "-p", f"store={tmp_path}"]
    assert cli.main(args) == 0
    ((_, params, device),) = seen
    assert params.device == "cpu" == device
    assert config.DEVICE_ENV not in os.environ  # the setting is the runtime's, not the process's
    out = capsys.readouterr().out
    assert f"computed {STUDY} (" in out and "computed 1 study in" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--profile", "smok"], "unknown profile 'smok'"),
        (["--profile", "smoke", "--only", "02_qmnist_writer"], "unknown notebook"),
        (["--profile", "smoke", "--only", STUDY, "-p", "epoch=2"], "'epoch' is not a parameter"),
        (["--profile", "smoke", "--only", STUDY, "-p", "seeds=two"], "seeds must be list"),
        (["--profile", "smoke", "--only", STUDY, "-p", "seeds"], "override must be key=value"),
        (["--profile", "smoke", "--only", STUDY, "--device", "gpu"], "device must be auto"),
        (["--profile", "smoke", "--only", STUDY, "--device", "cpu", "-p", "device=cpu"],
         "both set the device; give one"),
        (["--profile", "smoke", "--only", STUDY, "03_pareto_selection", "-p",
          "03_pareto_selection.store=elsewhere", "--export", "x.zip"],
         "use different results stores"),
    ],
)
def test_bad_input_is_one_line_error(args, message, monkeypatch, capsys):
    seen = _capture(monkeypatch)
    assert cli.main(["compute", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and err.count("\n") == 1
    assert seen == []  # nothing ran


def test_runner_command_line_has_compute_and_build_import(monkeypatch, capsys, tmp_path):
    seen = _capture(monkeypatch)
    assert cli.main(["compute", "--profile", "smoke", "--only", STUDY,
                        "-p", f"store={tmp_path}"]) == 0
    assert [name for name, *_ in seen] == [STUDY]
    missing = tmp_path / "missing.zip"
    assert cli.main(["build", "--profile", "smoke", "--only", STUDY, "--import", str(missing),
                        "--path-output", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: results archive") and "does not exist" in err
    assert not (tmp_path / "out").exists()  # refused before anything was built


def test_results_store_of_a_profile(tmp_path):
    store = compute.results_store(Profile.read("smoke", {"store": str(tmp_path)}), [STUDY])
    assert store.root == tmp_path.resolve()
    with pytest.raises(PruneAuditError, match="different results stores"):
        compute.results_store(
            Profile.read("smoke", {"02_qmnist_writers.store": str(tmp_path)}), None
        )
