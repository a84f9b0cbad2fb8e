"""Given identical stored runs, the analysis step of Studies 4 and 5 gives identical findings
whatever the number of torch and BLAS threads: the verdicts of two builds can only differ
through their runs (training and evaluation), never through the analysis.

(``benchmarks/verdict_stability.py`` compares two whole cold builds.)"""

from __future__ import annotations

import dataclasses
import json
from types import SimpleNamespace

import numpy as np
import pandas as pd
import torch
from threadpoolctl import threadpool_limits

from pruneaudit import audit, data, runs
from pruneaudit.runs.store import RunSpec
from pruneaudit.studies.compression_impact.findings import (
    class_findings,
    exemplar_findings,
    runs_findings,
)
from pruneaudit.studies.compression_impact.run import PRUNING, Compressed, ImpactRuns
from pruneaudit.studies.compression_impact.trends import trend_findings
from pruneaudit.studies.robustness.findings import findings_from_accuracy
from pruneaudit.studies.robustness.frames import CLEAN, NATURAL

C = 10


def _accuracy(rng, k: int = 4) -> pd.DataFrame:
    """Study 5's tidy member accuracies: levels 0-90%, every test set, pruning lowers them."""
    names = (CLEAN, NATURAL, *data.CORRUPTIONS)
    level, name, seed = (a.ravel() for a in np.meshgrid((0.0, 0.5, 0.7, 0.9), names, range(k),
                                                        indexing="ij"))
    return pd.DataFrame({
        "level": level.astype(float), "seed": seed + (1000 * level).astype(int),
        "sparsity": level.astype(float), "corruption": name,
        "severity": np.where(np.isin(name, [CLEAN, NATURAL]), 0, 1),
        "accuracy": 0.6 * (1 - 0.2 * level) + rng.normal(0, 0.02, level.size),
    })


def _populations(rng, n: int = 300, k: int = 6):
    y = rng.integers(0, C, n)
    wrong = (y + rng.integers(1, C, n)) % C
    hard = rng.beta(4, 1, n)

    def members(shift: float) -> np.ndarray:
        p = np.clip(hard - shift, 0, 1)
        return np.where(rng.random((k, n)) < p[None], y[None], wrong[None])

    groups = np.where(np.arange(n) % 3 == 0, "hsf4", "hsf0")
    return y, groups, members(0.0), {t: members(t / 4) for t in (0.5, 0.7, 0.9)}


def _analysis(threads: int) -> list[dict]:
    """Study 4's class, exemplar and trend rows and Study 5's rows of fixed synthetic runs,
    computed with ``threads`` torch and BLAS threads."""
    rng = np.random.default_rng(7)
    y, groups, base, pruned = _populations(rng)
    accuracy = _accuracy(rng)
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        with threadpool_limits(limits=threads):
            rows = class_findings(y, base, pruned[0.9], {"dynamic_int8": pruned[0.5]}, C)
            rows += exemplar_findings(y, base, pruned[0.9], C, groups, hard="hsf4",
                                             resampling=audit.Resampling(19, 49, 3))
            rows += trend_findings(y, base, pruned, C, n_boot=49, seed=3)
            rows += findings_from_accuracy(accuracy, n_boot=99, seed=3)
    finally:
        torch.set_num_threads(before)
    return [dataclasses.asdict(r) for r in rows]


def test_analysis_findings_do_not_depend_on_the_thread_count():
    one, two = _analysis(1), _analysis(2)
    assert len(one) == len(two) > 15
    for a, b in zip(one, two, strict=True):
        # verdicts and every float bit for bit (repr round-trips a float; NaN prints as NaN)
        assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    assert len({r["verdict"] for r in one}) >= 4  # the synthetic runs give varied verdicts


def _impact_runs(rng, order: np.ndarray):
    """Study 4's runs of :func:`_populations` (seeds 0..K-1 at every level, for brevity), each
    population's members listed in ``order``."""
    y, groups, base, pruned = _populations(rng)
    labels = torch.as_tensor(y)
    test = SimpleNamespace(meta=pd.DataFrame({"series": groups}), num_classes=C, labels=labels)

    def population(preds: np.ndarray, level: float) -> runs.Population:
        specs = tuple(RunSpec("qmnist", "lenet", seed=int(s)) for s in order)
        return runs.Population(specs, preds[order], y, pd.DataFrame(), np.full(len(order), level))

    compressed = tuple(Compressed(f"pruned {t:g}", PRUNING, t, None,
                                         population(p, t)) for t, p in pruned.items())
    return ImpactRuns(population(base, 0.0), compressed, test, test)


def test_study4_findings_do_not_depend_on_the_order_members_are_listed_in():
    k = 6
    first = runs_findings(_impact_runs(np.random.default_rng(5), np.arange(k)),
                                 n_perm=19, n_boot=49)
    shuffled = np.random.default_rng(0).permutation(k)
    assert list(shuffled) != list(range(k))
    second = runs_findings(_impact_runs(np.random.default_rng(5), shuffled), n_perm=19,
                                  n_boot=49)
    dump = [json.dumps(dataclasses.asdict(r), sort_keys=True) for r in first]
    assert dump == [json.dumps(dataclasses.asdict(r), sort_keys=True) for r in second]
