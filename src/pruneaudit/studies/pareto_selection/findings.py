"""Study 3's findings (D3.1-D3.3), each built by its claim (:func:`~.claims.claims`) on an
interval over seeds or series, and the numbers the page's prose cites."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from pruneaudit import audit
from pruneaudit.audit.bounded import difference_interval

from .claims import SMALLEST_SLOPE, claims
from .frames import UNFAIRNESS, UNFAIRNESS_MEAN, candidates, picks
from .params import STUDY, cost_numbers
from .run import Result

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
    """Seed means of :func:`per_seed_points` over ``seeds``, labelled as operating points; a
    seed named twice counts twice (a bootstrap resample)."""
    by_seed = dict(tuple(per_seed.groupby("seed")))
    part = pd.concat([by_seed[s] for s in seeds if s in by_seed], ignore_index=True)
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


def _point_array(per_seed: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """The operating points of :func:`per_seed_points` as an array ``(points, seeds, 3)`` of
    sparsity, accuracy and unfairness (max − min), NaN where a seed lacks the point, and each
    point's technique."""
    keys = ["technique", "treatment", "iteration"]
    columns = ["sparsity", "accuracy", UNFAIRNESS]
    wide = per_seed.set_index(["seed", *keys])[columns].unstack("seed")
    seeds = sorted(per_seed["seed"].unique())
    values = np.stack([wide[c].reindex(columns=seeds).to_numpy(float) for c in columns], axis=-1)
    return values, wide.index.get_level_values("technique").to_numpy()


def _averaged_count(values: np.ndarray, techniques: np.ndarray, weights: np.ndarray,
                    floor: float, min_candidates: int) -> int:
    """Number of distinct techniques on the (sparsity, max − min) frontier of the points
    averaged over the seeds with ``weights`` (a bootstrap resample's counts), as
    :func:`~.frames.candidates` filters them."""
    present = np.isfinite(values[..., 1])
    w = np.where(present, weights[None, :], 0.0)
    with np.errstate(invalid="ignore"):
        mean = np.nansum(values * w[..., None], axis=1) / w.sum(axis=1)[:, None]
    accuracy = mean[:, 1]
    ok = np.isfinite(accuracy)
    used = floor
    if int((accuracy[ok] >= floor).sum()) < min_candidates:
        ranked = np.sort(accuracy[ok])[::-1]
        used = float(ranked[min(min_candidates, ranked.size) - 1])
    keep = ok & (accuracy >= used)
    front = audit.pareto_front(mean[keep][:, [0, 2]], ["max", "min"])
    return int(np.unique(techniques[keep][front]).size)


def averaged_frontier_techniques(
    per_seed: pd.DataFrame, floor: float, min_candidates: int, *, n_resamples: int = 999,
    seed: int = 0,
) -> tuple[float, float, float]:
    """D3.1 P's way: the techniques on the frontier of the seed-averaged operating points (P: each
    point the mean of six networks; the techniques on the frontier of :func:`_seed_points`), with a
    95% percentile bootstrap over the seeds (resampled with replacement, the points averaged
    with the resample's counts and the frontier found again); no interval (NaN) on fewer than 3
    seeds."""
    values, techniques = _point_array(per_seed)
    n = values.shape[1]
    count = float(_averaged_count(values, techniques, np.ones(n), floor, min_candidates))
    if n < 3:
        return count, float("nan"), float("nan")

    def statistic(picks: np.ndarray) -> float:
        weights = np.bincount(picks.astype(int), minlength=n).astype(float)
        return float(_averaged_count(values, techniques, weights, floor, min_candidates))

    _, lo, hi = audit.bootstrap_interval([np.arange(n)], statistic, seed=seed,
                                         n_resamples=n_resamples)
    return count, lo, hi


@dataclass(frozen=True)
class Selection:
    """How an operating point is chosen: the candidates (accuracy ``floor``, at least
    ``min_candidates``; :func:`~.frames.candidates`) and the value function's weights
    (:func:`~.frames.picks`)."""

    floor: float
    min_candidates: int
    fairness_weight: float = 100.0
    sparsity_weight: float = 1.0


