"""The probe-noise benchmark (``benchmarks/probe_noise.py``): medians of k consecutive
trainings per spell against the median of all, by hand."""

from __future__ import annotations

import benchmark_scripts
import pandas as pd
import pytest


def test_medians_of_k_are_compared_with_the_median_of_all() -> None:
    noise = benchmark_scripts.load("probe_noise")
    rates = pd.DataFrame({"phase": [0, 0, 0, 1, 1, 1, 1], "rate": [1.0, 2, 3, 4, 5, 6, 7]})
    table = noise.spread(rates).set_index("trainings_k")
    # sustained: 4; k = 5 and up fit in no spell, so they have no row
    assert list(table.index) == [1, 3]
    assert table.loc[1, "max_abs_error"] == pytest.approx(0.75)
    # k = 3: spell 0 -> median 2 (error 0.5), spell 1 -> [4, 5, 6] median 5 (0.25; 7 left over)
    assert table.loc[3, "medians"] == 2
    assert table.loc[3, "max_abs_error"] == pytest.approx(0.5)
    assert table.loc[3, "p90_abs_error"] == pytest.approx(0.475)
    assert table.loc[3, "first_k_after_idle"] == "-0.500, +0.250"
    assert set(table.shipped) == {""}  # the probe's own k (9) measured nothing here
