"""Live mode: JupyterLab on loopback serves copies of the notebooks, then stops."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from pruneaudit import config
from pruneaudit.book.builder import live, notebook
from pruneaudit.book.paths import NBS, REPO, STUDIES
from pruneaudit.book.profiles import Profile, notebook_reads
from pruneaudit.errors import PruneAuditError
from pruneaudit.runtime import KERNEL_ENV, KernelRecord


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_prepare_copies_notebooks_and_keeps_edits(tmp_path: Path) -> None:
    copies = live.prepare_live(tmp_path)
    assert sorted(p.name for p in copies) == sorted(p.name for p in NBS.glob("*.ipynb"))
    assert (tmp_path / "profiles" / "smoke.yml").is_file()
    edited = copies[0]
    edited.write_text("edited")
    live.prepare_live(tmp_path)
    assert edited.read_text() == "edited"
    live.prepare_live(tmp_path, fresh=True)
    again = live.prepare_live(tmp_path / "again")
    assert edited.read_text() == again[0].read_text() != "edited"


def _parameters_cell(path: Path) -> str:
    cells = json.loads(path.read_text())["cells"]
    tagged = [c for c in cells if "parameters" in c["metadata"].get("tags", [])]
    return "".join(tagged[0]["source"])


def _run_parameters_cell(path: Path) -> dict:
    namespace: dict = {}
    code = compile(_parameters_cell(path), str(path), "exec", dont_inherit=True)  # as a kernel
    exec(code, namespace)  # noqa: S102
    return {k: v for k, v in namespace.items() if k != "__builtins__"}


def test_copies_hold_the_profile_values(tmp_path: Path) -> None:
    live.prepare_live(tmp_path, profile="smoke")
    smoke = Profile.read("smoke")
    for name in smoke.notebooks:
        got = _run_parameters_cell(tmp_path / f"{name}.ipynb")
        want = smoke.values(name)
        for field in notebook_reads(name):
            assert got.pop(field) is None, f"{name}: {field} is left for book.setup"
            want.pop(field)
        assert {k: got[k] for k in want} == want, name
    assert (tmp_path / live.PROFILE_MARK).read_text().strip() == "smoke"
    with pytest.raises(PruneAuditError, match="made for profile smoke.*--fresh"):
        live.prepare_live(tmp_path, profile="quick")
    live.prepare_live(tmp_path, profile="quick", fresh=True)
    assert _run_parameters_cell(tmp_path / "02_qmnist_writers.ipynb")["seeds"] == (
        Profile.read("quick").values("02_qmnist_writers")["seeds"])


def test_with_values_keeps_comments_and_other_lines() -> None:
    source = "a: int = 1  # one\nb: list[int] = [1,\n    2]\nc = 'x'\n"
    assert live.with_values(source, {"a": 2, "b": [3], "c": "x"}) == (
        "a: int = 2  # one\nb: list[int] = [3]\nc = 'x'\n")


def test_study5_live_copy_runs_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """In a plain kernel (no runner, no study4 given) Study 5's page takes Study 4's parameters
    from the profile its live copy was made for, or the one ``setup`` names, else quick."""
    import torch

    from pruneaudit import book
    from pruneaudit.studies import robustness

    live.prepare_live(tmp_path, profile="smoke")
    namespace = _run_parameters_cell(tmp_path / "05_robustness.ipynb")
    assert namespace["study4"] is None
    monkeypatch.setenv(notebook.PAGE_PROFILE_ENV,
                       live.live_environment({}, "smoke")[notebook.PAGE_PROFILE_ENV])
    monkeypatch.delenv(notebook.KERNEL_ENV, raising=False)
    threads = torch.get_num_threads()
    try:
        page = book.setup(namespace, robustness.Params)
    finally:
        torch.set_num_threads(threads)
    smoke = Profile.read("smoke")
    assert page.params.study4 == smoke.study_params("04_compression_impact")
    assert page.params == smoke.study_params("05_robustness")
    assert page.params.populations().seeds == (0, 1)
    monkeypatch.delenv(notebook.PAGE_PROFILE_ENV)
    quick = notebook.read_upstream(namespace, robustness.Params)
    assert quick["study4"] == Profile.read("quick").values("04_compression_impact")
    named = notebook.read_upstream(namespace, robustness.Params, "smoke")
    assert named["study4"] == smoke.values("04_compression_impact")
    given = notebook.read_upstream({**namespace, "study4": {"x": 1}}, robustness.Params)
    assert given["study4"] == {"x": 1}


def test_refuses_book_studies() -> None:
    with pytest.raises(PruneAuditError, match="book/studies"):
        live.prepare_live(STUDIES)
    with pytest.raises(PruneAuditError, match="book/studies"):
        live.prepare_live(STUDIES / "sub")


def test_live_folder_is_git_ignored() -> None:
    done = subprocess.run(
        ["git", "check-ignore", "-q", str(live.LIVE / "01_population_ols.ipynb")], cwd=REPO
    )
    assert done.returncode == 0, "live/ must be git-ignored"


def test_environment_makes_settings_absolute(tmp_path: Path) -> None:
    env = live.live_environment(
        {config.STORE_ENV: "results", config.DATA_ENV: "data",
         **KernelRecord(static=True).environ()}
    )
    assert env[config.STORE_ENV] == str((REPO / "results").resolve())
    assert env[config.DATA_ENV] == str((REPO / "data").resolve())
    assert env["PYTHONPATH"].split(":")[0] == str(REPO / "src")
    assert KERNEL_ENV not in env
    absolute = live.live_environment({config.STORE_ENV: str(tmp_path)})
    assert absolute[config.STORE_ENV] == str(tmp_path)


def test_command_binds_loopback_only() -> None:
    command = live.Lab(Path("live"), 9999, token="t", open_browser=False).command()
    assert "--ServerApp.ip=127.0.0.1" in command
    assert "--ServerApp.port=9999" in command
    assert "--ServerApp.open_browser=False" in command


@pytest.mark.slow
def test_server_starts_serves_a_notebook_and_stops(tmp_path: Path) -> None:
    pytest.importorskip("jupyterlab")
    port, token = _free_port(), "pruneaudit-test"
    lab = live.Lab(tmp_path / "live", port, token=token, open_browser=False)
    process = live.start_lab(lab, log=tmp_path / "lab.log")
    try:
        base = f"http://127.0.0.1:{port}"
        url = f"{base}/api/contents/01_population_ols.ipynb?token={token}"
        with urllib.request.urlopen(url, timeout=10) as response:
            model = json.load(response)
        assert model["type"] == "notebook"
        assert any("parameters" in c["metadata"].get("tags", []) for c in model["content"]["cells"])
        with urllib.request.urlopen(f"{base}/lab/tree/01_population_ols.ipynb?token={token}") as r:
            assert r.status == 200 and b"JupyterLab" in r.read()
        # Not reachable without the token.
        with pytest.raises(urllib.error.HTTPError):
            urllib.request.urlopen(f"{base}/api/contents/01_population_ols.ipynb", timeout=10)
    finally:
        code = live.stop_lab(process)
    assert process.poll() is not None, f"server still running (exit code {code})"
    with socket.socket() as s:
        assert s.connect_ex(("127.0.0.1", port)) != 0, "port still open after stop"


def test_live_kernel_shares_the_store_from_any_directory(tmp_path: Path) -> None:
    """A kernel started in live/ with the server's environment resolves the repository's store,
    not ``live/results``."""
    from jupyter_client.manager import start_new_kernel

    env = live.live_environment({k: v for k, v in os.environ.items() if k != config.STORE_ENV})
    manager, client = start_new_kernel(cwd=str(tmp_path), env=env, startup_timeout=120)
    try:
        printed = []
        client.execute_interactive(
            "import os; from pruneaudit import config; "
            "print(os.getcwd(), config.store_root().resolve())",
            output_hook=lambda msg: printed.append(msg["content"].get("text", "")),
            timeout=120,
        )
        cwd, store = "".join(printed).split()
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    assert Path(cwd) == tmp_path.resolve()
    assert Path(store) == (REPO / "results").resolve()


IDLE = ("document.querySelector('.jp-Notebook-ExecutionIndicator')?.dataset.status"
        " === 'idle'")


def _start_session(port: int, token: str, path: str) -> None:
    """Start the notebook's kernel session through Jupyter Server's REST API, so that
    JupyterLab opens the notebook on it instead of asking "Select Kernel"."""
    body = json.dumps({"path": path, "name": path, "type": "notebook",
                       "kernel": {"name": "python3"}}).encode()
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/sessions", data=body, method="POST",
        headers={"Authorization": f"token {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as answer:
        assert answer.status == 201


CONTROL_CELL = """\
from pruneaudit.book.profiles import Profile
from pruneaudit.runs.store import ResultsStore
from pruneaudit.studies import compression_impact as impact
from pruneaudit.studies.compression_impact import live as impact_live

