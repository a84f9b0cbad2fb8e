"""Study 5's tables as frames: its protocol beside H1's, and H1's ImageNet-C table on our data."""

from __future__ import annotations

import pandas as pd

from pruneaudit.studies.robustness.claims import H1_CORRUPTIONS, h1_relative


def h1_corruption_table(table: pd.DataFrame) -> pd.DataFrame:
    """Our relative change per corruption at each pruned level (:func:`relative_robustness`)
    beside H1's ImageNet-C value for the same corruption at 70% and 90% (NaN where H1 has no
    such corruption)."""
    out = table.pivot_table(index="corruption", columns="level_name",
                            values="relative_change_pct", sort=False)
    for level in (0.7, 0.9):
        out[f"H1 ImageNet-C t = {level:g}"] = [
            100 * h1_relative(c, level) if c in H1_CORRUPTIONS else float("nan") for c in out.index
        ]
    return out.reset_index()
