"""The page *Pooled over builds* (``pruneaudit pooled``): the committed page is
what the committed builds give, it answers first in words, and it says which builds and rows it
leaves out and why."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pruneaudit import cli
from pruneaudit.book.report import pooled
from pruneaudit.errors import PruneAuditError

REPO = Path(__file__).resolve().parents[2]
QUICK = REPO / "benchmarks" / "out" / "builds" / "quick"


def test_committed_page_is_what_the_committed_builds_give(capsys) -> None:
    assert cli.main(["pooled", str(QUICK), "--check"]) == 0, capsys.readouterr().out
    assert "book/pooled" in (REPO / "_toc.yml").read_text()


def _row(claim: str, ours: float, low: float, high: float, kind: str = "same") -> dict:
    return {"claim": claim, "finding": f"{claim} the row's name", "comparability": kind,
            "paper": -0.3, "ours": ours, "ci_low": low, "ci_high": high,
            "verdict": "reproduced", "source": "P"}


def _builds(root: Path) -> Path:
    rows = {
        "default": [_row("D2.1", -0.2, -0.3, -0.1), _row("D2.2", 0.1, 0.1, 0.1),
                    _row("D2.3", 0.4, 0.1, 0.7), _row("D2.9", 0.0, -1.0, 1.0, "beyond")],
        "other": [_row("D2.1", -0.25, -0.35, -0.15), _row("D2.2", 0.3, 0.2, 0.4),
                  _row("D2.3", 0.4, 0.1, 0.7)],
        "other2000": [_row("D2.1", -0.22, -0.3, -0.14), _row("D2.2", 0.2, 0.2, 0.2),
                      _row("D2.3", 0.4, 0.1, 0.7)],
    }
    for build, items in rows.items():
        (root / build).mkdir()
        (root / build / "02_qmnist_writers.findings.json").write_text(json.dumps(items))
    return root


def test_page_answers_in_words_first_and_names_what_it_leaves_out(tmp_path: Path) -> None:
    text = pooled.page(_builds(tmp_path), {})
    first = text.split("\n\n")[1]
    assert first.startswith("**Across 3 builds**") and "1 rows of the papers' claims" in first
    assert "No build of this profile holds Study 1" in first
    assert "| D2.1 the row's name | same |" in text  # pooled
    assert "D2.9" not in text  # our own questions are not the papers' claims
    assert "D2.2 the row's name: 2 build(s) left out" in text  # zero width in two builds
    assert "D2.2 the row's name: fewer than two builds" in text
    assert "D2.3 the row's name: its estimate and interval are the same in every build" in text
    assert ":::{dropdown} Method" in text and "```{raw} html" in text


def test_page_needs_two_builds(tmp_path: Path) -> None:
    with pytest.raises(PruneAuditError, match="not a folder"):
        pooled.page(tmp_path / "missing", {})
    (tmp_path / "default").mkdir()
    with pytest.raises(PruneAuditError, match="at least two"):
        pooled.page(tmp_path, {})
