"""The launch buttons (Binder, Colab) of the book's notebook pages, pointed at the published book.

``make publish`` pushes the built book to the ``gh-pages`` branch of the git remote ``origin``;
that tree holds every notebook page under ``_sources/`` (the download button's copy), which is
where ``_config.yml``'s ``repository`` (branch ``gh-pages``, ``path_to_book: _sources``) sends
Binder and Colab. The repository's address is never written into ``_config.yml``: each build
reads it from ``origin`` (:func:`origin_url`) and renders with a copy of ``_config.yml`` that
holds it (:func:`write_config`). Without ``origin`` (or with one no launch service can open, a
local path) the copy turns the buttons off and the build says so in one line.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import yaml

from pruneaudit.book.paths import REPO

#: The git remote ``make publish`` pushes to.
REMOTE = "origin"
_SSH = re.compile(r"(?:ssh://)?[\w.-]+@([\w.-]+)[:/](.+?)(?:\.git)?/?")
_HTTP = re.compile(r"https?://(?:[^@/]+@)?([\w.-]+(?::\d+)?)/(.+?)(?:\.git)?/?")


def https_url(remote: str) -> str | None:
    """The https address of a git remote (``git@github.com:org/name.git`` or
    ``https://user@github.com/org/name.git`` -> ``https://github.com/org/name``), credentials
    left out; None for a local path or ``file://`` address, which no launch service can open."""
    for form in (_HTTP, _SSH):
        match = form.fullmatch(remote.strip())
        if match:
            return f"https://{match[1]}/{match[2]}"
    return None


def origin_url(repo: str | os.PathLike = REPO) -> str | None:
    """The https address of ``repo``'s remote ``origin`` (:func:`https_url`); None without git,
    without the remote, or for a remote that is not on a server."""
    try:
        done = subprocess.run(["git", "-C", str(repo), "remote", "get-url", REMOTE],
                              capture_output=True, text=True, check=False)
    except OSError:
        return None
    return https_url(done.stdout) if done.returncode == 0 else None


def write_config(source: str | os.PathLike, target: str | os.PathLike,
                 url: str | None) -> str:
    """Write ``source``'s ``_config.yml`` to ``target`` with the launch buttons on for
    repository ``url`` (off for None); return the one line the build prints about them.

    ``sphinx.config.html_theme_options`` replaces the theme options Jupyter Book makes of
    ``launch_buttons`` and ``repository``, so the copy sets them there too.
    """
    config = yaml.safe_load((Path(source) / "_config.yml").read_text())
    theme = config.setdefault("sphinx", {}).setdefault("config", {}).setdefault(
        "html_theme_options", {})
    repository = config.setdefault("repository", {})
    if url is None:
        config["launch_buttons"] = theme["launch_buttons"] = {}
        line = (f"launch buttons off: no git remote {REMOTE} on a server (the repository "
                "`make publish` pushes to)")
    else:
        repository["url"] = url
        theme.update(launch_buttons=config.get("launch_buttons", {}), repository_url=url,
                     repository_branch=repository.get("branch", ""),
                     path_to_docs=repository.get("path_to_book", ""))
        line = (f"launch buttons: {url}, branch {repository.get('branch')}, "
                f"{repository.get('path_to_book')}/")
    Path(target).write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True))
    return line


__all__ = ["REMOTE", "https_url", "origin_url", "write_config"]
