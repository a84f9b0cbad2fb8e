"""The protocol this page ran beside the published one: :func:`protocol_table`."""

from __future__ import annotations

import pandas as pd

from .params import DATASET, EPOCHS, LR, MEMBERS, MODEL, TEST_SIZE, TRAIN_SIZE
from .run import Result


def protocol_table(result: Result) -> pd.DataFrame:
    """The protocol run beside the published one, one row per setting (columns setting, paper,
    this page): the template follows no paper."""
    p = result.params
    none = "none (template)"
    rows = [
        ("data, model", none, f"{DATASET}, {MODEL}"),
        ("training", none, f"{EPOCHS} epochs, lr {LR}, on 80% of the first {TRAIN_SIZE:,} "
         f"digits; tested on the first {TEST_SIZE:,}"),
        ("members per population", none, f"{MEMBERS} (seeds from {p.seed})"),
        ("pruning rounds of 20%", none,
         f"{p.iterations} (sparsity {1 - 0.8**p.iterations:.1%}), one population each"),
        ("digits followed", none, f"0-{p.n_classes - 1}"),
    ]
    return pd.DataFrame(rows, columns=["setting", "paper", "this page"])
