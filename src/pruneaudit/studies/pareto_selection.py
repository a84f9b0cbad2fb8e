"""Study 3 (P, section 4.2): choosing a pruning operating point with fairness in the value.

AlexNet is trained on MNIST and pruned iteratively with the structured techniques
(:func:`pruneaudit.runs.series.series_frame`); methods page, "Study 3: Pareto selection".
Every pruned network (technique, treatment, iteration) is one operating point, its total
accuracy, sparsity and unfairness averaged over the seeds
(:func:`pruneaudit.audit.unfairness_vs_sparsity`).

- Candidates: the points whose seed-mean total accuracy is at least the accuracy floor
  (:func:`candidates`). When fewer than ``min_candidates`` points pass the requested floor (a
  short training budget may leave every network below it), the floor is lowered to the
  accuracy of the ``min_candidates``-th most accurate point, and the result says so.
- Frontiers (:func:`mark_frontiers`): non-dominated candidates in (sparsity max, unfairness
  max − min min; P Fig. 4a), in (sparsity, mean − min), and in (accuracy max, sparsity max,
  unfairness mean − min min; P Fig. 4b), by :func:`pruneaudit.audit.pareto_front`.
- Findings D3.1-D3.3 (:func:`findings`), each with an interval over seeds or series.
- Picks (:func:`picks`): the value function ``w_fair·(−unfairness) + w_sparse·sparsity``
  (:func:`pruneaudit.pareto.select_operating_point`; candidates are ordered by sparsity, then
  lower unfairness, so that ties go to the sparser point as in
  :func:`pruneaudit.charts.pareto_chart`), and the point that simply reaches the highest
  sparsity above the floor.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pruneaudit import audit, models
from pruneaudit.audit import findings as F
from pruneaudit.compress.prune import TECHNIQUE_TABLE, TREATMENTS
from pruneaudit.errors import PruneAuditError, check_positive_int, check_range
from pruneaudit.runs import gpu_cost_text, series
from pruneaudit.runs.store import ResultsStore

DATASET = "mnist"
MODEL = "alexnet"
STUDY = "S3_Pareto_selection"
SOURCE = "P Sec. 4.2, Figs. 3-4"
STRUCTURED: tuple[str, ...] = tuple(n for n, t in TECHNIQUE_TABLE.items() if t.structured)
UNFAIRNESS = "unfairness_max_min"
UNFAIRNESS_MEAN = "unfairness_mean_min"
FRONTIERS = {
    "pareto": {"sparsity": "max", UNFAIRNESS: "min"},
    "pareto_mean_min": {"sparsity": "max", UNFAIRNESS_MEAN: "min"},
    "pareto_3d": {"accuracy": "max", "sparsity": "max", UNFAIRNESS_MEAN: "min"},
}


def run(
    techniques: Sequence[str],
    treatments: Sequence[str],
    seeds: Sequence[int],
    iterations: int,
    store: ResultsStore,
    *,
    dataset: str = DATASET,
    model: str = MODEL,
    epochs: int = 30,
    lr: float = 0.01,
    batch_size: int = 32,
    train_size: int | None = None,
    test_size: int | None = None,
    root: str | None = None,
    progress: bool = True,
) -> pd.DataFrame:
    """Run (or read) the pruning series of the study; the tidy per-class frame of every run."""
    for t in techniques:
        if t not in STRUCTURED:
            raise PruneAuditError(
                f"technique {t!r} is not structured; this study uses {', '.join(STRUCTURED)}"
            )
    return series.series_frame(
        [dataset],
        [model],
        techniques,
        treatments,
        seeds,
        iterations,
        store,
        epochs=epochs,
        lr=lr,
        batch_size=batch_size,
        train_size=train_size,
        test_size=test_size,
        root=root,
        progress=progress,
    )


def operating_points(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per (technique, treatment, iteration): seed means (and std) of total accuracy,
    sparsity and both unfairness kinds; ``label`` names the point. Iteration 0 (the dense model,
    the same for every series) is one row labelled ``dense``, technique and treatment "dense"."""
    table = audit.unfairness_vs_sparsity(runs)
    dense = table[table["iteration"] == 0].head(1).assign(technique="dense", treatment="dense")
    pruned = table[table["iteration"] > 0]
    out = pd.concat([dense, pruned], ignore_index=True)
    out["label"] = [
        "dense" if it == 0 else f"{tech} / {treat} / k={it}"
        for tech, treat, it in zip(
            out["technique"], out["treatment"], out["iteration"], strict=True
        )
    ]
    return out


