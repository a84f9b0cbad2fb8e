"""Another set of seeds for every study: disjoint, complete, and refused when it overlaps."""

from __future__ import annotations

import pytest

from pruneaudit.book import paths
from pruneaudit.book.builder.replication import seed_overrides
from pruneaudit.book.profiles import Profile
from pruneaudit.errors import PruneAuditError


@pytest.mark.parametrize("profile", ["smoke", "quick", "paper"])
def test_every_seed_list_moves_to_a_disjoint_set(profile):
    names = sorted(p.stem for p in paths.NBS.glob("[0-9][0-9]_*.ipynb") if p.stem[:2] != "00")
    moved = seed_overrides(names, profile, 1000)
    for name in names:
        values = Profile.read(profile).values(name)
        for key, value in values.items():
            if key.endswith("seeds") and isinstance(value, list) and value:
                assert moved[f"{name}.{key}"] == [v + 1000 for v in value]
                assert not set(moved[f"{name}.{key}"]) & set(value)
    # Study 4 always has seeds; Study 5's members follow them, its reference seeds move.
    assert "04_compression_impact.seeds" in moved and "05_robustness.reference_seeds" in moved
    # The moved values pass every notebook's checks.
    for key, value in moved.items():
        name, _, short = key.partition(".")
        Profile.read(profile, {short: value}).values(name)


def test_an_offset_that_overlaps_or_is_zero_is_refused():
    with pytest.raises(PruneAuditError, match="in both sets; use an offset larger than 15"):
        seed_overrides(["04_compression_impact"], "quick", 3)
    with pytest.raises(PruneAuditError, match="nonzero integer"):
        seed_overrides(["04_compression_impact"], "quick", 0)


def test_the_command_line_replication_moves_the_seeds_of_what_a_notebook_reads():
    from pruneaudit.book.builder.runner import replication_overrides

    moved = replication_overrides("smoke", ["05_robustness"], 1000)
    assert set(moved) == {"05_robustness.reference_seeds", "04_compression_impact.seeds"}
    values = Profile.read("smoke", moved).parameters("05_robustness")
    study4 = values["study4"]
    seeds = study4["seeds"] if isinstance(study4, dict) else study4.seeds
    assert min(seeds) >= 1000 and min(values["reference_seeds"]) >= 1000


def _row(name, verdict, low, high, stability):
    from pruneaudit import audit

    return audit.Finding(name, 1.0, (low + high) / 2, low, high, verdict, "P",
                         "95% Student-t interval over seeds", stability=stability,
                         alternative="inconclusive")


def test_builds_are_compared_in_every_pair_and_firm_disagreements_listed():
    from pruneaudit import audit
    from pruneaudit.audit.claims import Claim
    from pruneaudit.book.builder.replication import compare_builds, firm_disagreements, pair_summary

    books = {
        "default": [_row("D9.1 x", audit.REPRODUCED, 0.8, 1.2, 0.95),
                    _row("D9.2 y", audit.SMALLER, 0.2, 0.4, 0.5)],
        "other": [_row("D9.1 x", audit.REPRODUCED, 0.85, 1.15, 0.9),
                  _row("D9.2 y", audit.SMALLER, 0.25, 0.45, 0.9)],
        "other2000": [_row("D9.1 x", audit.SIZE_UNCLEAR, 0.6, 1.3, 0.9),
                      audit.untested(Claim("D9.2", "D9.2 y", says="s", source="P",
                                           quantity="q", comparability="not testable",
                                           why="no data"))],
    }
    table = compare_builds("09_x", books)
    pairs = set(zip(table.A, table.B, strict=True))
    # every pair, not only each against the first build
    assert pairs == {("default", "other"), ("default", "other2000"), ("other", "other2000")}
    assert len(table) == 2 + 1 + 1  # the untestable row of the third build forms no pair
    flips = firm_disagreements(table)
    assert set(zip(flips.A, flips.B, strict=True)) == {("default", "other2000"),
                                                      ("other", "other2000")}
    assert set(flips.finding) == {"D9.1 x"}
    summary = pair_summary(table)
    assert summary.loc[("09_x", "default", "other"), "firm in both"] == 1  # D9.2 borderline in A
    assert summary.loc[("09_x", "default", "other2000"), "firm in both, verdicts differ"] == 1
    assert bool(table.loc[0, "B in A's interval"]) and bool(table.loc[0, "A in B's interval"])
