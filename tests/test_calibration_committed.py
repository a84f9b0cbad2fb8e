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
    replication = benchmark_scripts.load("replication")
    root = replication.BUILDS / profile
    table = between_builds.keep_by_band(between_builds.json_builds(root), replication.FIXED)
    committed = pd.read_csv(replication.OUT / replication.CALIBRATIONS[profile])
    recomputed = pd.read_csv(io.StringIO(table.to_csv(index=False)))
    pd.testing.assert_frame_equal(recomputed, committed)
    new = replication.OUT_OF_SAMPLE.get(profile, ())
    if new:  # the out-of-sample pairs alone, as committed
        fresh = between_builds.keep_by_band(
            between_builds.json_builds(root), replication.FIXED, involving=new)
        committed = pd.read_csv(replication.OUT / replication.out_of_sample_csv(profile))
        recomputed = pd.read_csv(io.StringIO(fresh.to_csv(index=False)))
        pd.testing.assert_frame_equal(recomputed, committed)
