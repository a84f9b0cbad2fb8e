"""Do the studies' intervals cover a replication? Repeated seed-set replications from stored runs.

Reads two quick-profile results stores of one study built with disjoint seed sets (e.g. the two
stores of ``benchmarks/replication.py``), pools their units (2K members or seeds), and R times
splits the pooled units at random into two disjoint halves of K: each half is one replication
with K units. For every finding it can recompute from a half it counts how often one half's
estimate falls inside the other half's 95% interval. Equal-precision replications land inside a
correct interval about 83% of the time. The halves share the test digits: this is the
replication a reader makes with another seed set.

- ``--study 04_compression_impact`` (members): the class tests (:func:`class_findings`: D4.1,
  D4.2, the D4.4 analogue) and the exemplars (:func:`exemplar_findings`: D4.3, D4.5, D4.6,
  D4.10, the D4.9 and D4.11 analogues);
- ``--study 02_qmnist_writers`` (seeds): the rows computed per seed with a Student t interval
  over seeds (D2.1, the D2.2 writer collapse, D2.6); the writer-level rows (D2.2 groups,
  D2.3-D2.5) average over all seeds first and are not split here.

Usage::

    PYTHONPATH=src python benchmarks/interval_capture.py --stores A B [--study NAME] \
        [--splits 10] [--save benchmarks/out/interval_capture.md]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from replication import EXPECTED_CAPTURE, interval_kind, run_study  # noqa: E402

from pruneaudit import audit  # noqa: E402
from pruneaudit.book.builder.replication import seed_overrides  # noqa: E402
from pruneaudit.charts.format import number  # noqa: E402
from pruneaudit.studies.compression_impact.findings import (  # noqa: E402
    by_seed,
    class_findings,
    exemplar_findings,
)
from pruneaudit.studies.compression_impact.tables import headline_variant  # noqa: E402
from pruneaudit.studies.qmnist_writers.findings import (  # noqa: E402
    class_findings as writer_class_findings,
)
from pruneaudit.studies.qmnist_writers.findings import (  # noqa: E402
    collapse_finding,
    topline_finding,
)
from pruneaudit.studies.qmnist_writers.frames import (  # noqa: E402
    seed_class_accuracy,
    seed_writer_accuracy,
)

NAME = "04_compression_impact"
WRITERS = "02_qmnist_writers"


def results(name: str, stores: list[Path], profile: str, offset: int) -> list:
    """The study's parameters and result from each store (default seeds, then seeds + offset)."""
    return [run_study(name, profile, overrides, store)
            for store, overrides in zip(stores, ({}, seed_overrides([name], profile, offset)),
                                        strict=True)]


def pooled(stores: list[Path], profile: str, offset: int) -> dict:
    """Labels, groups and the pooled members' predictions of both stores (Study 4)."""
    parts = [(p, r.runs) for p, r in results(NAME, stores, profile, offset)]
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
    out["units"] = len(out["base"])
    return out


def rows(data: dict, members: np.ndarray, seed: int) -> list[audit.Finding]:
    p = data["params"]
    pick = {s: q[members] for s, q in data["quantized"].items()}
    return [
        *class_findings(data["labels"], data["base"][members], data["comp"][members], pick,
                        data["num_classes"], p.alpha),
        *exemplar_findings(data["labels"], data["base"][members], data["comp"][members],
                           data["num_classes"], data["groups"], hard=p.hard_group,
                           resampling=audit.Resampling(p.n_perm, p.n_boot, seed)),
    ]


def pooled_seeds(stores: list[Path], profile: str, offset: int) -> dict:
    """Per-seed accuracies of both stores' seeds, pooled (Study 2): ``correct`` dense and pruned
    ``(2K, N)``, writer accuracies ``(2K, W)`` and class accuracies ``(2K, C)``."""
    parts = [r for _, r in results(WRITERS, stores, profile, offset)]
    first = parts[0]
    dense = np.concatenate([r.correct_dense for r in parts])
    pruned = np.concatenate([r.correct_pruned for r in parts])
    labels = first.test.labels.numpy()
    return {
        "units": len(dense), "dense": dense, "pruned": pruned,
        "writer_dense": seed_writer_accuracy(dense, first.digits["writer"])[1],
        "writer_pruned": seed_writer_accuracy(pruned, first.digits["writer"])[1],
        "class_dense": seed_class_accuracy(dense, labels, first.test.num_classes),
        "class_pruned": seed_class_accuracy(pruned, labels, first.test.num_classes),
    }


def seed_rows(data: dict, seeds: np.ndarray, seed: int) -> list[audit.Finding]:
    """Study 2's per-seed rows (D2.1, the D2.2 writer collapse, D2.6) of the seeds ``seeds``."""
    return [
        topline_finding(data["dense"][seeds].mean(axis=1), data["pruned"][seeds].mean(axis=1)),
        collapse_finding(data["writer_dense"][seeds], data["writer_pruned"][seeds]),
        *writer_class_findings(data["class_dense"][seeds], data["class_pruned"][seeds]),
    ]


STUDIES = {NAME: (pooled, rows), WRITERS: (pooled_seeds, seed_rows)}


def inside(row: audit.Finding, other: audit.Finding) -> bool | None:
    values = (row.ci_low, row.ci_high, other.ours)
    if any(v is None or not np.isfinite(v) for v in values):
        return None
    return bool(row.ci_low <= other.ours <= row.ci_high)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stores", nargs=2, type=Path, required=True)
    parser.add_argument("--study", choices=sorted(STUDIES), default=NAME)
    parser.add_argument("--profile", default="quick")
    parser.add_argument("--offset", type=int, default=1000)
    parser.add_argument("--splits", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", type=Path)
    args = parser.parse_args(argv)
    load, recompute = STUDIES[args.study]
    data = load(args.stores, args.profile, args.offset)
    total = data["units"]
    rng = np.random.default_rng(args.seed)
    records = []
    for split in range(args.splits):
        order = rng.permutation(total)
        a, b = np.sort(order[: total // 2]), np.sort(order[total // 2:])
        rows_a, rows_b = recompute(data, a, split), recompute(data, b, split)
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
        f"# Interval capture: {args.study}, {args.splits} random splits of {total} pooled "
        f"units into halves of {total // 2} ({args.profile} profile)", "",
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
