"""Every Study 5 verdict can fail: member accuracies of all levels drawn from one distribution
give "not reproduced" in at least 95% of 200 draws; H1's effects injected give "reproduced"."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd

from pruneaudit import audit, data
from pruneaudit.studies import robustness as rb

LEVELS = (0.0, 0.7, 0.9)
NAMES = (rb.CLEAN, rb.NATURAL, *data.CORRUPTIONS)
K = 4


def _frame(rng, effect: dict[tuple[float, str], float] | None = None) -> pd.DataFrame:
    """Member accuracies: 0.6 on every test set, times (1 + effect / 100), plus noise."""
    level, name, seed = (a.ravel() for a in np.meshgrid(LEVELS, NAMES, range(K), indexing="ij"))
    factor = np.array([1 + (effect or {}).get((t, n), 0.0) / 100 for t, n in zip(level, name,
                                                                               strict=True)])
    return pd.DataFrame({
        "level": level.astype(float), "seed": seed + (1000 * level).astype(int),
        "sparsity": level.astype(float), "corruption": name,
        "severity": np.where(np.isin(name, [rb.CLEAN, rb.NATURAL]), 0, 1),
        "accuracy": 0.6 * factor + rng.normal(0, 0.01, level.size),
    })


def _key(row: audit.Finding) -> str:
    return row.finding.split(" ")[0] + ("b" if "beyond" in row.finding else "")


def test_findings_fail_under_the_null():
    rng = np.random.default_rng(0)
    counts: Counter = Counter()
    for _ in range(200):
        for row in rb.findings_from_accuracy(_frame(rng)):
            counts[_key(row)] += row.verdict != audit.NOT_REPRODUCED
    assert set(counts) == {"D5.1", "D5.2", "D5.2b", "D5.3", "D5.4"}
    assert max(counts.values()) <= 10, counts


def test_h1_sized_effects_are_reproduced():
    papers = {_key(r): r.paper for r in rb.findings_from_accuracy(_frame(np.random.default_rng(1)))}
    # solve H1's numbers for per-corruption effects: 3 noise and 9 other corruptions
    mean9 = papers["D5.2"]
    noise9 = mean9 + 0.75 * papers["D5.3"]
    other9 = mean9 - 0.25 * papers["D5.3"]
    clean9 = mean9 - papers["D5.2b"]
    mean7 = mean9 - papers["D5.4"]
    effect = {(0.9, rb.NATURAL): papers["D5.1"], (0.9, rb.CLEAN): clean9}
    for name in data.CORRUPTIONS:
        effect[(0.9, name)] = noise9 if name in rb.NOISE else other9
        effect[(0.7, name)] = mean7
    rows = rb.findings_from_accuracy(_frame(np.random.default_rng(2), effect))
    assert {_key(r): r.verdict for r in rows} == dict.fromkeys(
        ["D5.1", "D5.2", "D5.2b", "D5.3", "D5.4"], audit.REPRODUCED)
    assert len([n for n in data.CORRUPTIONS if n in rb.NOISE]) == 3
