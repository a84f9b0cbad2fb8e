"""The Makefile's install step: a disk too full for the install stops before anything is written;
TORCH=cpu takes torch from PyTorch's CPU index, the default from PyPI."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from pruneaudit.config import REPO


def outside_make() -> dict[str, str]:
    """This environment without what a calling make (`make test`) passes to its children."""
    return {k: v for k, v in os.environ.items() if k not in {"MAKEFLAGS", "MAKELEVEL", "MFLAGS"}}


@pytest.mark.skipif(shutil.which("make") is None, reason="make not installed")
def test_a_full_disk_stops_setup_with_one_line_and_writes_nothing(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    done = subprocess.run(
        ["make", "-s", "setup", f"VENV={venv}", "INSTALL_NEEDS_MB=1000000000"],
        cwd=REPO, capture_output=True, text=True, check=False, env=outside_make(),
    )
    assert done.returncode != 0
    message = [line for line in done.stderr.splitlines() if not re.match(r"make(\[\d+\])?:", line)]
    assert len(message) == 1, done.stderr
    assert "MB of disk free" in message[0] and "needs about 1000000000 MB" in message[0]
    assert "set VENV=" in message[0]
    assert not venv.exists()


CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def dry_setup(venv: Path, *options: str) -> subprocess.CompletedProcess[str]:
    """``make -n setup`` into a new ``venv``: the commands an install would run, none run."""
    return subprocess.run(["make", "-n", "setup", f"VENV={venv}", *options], cwd=REPO,
                          capture_output=True, text=True, check=False, env=outside_make())


def pip_lines(done: subprocess.CompletedProcess[str]) -> list[str]:
    assert done.returncode == 0, done.stderr
    return [line for line in done.stdout.splitlines() if " -m pip install " in line]


def torch_pins() -> list[str]:
    """torch and torchvision as pyproject.toml pins them."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    return [d for d in project["dependencies"] if re.match(r"torch(vision)?==", d)]


@pytest.mark.skipif(shutil.which("make") is None, reason="make not installed")
def test_the_default_install_takes_torch_from_pypi(tmp_path: Path) -> None:
    done = dry_setup(tmp_path / "venv")
    lines = pip_lines(done)
    assert [line.split(" -m pip install -q ")[1] for line in lines] == [
        "--upgrade pip", '-e ".[book,dev]"']
    assert "--index-url" not in done.stdout and "download.pytorch.org" not in done.stdout
    assert 'test "$free" -ge 8000' in done.stdout


@pytest.mark.skipif(shutil.which("make") is None, reason="make not installed")
def test_torch_cpu_installs_the_pinned_pair_from_the_cpu_index_first(tmp_path: Path) -> None:
    pins = torch_pins()
    assert len(pins) == 2
    done = dry_setup(tmp_path / "venv", "TORCH=cpu")
    lines = pip_lines(done)
    assert len(lines) == 3 and lines[2].endswith('-e ".[book,dev]"')
    assert lines[1].endswith(f"--index-url {CPU_INDEX} " + " ".join(f'"{p}"' for p in pins))
    assert 'test "$free" -ge 3500' in done.stdout  # no CUDA libraries to make room for
    other = pip_lines(dry_setup(tmp_path / "venv", "TORCH_INDEX=https://example.org/whl"))
    assert "--index-url https://example.org/whl " in other[1]


@pytest.mark.skipif(shutil.which("make") is None, reason="make not installed")
def test_another_torch_choice_is_refused(tmp_path: Path) -> None:
    done = dry_setup(tmp_path / "venv", "TORCH=gpu")
    assert done.returncode != 0 and "TORCH=gpu: the one choice is TORCH=cpu" in done.stderr
    assert not done.stdout


@pytest.mark.skipif(shutil.which("make") is None, reason="make not installed")
def test_a_full_disk_names_the_cpu_index_under_torch_cpu(tmp_path: Path) -> None:
    done = subprocess.run(
        ["make", "-s", "setup", f"VENV={tmp_path / 'venv'}", "TORCH=cpu",
         "INSTALL_NEEDS_MB=1000000000"],
        cwd=REPO, capture_output=True, text=True, check=False, env=outside_make(),
    )
    assert done.returncode != 0
    assert f"needs about 1000000000 MB (torch from {CPU_INDEX})" in done.stderr
    assert not (tmp_path / "venv").exists()
