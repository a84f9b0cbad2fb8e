"""Study 4's tables: per-class tests, PIE and CIE accuracy, sub-groups, over-indexing, PIEs.

Every table compares one variant with the baseline on the same test set:

- :func:`class_tests`: H1's per-class Welch t-test on mean-shifted recall
  (:func:`pruneaudit.audit.class_recall_ttest_from_predictions`);
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
from pruneaudit.runs.cost import seconds_per_10k
from pruneaudit.studies.compression_impact.run import (
    PRUNING,
    QUANTIZATION,
    Compressed,
    ImpactRuns,
    Result,
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
    parts = []
    for c in _select(runs, names):
        table = audit.class_recall_ttest_from_predictions(
            _labels(runs), runs.baseline.preds, c.population.preds, runs.num_classes, alpha=alpha
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
    (:func:`pruneaudit.audit.compare_populations`). The error rate is the
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
    parts = []
    for c in _select(runs, names):
        tables = [
            audit.compare_populations(
                y, runs.baseline.preds, c.population.preds, groups, positive_class=k,
                reduce=reduce,
            )
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


def protocol_table(result: Result) -> pd.DataFrame:
    """The published protocol beside this page's: one row per setting (H1 / H2 vs ours),
    with the training cost of both (:func:`pruneaudit.runs.training_cost`) at the model's
    training rate in the page's results store (:func:`pruneaudit.runs.cost.seconds_per_10k`)."""
    impact, spec = result.runs, result.populations.spec
    rate = seconds_per_10k(spec.model, result.params.store)
    levels = [c.level for c in impact.compressed if c.kind == PRUNING]
    schemes = [c.scheme for c in impact.compressed if c.kind == QUANTIZATION]
    k, n_train, n_test = len(impact.baseline.specs), len(impact.train), len(impact.test)
    paper = runs.training_cost(30 * (1 + 7) * 30, 48_000, rate.seconds_per_10k)
    ours = runs.training_cost(k * (1 + len(levels)) * spec.epochs, n_train,
                                     rate.seconds_per_10k)
    meta = impact.test.meta
    groups = (meta["series"].value_counts().sort_index() if meta is not None
              and "series" in meta.columns else None)
    rows = [
        ("task", "ImageNet / ResNet-50 and CIFAR-10 / WRN (H1); CelebA Blond_Hair / ResNet-18 "
         "(H2)", f"{spec.dataset} / {spec.model}"),
        ("population size K", "30 per level", str(k)),
        ("populations", "trained separately for every level",
         "independent: each level its own seeds" if impact.independent
         else "shared seeds: member k of every level has seed k (paired)"),
        ("pruning", "gradual magnitude pruning during training (Zhu & Gupta)",
         f"{runs.GRADUAL_TECHNIQUE} per layer, cubic schedule, pruned weights may "
         "regrow between mask updates"),
        ("end sparsity t", "0.3, 0.5, 0.7, 0.9 (H1); also 0.95, 0.99 (H2)",
         ", ".join(f"{t:g}" for t in levels)),
        ("quantization", "float16, dynamic-range int8, fixed-point int8 (TF Lite)",
         (", ".join(schemes) or "none") + " (PyTorch, post-training, run on the CPU: torch's "
         "int8 kernels)"),
        ("training examples per model", "all training images of the task",
         f"{n_train:,} (80% of the first {spec.train_size or 60_000:,}, split by the seed)"),
        ("epochs / optimizer", "H2: 10,000 steps, batch 256 (CelebA)",
         f"{spec.epochs} epochs, SGD lr {spec.lr:g}, batch {spec.batch_size}"),
        ("augmentation", "random crop and flip",
         "random crop (pad 2), no flip" if spec.augment else "none"),
        ("test examples", "full test set", f"{n_test:,}" + ("" if groups is None else " ("
         + ", ".join(f"{g}: {n:,}" for g, n in groups.items()) + ")")),
        ("model-epochs (dense + pruned)", f"{paper.model_epochs:,} (K = 30, 8 levels, 30 "
         f"epochs of LeNet)", f"{ours.model_epochs:,}"),
        ("training rate (CPU)", "", rate.text()),
        ("training hours at that rate", f"{paper.hours:.1f}", f"{ours.hours:.2f}"),
        ("training hours on a GPU", runs.gpu_cost_text("Study 4"), ""),
    ]
    return pd.DataFrame(rows, columns=["setting", "published", "this page"]).set_index(
        "setting")


