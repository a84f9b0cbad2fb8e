"""The book's GitHub workflow (.github/workflows/book.yml): actionlint's checks, and what it
builds and deploys on which event."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from pruneaudit.config import REPO

WORKFLOW = REPO / ".github" / "workflows" / "book.yml"


def actionlint() -> str | None:
    """The actionlint binary of this environment (the dev extra's wheel), else PATH's."""
    local = Path(sys.executable).parent / "actionlint"
    return str(local) if local.is_file() else shutil.which("actionlint")


def lint(path: Path) -> subprocess.CompletedProcess:
    binary = actionlint()
    if binary is None:
        pytest.skip("actionlint not installed: make setup installs the dev extra's")
    return subprocess.run([binary, "-no-color", str(path)], capture_output=True, text=True,
                          cwd=REPO, check=False)


def test_actionlint_finds_nothing() -> None:
    done = lint(WORKFLOW)
    assert done.returncode == 0, done.stdout + done.stderr


def test_actionlint_finds_a_broken_workflow(tmp_path: Path) -> None:
    broken = tmp_path / ".github" / "workflows" / "book.yml"
    broken.parent.mkdir(parents=True)
    text = WORKFLOW.read_text().replace("runs-on:", "runs-onn:", 1)
    broken.write_text(text.replace("${{ steps.profile.outputs.name }}",
                                   "${{ steps.profile.outputs.name }", 1))
    done = lint(broken)
    assert done.returncode != 0 and "runs-onn" in done.stdout, done.stdout


def steps(job: dict) -> list[dict]:
    return job["steps"]


def uses(job: dict) -> list[str]:
    return [step["uses"].split("@")[0] for step in steps(job) if "uses" in step]


def test_pull_requests_build_smoke_and_main_deploys_quick_with_pages_actions() -> None:
    flow = yaml.safe_load(WORKFLOW.read_text())
    events = flow.get("on", flow.get(True))  # PyYAML reads the key `on` as True
    assert "pull_request" in events and events["push"]["branches"] == ["main"]
    build, deploy = flow["jobs"]["build"], flow["jobs"]["deploy"]
    text = WORKFLOW.read_text()
    assert 'name=smoke" >> "$GITHUB_OUTPUT"' in text and 'name=quick" >> "$GITHUB_OUTPUT"' in text
    assert any("make book PROFILE=${{ steps.profile.outputs.name }}" in s.get("run", "")
               for s in steps(build))
    store = next(s for s in steps(build) if s.get("with", {}).get("path") == "results")
    key = store["with"]["key"]
    assert "steps.profile.outputs.name" in key and "hashFiles('src/pruneaudit/**'" in key
    assert store["uses"].startswith("actions/cache@")
    for action in ("actions/configure-pages", "actions/upload-pages-artifact"):
        step = next(s for s in steps(build) if s.get("uses", "").startswith(action))
        assert step["if"] == "github.event_name != 'pull_request'"
    artifact = next(s for s in steps(build) if "upload-pages-artifact" in s.get("uses", ""))
    assert artifact["with"]["path"] == "_build/html"
    assert uses(deploy) == ["actions/deploy-pages"] and deploy["needs"] == "build"
    assert deploy["if"] == "github.event_name != 'pull_request'"
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert deploy["environment"]["name"] == "github-pages"
    assert flow["permissions"] == {"contents": "read"}
    assert flow["concurrency"]["cancel-in-progress"] is False
