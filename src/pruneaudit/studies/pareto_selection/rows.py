"""Study 3's findings rows (D3.1-D3.3), each with an interval over seeds or series."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from pruneaudit import audit
from pruneaudit.audit import findings as F

from .frames import FRONTIERS, SOURCE, STUDY, UNFAIRNESS, UNFAIRNESS_MEAN, candidates, picks

# --------------------------------------------------------------------------- findings


def per_seed_points(classes: pd.DataFrame) -> pd.DataFrame:
    """One row per pruned run (seed, technique, treatment, iteration >= 1): sparsity, total
    accuracy (weighted by ``n`` when present) and both unfairness kinds, as
    :func:`pruneaudit.audit.unfairness_vs_sparsity` computes them per run (vectorized)."""
    pruned = classes[classes["iteration"] > 0]
    keys = ["seed", "technique", "treatment", "iteration"]
    g = pruned.groupby(keys, sort=True)
    acc = g["accuracy"]
    if "n" in pruned:
        w = pruned.assign(w=pruned["accuracy"] * pruned["n"]).groupby(keys, sort=True)
        total = w["w"].sum() / w["n"].sum()
    else:
        total = acc.mean()
    return pd.DataFrame(
        {
            "sparsity": g["sparsity"].first(),
            "accuracy": total,
            UNFAIRNESS: acc.max() - acc.min(),
            UNFAIRNESS_MEAN: acc.mean() - acc.min(),
        }
    ).reset_index()


def _seed_points(per_seed: pd.DataFrame, seeds: Sequence[int]) -> pd.DataFrame:
    """Seed means of :func:`per_seed_points` over ``seeds``, labelled as operating points."""
    part = per_seed[per_seed["seed"].isin(list(seeds))]
    out = (
        part.groupby(["technique", "treatment", "iteration"], sort=True)[
            ["sparsity", "accuracy", UNFAIRNESS, UNFAIRNESS_MEAN]
        ]
        .mean()
        .reset_index()
    )
    out["label"] = [
        f"{t} / {w} / k={k}"
        for t, w, k in zip(out["technique"], out["treatment"], out["iteration"], strict=True)
    ]
    return out


def frontier_techniques(points: pd.DataFrame, floor: float, min_candidates: int) -> int:
    """Number of distinct techniques on the (sparsity, max − min) frontier of the candidates."""
    cands = candidates(points, floor, min_candidates).frame
    return int(cands.loc[audit.pareto_front(cands, FRONTIERS["pareto"]), "technique"].nunique())


def heldout_gains(
    classes: pd.DataFrame,
    floor: float,
    min_candidates: int,
    fairness_weight: float = 100.0,
    sparsity_weight: float = 1.0,
) -> pd.Series:
    """Per seed s: unfairness (max − min) on seed s of the sparsest candidate minus that of the
    value-function pick, both chosen on the seed means of the other seeds (cross-fitting, so that
    noise in the unfairness that made a point look fair does not count as a gain)."""
    per_seed = per_seed_points(classes)
    out = {}
    for s in sorted(classes["seed"].unique()):
        rest = [t for t in classes["seed"].unique() if t != s]
        chosen = picks(
            candidates(_seed_points(per_seed, rest), floor, min_candidates).frame,
            fairness_weight,
            sparsity_weight,
        )
        own = _seed_points(per_seed, [s]).set_index("label")[UNFAIRNESS]
        out[int(s)] = float(own[chosen.iloc[1]["label"]] - own[chosen.iloc[0]["label"]])
    return pd.Series(out, name="gain")


def unfairness_slopes(classes: pd.DataFrame) -> pd.DataFrame:
    """Per pruning series (technique, treatment, seed): the least-squares slope of unfairness
    (max − min class accuracy) on sparsity over the pruned iterations (k >= 1; the dense model,
    shared by every series of a seed, is left out so that the series are independent)."""
    pruned = classes[classes["iteration"] > 0]
    g = pruned.groupby(["technique", "treatment", "seed", "iteration"])
    per = pd.DataFrame(
        {"sparsity": g["sparsity"].mean(), "u": g["accuracy"].max() - g["accuracy"].min()}
    ).reset_index()
    rows = []
    for key, part in per.groupby(["technique", "treatment", "seed"]):
        slope = np.polyfit(part["sparsity"], part["u"], 1)[0] if len(part) > 1 else np.nan
        rows.append((*key, slope))
    return pd.DataFrame(rows, columns=["technique", "treatment", "seed", "slope"])


def findings(
    classes: pd.DataFrame,
    floor: float,
    min_candidates: int,
    fairness_weight: float = 100.0,
    sparsity_weight: float = 1.0,
) -> list[F.Finding]:
    """D3.1-D3.3 (methods page, *Study 3*), each with a 95% interval over seeds or series."""
    seeds = sorted(classes["seed"].unique())
    table = audit.published()
    pick_paper = table[(table.study == STUDY) & (table.metric == "sparsity")]["value"].iloc[0]
    per_seed = per_seed_points(classes)
    rows = []
    if len(seeds) < 2:
        why = "needs at least two seeds (an interval over seeds); this run has one"
        rows.append(
            F.not_testable(
                "D3.1 Pareto set spans more than one technique", None, source=SOURCE, why=why
            )
        )
        rows.append(
            F.not_testable(
                "D3.2 fairness pick is fairer than the sparsest net",
                None,
                source=SOURCE,
                why=why,
            )
        )
    else:
        counts = [
            frontier_techniques(_seed_points(per_seed, [s]), floor, min_candidates) for s in seeds
        ]
        m, lo, hi = F.mean_interval(counts)
        rows.append(
            F.finding(
                "D3.1 Pareto set spans more than one technique",
                m,
                lo,
                hi,
                None,
                source=SOURCE,
                null=1.0,
                direction=1,
                basis=f"techniques on each seed's frontier, Student-t over {len(seeds)} seeds",
            )
        )
        gains = heldout_gains(classes, floor, min_candidates, fairness_weight, sparsity_weight)
        m, lo, hi = F.mean_interval(gains)
        rows.append(
            F.finding(
                "D3.2 fairness pick is fairer than the sparsest net",
                m,
                lo,
                hi,
                None,
                source=SOURCE,
                direction=1,
                basis=f"held-out unfairness gain (max − min), Student-t over {len(seeds)} seeds; "
                f"P's pick is at {pick_paper} sparsity",
            )
        )
    slopes = unfairness_slopes(classes)["slope"].dropna()
    m, lo, hi = F.mean_interval(slopes)
    if np.isfinite(lo):
        rows.append(
            F.finding(
                "D3.3 unfairness rises with sparsity",
                m,
                lo,
                hi,
                None,
                source="P Fig. 3c (fig)",
                direction=1,
                basis=f"slope of max − min on sparsity, Student-t over {len(slopes)} series",
            )
        )
    else:
        rows.append(
            F.not_testable(
                "D3.3 unfairness rises with sparsity",
                None,
                source="P Fig. 3c (fig)",
                why="fewer than two series",
            )
        )
    return rows
