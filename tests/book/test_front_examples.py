"""What Study 4's page saves for the front page: nothing when run by hand, and the front page
reads the file it writes (hand cases; the real numbers: the smoke book's front page)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from pruneaudit.book.report import front_examples


def test_a_page_run_by_hand_saves_nothing(tmp_path: Path) -> None:
    page = SimpleNamespace(page_dir=None, notebook=None)
    assert front_examples.save(page, result=None) is None
    assert front_examples.read_facts(tmp_path) is None


def test_the_front_page_reads_what_the_page_saved(tmp_path: Path, monkeypatch) -> None:
    facts = {"sparsity": 0.9, "forgotten": [], "ordinary": []}
    monkeypatch.setattr(front_examples, "front_facts", lambda result, count: facts)
    page = SimpleNamespace(page_dir=tmp_path, notebook="04_x")
    path = front_examples.save(page, result=object())
    assert path == tmp_path / "04_x.front.json"
    assert json.loads(path.read_text()) == facts == front_examples.read_facts(tmp_path)
    assert not list(tmp_path.glob("*.tmp"))


def test_a_class_keeps_its_short_name() -> None:
    assert front_examples._name(["0 - zero", "7 - seven"], 1) == "7"
    assert front_examples._name(["cat", "dog"], 0) == "cat"
