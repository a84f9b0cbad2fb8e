"""The smoke book, built once per test run for the book's tests, in its own folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from pruneaudit import book


def _snapshot(folder: Path) -> dict[str, int]:
    return {p.name: p.stat().st_mtime_ns for p in folder.glob("*")} if folder.is_dir() else {}


def _build(base: Path) -> Path:
    html = base / "_build" / "html"
    if not (html / "index.html").exists():
        book.build("smoke", path_output=base, progress=False)
    return html


@pytest.fixture(scope="session")
def repo_studies_before() -> dict[str, int]:
    """The repository's ``book/studies`` (names and mtimes) before the test build."""
    return _snapshot(book.STUDIES)


@pytest.fixture(scope="session")
def smoke_book(
    tmp_path_factory: pytest.TempPathFactory, repo_studies_before: dict[str, int]
) -> Path:
    """The book built once per test run with the smoke profile into a temporary folder (never
    the repository's ``book/studies``); returns its HTML folder. Its executed notebooks are in
    ``<html>/../../book/studies``. Shared by the tests of this folder (build and browser)."""
    return _build(tmp_path_factory.getbasetemp() / "smoke_book")


def executed(smoke_book: Path) -> Path:
    """The folder of the smoke book's executed notebooks."""
    return smoke_book.parents[1] / "book" / "studies"
