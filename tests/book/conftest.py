"""The smoke book, built once per test run for the book's tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from pruneaudit import book


def _build(base: Path) -> Path:
    html = base / "_build" / "html"
    if not (html / "index.html").exists():
        book.build("smoke", path_output=base)
    return html


@pytest.fixture(scope="session")
def smoke_book(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The book built once per test run with the smoke profile; returns its HTML folder.

    Shared by the tests of this folder (build and browser).
    """
    return _build(tmp_path_factory.getbasetemp() / "smoke_book")
