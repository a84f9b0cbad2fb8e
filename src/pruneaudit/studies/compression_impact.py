"""Study 4 (H1 sections 2-3, H2 sections 2-3): class-level impact, PIE and CIE of compression.

Populations: K independently trained models (one per seed) per compression variant. The
baseline is the dense population (level 0); a *pruned* variant is the population trained with
gradual magnitude pruning to end sparsity ``t`` (:func:`pruneaudit.experiments.member_specs`);
a *quantized* variant is the baseline population quantized post-training with one scheme of
:data:`pruneaudit.quantize.SCHEMES` (:func:`pruneaudit.experiments.run_quantized`). Member k of
every variant has the seed of baseline member k, so per-class recall ratios pair by seed.

Every table compares one variant with the baseline on the same test set:

- :func:`class_tests`: H1's per-class Welch t-test on mean-shifted recall
  (:func:`pruneaudit.population.class_recall_ttest_from_predictions`);
- :func:`summary`: per variant the measured sparsity, mean member top-1 of both populations,
  the count of significant classes (raw and Benjamini-Hochberg) and the count of PIEs;
- :func:`pie_accuracy`: top-1 of both populations on PIE, non-PIE and all examples;
- :func:`cie_accuracy`: top-1 on the Taxicab / Jaccard top 10 %, 5 %, 1 %;
- :func:`subgroup_metrics`: H2's error rate, FPR and FNR per group (QMNIST writer series);
- :func:`over_indexing`: each group's share of the training set and of the test set vs its
  share of the CIE (= PIE) set;
- :func:`pie_examples` / :func:`gallery_chart`: the PIEs with images and labels.

Modal labels break ties towards the smallest label (:mod:`pruneaudit.cie`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import altair as alt
import numpy as np
import pandas as pd
from scipy import stats

from pruneaudit import audit, charts, data, runs
from pruneaudit.errors import PruneAuditError, check_choice
from pruneaudit.runs.store import ResultsStore, RunSpec

PRUNING, QUANTIZATION = "pruning", "quantization"
#: PIE categories by which population's modal label is right (both cannot be, they differ).
PIE_CATEGORIES = ("baseline right, compressed wrong", "compressed right, baseline wrong",
                  "both wrong")
#: The CelebA attributes H2 analyses: the target and the two protected attributes.
CELEBA_TARGET, CELEBA_GROUPS = "Blond_Hair", ("Male", "Young")


def base_spec(
    dataset: str = "qmnist",
    model: str = "lenet",
    *,
    epochs: int = 30,
    train_size: int | None = None,
    test_size: int | None = None,
    lr: float = 0.01,
    batch_size: int = 32,
    augment: bool = True,
) -> RunSpec:
    """The run every population member shares apart from its seed and level."""
    return RunSpec(
        dataset=dataset,
        model=model,
        epochs=epochs,
        lr=lr,
        batch_size=batch_size,
        augment=augment,
        train_size=train_size,
        test_size=test_size,
    )


def _check_levels(levels: Iterable[float]) -> list[float]:
    out = sorted({float(t) for t in levels})
    bad = [t for t in out if not 0 < t < 1]
    if bad:
        raise PruneAuditError(
            f"pruning levels must lie in (0, 1) (the dense baseline, level 0, is always run); "
            f"got {bad}"
        )
    return out


def _check_seeds(seeds: Iterable[int]) -> list[int]:
    out = list(seeds)
    if len(out) < 2 or len(set(out)) != len(out):
        raise PruneAuditError(
            f"a population needs at least 2 distinct seeds (the t-test needs K >= 2), got {out}"
        )
    return out


def population_specs(
    base: RunSpec, seeds: Iterable[int], levels: Iterable[float]
) -> dict[float, list[RunSpec]]:
    """Member specs per level: ``0.0`` (the dense baseline) and every pruning level."""
    seeds = _check_seeds(seeds)
    return {t: runs.member_specs(base, seeds, t) for t in [0.0, *_check_levels(levels)]}


def train_populations(
    base: RunSpec,
    seeds: Iterable[int],
    levels: Iterable[float],
    store: ResultsStore,
    root: str | None = None,
    progress: bool = True,
) -> dict[float, runs.Population]:
    """Make the missing members of every level (all levels as one computation) and read them."""
    specs = population_specs(base, seeds, levels)
    runs.run_population(
        [s for members in specs.values() for s in members], store, root, progress
    )
    return {t: runs.population(members, store) for t, members in specs.items()}


def variant_name(level: float | None = None, scheme: str | None = None) -> str:
    """Display name of a compressed variant: ``"pruned 90%"`` or the quantization scheme."""
    if (level is None) == (scheme is None):
        raise PruneAuditError("a variant has either a pruning level or a quantization scheme")
    return scheme if scheme is not None else f"pruned {100 * level:g}%"


@dataclass(frozen=True)
class Compressed:
    """One compressed population and what made it."""

    name: str
    kind: str
    level: float | None
    scheme: str | None
    population: runs.Population


@dataclass(frozen=True)
class ImpactRuns:
    """The baseline population, the compressed ones, and the data they were evaluated on."""

    baseline: runs.Population
    compressed: tuple[Compressed, ...]
    test: data.ImageData
    train: data.ImageData

    @property
    def num_classes(self) -> int:
        return self.test.num_classes

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.compressed]

    def get(self, name: str) -> Compressed:
        """The compressed variant called ``name``."""
        check_choice("compressed variant", name, self.names)
        return next(c for c in self.compressed if c.name == name)


def run(
    base: RunSpec,
    seeds: Iterable[int],
    levels: Iterable[float],
    schemes: Sequence[str],
    store: ResultsStore,
    root: str | None = None,
    progress: bool = True,
) -> ImpactRuns:
    """Train (or read from the store) every population of the study and quantize the baseline.

    ``levels``: pruning end sparsities in (0, 1); ``schemes``: names from
    :data:`pruneaudit.quantize.SCHEMES`. The train split returned is member 0's (the split is
    seeded; the shares of the groups hardly differ between seeds).
    """
    pops = train_populations(base, seeds, levels, store, root, progress)
    baseline = pops.pop(0.0)
    variants = [
        Compressed(variant_name(level=t), PRUNING, t, None, pop) for t, pop in pops.items()
    ]
    for scheme in dict.fromkeys(schemes):
        pop = runs.run_quantized(list(baseline.specs), scheme, store, root, progress)
        variants.append(Compressed(variant_name(scheme=scheme), QUANTIZATION, None, scheme, pop))
    split = runs.splits(baseline.specs[0], root)
    return ImpactRuns(baseline, tuple(variants), split.test, split.train)


# --------------------------------------------------------------------------- tables


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
    variant and class; columns of :func:`pruneaudit.population.class_recall_ttest`)."""
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