@dataclass(frozen=True)
class Candidates:
    """The pruned points above the floor used; ``lowered`` says whether the requested floor had
    to be lowered to keep ``min_candidates`` points, ``passed_requested`` how many passed it."""

    frame: pd.DataFrame
    floor_requested: float
    floor_used: float
    passed_requested: int
    lowered: bool


def candidates(points: pd.DataFrame, floor: float = 0.98, min_candidates: int = 3) -> Candidates:
    """The pruned operating points (iteration ≥ 1) with seed-mean total accuracy ≥ the floor.

    If fewer than ``min_candidates`` pass ``floor``, the floor used is the accuracy of the
    ``min_candidates``-th most accurate pruned point (all points if there are fewer).
    """
    floor = check_range("accuracy floor", floor, 0, 1)
    check_positive_int("min_candidates", min_candidates)
    pruned = points[points["iteration"] > 0]
    if pruned.empty:
        raise PruneAuditError("no pruned operating point (iteration >= 1) in the frame")
    passed = len(audit.accuracy_floor(pruned, "accuracy", floor))
    used = floor
    if passed < min_candidates:
        ranked = pruned["accuracy"].sort_values(ascending=False).to_numpy()
        used = float(ranked[min(min_candidates, len(ranked)) - 1])
    frame = audit.accuracy_floor(pruned, "accuracy", used).sort_values(
        ["sparsity", UNFAIRNESS], ascending=[False, True], kind="mergesort"
    )
    return Candidates(frame.reset_index(drop=True), floor, used, passed, used < floor)


def mark_frontiers(frame: pd.DataFrame) -> pd.DataFrame:
    """Add a boolean column per frontier of :data:`FRONTIERS` (True = Pareto-optimal)."""
    out = frame.copy()
    for name, senses in FRONTIERS.items():
        out[name] = audit.pareto_front(out, senses)
    return out


def picks(frame: pd.DataFrame, fairness_weight: float = 100.0, sparsity_weight: float = 1.0):
    """The value-function pick and the sparsest candidate, one row each.

    ``value = fairness_weight·(−unfairness) + sparsity_weight·sparsity`` (max − min unfairness);
    the rule column names the pick. Candidates must be ordered by sparsity descending (as
    :func:`candidates` returns them) for ties to go to the sparser point.
    """
    if frame.empty:
        raise PruneAuditError("no candidates to pick from")
    for name, w in (("fairness_weight", fairness_weight), ("sparsity_weight", sparsity_weight)):
        check_range(name, w, 0, float("inf"))
    chosen = audit.select_operating_point(
        frame, {UNFAIRNESS: -float(fairness_weight), "sparsity": float(sparsity_weight)}
    )
    sparsest = frame.loc[frame["sparsity"].idxmax()].copy()
    rule = f"value function (w_fair = {fairness_weight:g}, w_sparse = {sparsity_weight:g})"
    rows = pd.DataFrame([chosen, sparsest])
    rows.insert(0, "rule", [rule, "highest sparsity above the floor"])
    return rows.reset_index(drop=True)


def chart_weight(fairness_weight: float = 100.0, sparsity_weight: float = 1.0) -> float:
    """The slider value ``w`` of :func:`pruneaudit.charts.pareto_chart` (value = w·(−u) +
    (1 − w)·s) that matches these weights: w = w_fair / (w_fair + w_sparse)."""
    total = float(fairness_weight) + float(sparsity_weight)
    if fairness_weight < 0 or sparsity_weight < 0 or total <= 0:
        raise PruneAuditError(
            f"weights must be >= 0 and not both 0, got {fairness_weight!r}, {sparsity_weight!r}"
        )
    return float(fairness_weight) / total


def technique_summary(points: pd.DataFrame, floor: float) -> pd.DataFrame:
    """Per (technique, treatment): the highest seed-mean sparsity whose accuracy is ≥ ``floor``
    (NaN if none), with that point's unfairness and accuracy, and the last iteration above it."""
    pruned = points[points["iteration"] > 0]
    rows = []
    for (tech, treat), g in pruned.groupby(["technique", "treatment"], sort=True):
        ok = g[g["accuracy"] >= floor]
        if ok.empty:
            rows.append({"technique": tech, "treatment": treat, "iteration": None})
            continue
        best = ok.loc[ok["sparsity"].idxmax()]
        rows.append(
            {
                "technique": tech,
                "treatment": treat,
                "iteration": int(best["iteration"]),
                "sparsity": best["sparsity"],
                "accuracy": best["accuracy"],
                UNFAIRNESS: best[UNFAIRNESS],
                UNFAIRNESS_MEAN: best[UNFAIRNESS_MEAN],
            }
        )
    out = pd.DataFrame(rows)
    out["iteration"] = out["iteration"].astype("Int64")
    return out


