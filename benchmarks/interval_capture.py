"""Do Study 4's intervals cover a replication? Repeated seed-set replications from stored runs.

Reads two quick-profile results stores of Study 4 built with disjoint seed sets (e.g. the two
stores of ``benchmarks/replication.py``), pools their members (2K per population), and R times
splits the pooled members at random into two disjoint halves of K: each half is one replication
with K members. For every finding of the class tests (:func:`class_findings`: D4.1, D4.2, the
D4.4 analogue) and of the exemplars (:func:`exemplar_findings`: D4.3, D4.5, D4.6, D4.10, the D4.9
and D4.11 analogues) it counts how often one half's estimate falls inside the other half's 95%
interval. Equal-precision replications land inside a correct interval about 83% of the time.
The halves share the test digits: this is the replication a reader makes with another seed set.

Usage::

    PYTHONPATH=src python benchmarks/interval_capture.py --stores A B [--splits 10] \
        [--save benchmarks/out/interval_capture.md]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from replication import EXPECTED_CAPTURE, interval_kind  # noqa: E402

from pruneaudit import audit  # noqa: E402
from pruneaudit.book.profiles import Profile, study_module  # noqa: E402
from pruneaudit.book.replication import seed_overrides  # noqa: E402
from pruneaudit.charts.format import number  # noqa: E402
from pruneaudit.runs.store import ResultsStore  # noqa: E402
from pruneaudit.studies.compression_impact.findings import (  # noqa: E402
    by_seed,
    class_findings,
    exemplar_findings,
)
from pruneaudit.studies.compression_impact.tables import headline_variant  # noqa: E402

NAME = "04_compression_impact"


def pooled(stores: list[Path], profile: str, offset: int) -> dict:
    """Labels, groups and the pooled members' predictions of both stores."""
    module = study_module(NAME)
    parts = []
    for store, overrides in zip(stores, ({}, seed_overrides([NAME], profile, offset)),
                                strict=True):
        params = Profile.read(profile, overrides).study_params(NAME)
        parts.append((params, module.run(params, ResultsStore(store), progress=False).runs))
    params, runs = parts[0]
    quantized = [c.scheme for c in runs.compressed if c.kind == "quantization"]
    out = {
        "params": params, "labels": runs.baseline.labels, "num_classes": runs.num_classes,
        "groups": runs.test.meta[params.group].to_numpy(),
        "base": np.concatenate([by_seed(r.baseline) for _, r in parts]),
        "comp": np.concatenate([by_seed(headline_variant(r).population) for _, r in parts]),
        "quantized": {s: np.concatenate([by_seed(next(c.population for c in r.compressed
                                                      if c.scheme == s)) for _, r in parts])
                      for s in quantized},
    }
    return out


def rows(data: dict, members: np.ndarray, seed: int) -> list[audit.Finding]:
    p = data["params"]
    pick = {s: q[members] for s, q in data["quantized"].items()}
    return [
        *class_findings(data["labels"], data["base"][members], data["comp"][members], pick,
                        data["num_classes"], p.alpha),
        *exemplar_findings(data["labels"], data["base"][members], data["comp"][members],
                           data["num_classes"], data["groups"], hard=p.hard_group,
                           n_perm=p.n_perm, n_boot=p.n_boot, seed=seed),
    ]


def inside(row: audit.Finding, other: audit.Finding) -> bool | None:
    values = (row.ci_low, row.ci_high, other.ours)
    if any(v is None or not np.isfinite(v) for v in values):
        return None
    return bool(row.ci_low <= other.ours <= row.ci_high)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stores", nargs=2, type=Path, required=True)
    parser.add_argument("--profile", default="quick")
    parser.add_argument("--offset", type=int, default=1000)
    parser.add_argument("--splits", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", type=Path)
    args = parser.parse_args(argv)
    data = pooled(args.stores, args.profile, args.offset)
    total = len(data["base"])
    rng = np.random.default_rng(args.seed)
    records = []
    for split in range(args.splits):
        order = rng.permutation(total)
        a, b = np.sort(order[: total // 2]), np.sort(order[total // 2:])
        rows_a, rows_b = rows(data, a, split), rows(data, b, split)
        for ra, rb in zip(rows_a, rows_b, strict=True):
            if ra.verdict == audit.NOT_TESTABLE:
                continue
            for one, other in ((ra, rb), (rb, ra)):
                hit = inside(one, other)
                if hit is not None:
                    records.append({"finding": ra.finding, "kind": interval_kind(ra.basis),
                                    "inside": hit})
    frame = pd.DataFrame(records)
    by_row = frame.groupby(["kind", "finding"], sort=False).agg(
        pairs=("inside", "size"), captured=("inside", "sum"))
    by_row["capture"] = by_row["captured"] / by_row["pairs"]
    by_kind = frame.groupby("kind").agg(pairs=("inside", "size"), captured=("inside", "sum"))
    by_kind["capture"] = by_kind["captured"] / by_kind["pairs"]
    by_kind["expected"] = EXPECTED_CAPTURE
    fmt = {"capture": number, "expected": number}
    text = "\n".join([
        f"# Interval capture: Study 4, {args.splits} random splits of {total} pooled members "
        f"into halves of {total // 2} ({args.profile} profile)", "",
        "## By kind of interval", "", by_kind.transform(
            {c: fmt.get(c, lambda v: v) for c in by_kind.columns}).to_markdown(), "",
        "## By finding", "", by_row.transform(
            {c: fmt.get(c, lambda v: v) for c in by_row.columns}).to_markdown(), "",
    ])
    print(text)
    if args.save:
        args.save.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