def training_cost(
    population_size: int,
    populations: int,
    epochs: int,
    n_train: int,
    seconds_per_10k: float,
) -> dict[str, float]:
    """Model-epochs and hours of training for ``populations`` populations of
    ``population_size`` models, at ``seconds_per_10k`` seconds per 10,000 images per model."""
    model_epochs = population_size * populations * epochs
    return {
        "model_epochs": model_epochs,
        "hours": model_epochs * n_train / 10_000 * seconds_per_10k / 3600,
    }


def pie_accuracy(runs: ImpactRuns) -> pd.DataFrame:
    """Top-1 of the baseline and compressed populations on PIE, non-PIE and all examples,
    per variant (:func:`pruneaudit.cie.pie_accuracy`: modal-label and mean-member accuracy)."""
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
    (:func:`pruneaudit.subgroups.compare_populations`). The error rate is the
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


def over_indexing(
    runs: ImpactRuns, group: str = "series", names: Sequence[str] | None = None
) -> pd.DataFrame:
    """Each group's share of the training set and of the test set vs its share of the CIE
    (modal CIE = PIE) set, per variant (:func:`pruneaudit.cie.over_indexing`).

    ``over_index_train = cie_share / train_share`` (H2's comparison) and
    ``over_index_test = cie_share / test_share`` (the CIEs are drawn from the test set, so this
    one is free of any train/test shift in the group mix).
    """
    if runs.train.meta is None or group not in runs.train.meta.columns:
        raise PruneAuditError(f"the training set has no group column {group!r}")
    test_groups = _groups(runs, group)
    parts = []
    for c in _select(runs, names):
        pie = audit.pie_flags(runs.baseline.preds, c.population.preds, runs.num_classes)
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
        parts.append(table.assign(**_variant_columns(c)))
    cols = ["variant", "kind", "level", "scheme", "attribute", "value", "train_count",
            "train_share", "test_count", "test_share", "cie_count", "cie_share",
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


def gallery_chart(
    runs: ImpactRuns,
    name: str,
    category: str | None = None,
    per_category: int = 24,
    columns: int = 8,
) -> alt.LayerChart:
    """Gallery of the PIEs of variant ``name``: one category (or a drop-down over all)."""
    frame = pie_examples(runs, name, per_category)
    if category is not None:
        check_choice("PIE category", category, PIE_CATEGORIES)
        frame = frame[frame["category"] == category]
    if frame.empty:
        frame = pd.DataFrame({"image": [""], "caption": ["no PIE here"], "category": [category]})
    tips = [t for t in ("series", "writer", "taxicab") if t in frame.columns]
    return charts.image_gallery(
        frame,
        category=None if category is not None else "category",
        tooltip=tips,
        columns=columns,
        title=f"PIEs of {name}" + (f": {category}" if category else ""),
    )


# --------------------------------------------------------------------------- CelebA context


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


# --------------------------------------------------------------------------- seeds' findings


def trend(x: Sequence[float], y: Sequence[float]) -> dict[str, float]:
    """Spearman rank correlation of ``y`` with ``x`` (NaN with fewer than 3 points or a
    constant series): the direction of a trend across compression levels."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.size < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return {"rho": float("nan"), "p": float("nan")}
    res = stats.spearmanr(x, y)
    return {"rho": float(res.statistic), "p": float(res.pvalue)}


def findings(
    runs: ImpactRuns,
    alpha: float = 0.05,
    group: str = "series",
    subgroup_table: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Our values for the seeds' headline findings, each with whether ours points the same way.

    Rows (``finding``): ``classes_grow_with_sparsity`` (Spearman rho of the count of significant
    classes with the pruning level > 0), ``quantization_less_harm`` (the most significant
    classes under any quantization scheme < the count at the highest pruning level),
    ``pie_harder`` (at the highest pruning level the baseline's modal accuracy on PIEs is below
    its accuracy on all examples, and removing PIEs raises both populations' accuracy),
    ``cie_error_concentrated`` (at the highest level the compressed population's error rate on
    the CIEs / its overall error rate > 1), ``harder_group_hurt_more`` (the group with the
    highest baseline error rate has the larger normalized error-rate increase at the highest
    level) and ``harder_group_over_indexed`` (that group's over-index vs the test set > 1).
    ``subgroup_table``: :func:`subgroup_metrics` already computed (it must hold the highest
    pruning level); None computes it (``reduce="mean"``). Columns: finding, value, agrees.
    """
    table = summary(runs, alpha)
    pruned = table[table["kind"] == PRUNING].sort_values("level")
    quant = table[table["kind"] == QUANTIZATION]
    rows = []
    if len(pruned):
        tr = trend(pruned["level"], pruned["significant_classes"])
        rows.append({"finding": "classes_grow_with_sparsity", "value": tr["rho"],
                     "agrees": bool(tr["rho"] > 0)})
        top = pruned.iloc[-1]
        if len(quant):
            most = int(quant["significant_classes"].max())
            rows.append({"finding": "quantization_less_harm",
                         "value": float(most - top["significant_classes"]),
                         "agrees": bool(most < top["significant_classes"])})
        acc = pie_accuracy(runs)
        acc = acc[acc["variant"] == top["variant"]].set_index(["subset", "population"])
        m = acc["modal_accuracy"]
        if acc.loc[("pie", "baseline"), "n"] > 0:
            harder = m[("pie", "baseline")] < m[("all", "baseline")]
            removal = all(m[("non_pie", p)] > m[("all", p)] for p in ("baseline", "compressed"))
            rows.append({"finding": "pie_harder",
                         "value": float(m[("all", "baseline")] - m[("pie", "baseline")]),
                         "agrees": bool(harder and removal)})
            err_cie = 1 - acc.loc[("pie", "compressed"), "mean_member_accuracy"]
            err_all = 1 - acc.loc[("all", "compressed"), "mean_member_accuracy"]
            ratio = err_cie / err_all if err_all > 0 else float("nan")
            rows.append({"finding": "cie_error_concentrated", "value": float(ratio),
                         "agrees": bool(ratio > 1)})
        meta = runs.test.meta
        if meta is not None and group in meta.columns and meta[group].nunique() > 1:
            sub = (subgroup_metrics(runs, group, [top["variant"]]) if subgroup_table is None
                   else subgroup_table[subgroup_table["variant"] == top["variant"]])
            if sub.empty:
                raise PruneAuditError(
                    f"subgroup_table has no rows of the highest pruning level {top['variant']!r}"
                )
            err = sub[(sub["metric"] == "error_rate") & (sub["grouping"] == group)]
            err = err.set_index("group")
            hardest = err["baseline"].idxmax()
            increase = err["normalized_difference"]
            rows.append({"finding": "harder_group_hurt_more",
                         "value": float(increase[hardest] - increase.drop(hardest).max()),
                         "agrees": bool(increase[hardest] > increase.drop(hardest).max())})
            over = over_indexing(runs, group, [top["variant"]]).set_index("value")
            value = hardest.split("=", 1)[1]
            oi = float(over.loc[value, "over_index_test"])
            rows.append({"finding": "harder_group_over_indexed", "value": oi,
                         "agrees": bool(oi > 1)})
    return pd.DataFrame(rows, columns=["finding", "value", "agrees"])