# --------------------------------------------------------------------------- page helpers


def validate(params: Mapping) -> None:
    """Check the page's parameters before any training; one :class:`PruneAuditError` each."""
    p = dict(params)
    series.distinct("techniques", p["techniques"], STRUCTURED)
    series.distinct("treatments", p["treatments"], TREATMENTS)
    series.distinct("seeds", p["seeds"])
    if p["model"] not in models.MODELS or p["model"] not in series.SECONDS_PER_10K:
        raise PruneAuditError(f"model {p['model']!r} is not one of {models.MODELS}")
    for name in ("iterations", "epochs", "min_candidates"):
        check_positive_int(name, p[name])
    check_range("lr", p["lr"], 0, float("inf"), lo_open=True)
    check_range("accuracy_floor", p["accuracy_floor"], 0, 1, lo_open=True)
    for name in ("fairness_weight", "sparsity_weight"):
        check_range(name, p[name], 0, float("inf"))
    chart_weight(p["fairness_weight"], p["sparsity_weight"])
    for name in ("train_size", "test_size"):
        if p.get(name) is not None:
            check_positive_int(name, p[name])


def protocol_table(params: Mapping) -> pd.DataFrame:
    """This run's protocol beside P's (section 4.2); ``same``: yes / NO / ? (not stated by P)."""
    p = dict(params)
    its = p["iterations"]
    rows = [
        ("model, data", "AlexNet, MNIST", f"{p['model']}, MNIST", p["model"] == "alexnet"),
        ("techniques", "4 structured", ", ".join(p["techniques"]), len(p["techniques"]) == 4),
        ("treatments", "not stated (P section 3: both)", ", ".join(p["treatments"]), None),
        ("seeds", "6 (0-5), averaged", f"{len(p['seeds'])}, averaged", len(p["seeds"]) == 6),
        ("iterations", "20", f"{its} (sparsity {1 - 0.8**its:.1%})", its == 20),
        ("epochs per round", "30", str(p["epochs"]), p["epochs"] == 30),
        ("learning rate", "0.01 (SGD, batch 32)", f"{p['lr']:g} (SGD, batch 32)", p["lr"] == 0.01),
        (
            "training pool",
            "60,000 (48,000 train)",
            "full" if p.get("train_size") is None else f"first {p['train_size']:,} examples",
            p.get("train_size") is None,
        ),
        (
            "accuracy floor",
            "98%",
            f"{p['accuracy_floor']:.1%} requested",
            p["accuracy_floor"] == 0.98,
        ),
        (
            "fairness weight / sparsity weight",
            "100",
            f"{p['fairness_weight'] / max(p['sparsity_weight'], 1e-12):g}",
            p["fairness_weight"] == 100 * p["sparsity_weight"],
        ),
    ]
    out = pd.DataFrame(rows, columns=["setting", "published (P)", "this run", "same"])
    out["same"] = out["same"].map({True: "yes", False: "NO", None: "?"})
    return out


def cost_text(params: Mapping, root: str | None = None) -> str:
    """One paragraph: this run's training cost and the paper profile's (one model at a time)."""
    p = dict(params)
    mine = series.grid_cost(
        ["mnist"],
        [p["model"]],
        p["techniques"],
        p["treatments"],
        p["seeds"],
        p["iterations"],
        p["epochs"],
        train_size=p.get("train_size"),
        root=root,
    )
    paper = series.grid_cost(
        ["mnist"], ["alexnet"], list(STRUCTURED), list(TREATMENTS), range(6), 20, 30, root=root
    )
    return (
        f"This run trains **{int(mine['model_epochs'].sum()):,} model-epochs** (about "
        f"{mine['cpu_hours'].sum():.2f} CPU hours one model at a time; seeds train together, "
        f"which is faster). P's protocol with both treatments (the paper profile) is "
        f"**{int(paper['model_epochs'].sum()):,} AlexNet model-epochs**, about "
        f"{paper['cpu_hours'].sum():,.0f} CPU hours on this machine: a cluster job. On a GPU, "
        f"at the LeNet rate scaled by AlexNet's training FLOPs: {gpu_cost_text('Study 3')}."
    )