def paper_number(metric: str, **columns: str) -> float:
    """A published number of this study's sources, NaN where the paper prints none."""
    try:
        return lookup(metric, **columns).number
    except PruneAuditError:
        return float("nan")


def h1_setting(c: Compressed, table: int) -> str:
    """H1's name of the setting of variant ``c`` in its Table ``table`` (2 or 6)."""
    if c.kind == QUANTIZATION:
        return H1_SCHEMES.get(c.scheme, c.scheme)
    return f"t={100 * c.level:g}%" if table == 2 else f"t={100 * c.level:.1f}%"


def h1_class_table(runs: ImpactRuns, alpha: float = 0.05) -> pd.DataFrame:
    """H1 Table 2's layout on our data: per variant, top-1, the count of classes with a
    significant change and the count of PIEs, beside H1's ImageNet (and CIFAR-10) values at
    the same level or scheme (NaN where H1 prints none)."""
    table = summary(runs, alpha)
    sig = "count significant classes (Welch p<=0.05)"
    rows = []
    for c, r in zip(runs.compressed, table.itertuples(), strict=True):
        setting = h1_setting(c, 2)
        rows.append({
            "variant": c.name,
            "top-1 (ours)": r.compressed_top1,
            "significant classes (ours)": f"{r.significant_classes} of {runs.num_classes}",
            "PIEs (ours)": f"{r.pie:,} of {len(runs.test):,}",
            "H1 ImageNet top-1": paper_number("top-1 (%)", dataset=IMAGENET,
                                               setting=setting) / 100,
            "H1 ImageNet significant classes (of 1,000)": paper_number(
                sig, dataset=IMAGENET, setting=setting),
            "H1 ImageNet PIEs (of 50,000)": paper_number("count PIEs", dataset=IMAGENET,
                                                          setting=setting),
            "H1 CIFAR-10 significant classes (of 10)": paper_number(
                sig, dataset="CIFAR-10 test", setting=setting),
        })
    return pd.DataFrame(rows)


def h1_pie_table(runs: ImpactRuns) -> pd.DataFrame:
    """H1 Table 6's layout on our data: per pruned level, the mean-member top-1 of the dense and
    the compressed population on the PIEs, the non-PIEs and all examples (H1's values are means
    over its models), beside H1's ImageNet values (NaN where H1 prints none)."""
    acc = pie_accuracy(runs)
    rows = []
    for c in runs.compressed:
        if c.kind != PRUNING:
            continue
        mine = acc[acc["variant"] == c.name]
        a = mine.set_index(["subset", "population"])["mean_member_accuracy"]
        setting = h1_setting(c, 6)
        row = {"variant": c.name, "PIEs": int(mine[mine["subset"] == "pie"]["n"].iloc[0])}
        for subset, label in (("pie", "PIEs"), ("non_pie", "non-PIEs"), ("all", "All")):
            row[f"dense on {label}"] = a[(subset, "baseline")]
            row[f"compressed on {label}"] = a[(subset, "compressed")]
            row[f"H1 ImageNet on {label}"] = paper_number(
                f"top-1 {label} (%)", dataset="ImageNet", setting=setting) / 100
        rows.append(row)
    return pd.DataFrame(rows)


def cie_table(
    runs: ImpactRuns, percentiles: Sequence[int] = audit.PERCENTILES, seed: int = 0
) -> pd.DataFrame:
    """H2's CIE accuracy layout: per variant and Taxicab top share, the mean-member top-1 of
    both populations on the CIEs (:func:`cie_accuracy`), beside H2's CelebA values at the same
    pruning level (NaN where H2 prints none)."""
    cies = cie_accuracy(runs, percentiles, seed)
    taxi = cies[cies["score"] == "taxicab"]
    wide = taxi.pivot_table(index=["variant", "level", "percentile", "n"], columns="population",
                            values="mean_member_accuracy", sort=False).reset_index()
    wide["H2 CelebA compressed"] = [
        paper_number(f"top-1 on Taxicab CIEs, {q}th pct (%)", dataset="CelebA test",
                      setting=f"t={100 * t:.1f}%") / 100 if t == t else float("nan")
        for t, q in zip(wide["level"], wide["percentile"], strict=True)
    ]
    wide["top share"] = [f"top {100 - q}%" for q in wide["percentile"]]
    return wide[["variant", "top share", "n", "baseline", "compressed", "H2 CelebA compressed"]]
