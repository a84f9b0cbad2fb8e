"""`make publish`: the built book becomes a gh-pages commit whose tree is the site (plus
.nojekyll), pushed only when the remote `origin` is set."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pruneaudit.config import REPO

SITE = {"index.html": "<h1>book</h1>", "_static/reader.css": "body {}",
        "studies/01.html": "<p>one</p>"}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                          check=True).stdout


@pytest.fixture
def clone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A clone of this repository's HEAD with this tree's Makefile, no remote and a tiny built
    site in _build/html."""
    for key, value in {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
                       "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}.items():
        monkeypatch.setenv(key, value)
    repo = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{REPO}", str(repo)],
                   check=True)
    git(repo, "remote", "remove", "origin")
    shutil.copy(REPO / "Makefile", repo / "Makefile")
    for name, text in SITE.items():
        (repo / "_build" / "html" / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / "_build" / "html" / name).write_text(text)
    return repo


def publish(repo: Path) -> subprocess.CompletedProcess[str]:
    """`make publish` with this environment's Python (STAMP= leaves out the install step)."""
    venv = Path(sys.executable).parent.parent
    return subprocess.run(["make", "-s", "publish", f"VENV={venv}", "STAMP="], cwd=repo,
                          capture_output=True, text=True, check=False,
                          env={**os.environ, "PATH": f"{venv / 'bin'}:{os.environ['PATH']}"})


def test_publish_commits_the_site_and_pushes_nothing_without_a_remote(clone: Path) -> None:
    head = git(clone, "rev-parse", "HEAD")
    done = publish(clone)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no remote origin, nothing pushed" in done.stdout
    tree = set(git(clone, "ls-tree", "-r", "--name-only", "gh-pages").split())
    assert tree == set(SITE) | {".nojekyll"}
    for name, text in SITE.items():
        assert git(clone, "show", f"gh-pages:{name}") == text
    assert git(clone, "log", "-1", "--format=%s", "gh-pages").startswith("Book of ")
    assert git(clone, "rev-parse", "HEAD") == head, "the working branch moved"
    assert git(clone, "remote") == ""


def test_publish_pushes_gh_pages_to_origin_when_set(clone: Path, tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    git(clone, "remote", "add", "origin", str(remote))
    done = publish(clone)
    assert done.returncode == 0, done.stdout + done.stderr
    assert git(remote, "rev-parse", "gh-pages") == git(clone, "rev-parse", "gh-pages")


def test_publish_without_a_built_book_says_what_to_run(clone: Path) -> None:
    shutil.rmtree(clone / "_build")
    done = publish(clone)
    assert done.returncode != 0 and "run make book first" in done.stderr
