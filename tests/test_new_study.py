"""Adding a study, as a newcomer would: the template copied under a new name, registered, and
built on the smoke profile, touching at most six files.

The repository's tracked files are copied to a folder of their own; there the template's package
and notebook become study ``06_copycat`` (with its test file), its page is added to
``_toc.yml``, its page to the registry, and its claims are logged (``pruneaudit claims-log``).
The copy's own ``pruneaudit`` (first on ``PYTHONPATH``, for the command and its kernels) then
builds the new page into the book.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from pruneaudit import config
from pruneaudit.book.paths import REPO

pytestmark = pytest.mark.slow

PAGE, NAME = "06_copycat", "copycat"
#: What adding a study may touch: its package, notebook, page entry and tests, and two
#: registrations (the registry's list of pages, the claims' changelog).
MOST = 6


def _copy_repository(to: Path) -> None:
    """The tracked files of the repository that a build reads (not its benchmarks)."""
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, check=True,
                             capture_output=True).stdout.decode().split("\0")
    for name in filter(None, tracked):
        if name.startswith("benchmarks/") or not (REPO / name).is_file():
            continue
        (to / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, to / name)


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{path}: {old!r} not found"
    path.write_text(text.replace(old, new))


def _add_study(repo: Path, pruneaudit: list[str], env: dict[str, str]) -> None:
    """The steps a newcomer takes, each on one file or folder of the copy."""
    studies = repo / "src" / "pruneaudit" / "studies"
    shutil.copytree(studies / "template", studies / NAME,
                    ignore=shutil.ignore_patterns("__pycache__"))
    for module in (studies / NAME).glob("*.py"):
        module.write_text(module.read_text().replace("00_template", PAGE)
                          .replace("Study 0 (template)", "Study 6 (copycat)"))
    nb = nbformat.read(repo / "nbs" / "00_template.ipynb", as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.source = re.sub(r"\btemplate\b", NAME, cell.source)
    nbformat.write(nb, repo / "nbs" / f"{PAGE}.ipynb")
    test = repo / "tests" / "studies" / f"test_{NAME}.py"
    test.write_text(re.sub(r"\btemplate\b", NAME,
                           (repo / "tests" / "studies" / "test_template.py").read_text()))
    _edit(repo / "_toc.yml", "      - file: book/studies/05_robustness\n",
          f"      - file: book/studies/05_robustness\n      - file: book/studies/{PAGE}\n")
    last = '    "05_robustness",\n'
    _edit(studies / "registry.py", last, f'{last}    "{PAGE}",\n')
    subprocess.run([*pruneaudit, "claims-log", "--log", "copycat declared from the template",
                    "--seen", "no"], cwd=repo, env=env, check=True, capture_output=True)


def _touched(repo: Path) -> set[str]:
    """The files and study packages the copy has that differ from the repository's."""
    touched = set()
    for path in repo.rglob("*"):
        if not path.is_file() or "__pycache__" in path.parts:
            continue
        name = path.relative_to(repo).as_posix()
        original = REPO / name
        if not original.is_file() or original.read_bytes() != path.read_bytes():
            package = re.match(r"src/pruneaudit/studies/[^/]+/", name)
            touched.add(package.group() if package and not original.is_file() else name)
    return touched


def test_a_copy_of_the_template_registered_builds(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    _copy_repository(repo)
    env = {**os.environ, "PYTHONPATH": str(repo / "src"),
           config.DATA_ENV: str(config.data_root()), config.STORE_ENV: str(tmp_path / "store")}
    pruneaudit = [sys.executable, "-m", "pruneaudit"]
    _add_study(repo, pruneaudit, env)

    touched = _touched(repo)
    assert touched == {"src/pruneaudit/studies/copycat/", f"nbs/{PAGE}.ipynb", "_toc.yml",
                       f"tests/studies/test_{NAME}.py", "src/pruneaudit/studies/registry.py",
                       "src/pruneaudit/audit/data/claims_changelog.csv"}
    assert len(touched) <= MOST

    out = tmp_path / "out"
    done = subprocess.run([*pruneaudit, "build", "--profile", "smoke", "--only", PAGE,
                           "--path-output", str(out)], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    executed = out / "book" / "studies"
    rows = json.loads((executed / f"{PAGE}.findings.json").read_text())
    assert [r["claim"] for r in rows] == ["T1"]
    page = (out / "_build" / "html" / "book" / "studies" / f"{PAGE}.html").read_text()
    assert f"{PAGE}.ipynb" in page and "T1" in page  # its launch link and its finding
    assert str(repo / "src") in subprocess.run(
        [sys.executable, "-c", "import pruneaudit; print(pruneaudit.__file__)"], env=env,
        capture_output=True, text=True, check=True).stdout  # the copy's package was built
