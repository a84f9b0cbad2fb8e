"""One home for measurements: the profiles' stated cold builds are the only source of the figures
the README and the Reproducing page print, and the evidence lives in benchmarks/out."""

from __future__ import annotations

import json
import re
from pathlib import Path

from pruneaudit.book.paths import PROFILES, REPO
from pruneaudit.book.profiles import Profile
from pruneaudit.book.report import pages

EVIDENCE = REPO / pages.EVIDENCE
#: The record of the cold quick build the measured section states: the build's own
#: ``_timings.json`` rows (seconds, date and machine per notebook), committed as it wrote them.
RECORD = REPO / "benchmarks" / "out" / "cold_build_quick.json"
#: How far a stated figure may lie from the recorded build.
AGREE = 0.25


def test_the_measured_section_is_the_recorded_cold_build() -> None:
    """The quick profile's ``measured:`` section gives each notebook's seconds of the recorded
    cold build (within 25%), its comment names that build's date and machine, and its
    ``measured_probe`` is that build's speed probe, so that the expected duration a fresh clone
    prints cannot go stale silently."""
    rows = [r for r in json.loads(RECORD.read_text()) if r["profile"] == "quick"]
    recorded = {r["notebook"]: r["seconds"] for r in rows}
    measured = Profile.read("quick").measured
    assert set(measured) == set(recorded)
    far = {n: (s, recorded[n]) for n, s in measured.items()
           if abs(s - recorded[n]) > AGREE * recorded[n]}
    assert not far, f"measured section (stated, recorded seconds) off by over {AGREE:.0%}: {far}"
    comments = " ".join(line for line in (PROFILES / "quick.yml").read_text().splitlines()
                        if line.startswith("#"))
    machines = {r["machine"] for r in rows}
    assert len(machines) == 1, machines
    assert Profile.read("quick").measured_on == next(iter(machines))
    assert machines.pop() in comments
    assert {r["date"][:10] for r in rows} <= {d for d in re.findall(r"\d{4}-\d\d-\d\d", comments)}
    assert RECORD.name in comments
    probes = {r["probe"] for r in rows}
    assert len(probes) == 1 and Profile.read("quick").measured_probe == probes.pop()


def test_readme_states_the_cold_build_once_as_the_profile_measures_it() -> None:
    readme = (REPO / "README.md").read_text()
    said = re.findall(r"took (\d+ (?:h|min) \d+ (?:min|s)) of build", readme)
    assert said == [pages._duration(sum(Profile.read("quick").measured.values()))]
    assert "38.6 min" not in readme  # the old hand-typed figure


def test_the_evidence_table_agrees_with_the_measured_section() -> None:
    text = EVIDENCE.read_text()
    section = text[text.index("## Quick profile: the cold build"):]
    section = section[: section.index("\n## ", 1)]
    rows = {
        m.group(1): float(m.group(2).replace(",", ""))
        for m in re.finditer(r"^\| ([\w-]+) \| ([\d,.]+) \|", section, flags=re.MULTILINE)
    }
    measured = Profile.read("quick").measured
    assert set(rows) == set(measured)
    for name, seconds in measured.items():
        assert rows[name] == round(seconds), name


def test_measured_page_from_the_profiles(tmp_path: Path) -> None:
    custom = tmp_path / "q.yml"
    custom.write_text("measured:\n  01_a: 60\n  jupyter-book: 30.4\n01_a: {}\n")
    read = {"smoke": None, "quick": Profile.read(custom), "paper": Profile.read({"01_a": {}})}
    text = pages.write_measured_page(tmp_path, read).read_text()
    assert "| step | quick |" in text
    assert "| 01_a | 1 min 00 s |" in text and "| jupyter-book | 30 s |" in text
    assert "| **in all** | **1 min 30 s** |" in text
    assert "No measured cold build stated by: smoke, paper." in text
    assert pages.EVIDENCE in text


def test_the_repository_quick_profile_on_the_page(tmp_path: Path) -> None:
    text = pages.write_measured_page(tmp_path).read_text()
    total = pages._duration(sum(Profile.read("quick").measured.values()))
    assert f"**{total}**" in text


def test_profiles_and_trainer_point_to_the_evidence_instead_of_keeping_it() -> None:
    assert EVIDENCE.is_file()
    for name in ("quick", "paper"):
        lines = (PROFILES / f"{name}.yml").read_text().splitlines()
        comments = [line for line in lines if line.strip().startswith("#")]
        assert len(comments) <= 6, name  # a pointer, not the evidence
        assert pages.EVIDENCE in " ".join(comments).replace("# ", ""), name
    stacked = (REPO / "src" / "pruneaudit" / "training" / "stacked.py").read_text()
    assert "images/s" not in stacked and pages.EVIDENCE in stacked
