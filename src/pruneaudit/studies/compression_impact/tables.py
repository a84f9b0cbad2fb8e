"""Study 4's tables: per-class tests, PIE and CIE accuracy, sub-groups, over-indexing, PIEs.

Every table compares one variant with the baseline on the same test set:

- :func:`class_tests`: H1's per-class Welch t-test on mean-shifted recall
  (:func:`pruneaudit.audit.class_recall_ttest` of :func:`pruneaudit.audit.population_recalls`);
- :func:`summary`: per variant the measured sparsity, mean member top-1 of both populations,
  the count of significant classes (raw and Benjamini-Hochberg) and the count of PIEs;
- :func:`pie_accuracy`: top-1 of both populations on PIE, non-PIE and all examples;
- :func:`cie_accuracy`: top-1 on the Taxicab / Jaccard top 10 %, 5 %, 1 %;
- :func:`subgroup_metrics`: H2's error rate, FPR and FNR per group (QMNIST writer series);
- :func:`over_indexing`: each group's share of the training set and of the test set vs its
  share of the CIE (= PIE) set;
- :func:`pie_examples`: the PIEs with images and labels.

Modal labels break ties as H1's released code does (:func:`pruneaudit.audit.modal_labels`).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np
import pandas as pd

from pruneaudit import audit, charts, data, runs
from pruneaudit.errors import PruneAuditError
from pruneaudit.studies.compression_impact.run import (
    PRUNING,
    Compressed,
    ImpactRuns,
)

#: PIE categories by which population's modal label is right (both cannot be, they differ).
PIE_CATEGORIES = ("baseline right, compressed wrong", "compressed right, baseline wrong",
                  "both wrong")
STUDY = "S4_class_level_PIE_CIE"
#: The CelebA attributes H2 analyses: the target and the two protected attributes.
CELEBA_TARGET, CELEBA_GROUPS = "Blond_Hair", ("Male", "Young")
#: H1 prints its headline numbers at t = 90%: the findings use our pruning level nearest to it.
HEADLINE_LEVEL = 0.9
#: Our quantization schemes and H1's names for them (Table 2).
H1_SCHEMES = {"float16": "FLOAT16", "dynamic_int8": "DYNAMIC RANGE INT8",
              "static_int8": "FIXED-POINT INT8"}
IMAGENET = "ImageNet test set (as printed)"


@functools.cache
def lookup(metric: str, **columns: str) -> audit.Published:
    """The one published Study 4 row of ``metric`` (:func:`pruneaudit.audit.lookup`)."""
    return audit.lookup(STUDY, metric, **columns)


def headline_variant(runs: ImpactRuns) -> Compressed:
    """The pruned variant whose level is nearest :data:`HEADLINE_LEVEL` (ties: the higher)."""
    pruned = [c for c in runs.compressed if c.kind == PRUNING]
    if not pruned:
        raise PruneAuditError("the study has no pruned population; give at least one level")
    return min(pruned, key=lambda c: (abs(c.level - HEADLINE_LEVEL), -c.level))


def _labels(runs: ImpactRuns) -> np.ndarray:
    return runs.baseline.labels


def _select(runs: ImpactRuns, names: Sequence[str] | None) -> list[Compressed]:
    return list(runs.compressed) if names is None else [runs.get(n) for n in names]


def _variant_columns(c: Compressed) -> dict[str, object]:
    return {"variant": c.name, "kind": c.kind, "level": c.level, "scheme": c.scheme}


def member_accuracy(pop: runs.Population) -> np.ndarray:
    """Top-1 accuracy of each member of a population: ``(K,)``."""
    return (pop.preds == pop.labels[None, :]).mean(axis=1)


def class_tests(
    runs: ImpactRuns, alpha: float = 0.05, names: Sequence[str] | None = None
) -> pd.DataFrame:
    """H1's per-class Welch t-tests of every variant against the baseline (tidy, one row per
    variant and class; columns of :func:`pruneaudit.audit.class_recall_ttest`)."""
    labels = _labels(runs)
    base = audit.population_recalls(labels, runs.baseline.preds, runs.num_classes)  # once
    parts = []
    for c in _select(runs, names):
        table = audit.class_recall_ttest(
            *base, *audit.population_recalls(labels, c.population.preds, runs.num_classes),
            alpha=alpha,
        )
        parts.append(table.assign(**_variant_columns(c)))
    out = pd.concat(parts, ignore_index=True)
    out["class_name"] = [runs.test.classes[k] for k in out["class"]]
    return out


def summary(runs: ImpactRuns, alpha: float = 0.05) -> pd.DataFrame:
    """One row per variant: measured sparsity, top-1 (mean over members) of baseline and
    compressed, its change, the counts of significant classes and the count of PIEs."""
    tests = class_tests(runs, alpha)
    base_acc = member_accuracy(runs.baseline)
    rows = []
    for c in runs.compressed:
        acc = member_accuracy(c.population)
        pie = audit.pie_flags(runs.baseline.preds, c.population.preds, runs.num_classes)
        counts = audit.significant_counts(tests[tests["variant"] == c.name])
        rows.append(
            {
                **_variant_columns(c),
                "sparsity": float(np.mean(c.population.sparsity)),
                "baseline_top1": float(base_acc.mean()),
                "compressed_top1": float(acc.mean()),
                "top1_change": float(acc.mean() - base_acc.mean()),
                "significant_classes": counts["significant"],
                "significant_classes_bh": counts["significant_bh"],
                "pie": int(pie.sum()),
                "pie_share": float(pie.mean()),
            }
        )
    return pd.DataFrame(rows)


def recall_curves(runs: ImpactRuns) -> pd.DataFrame:
    """Mean recall per class along the pruning levels (level 0 = the baseline), for curves.

    Columns: level, sparsity (measured, mean over members), class, class_name, recall (mean
    over members), baseline_recall (the class's recall at level 0).
    """
    pops = [(0.0, runs.baseline)] + [
        (c.level, c.population) for c in runs.compressed if c.kind == PRUNING
    ]
    base = None
    rows = []
    for level, pop in pops:
        recalls, _ = audit.population_recalls(_labels(runs), pop.preds, runs.num_classes)
        mean = recalls.mean(axis=0)
        base = mean if base is None else base
        for k, r in enumerate(mean):
            rows.append(
                {
                    "level": level,
                    "sparsity": float(np.mean(pop.sparsity)),
                    "class": k,
                    "class_name": runs.test.classes[k],
                    "recall": float(r),
                    "baseline_recall": float(base[k]),
                }
            )
    return pd.DataFrame(rows)


def pie_accuracy(runs: ImpactRuns) -> pd.DataFrame:
    """Top-1 of the baseline and compressed populations on PIE, non-PIE and all examples,
    per variant (:func:`pruneaudit.audit.pie_accuracy`: modal-label and mean-member accuracy)."""
    parts = [
        audit.pie_accuracy(
            _labels(runs), runs.baseline.preds, c.population.preds, runs.num_classes
        ).assign(**_variant_columns(c))
        for c in runs.compressed
    ]
    return pd.concat(parts, ignore_index=True)


def cie_accuracy(
    runs: ImpactRuns,
    percentiles: Sequence[int] = audit.PERCENTILES,
    seed: int = 0,
    names: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Top-1 of both populations on the examples above each percentile of the Taxicab and the
    Jaccard score (ties broken at random by ``seed``), per variant.

    Columns: variant, kind, level, scheme, score, percentile, top_share (%), subset size ``n``,
    population, modal_accuracy, mean_member_accuracy, same_as_taxicab (whether the Jaccard
    selection equals the Taxicab one; it must, as the scores rank examples alike).
    """
    y = _labels(runs)
    parts = []
    for c in _select(runs, names):
        b, v = runs.baseline.preds, c.population.preds
        scores = {
            "taxicab": audit.taxicab_scores(b, v, runs.num_classes),
            "jaccard": audit.jaccard_scores(b, v, runs.num_classes),
        }
        for q in percentiles:
            masks = {name: audit.top_percentile(s, int(q), seed) for name, s in scores.items()}
            for name, mask in masks.items():
                table = audit.subset_accuracy(
                    y, {"baseline": b, "compressed": v}, {"top": mask}, runs.num_classes
                )
                parts.append(
                    table.drop(columns="subset").assign(
                        **_variant_columns(c),
                        score=name,
                        percentile=int(q),
                        top_share=100 - int(q),
                        same_as_taxicab=bool(np.array_equal(mask, masks["taxicab"])),
                    )
                )
    cols = ["variant", "kind", "level", "scheme", "score", "percentile", "top_share", "n",
            "population", "modal_accuracy", "mean_member_accuracy", "same_as_taxicab"]
    return pd.concat(parts, ignore_index=True)[cols]


def _groups(runs: ImpactRuns, group: str) -> pd.DataFrame:
    meta = runs.test.meta
    if meta is None or group not in meta.columns:
        have = [] if meta is None else list(meta.columns)
        raise PruneAuditError(
            f"the test set of {runs.test.name!r} has no group column {group!r}; it has {have}"
        )
    return meta[[group]]


def subgroup_metrics(
    runs: ImpactRuns,
    group: str = "series",
    names: Sequence[str] | None = None,
    reduce: str = "mean",
) -> pd.DataFrame:
    """H2's sub-group error rate, FPR and FNR of baseline vs compressed, per variant.

    ``reduce="mean"``: metrics computed per member and averaged over the K members;
    ``"modal"``: metrics of each population's modal labels, K times fewer evaluations
    (:func:`pruneaudit.audit.compare_group_metrics`). The error rate is the
    top-1 error. FPR and FNR need a binary target: for a multi-class task each class in turn is
    the positive class (one-vs-rest) and the rates are averaged over classes (macro average);
    a binary task uses class 1. ``normalized_difference = (compressed - baseline) / baseline``
    of these averages. Columns: variant, kind, level, scheme, grouping, group, n, metric,
    baseline, compressed, normalized_difference.
    """
    y = _labels(runs)
    groups = _groups(runs, group)
    positives = [1] if runs.num_classes == 2 else [int(k) for k in np.unique(y)]
    keys = ["grouping", "group", "n", "metric"]

    def metrics(preds: np.ndarray, k: int) -> pd.DataFrame:
        return audit.population_group_metrics(y, preds, groups, positive_class=k, reduce=reduce)

    base = {k: metrics(runs.baseline.preds, k) for k in positives}  # once for every variant
    parts = []
    for c in _select(runs, names):
        tables = [
            audit.compare_group_metrics(base[k], metrics(c.population.preds, k))
            for k in positives
        ]
        table = (
            pd.concat(tables)
            .groupby(keys, sort=False)[["baseline", "compressed"]]
            .mean()
            .reset_index()
        )
        table["normalized_difference"] = audit.normalized_difference(
            table["baseline"], table["compressed"]
        )
        parts.append(table.assign(**_variant_columns(c)))
    cols = ["variant", "kind", "level", "scheme", *keys, "baseline", "compressed",
            "normalized_difference"]
    return pd.concat(parts, ignore_index=True)[cols]


def cie_threshold() -> int:
    """H2's Taxicab percentile for the CIE set of its over-indexing figure (Fig. 2): 80."""
    return round(100 * lookup("Taxicab CIE threshold used in Fig. 2").number)


def over_indexing(
    runs: ImpactRuns,
    group: str = "series",
    names: Sequence[str] | None = None,
    percentile: int | None = None,
    seed: int = 0,
) -> pd.DataFrame:
    """Each group's share of the training set and of the test set vs its share of the CIE set,
    per variant (:func:`pruneaudit.audit.over_indexing`). The CIE set is H2's of Fig. 2: the
    examples above the ``percentile`` of the Taxicab score (None: :func:`cie_threshold`; ties
    broken by ``seed``).

    ``over_index_train = cie_share / train_share`` (H2's comparison) and
    ``over_index_test = cie_share / test_share`` (the CIEs are drawn from the test set, so this
    one is free of any train/test shift in the group mix).
    """
    if runs.train.meta is None or group not in runs.train.meta.columns:
        raise PruneAuditError(f"the training set has no group column {group!r}")
    test_groups = _groups(runs, group)
    q = cie_threshold() if percentile is None else percentile
    parts = []
    for c in _select(runs, names):
        scores = audit.taxicab_scores(runs.baseline.preds, c.population.preds, runs.num_classes)
        pie = audit.top_percentile(scores, q, seed)
        vs_train = audit.over_indexing(runs.train.meta[[group]], test_groups[pie])
        vs_test = audit.over_indexing(test_groups, test_groups[pie])
        table = vs_train.rename(columns={"over_index": "over_index_train"}).merge(
            vs_test[["attribute", "value", "train_count", "train_share", "over_index"]].rename(
                columns={
                    "train_count": "test_count",
                    "train_share": "test_share",
                    "over_index": "over_index_test",
                }
            ),
            on=["attribute", "value"],
            how="outer",
        )
        for col in ("train_count", "test_count", "cie_count"):  # a group absent from a set
            table[col] = table[col].fillna(0).astype(int)
        table["test_share"] = table["test_share"].fillna(0.0)
        table["train_share"] = table["train_count"] / len(runs.train.meta)
        table["percentile"] = q
        parts.append(table.assign(**_variant_columns(c)))
    cols = ["variant", "kind", "level", "scheme", "percentile", "attribute", "value",
            "train_count", "train_share", "test_count", "test_share", "cie_count", "cie_share",
            "over_index_train", "over_index_test"]
    return pd.concat(parts, ignore_index=True)[cols]


def pie_examples(
    runs: ImpactRuns,
    name: str,
    per_category: int | None = 24,
    scale: int = 2,
) -> pd.DataFrame:
    """The PIEs of variant ``name`` with their images, for a gallery.

    One row per PIE, at most ``per_category`` per category of :data:`PIE_CATEGORIES` (None:
    all), highest Taxicab score first (then test index). Columns: index, label, baseline_label,
    compressed_label, category, taxicab, the test meta columns (QMNIST: series, writer...),
    ``image`` (PNG data URL) and ``caption`` (true / baseline / compressed labels).
    """
    c = runs.get(name)
    k = runs.num_classes
    b, v = runs.baseline.preds, c.population.preds
    y = _labels(runs)
    base_modal, comp_modal = audit.modal_labels(b, k), audit.modal_labels(v, k)
    pie = base_modal != comp_modal
    category = np.where(
        base_modal == y, PIE_CATEGORIES[0], np.where(comp_modal == y, PIE_CATEGORIES[1],
                                                      PIE_CATEGORIES[2])
    )
    frame = pd.DataFrame(
        {
            "index": np.arange(y.size),
            "label": y,
            "baseline_label": base_modal,
            "compressed_label": comp_modal,
            "category": category,
            "taxicab": audit.taxicab_scores(b, v, k),
        }
    )
    if runs.test.meta is not None:
        meta = runs.test.meta.drop(columns=[m for m in ("label",) if m in runs.test.meta])
        frame = pd.concat([frame, meta.reset_index(drop=True)], axis=1)
    frame = frame[pie].sort_values(["taxicab", "index"], ascending=[False, True], kind="stable")
    if per_category is not None:
        frame = frame.groupby("category", sort=False).head(per_category)
    frame["caption"] = [  # label indices: short enough for a gallery cell
        f"true {a}\nbase {p}\ncomp {q}"
        for a, p, q in zip(frame["label"], frame["baseline_label"], frame["compressed_label"],
                           strict=True)
    ]
    images = runs.test.images.numpy()
    frame["image"] = [charts.image_data_url(images[i], scale=scale) for i in frame["index"]]
    return frame.reset_index(drop=True)


def celeba_representation(root: str | None = None) -> pd.DataFrame:
    """Shares of H2's target and protected attributes (and their intersections) in CelebA's
    training partition, from the attribute annotations alone (no images needed).

    Columns: group, n, share, blond_share (share of ``Blond_Hair`` within the group).
    """
    attrs = data.celeba_attributes(root, split="train")
    a, b = CELEBA_GROUPS
    masks = {"all": np.ones(len(attrs), dtype=bool)}
    for col in CELEBA_GROUPS:
        masks[f"{col}"] = attrs[col].to_numpy()
        masks[f"not {col}"] = ~attrs[col].to_numpy()
    for ma in (True, False):
        for mb in (True, False):
            label = f"{'' if ma else 'not '}{a} & {'' if mb else 'not '}{b}"
            masks[label] = (attrs[a].to_numpy() == ma) & (attrs[b].to_numpy() == mb)
    target = attrs[CELEBA_TARGET].to_numpy()
    return pd.DataFrame(
        [
            {
                "group": g,
                "n": int(m.sum()),
                "share": float(m.mean()),
                "blond_share": float(target[m].mean()) if m.any() else float("nan"),
            }
            for g, m in masks.items()
        ]
    )