def floor_text(cands: Candidates, points: pd.DataFrame) -> str:
    """What the accuracy floor did, in one sentence for the page."""
    if not cands.lowered:
        return (
            f"**{cands.passed_requested}** pruned points reach the floor of "
            f"{cands.floor_requested:.1%}."
        )
    best = points.loc[points.iteration > 0, "accuracy"].max()
    return (
        f"Only {cands.passed_requested} pruned point(s) reach the requested floor of "
        f"{cands.floor_requested:.1%} (best pruned accuracy {best:.1%}), so the floor is lowered "
        f"to **{cands.floor_used:.1%}**, keeping the {len(cands.frame)} most accurate pruned "
        "points; the results below are those of this lowered floor."
    )


def picks_text(chosen: pd.DataFrame) -> str:
    """The two picks of :func:`picks` in one paragraph, naming technique and iteration."""
    fair, sparse = chosen.iloc[0], chosen.iloc[1]
    text = (
        f"The value function picks **{fair['technique']} / {fair['treatment']} at iteration "
        f"{int(fair['iteration'])}** (sparsity {fair['sparsity']:.1%}, unfairness "
        f"{fair['unfairness_max_min']:.3f}, accuracy {fair['accuracy']:.1%}; P: a point at "
        f"around 68% sparsity, technique not named). The sparsest candidate above the floor is "
        f"**{sparse['technique']} / {sparse['treatment']} at iteration "
        f"{int(sparse['iteration'])}** (sparsity {sparse['sparsity']:.1%}, unfairness "
        f"{sparse['unfairness_max_min']:.3f}). "
    )
    if fair["label"] == sparse["label"]:
        return text + "Here both rules choose the same network."
    return text + (
        f"The fairness-aware pick gives up {sparse['sparsity'] - fair['sparsity']:.1%} of "
        f"sparsity for an unfairness lower by "
        f"{sparse['unfairness_max_min'] - fair['unfairness_max_min']:.3f}."
    )


# --------------------------------------------------------------------------- findings


def per_seed_points(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per pruned run (seed, technique, treatment, iteration >= 1): sparsity, total
    accuracy (weighted by ``n`` when present) and both unfairness kinds, as
    :func:`pruneaudit.audit.unfairness_vs_sparsity` computes them per run (vectorized)."""
    pruned = runs[runs["iteration"] > 0]
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
    runs: pd.DataFrame,
    floor: float,
    min_candidates: int,
    fairness_weight: float = 100.0,
    sparsity_weight: float = 1.0,
) -> pd.Series:
    """Per seed s: unfairness (max − min) on seed s of the sparsest candidate minus that of the
    value-function pick, both chosen on the seed means of the other seeds (cross-fitting, so that
    noise in the unfairness that made a point look fair does not count as a gain)."""
    per_seed = per_seed_points(runs)
    out = {}
    for s in sorted(runs["seed"].unique()):
        rest = [t for t in runs["seed"].unique() if t != s]
        chosen = picks(
            candidates(_seed_points(per_seed, rest), floor, min_candidates).frame,
            fairness_weight,
            sparsity_weight,
        )
        own = _seed_points(per_seed, [s]).set_index("label")[UNFAIRNESS]
        out[int(s)] = float(own[chosen.iloc[1]["label"]] - own[chosen.iloc[0]["label"]])
    return pd.Series(out, name="gain")


def unfairness_slopes(runs: pd.DataFrame) -> pd.DataFrame:
    """Per pruning series (technique, treatment, seed): the least-squares slope of unfairness
    (max − min class accuracy) on sparsity over the pruned iterations (k >= 1; the dense model,
    shared by every series of a seed, is left out so that the series are independent)."""
    pruned = runs[runs["iteration"] > 0]
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
    runs: pd.DataFrame,
    floor: float,
    min_candidates: int,
    fairness_weight: float = 100.0,
    sparsity_weight: float = 1.0,
) -> list[F.Finding]:
    """D3.1-D3.3 (PUBLISHED.md), each with a 95% interval over seeds or series and a verdict."""
    seeds = sorted(runs["seed"].unique())
    table = audit.published()
    pick_paper = table[(table.study == STUDY) & (table.metric == "sparsity")]["value"].iloc[0]
    per_seed = per_seed_points(runs)
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
        gains = heldout_gains(runs, floor, min_candidates, fairness_weight, sparsity_weight)
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
    slopes = unfairness_slopes(runs)["slope"].dropna()
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
