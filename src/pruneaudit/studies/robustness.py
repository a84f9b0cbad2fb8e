"""Study 5 (H1 section 4): robustness of dense vs pruned populations under distribution shift.

The populations are Study 4's (:func:`pruneaudit.studies.compression_impact.train_populations`:
the same member specs, so a store that holds Study 4's runs trains nothing here). Each member
is evaluated on the test set corrupted by every corruption of :mod:`pruneaudit.corruptions` at
every severity (:func:`pruneaudit.experiments.run_corrupted`, one seeded corruption draw shared
by all members).

- :func:`accuracy_frame`: tidy top-1 of every member on the clean and the corrupted test sets;
- :func:`relative_robustness`: H1's metric per corruption and level, from the population-mean
  accuracy (:func:`pruneaudit.corruptions.relative_robustness`: the mean over severities of
  pruned / dense accuracy on the same corruption, and its relative change in %);
- :func:`most_hurt`: the corruptions ranked by that change at each level;
- :func:`natural_adversarial`: the analogue of ImageNet-A — the test examples that a separately
  trained dense *reference* population (other seeds) gets wrong (modal label wrong), and the
  accuracy of each population on them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from pruneaudit import audit, charts, data, runs
from pruneaudit.errors import PruneAuditError, check_choice
from pruneaudit.runs.store import ResultsStore, RunSpec
from pruneaudit.studies import compression_impact

CLEAN = "clean"
SEVERITIES = (1, 2, 3, 4, 5)


def _check_grid(names: Sequence[str], severities: Sequence[int]) -> tuple[list[str], list[int]]:
    names = [check_choice("corruption", n, data.CORRUPTIONS) for n in dict.fromkeys(names)]
    sev = list(dict.fromkeys(severities))
    bad = [s for s in sev if isinstance(s, bool) or not isinstance(s, int) or not 1 <= s <= 5]
    if bad or not sev or not names:
        raise PruneAuditError(
            f"need at least one corruption and severities among 1..5; got corruptions {names} "
            f"and severities {list(severities)}"
        )
    return names, sev


@dataclass(frozen=True)
class RobustnessRuns:
    """Clean populations per level, the tidy accuracy frame, the reference population and the
    clean test data."""

    populations: dict[float, runs.Population]
    accuracy: pd.DataFrame
    reference: runs.Population | None
    test: data.ImageData | None = None


def _member_rows(
    pop: runs.Population, level: float, corruption: str, severity: int
) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "level": level,
            "seed": [s.seed for s in pop.specs],
            "sparsity": pop.sparsity,
            "corruption": corruption,
            "severity": severity,
            "accuracy": (pop.preds == pop.labels[None, :]).mean(axis=1),
        }
    )


def run(
    base: RunSpec,
    seeds: Iterable[int],
    levels: Iterable[float],
    store: ResultsStore,
    root: str | None = None,
    *,
    names: Sequence[str] = data.CORRUPTIONS,
    severities: Sequence[int] = SEVERITIES,
    corruption_seed: int = 0,
    reference_seeds: Iterable[int] | None = None,
    progress: bool = True,
) -> RobustnessRuns:
    """Train (or read) the populations, evaluate them on every corrupted test set, and train the
    reference population (dense, ``reference_seeds``, which must not overlap ``seeds``).

    Returns the clean populations per level (0.0 = dense), the tidy accuracy frame of
    :func:`accuracy_frame` and the reference population (None without ``reference_seeds``).
    """
    names, sev = _check_grid(names, severities)
    seeds = list(seeds)
    pops = compression_impact.train_populations(base, seeds, levels, store, root, progress)
    specs = [s for pop in pops.values() for s in pop.specs]
    level_of = np.repeat(list(pops), [len(p.specs) for p in pops.values()])
    parts = [_member_rows(p, t, CLEAN, 0) for t, p in pops.items()]
    grid = [(c, s) for c in names for s in sev]
    for corruption, severity in tqdm(grid, disable=not progress, desc="corrupted test sets"):
        shifted = runs.run_corrupted(
            specs, corruption, severity, store, root, seed=corruption_seed
        )
        for t in pops:
            rows = level_of == t
            sub = runs.Population(
                tuple(s for s, r in zip(shifted.specs, rows, strict=True) if r),
                shifted.preds[rows],
                shifted.labels,
                shifted.classes,
                shifted.sparsity[rows],
            )
            parts.append(_member_rows(sub, t, corruption, severity))
    reference = None
    if reference_seeds is not None:
        ref_seeds = list(reference_seeds)
        overlap = sorted(set(ref_seeds) & set(seeds))
        if overlap:
            raise PruneAuditError(
                f"the reference population must be trained on other seeds; seeds {overlap} "
                "are also population members"
            )
        ref_specs = runs.member_specs(base, compression_impact._check_seeds(ref_seeds))
        reference = runs.run_population(ref_specs, store, root, progress)
    test = runs.splits(specs[0], root).test
    return RobustnessRuns(pops, pd.concat(parts, ignore_index=True), reference, test)


def accuracy_frame(runs: RobustnessRuns) -> pd.DataFrame:
    """Tidy member accuracies: level, seed, sparsity (measured), corruption (``"clean"`` for
    the clean test set, severity 0), severity, accuracy."""
    return runs.accuracy.copy()


def mean_accuracy(runs: RobustnessRuns) -> pd.DataFrame:
    """Population-mean accuracy (and its standard deviation over members) per level,
    corruption and severity; the clean test set is ``corruption = "clean"``, severity 0."""
    keys = ["level", "corruption", "severity"]
    out = (
        runs.accuracy.groupby(keys, sort=False)
        .agg(accuracy=("accuracy", "mean"), accuracy_sd=("accuracy", "std"),
             sparsity=("sparsity", "mean"), members=("seed", "size"))
        .reset_index()
    )
    out["level_name"] = [_level_name(t) for t in out["level"]]
    return out


def accuracy_by_severity(runs: RobustnessRuns) -> pd.DataFrame:
    """Population-mean accuracy averaged over the corruptions, per level and severity
    (severity 0 = the clean test set). Columns: level, level_name, severity, accuracy."""
    means = mean_accuracy(runs)
    out = means.groupby(["level", "severity"], sort=True)["accuracy"].mean().reset_index()
    out["level_name"] = [_level_name(t) for t in out["level"]]
    return out[["level", "level_name", "severity", "accuracy"]]


def corruption_examples(
    test: data.ImageData,
    index: int,
    names: Sequence[str] = data.CORRUPTIONS,
    severities: Sequence[int] = SEVERITIES,
    seed: int = 0,
    scale: int = 2,
) -> pd.DataFrame:
    """One test image under every corruption and severity, for a gallery (the draws of
    :func:`pruneaudit.corruptions.corrupt` with ``seed`` on that image alone).

    Columns: corruption, severity, image (PNG data URL), caption."""
    names, sev = _check_grid(names, severities)
    if not 0 <= index < len(test):
        raise PruneAuditError(f"index must be in 0..{len(test) - 1}, got {index}")
    one = test.images[index : index + 1]
    rows = [{"corruption": "clean", "severity": 0, "image": charts.image_data_url(
        one[0].numpy(), scale), "caption": "clean"}]
    for name in names:
        for s in sev:
            img = data.corrupt(one, name, s, seed=seed)[0].numpy()
            rows.append({"corruption": name, "severity": s,
                         "image": charts.image_data_url(img, scale), "caption": f"{name} {s}"})
    return pd.DataFrame(rows)


def _level_name(level: float) -> str:
    return "dense" if level == 0 else compression_impact.variant_name(level=level)


def relative_robustness(runs: RobustnessRuns) -> pd.DataFrame:
    """H1's relative robustness per corruption and pruning level, from population means.

    Columns: corruption, level, level_name, sparsity (measured, mean), severities,
    mean_ratio (mean over severities of pruned / dense accuracy), relative_change_pct,
    clean_change_pct (the same ratio on the clean test set, for reference).
    """
    means = mean_accuracy(runs)
    shifted = means[means["corruption"] != CLEAN]
    table = data.relative_robustness(
        shifted.rename(columns={"sparsity": "measured", "level": "sparsity"})[
            ["sparsity", "corruption", "severity", "accuracy"]
        ]
    ).rename(columns={"sparsity": "level"})
    clean = means[means["corruption"] == CLEAN].set_index("level")
    dense_clean = clean.loc[0.0, "accuracy"]
    table["clean_change_pct"] = [100 * (clean.loc[t, "accuracy"] / dense_clean - 1)
                                 for t in table["level"]]
    table["sparsity"] = [clean.loc[t, "sparsity"] for t in table["level"]]
    table["level_name"] = [_level_name(t) for t in table["level"]]
    cols = ["corruption", "level", "level_name", "sparsity", "severities", "mean_ratio",
            "relative_change_pct", "clean_change_pct"]
    return table[cols].sort_values(["level", "relative_change_pct"], ignore_index=True)


def most_hurt(table: pd.DataFrame, top: int | None = None) -> pd.DataFrame:
    """Corruptions ranked per level by relative change (most negative first, rank 1), from
    :func:`relative_robustness`; ``top`` keeps the first ``top`` per level."""
    out = table.sort_values(["level", "relative_change_pct"], ignore_index=True)
    out["rank"] = out.groupby("level").cumcount() + 1
    return out if top is None else out[out["rank"] <= top].reset_index(drop=True)


def reference_wrong(runs: RobustnessRuns) -> np.ndarray:
    """Mask of the test examples whose reference-population modal label is wrong."""
    if runs.reference is None:
        raise PruneAuditError("no reference population: run with reference_seeds")
    ref = runs.reference
    k = int(max(ref.labels.max(), ref.preds.max())) + 1
    return audit.modal_labels(ref.preds, k) != ref.labels


def natural_adversarial(runs: RobustnessRuns) -> pd.DataFrame:
    """Accuracy of every population on the examples the reference population gets wrong, on
    the rest, and on all (:func:`pruneaudit.cie.subset_accuracy`), with each pruned level's
    relative change against the dense population on the same subset.

    Columns: subset, level, level_name, n, modal_accuracy, mean_member_accuracy,
    relative_change_pct (of the mean-member accuracy; 0 for dense).
    """
    wrong = reference_wrong(runs)
    pops = runs.populations
    y = pops[0.0].labels
    k = int(max(y.max(), *(p.preds.max() for p in pops.values()))) + 1
    table = audit.subset_accuracy(
        y,
        {t: p.preds for t, p in pops.items()},
        {"reference_wrong": wrong, "reference_right": ~wrong, "all": np.ones_like(wrong)},
        k,
    ).rename(columns={"population": "level"})
    dense = table[table["level"] == 0.0].set_index("subset")["mean_member_accuracy"]
    table["relative_change_pct"] = [
        100 * (a / dense[s] - 1) if dense[s] > 0 else float("nan")
        for s, a in zip(table["subset"], table["mean_member_accuracy"], strict=True)
    ]
    table["level_name"] = [_level_name(t) for t in table["level"]]
    cols = ["subset", "level", "level_name", "n", "modal_accuracy", "mean_member_accuracy",
            "relative_change_pct"]
    return table[cols]


def findings(runs: RobustnessRuns) -> pd.DataFrame:
    """Our values for H1's section-4 findings, each with whether ours points the same way.

    ``corruptions_hurt_pruned``: at the highest level, the mean over corruptions of the relative
    change (%) is negative; ``more_hurt_at_higher_sparsity``: Spearman rho of that mean with the
    level is negative (needs 2 pruned levels or more, else NaN and not agreeing);
    ``shift_hurts_more_than_clean``: at the highest level the mean relative change under
    corruption is below the clean relative change; ``natural_adversarial_hurt``: the pruned
    population at the highest level is less accurate than the dense one on the examples the
    reference population gets wrong (None without a reference population).
    Columns: finding, value, agrees.
    """
    table = relative_robustness(runs)
    per_level = table.groupby("level").agg(
        change=("relative_change_pct", "mean"), clean=("clean_change_pct", "first")
    )
    top = per_level.index.max()
    rows = [{"finding": "corruptions_hurt_pruned", "value": float(per_level.loc[top, "change"]),
             "agrees": bool(per_level.loc[top, "change"] < 0)}]
    levels = [0.0, *per_level.index]
    changes = [0.0, *per_level["change"]]
    tr = compression_impact.trend(levels, changes)
    rows.append({"finding": "more_hurt_at_higher_sparsity", "value": tr["rho"],
                 "agrees": bool(tr["rho"] < 0)})
    gap = float(per_level.loc[top, "change"] - per_level.loc[top, "clean"])
    rows.append({"finding": "shift_hurts_more_than_clean", "value": gap, "agrees": bool(gap < 0)})
    if runs.reference is not None:
        nat = natural_adversarial(runs)
        row = nat[(nat["subset"] == "reference_wrong") & (nat["level"] == top)].iloc[0]
        rows.append({"finding": "natural_adversarial_hurt",
                     "value": float(row["relative_change_pct"]),
                     "agrees": bool(row["relative_change_pct"] < 0)})
    return pd.DataFrame(rows, columns=["finding", "value", "agrees"])
