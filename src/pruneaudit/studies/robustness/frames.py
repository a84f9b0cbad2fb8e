"""Study 5's frames: the runs of its page and the tables computed from them.

- :class:`RobustnessRuns`: the clean populations per level, the tidy accuracy frame, the
  reference population and the clean test data (what :func:`~.run.run` makes);
- :func:`member_rows`, :func:`level_rows`: each member's top-1 under one corruption;
- :func:`relative_robustness`: H1's metric per corruption and level, from the population-mean
  accuracy (:func:`pruneaudit.data.relative_robustness`: the mean over severities of pruned /
  dense accuracy on the same corruption, and its relative change in %);
- :func:`most_hurt`: the corruptions ranked by that change at each level;
- :func:`natural_adversarial`: the analogue of ImageNet-A: the test examples that a separately
  trained dense *reference* population (other seeds) gets wrong (modal label wrong), and the
  accuracy of each population on them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pruneaudit import audit, charts, data, runs
from pruneaudit.errors import PruneAuditError
from pruneaudit.runs.populations import level_name
from pruneaudit.studies.robustness.params import SEVERITIES, check_grid

CLEAN = "clean"
NATURAL = "natural_adversarial"


@dataclass(frozen=True)
class RobustnessRuns:
    """Clean populations per level, the tidy accuracy frame (``accuracy``: level, seed, sparsity
    (measured), corruption (``"clean"`` for the clean test set, severity 0), severity and each
    member's top-1), the reference population and the clean test data."""

    populations: dict[float, runs.Population]
    accuracy: pd.DataFrame
    reference: runs.Population | None
    test: data.ImageData | None = None


def member_rows(
    pop: runs.Population, level: float, corruption: str, severity: int
) -> pd.DataFrame:
    """One row per member of ``pop`` (at ``level``): seed, sparsity and top-1 on the test set
    under ``corruption`` at ``severity`` (``clean``, 0: the clean test set)."""
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


def level_rows(
    pops: dict[float, runs.Population], shifted: runs.Population, corruption: str, severity: int
) -> pd.DataFrame:
    """:func:`member_rows` of every level of ``pops``, from ``shifted``: the same members, in
    the same order, evaluated under ``corruption`` at ``severity``."""
    parts, start = [], 0
    for level, pop in pops.items():
        k = len(pop.specs)
        sub = runs.Population(shifted.specs[start:start + k], shifted.preds[start:start + k],
                              shifted.labels, shifted.classes, shifted.sparsity[start:start + k])
        parts.append(member_rows(sub, level, corruption, severity))
        start += k
    return pd.concat(parts, ignore_index=True)


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
    out["level_name"] = [level_name(t) for t in out["level"]]
    return out


def accuracy_by_severity(runs: RobustnessRuns) -> pd.DataFrame:
    """Population-mean accuracy averaged over the corruptions, per level and severity
    (severity 0 = the clean test set). Columns: level, level_name, severity, accuracy."""
    means = mean_accuracy(runs)
    out = means.groupby(["level", "severity"], sort=True)["accuracy"].mean().reset_index()
    out["level_name"] = [level_name(t) for t in out["level"]]
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
    :func:`pruneaudit.data.corrupt` with ``seed`` on that image alone).

    Columns: corruption, severity, image (PNG data URL), caption."""
    names, sev = check_grid(names, severities)
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
    table["level_name"] = [level_name(t) for t in table["level"]]
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
    the rest, and on all (:func:`pruneaudit.audit.subset_accuracy`), with each pruned level's
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
    table["level_name"] = [level_name(t) for t in table["level"]]
    cols = ["subset", "level", "level_name", "n", "modal_accuracy", "mean_member_accuracy",
            "relative_change_pct"]
    return table[cols]


def natural_member_rows(runs: RobustnessRuns) -> pd.DataFrame:
    """Member accuracies on the examples the reference population gets wrong, as rows of the
    accuracy frame with ``corruption = "natural_adversarial"`` (severity 0)."""
    wrong = reference_wrong(runs)
    parts = []
    for t, pop in runs.populations.items():
        sub = (pop.preds[:, wrong] == pop.labels[None, wrong]).mean(axis=1)
        parts.append(pd.DataFrame({"level": t, "seed": [s.seed for s in pop.specs],
                                   "sparsity": pop.sparsity, "corruption": NATURAL,
                                   "severity": 0, "accuracy": sub}))
    return pd.concat(parts, ignore_index=True)
