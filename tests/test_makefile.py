"""The Makefile's install step: a disk too full for the install stops before anything is written."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
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
