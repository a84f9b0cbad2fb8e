"""The run's smoke book is built once: a failed build is not tried again by the next process."""

from __future__ import annotations

from pathlib import Path

import pytest
import smoke_book

from pruneaudit import book


def test_a_failed_build_is_reported_not_retried(tmp_path: Path, monkeypatch) -> None:
    calls = []

    def broken(*args: object, **kwargs: object) -> None:
        calls.append(args)
        raise ValueError("no kernel")

    monkeypatch.setattr(book, "build", broken)
    with pytest.raises(ValueError, match="no kernel"):
        smoke_book.build(tmp_path / "smoke_book")
    with pytest.raises(RuntimeError, match="failed to build:(.|\n)*ValueError: no kernel"):
        smoke_book.build(tmp_path / "smoke_book")
    assert len(calls) == 1
