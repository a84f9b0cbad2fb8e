"""The launch buttons: the repository read from git remote ``origin`` at build time, never from
``_config.yml``; on where a launch service can open it, off (with one line) where not."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from pruneaudit.book.paths import REPO
from pruneaudit.book.report.launch import REMOTE, https_url, origin_url, write_config


@pytest.mark.parametrize(("remote", "url"), [
    ("git@github.com:someone/pruneaudit.git", "https://github.com/someone/pruneaudit"),
    ("ssh://git@gitlab.com/group/book.git", "https://gitlab.com/group/book"),
    ("https://github.com/someone/pruneaudit.git\n", "https://github.com/someone/pruneaudit"),
    ("https://someone:secret@github.com/someone/pruneaudit", "https://github.com/someone/pruneaudit"),
    ("/home/someone/pruneaudit", None),
    ("file:///home/someone/pruneaudit.git", None),
])
def test_https_url(remote: str, url: str | None) -> None:
    assert https_url(remote) == url


def test_the_committed_config_names_no_repository() -> None:
    config = yaml.safe_load((REPO / "_config.yml").read_text())
    assert config["repository"]["url"] == ""
    assert config["repository"]["branch"] == "gh-pages"
    assert config["repository"]["path_to_book"] == "_sources"
    buttons = config["launch_buttons"]
    assert buttons["binderhub_url"] == "https://mybinder.org"
    assert buttons["colab_url"] == "https://colab.research.google.com"
    # the remote and branch that `make publish` pushes the built book to
    assert f"git push {REMOTE} gh-pages" in (REPO / "Makefile").read_text()


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_origin_url_reads_the_remote(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    assert origin_url(tmp_path) is None
    subprocess.run(["git", "-C", str(tmp_path), "remote", "add", REMOTE,
                    "git@github.com:someone/pruneaudit.git"], check=True)
    assert origin_url(tmp_path) == "https://github.com/someone/pruneaudit"
    assert origin_url(tmp_path / "not-a-repository") is None


def test_write_config_with_a_repository_sets_the_theme_options(tmp_path: Path) -> None:
    line = write_config(REPO, tmp_path / "_config.yml", "https://github.com/someone/pruneaudit")
    config = yaml.safe_load((tmp_path / "_config.yml").read_text())
    theme = config["sphinx"]["config"]["html_theme_options"]
    assert config["repository"]["url"] == theme["repository_url"] == \
        "https://github.com/someone/pruneaudit"
    assert (theme["repository_branch"], theme["path_to_docs"]) == ("gh-pages", "_sources")
    assert theme["launch_buttons"]["binderhub_url"] == "https://mybinder.org"
    assert theme["launch_buttons"]["colab_url"] == "https://colab.research.google.com"
    assert theme["use_repository_button"] is False  # the rest of the theme options kept
    assert line == ("launch buttons: https://github.com/someone/pruneaudit, branch gh-pages, "
                    "_sources/")
    committed = yaml.safe_load((REPO / "_config.yml").read_text())
    assert config["sphinx"]["config"]["extensions"] == committed["sphinx"]["config"]["extensions"]


def test_write_config_without_a_repository_turns_the_buttons_off(tmp_path: Path) -> None:
    line = write_config(REPO, tmp_path / "_config.yml", None)
    config = yaml.safe_load((tmp_path / "_config.yml").read_text())
    assert config["launch_buttons"] == {}
    assert config["sphinx"]["config"]["html_theme_options"]["launch_buttons"] == {}
    assert config["repository"]["url"] == ""
    assert re.fullmatch(r"launch buttons off: no git remote origin .*", line)
    assert "\n" not in line
    committed = yaml.safe_load((REPO / "_config.yml").read_text())
    committed["launch_buttons"] = {}
    assert config == committed  # the rest read back as written ("off" stays a string)
    assert config["execute"]["execute_notebooks"] == "off"
