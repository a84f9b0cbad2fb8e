"""The reshaping check (``benchmarks/findings_identity.py``): which files' digests differ, and
that the committed before/after record of the Study-object reshaping is identical."""

from __future__ import annotations

import json

import benchmark_scripts

from pruneaudit.book.paths import REPO

RECORD = REPO / "benchmarks" / "out" / "findings_identity"


def test_differing_names_each_changed_missing_or_new_file() -> None:
    identity = benchmark_scripts.load("findings_identity")
    before = {"a.findings.json": "1", "a.numbers.json": "2", "b.findings.json": "3"}
    assert identity.differing(before, dict(before)) == []
    after = {"a.findings.json": "1", "a.numbers.json": "9", "c.findings.json": "4"}
    assert identity.differing(before, after) == ["a.numbers.json", "b.findings.json",
                                                 "c.findings.json"]


def test_the_study_object_reshaping_left_every_smoke_finding_identical() -> None:
    before = json.loads((RECORD / "smoke_before_study_object.json").read_text())
    after = json.loads((RECORD / "smoke_after_study_object.json").read_text())
    identity = benchmark_scripts.load("findings_identity")
    assert len(before) == 12 and identity.differing(before, after) == []
