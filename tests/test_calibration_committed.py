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
        table = between_builds.keep_by_band(frame, between_builds.fixed_rows(frame),
                                            involving=involving)
        committed = pd.read_csv(replication.OUT / name)
        recomputed = pd.read_csv(io.StringIO(table.to_csv(index=False)))
        pd.testing.assert_frame_equal(recomputed, committed, obj=name)


def test_methods_page_quotes_the_committed_calibration() -> None:
    """The audit methods page's calibration counts are the committed CSVs' (quick profile)."""
    replication = benchmark_scripts.load("replication")
    page = " ".join((replication.OUT.parents[1] / "book" / "methods_audit.md").read_text().split())
    every = pd.read_csv(replication.OUT / replication.CALIBRATIONS["quick"])
    fresh = pd.read_csv(replication.OUT / replication.out_of_sample_csv("quick"))

    def row(table: pd.DataFrame, study: str, band: str) -> pd.Series:
        return table[(table.study == study) & (table.band == band)].iloc[0]

    band, total = row(every, "all", "0.80-0.95"), row(every, "all", "all")
    band_new, study5, study5_new = (row(fresh, "all", "0.80-0.95"),
                                    row(every, "05_robustness", "all"),
                                    row(fresh, "05_robustness", "all"))
    quoted = [
        f"kept their verdict in {band.firm_kept} of {band.firm_pairs} ordered pairs "
        f"({band.keep_rate:.2f}) where {band.predicted_keep:.2f} was predicted",
        f"{band_new.firm_kept} of {band_new.firm_pairs} out-of-sample pairs "
        f"({band_new.keep_rate:.2f}, predicted {band_new.predicted_keep:.2f})",
        f"{total.firm_kept:,} of {total.firm_pairs:,} ({total.keep_rate:.2f}, predicted "
        f"{total.predicted_keep:.2f})",
        f"{study5_new.firm_kept} of {study5_new.firm_pairs} pairs where "
        f"{study5_new.predicted_keep:.2f} was predicted (all pairs: {study5.firm_kept} of "
        f"{study5.firm_pairs})",
        f"Each of its {study5.firm_pairs - study5.firm_kept} misses",
    ]
    for text in quoted:
        assert text in page, text