params = Profile.read("smoke").study_params("04_compression_impact")
result = impact.run(params, ResultsStore(params.store), progress=False)
impact_live.control(result)
"""


def _run_all_until(page, shown, log: Path, tries: int = 3, seconds: int = 120) -> None:
    """Run All Cells until ``shown`` appears. On a loaded machine (the slow tests beside it)
    JupyterLab may ask "Select Kernel" although the session was started (it is answered here),
    or lose a menu click; a run still going when it is asked again only queues another."""
    for _ in range(tries):
        dialog = page.locator(".jp-Dialog")
        if dialog.count() and "Select Kernel" in dialog.first.inner_text():
            # on a loaded machine JupyterLab may still ask, the started session among its
            # choices: take its preferred kernel, as a reader would
            dialog.first.locator(".jp-Dialog-button.jp-mod-accept").click()
            page.wait_for_function(IDLE, timeout=120_000)
        page.get_by_role("menuitem", name="Run", exact=True).click()
        page.get_by_text("Run All Cells", exact=True).click()
        try:
            shown.wait_for(timeout=seconds * 1000)
            return
        except PlaywrightTimeout:
            continue
    output = page.locator(".jp-Cell .jp-OutputArea").first.inner_text()
    pytest.fail(f"no control after {tries} x Run All ({seconds} s each); the cell shows "
                f"{output[-500:]!r}; JupyterLab's log ends {log.read_text()[-1500:]!r}")


@pytest.mark.slow
@pytest.mark.browser
def test_a_live_control_computes_in_jupyterlab(tmp_path: Path, browser) -> None:
    """Study 4's control in JupyterLab: Run All shows the class tests of the first variant;
    picking another variant in the drop-down reruns them in the kernel and shows its counts."""
    nbformat = pytest.importorskip("nbformat")
    pytest.importorskip("jupyterlab_widgets")
    from pruneaudit.runs.store import ResultsStore
    from pruneaudit.studies import compression_impact as impact

    # the smoke runs in the store first, so that the kernel only reads them (training them in
    # the kernel, beside other tests, could outlast the browser's wait)
    params = Profile.read("smoke").study_params("04_compression_impact")
    impact.run(params, ResultsStore(params.store), progress=False)
    port, token = _free_port(), "pruneaudit-test"
    lab = live.Lab(tmp_path / "live", port, token=token, open_browser=False)
    process = live.start_lab(lab, profile="smoke", log=tmp_path / "lab.log")
    try:
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(CONTROL_CELL)])
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                     "language": "python"}
        nbformat.write(nb, tmp_path / "live" / "control.ipynb")
        _start_session(port, token, "control.ipynb")
        page = browser.new_page()
        page.set_viewport_size({"width": 1400, "height": 900})
        page.goto(f"http://127.0.0.1:{port}/lab/tree/control.ipynb?token={token}")
        page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
        page.wait_for_function(IDLE, timeout=120_000)
        select = page.locator(".widget-dropdown select").first
        _run_all_until(page, select, tmp_path / "lab.log")
        first, second = [o.inner_text().replace("\xa0", " ")
                         for o in select.locator("option").all()[:2]]
        cell = page.locator(".jp-Cell .jp-OutputArea").first

        def shown(variant: str) -> str:
            page.wait_for_function(
                "([v]) => { const t = document.querySelector('.jp-Cell .jp-OutputArea')"
                ".innerText.replaceAll('\\u00a0', ' '); return t.includes(v + ', ')"
                " && t.includes('Class tests rerun and shown in'); }", arg=[variant],
                timeout=120_000)
            return cell.inner_text().replace("\xa0", " ")

        assert "classes change significantly" in shown(first)
        select.select_option(index=1)
        text = shown(second)
        assert f"{first}, " not in text and "classes change significantly" in text
        page.close()
    finally:
        live.stop_lab(process)
