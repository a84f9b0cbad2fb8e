"""Shared fixtures."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch

REPO = Path(__file__).resolve().parents[1]

torch.set_num_threads(int(os.environ.get("PRUNEAUDIT_TEST_THREADS", "1")))
# A notebook cell of the smoke profile takes seconds: one that has not answered in 15 minutes is
# the rare lost kernel reply, and the runner runs its notebook again (book.runner).
os.environ.setdefault("PRUNEAUDIT_CELL_TIMEOUT", "900")


def pytest_collection_modifyitems(config, items) -> None:
    """Tests marked ``cuda`` run only where torch sees a CUDA device (skipped elsewhere). The
    tests of the smoke book are grouped for ``--dist loadgroup``; the book is built once per
    run in any case (a file lock in ``tests/book/conftest.py``)."""
    for item in items:  # book_html asks for smoke_book at run time, so name both
        if {"smoke_book", "book_html"} & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.xdist_group("smoke_book"))
    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA device (torch.cuda.is_available() is False)")
    for item in items:
        if "cuda" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def data_root() -> Path:
    """The real data root: $PRUNEAUDIT_DATA, else ../shared/data. In CI a missing root fails."""
    root = Path(os.environ.get("PRUNEAUDIT_DATA", REPO.parent / "shared" / "data"))
    if not (root / "MNIST" / "raw").is_dir():
        message = f"real data expected under {root} (set PRUNEAUDIT_DATA to the data folder)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return root