def _seed_picks(
    classes: pd.DataFrame, selection: Selection, *, held_out: bool
) -> Iterator[tuple[int, pd.DataFrame, pd.DataFrame]]:
    """Per seed s: s, its own operating points (:func:`_seed_points`) and the :func:`picks`
    (value-function pick, then sparsest candidate) chosen on the seed means of the other seeds
    (``held_out``) or on s's own points."""
    per_seed = per_seed_points(classes)
    seeds = classes["seed"].unique()
    for s in sorted(seeds):
        own = _seed_points(per_seed, [s])
        basis = _seed_points(per_seed, [t for t in seeds if t != s]) if held_out else own
        cands = candidates(basis, selection.floor, selection.min_candidates).frame
        yield int(s), own, picks(cands, selection.fairness_weight, selection.sparsity_weight)


def heldout_gains(classes: pd.DataFrame, selection: Selection) -> pd.Series:
    """Per seed s: unfairness (max − min) on seed s of the sparsest candidate minus that of the
    value-function pick, both chosen on the seed means of the other seeds (cross-fitting, so that
    noise in the unfairness that made a point look fair does not count as a gain)."""
    out = {}
    for s, own, chosen in _seed_picks(classes, selection, held_out=True):
        u = own.set_index("label")[UNFAIRNESS]
        out[s] = float(u[chosen.iloc[1]["label"]] - u[chosen.iloc[0]["label"]])
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


def pick_sparsities(classes: pd.DataFrame, selection: Selection) -> pd.DataFrame:
    """Per seed: the sparsity of the value-function pick and of the sparsest candidate, each
    chosen on that seed's own points (columns seed, pick, sparsest)."""
    rows = [
        (s, float(chosen.iloc[0]["sparsity"]), float(chosen.iloc[1]["sparsity"]))
        for s, _, chosen in _seed_picks(classes, selection, held_out=False)
    ]
    return pd.DataFrame(rows, columns=["seed", "pick", "sparsest"])


def pick_finding(sparsities: pd.DataFrame, weight: float) -> audit.Finding:
    """Claim D3.2 as P states it: the fairness-weighted pick sits at around 68% sparsity, below
    the sparsest candidate. Ours: the pick's sparsity, mean over seeds, with the interval of the
    mean per-seed difference pick - sparsest shifted by the sparsest candidate's mean (paired by
    seed). Not comparable with P's number (:data:`~.claims.PICK_WHY`); its direction says
    whether the pick sits below the sparsest candidate. Noise alone in the unfairness also
    moves the pick below the sparsest candidate, which is why the held-out row
    (:func:`heldout_gains`) is the page's own, stronger test."""
    claim = claims()["D3.2"]
    sparsest = float(sparsities["sparsest"].mean())
    gap, lo, hi = audit.mean_interval(sparsities["pick"] - sparsities["sparsest"])
    ours, lo, hi = audit.bounded_interval(gap + sparsest, lo + sparsest, hi + sparsest, "share")
    definition = (f"mean over seeds of the sparsity of the w_fair = {weight:g} x w_sparse pick "
                  "among each seed's candidates above the floor; null: the sparsest candidate's "
                  f"({sparsest:.1%} here)")
    basis = (f"Student-t over {len(sparsities)} seeds of the pick's sparsity minus the "
             "sparsest candidate's, shifted by the latter's mean (none on fewer than 3), on the "
             "logit scale; noise alone in the unfairness also moves the pick below the sparsest "
             "candidate: the held-out row below is this page's stronger test")
    if not sparsest > claim.paper:
        basis = (f"our sparsest candidate ({sparsest:.1%}) is not above P's {claim.paper:.0%}: "
                 f"these candidates cannot show a pick near P's below the sparsest; {basis}")
    row = audit.judge(claim, audit.Estimate(ours, lo, hi, basis, df=max(len(sparsities) - 1, 1)),
                      definition=definition)
    # the direction against this build's null (the sparsest candidate), not against 0
    below = audit.direction_of(lo, hi, side=-1, null=sparsest, negligible=claim.margin)
    return replace(row, direction=below)


