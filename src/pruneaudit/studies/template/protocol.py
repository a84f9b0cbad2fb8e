"""The protocol this page ran beside the published one: :func:`protocol_table`."""

from __future__ import annotations

import pandas as pd

from .run import Result


def protocol_table(result: Result) -> pd.DataFrame:
    """The protocol run beside the published one, one row per setting (columns setting, paper,
    this page): the template's curves are synthetic, so there is no paper to follow."""
    p = result.params
    rows = [
        ("classes", "none (synthetic)", str(p.n_classes)),
        ("pruning rounds of 20%", "none (synthetic)",
         f"{p.iterations} (sparsity {1 - 0.8**p.iterations:.1%})"),
        ("seed", "none (synthetic)", str(p.seed)),
    ]
    return pd.DataFrame(rows, columns=["setting", "paper", "this page"])
