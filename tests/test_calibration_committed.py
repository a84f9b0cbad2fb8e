"""The committed calibration is what the committed builds give: ``replication.py --report``'s
tables, recomputed from ``benchmarks/out/builds/<profile>/``, equal the committed CSVs."""

from __future__ import annotations

import io

import benchmark_scripts
import pandas as pd
import pytest

from pruneaudit.audit import between_builds


@pytest.mark.parametrize("profile", ["quick", "smoke"])
def test_committed_calibration_is_recomputed_from_the_committed_builds(profile: str) -> None:
    """All pairs (the profile's CSV) and, where the profile has out-of-sample builds, the pairs
    with those builds alone (their own CSV)."""
    replication = benchmark_scripts.load("replication")
    frame = between_builds.json_builds(replication.BUILDS / profile)
    new = replication.OUT_OF_SAMPLE.get(profile, ())
    tables = [((), replication.CALIBRATIONS[profile])]
    if new:
        tables.append((new, replication.out_of_sample_csv(profile)))
    for involving, name in tables:
        table = between_builds.keep_by_band(frame, replication.FIXED, involving=involving)
        committed = pd.read_csv(replication.OUT / name)
        recomputed = pd.read_csv(io.StringIO(table.to_csv(index=False)))
        pd.testing.assert_frame_equal(recomputed, committed, obj=name)