def classes_findings(
    classes: pd.DataFrame,
    floor: float,
    min_candidates: int,
    fairness_weight: float = 100.0,
    sparsity_weight: float = 1.0,
) -> list[audit.Finding]:
    """D3.1-D3.3 (methods page, *Study 3*), each by its claim (:func:`~.claims.claims`) with a
    95% interval over seeds or series; no interval (``inconclusive``) on fewer than 3 seeds or
    series."""
    table = claims()
    selection = Selection(floor, min_candidates, fairness_weight, sparsity_weight)
    seeds = sorted(classes["seed"].unique())
    per_seed = per_seed_points(classes)
    weight = fairness_weight / sparsity_weight if sparsity_weight else float("inf")
    m, lo, hi = averaged_frontier_techniques(per_seed, floor, min_candidates)
    rows = [audit.judge(table["D3.1"], audit.Estimate(
        m, lo, hi, f"techniques on the frontier of the points averaged over {len(seeds)} seeds "
        "(P's way), 95% percentile bootstrap over the seeds (points averaged and frontier found "
        "again; integers: an interval of no width says nothing); smallest effect: one technique "
        "more", units=len(seeds)))]
    rows.append(pick_finding(pick_sparsities(classes, selection), weight))
    gains = (  # held out: one seed needs another to choose on
        heldout_gains(classes, selection) if len(seeds) > 1 else pd.Series(dtype=float)
    )
    m, lo, hi = audit.mean_interval(gains)
    rows.append(audit.judge(table["B3.2 held out"], audit.Estimate(
        m, lo, hi, f"our test, stronger than P's claim (P compares no held-out unfairness): "
        f"held-out unfairness gain (max − min), Student-t over {len(seeds)} seeds; smallest "
        "effect 1 point", df=max(len(gains) - 1, 1))))
    slopes = unfairness_slopes(classes)["slope"].dropna()
    m, lo, hi = difference_interval(*audit.mean_interval(slopes))
    rows.append(audit.judge(table["D3.3"], audit.Estimate(
        m, lo, hi, f"slope of max − min on sparsity, Student-t over {len(slopes)} series, on "
        "the bounded scale of a difference of accuracies (inside ±100 points); "
        f"smallest effect {SMALLEST_SLOPE} per unit sparsity", df=max(len(slopes) - 1, 1))))
    return rows


# --------------------------------------------------------------------------- the page


def findings(result: Result) -> list[audit.Finding]:
    """D3.1-D3.3 of ``result`` (:func:`classes_findings` at the floor used); the headline row,
    D3.1, is the claim's."""
    p = result.params
    return classes_findings(
        result.classes, result.candidates.floor_used, p.min_candidates, p.fairness_weight,
        p.sparsity_weight,
    )


def _pick(row: pd.Series) -> str:
    return f"{row['technique']} / {row['treatment']} at iteration {int(row['iteration'])}"


def numbers(result: Result) -> dict[str, float | int | str]:
    """What the page's sentences cite: the floor (requested, used, how many passed), the two
    picks and what the fairness pick trades, P's pick, the training cost, and what this build
    trained (``model``, ``treatment_names``, ``seeds``, ``epochs``)."""
    cands, chosen = result.candidates, result.chosen
    p = result.params
    names = {"lenet": "LeNet", "alexnet": "AlexNet", "vgg11": "VGG11", "resnet18": "ResNet18"}
    fair, sparse = chosen.iloc[0], chosen.iloc[1]
    pruned = result.points.loc[result.points["iteration"] > 0, "accuracy"]
    return {
        "floor_requested": cands.floor_requested,
        "floor_used": cands.floor_used,
        "floor_passed": cands.passed_requested,
        "floor_note": (
            f"lowered to keep the {len(cands.frame)} most accurate pruned points"
            if cands.lowered
            else "as requested"
        ),
        "best_pruned_accuracy": float(pruned.max()),
        "n_candidates": len(cands.frame),
        "fair_pick": _pick(fair),
        "fair_sparsity": float(fair["sparsity"]),
        "fair_unfairness": float(fair[UNFAIRNESS]),
        "fair_accuracy": float(fair["accuracy"]),
        "sparse_pick": _pick(sparse),
        "sparse_sparsity": float(sparse["sparsity"]),
        "sparse_unfairness": float(sparse[UNFAIRNESS]),
        "sparsity_given_up": float(sparse["sparsity"] - fair["sparsity"]),
        "unfairness_saved": float(sparse[UNFAIRNESS] - fair[UNFAIRNESS]),
        "paper_pick": audit.lookup(STUDY, "sparsity").value,
        **cost_numbers(result.params),
        "model": names.get(p.model, p.model),
        "treatment_names": " and ".join(p.treatments),
        "seeds": len(p.seeds),
        "epochs": int(p.epochs),
    }
