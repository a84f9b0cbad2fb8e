"""Does a row's stability predict how often a replication keeps its verdict, by number of units?

Simulated pairs of builds (:func:`pruneaudit.audit.between_builds.simulated_keep`): each row is
the mean of ``n`` unit values with its 95% t interval, judged by an equivalence verdict (paper
1.0, margin 0.3: reproduced, smaller, larger, size can't tell...). For each ``n`` it prints, for
rows firm in the first build (stability at least ``STABLE``), how often the second build gives
the same verdict beside the mean stability, under the package's model (the replication
estimates its own spread: its interval's width varies) and under a fixed width (the model before
it). A model is calibrated where the two columns agree.

Usage::

    PYTHONPATH=src python benchmarks/stability_width.py [--units 3 4 5 8 12 16 32] \
        [--rows 800] [--save benchmarks/out/stability_width.md]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from pruneaudit import audit
from pruneaudit.audit import between_builds as BB


def _rule(low: float, high: float) -> str:
    return audit.verdict(low, high, 1.0, margin=0.3)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", nargs="+", type=int, default=[3, 4, 5, 8, 12, 16, 32])
    parser.add_argument("--rows", type=int, default=800)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", type=Path)
    args = parser.parse_args(argv)
    out = []
    for n in args.units:
        row: dict[str, object] = {"units": n, "rows": args.rows}
        for label, fresh in (("fresh spread", True), ("fixed width", False)):
            stated, kept = BB.simulated_keep(n, args.rows, _rule, seed=args.seed + n,
                                             fresh_spread=fresh)
            firm = stated >= audit.STABLE
            row[f"firm ({label})"] = int(firm.sum())
            row[f"kept ({label})"] = round(float(kept[firm].mean()), 3)
            row[f"predicted ({label})"] = round(float(stated[firm].mean()), 3)
        out.append(row)
    table = pd.DataFrame(out)
    text = "\n".join([
        "# Stability by number of units: simulated pairs of builds", "",
        f"{args.rows} rows per unit count (seed {args.seed} + units), equivalence verdict "
        f"(paper 1.0, margin 0.3), firm = stability at least {audit.STABLE}.", "",
        table.to_markdown(index=False), "",
    ])
    print(text)
    if args.save:
        args.save.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
