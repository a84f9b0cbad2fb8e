"""Every Study 5 verdict can fail: member accuracies of all levels drawn from one distribution
give a failing verdict (:data:`pruneaudit.audit.FAILING`: inconclusive, absent, opposite...) in
at least 95% of 200 draws; H1's effects injected give "same direction" (every row is an
analogue: a direction, never a size)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest

from pruneaudit import audit, data
from pruneaudit.studies.robustness.findings import NOISE, findings_from_accuracy
from pruneaudit.studies.robustness.frames import CLEAN, NATURAL

LEVELS = (0.0, 0.5, 0.7, 0.9)
NAMES = (CLEAN, NATURAL, *data.CORRUPTIONS)
K = 4


def _frame(rng, effect: dict[tuple[float, str], float] | None = None) -> pd.DataFrame:
    """Member accuracies: 0.6 on every test set, times (1 + effect), plus noise."""
    level, name, seed = (a.ravel() for a in np.meshgrid(LEVELS, NAMES, range(K), indexing="ij"))
    factor = np.array([1 + (effect or {}).get((t, n), 0.0) for t, n in zip(level, name,
                                                                          strict=True)])
    return pd.DataFrame({
        "level": level.astype(float), "seed": seed + (1000 * level).astype(int),
        "sparsity": level.astype(float), "corruption": name,
        "severity": np.where(np.isin(name, [CLEAN, NATURAL]), 0, 1),
        "accuracy": 0.6 * factor + rng.normal(0, 0.01, level.size),
    })


def _key(row: audit.Finding) -> str:
    return row.finding.split(" at ")[0].split(",")[0]


@pytest.mark.slow  # a null calibration of 40-90 s on 2 cores: `make test-slow`
def test_findings_fail_under_the_null():
    rng = np.random.default_rng(0)
    counts: Counter = Counter()
    for draw in range(200):
        for row in findings_from_accuracy(_frame(rng), n_boot=99, seed=draw):
            counts[_key(row)] += row.verdict not in audit.FAILING
    assert len(counts) == 8, counts
    assert max(counts.values()) <= 10, counts


def test_h1_sized_effects_show_the_same_direction():
    rows = findings_from_accuracy(_frame(np.random.default_rng(1)), n_boot=99)
    papers = {_key(r): r.paper for r in rows}
    # solve H1's numbers for per-corruption effects: 3 noise and 9 other corruptions
    mean9 = papers["D5.2 relative top-1 under corruption"]
    step = papers["D5.3 noise minus other corruptions"]
    noise9, other9 = mean9 + 0.75 * step, mean9 - 0.25 * step
    clean9 = mean9 - papers["D5.2 relative top-1 lost under corruption beyond the clean loss"]
    mean7 = mean9 - papers["D5.4 relative top-1 under corruption"]
    assert papers["D5.1 natural-adversarial relative top-1"] is None  # direction only
    nat = -0.598
    # H1's ImageNet-A change at 50%, 70% and 90% (App. Table 8): a monotone fall
    effect = {(0.9, NATURAL): nat, (0.7, NATURAL): -0.4263,
              (0.5, NATURAL): -0.3054, (0.9, CLEAN): clean9}
    for name in data.CORRUPTIONS:
        effect[(0.9, name)] = noise9 if name in NOISE else other9
        effect[(0.7, name)] = mean7
    rows = findings_from_accuracy(_frame(np.random.default_rng(2), effect), n_boot=99)
    verdicts = {_key(r): r.verdict for r in rows}
    # on the paper's side everywhere: analogues say the direction only, no size. A bootstrap
    # row whose statistic sits at its bound in every resample (a share of 1, rho = -1) has a
    # zero-width interval, which the engine calls inconclusive (it says nothing of a replication)
    for row in rows:
        degenerate = row.ci_low == row.ci_high
        expected = audit.INCONCLUSIVE if degenerate else audit.SAME_DIRECTION
        assert row.verdict == expected, row
        assert not degenerate or "bootstrap" in row.basis, row
    assert all(v == audit.SAME_DIRECTION for k, v in verdicts.items()
               if not k.startswith(("D5.2 share", "D5.1 trend"))), verdicts
    assert all(r.comparability == "analogue" and r.paper_band is None and not r.size
               for r in rows)
    assert all(r.ci_low > -1 for r in rows if r.unit == "percent")
    assert len(verdicts) == 8
    assert len([n for n in data.CORRUPTIONS if n in NOISE]) == 3
    assert {r.unit for r in rows} == {"percent", "points", "ratio"}
    assert all(r.definition for r in rows)
    assert all(r.power > 0.8 for r in rows if "Welch" in r.basis)
