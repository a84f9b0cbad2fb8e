"""Study 4 (H1 sections 2-3, H2 sections 2-3): class-level impact, PIE and CIE of compression.

Populations: K independently trained models (one per seed) per compression variant. The
baseline is the dense population (level 0); a *pruned* variant is the population trained with
gradual magnitude pruning to end sparsity ``t`` (:func:`pruneaudit.runs.member_specs`);
a *quantized* variant is the baseline population quantized post-training with one scheme of
:data:`pruneaudit.compress.SCHEMES` (:func:`pruneaudit.runs.run_quantized`, on the CPU: torch's
int8 kernels). By default every level's population has its own seeds
(:func:`pruneaudit.runs.level_seeds`: independent populations, as in H1); shared seeds (member k
of every level has seed k) are an option. Quantized members are the baseline members
quantized, so they pair with the baseline by construction.

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

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import altair as alt
import numpy as np
import pandas as pd

from pruneaudit import audit, charts, compress, data, runs
from pruneaudit import runs as runs_module
from pruneaudit.errors import PruneAuditError, check_choice
from pruneaudit.runs.store import ResultsStore, RunSpec

PRUNING, QUANTIZATION = "pruning", "quantization"
#: PIE categories by which population's modal label is right (both cannot be, they differ).
PIE_CATEGORIES = ("baseline right, compressed wrong", "compressed right, baseline wrong",
                  "both wrong")
STUDY = "S4_class_level_PIE_CIE"


@functools.cache
def _lookup(metric: str, **columns: str) -> audit.Published:
    return audit.lookup(STUDY, metric, **columns)


#: The CelebA attributes H2 analyses: the target and the two protected attributes.
CELEBA_TARGET, CELEBA_GROUPS = "Blond_Hair", ("Male", "Young")


def variant_name(level: float | None = None, scheme: str | None = None) -> str:
    """Display name of a compressed variant: ``"pruned 90%"`` or the quantization scheme."""
    if (level is None) == (scheme is None):
        raise PruneAuditError("a variant has either a pruning level or a quantization scheme")
    return scheme if scheme is not None else runs.level_name(level)


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
    #: Whether each pruning level's population has its own seeds (H1) or shares the baseline's.
    independent: bool = True

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
    independent: bool = True,
) -> ImpactRuns:
    """Train (or read from the store) every population of the study and quantize the baseline.

    ``levels``: pruning end sparsities in (0, 1); ``schemes``: names from
    :data:`pruneaudit.quantize.SCHEMES`. The train split returned is member 0's (the split is
    seeded; the shares of the groups hardly differ between seeds).
    """
    pops = runs.run_levels(base, seeds, levels, store, root, progress, independent)
    baseline = pops.pop(0.0)
    variants = [
        Compressed(variant_name(level=t), PRUNING, t, None, pop) for t, pop in pops.items()
    ]
    for scheme in dict.fromkeys(schemes):
        pop = runs.run_quantized(list(baseline.specs), scheme, store, root, progress)
        variants.append(Compressed(variant_name(scheme=scheme), QUANTIZATION, None, scheme, pop))
    split = runs.splits(baseline.specs[0], root)
    return ImpactRuns(baseline, tuple(variants), split.test, split.train, independent)


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


def cie_threshold() -> int:
    """H2's Taxicab percentile for the CIE set of its over-indexing figure (Fig. 2): 80."""
    return round(100 * _lookup("Taxicab CIE threshold used in Fig. 2").number)


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


# --------------------------------------------------------------------------- findings

#: H1 prints its headline numbers at t = 90%: the findings use our pruning level nearest to it.
HEADLINE_LEVEL = 0.9
#: Our quantization schemes and H1's names for them (Table 2).
H1_SCHEMES = {"float16": "FLOAT16", "dynamic_int8": "DYNAMIC RANGE INT8",
              "static_int8": "FIXED-POINT INT8"}
IMAGENET = "ImageNet test set (as printed)"
PERMUTATION_BASIS = (
    "excess over the balanced re-split null (the 2K members re-split {n_perm} times into two "
    "groups of K, each with half the dense and half the compressed members: PIEs and CIEs "
    "exist, and are hard, between two dense populations too); "
    "95% interval by inverting that permutation test; the paper's value is not null-corrected"
)


def headline_variant(runs: ImpactRuns) -> Compressed:
    """The pruned variant whose level is nearest :data:`HEADLINE_LEVEL` (ties: the higher)."""
    pruned = [c for c in runs.compressed if c.kind == PRUNING]
    if not pruned:
        raise PruneAuditError("the study has no pruned population; give at least one level")
    return min(pruned, key=lambda c: (abs(c.level - HEADLINE_LEVEL), -c.level))


def _significant(labels, base, comp, num_classes: int, alpha: float) -> np.ndarray:
    table = audit.class_recall_ttest_from_predictions(labels, base, comp, num_classes, alpha=alpha)
    return table.sort_values("class")["significant"].to_numpy(dtype=float)


def class_findings(
    labels: np.ndarray,
    baseline_preds: np.ndarray,
    pruned_preds: np.ndarray,
    quantized_preds: dict[str, np.ndarray],
    num_classes: int,
    alpha: float = 0.05,
) -> list[audit.Finding]:
    """D4.1 and D4.2 from the per-class Welch t-tests of one pruned population (and each
    quantized one) against the baseline.

    D4.1: share of classes significantly impacted, with its Clopper-Pearson interval over the
    classes, against the null share ``alpha`` (the false-positive rate of the tests); H1: 637 of
    1,000 ImageNet classes at t = 90%. D4.2: per class, significant under pruning minus
    significant under the worst quantization scheme (most significant classes), mean over the
    classes with its Student-t interval; H1: (637 - 144) / 1,000.
    """
    sig = _significant(labels, baseline_preds, pruned_preds, num_classes, alpha)
    share, lo, hi = audit.share_interval(int(sig.sum()), sig.size)
    paper_90 = _lookup("count significant classes (Welch p<=0.05)",
                            dataset=IMAGENET, setting="t=90%")
    rows = [
        audit.finding(
            "D4.1 share of classes significantly impacted by pruning", share, lo, hi,
            paper_90.number / 1000, source=paper_90.source,
            basis=f"Clopper-Pearson over the {sig.size} classes; null = alpha = {alpha}",
            null=alpha,
        )
    ]
    if quantized_preds:
        counts = {
            name: _significant(labels, baseline_preds, preds, num_classes, alpha)
            for name, preds in quantized_preds.items()
        }
        worst = max(counts, key=lambda n: counts[n].sum())
        paper_q = max(
            (_lookup("count significant classes (Welch p<=0.05)", dataset=IMAGENET,
                          setting=H1_SCHEMES.get(n, n)) for n in H1_SCHEMES),
            key=lambda p: p.number,
        )
        m, lo, hi = audit.mean_interval(sig - counts[worst])
        rows.append(
            audit.finding(
                "D4.2 pruning impacts more classes than quantization (share, pruned - "
                f"{worst})", m, lo, hi, (paper_90.number - paper_q.number) / 1000,
                source=paper_q.source,
                basis=f"Student-t over the {sig.size} classes of the per-class difference of "
                "significance indicators",
            )
        )
    else:
        rows.append(audit.not_testable(
            "D4.2 pruning impacts more classes than quantization", None,
            source="H1 Table 2", why="no quantization scheme was run on this page"))
    return rows


def _exemplar_statistic(
    labels: np.ndarray, groups: np.ndarray | None, hard: object, cie_q: int, over_q: int,
    seed: int,
):
    """The vote statistics of :func:`exemplar_findings`, as one function of two vote arrays."""
    y = np.asarray(labels)
    rows = np.arange(y.size)
    # audit.top_percentile's selection, its tie-break permutation drawn once
    tiebreak = np.random.default_rng(seed).permutation(y.size)
    sizes = {q: -(-y.size * (100 - q) // 100) for q in (cie_q, over_q)}

    def top(scores: np.ndarray, q: int) -> np.ndarray:
        mask = np.zeros(y.size, dtype=bool)
        mask[np.lexsort((tiebreak, -scores))[: sizes[q]]] = True
        return mask

    if groups is not None:
        g = np.asarray(groups)
        in_hard = g == hard
        others = [g == value for value in np.unique(g[~in_hard])]

    def statistic(b: np.ndarray, v: np.ndarray) -> np.ndarray:
        bm, vm = b.argmax(axis=1), v.argmax(axis=1)
        pie = bm != vm
        b_right, v_right = bm == y, vm == y
        acc_all = b_right.mean()
        pie_gap = b_right[pie].mean() - acc_all if pie.any() else np.nan
        lift = b_right[~pie].mean() - acc_all if (~pie).any() else np.nan
        taxicab = np.abs(b - v).sum(axis=1)
        cie = top(taxicab, cie_q)
        out = [pie.mean(), pie_gap, lift, v_right[cie].mean() - v_right.mean()]
        if groups is not None:
            err_b = 1 - b[rows, y] / b[0].sum()
            err_v = 1 - v[rows, y] / v[0].sum()

            def rise(mask: np.ndarray) -> float:
                base = err_b[mask].mean()
                return (err_v[mask].mean() - base) / base if base > 0 else np.nan

            gap = rise(in_hard) - np.mean([rise(m) for m in others])
            out += [gap, in_hard[top(taxicab, over_q)].mean() / in_hard.mean()]
        return np.asarray(out, dtype=float)

    return statistic


def exemplar_findings(
    labels: np.ndarray,
    baseline_preds: np.ndarray,
    pruned_preds: np.ndarray,
    num_classes: int,
    groups: np.ndarray | None = None,
    *,
    n_perm: int = 199,
    seed: int = 0,
) -> list[audit.Finding]:
    """D4.3, D4.5, D4.6, D4.10 and the QMNIST analogues of D4.9 and D4.11, each as the excess
    of a statistic over the balanced re-split null (:func:`pruneaudit.audit.permutation_null`,
    interval by :func:`pruneaudit.audit.shift_interval`).

    Statistics (modal labels, ties to the smallest label): D4.3 share of PIEs; D4.5 baseline
    top-1 on the PIEs minus on all; D4.6 baseline top-1 on the non-PIEs minus on all; D4.10
    compressed top-1 on the Taxicab top 10 % (90th percentile) minus on all; with ``groups``
    (one label per example, two or more values): D4.9 the relative error-rate rise of the group
    the baseline errs on most minus the mean rise of the others (member-mean error rates) and
    D4.11 that group's over-index in the Taxicab CIE at H2's Fig. 2 threshold (80th percentile):
    its share of the CIEs over its share of the test set. The hardest group is fixed from the
    observed baseline.
    """
    y = np.asarray(labels)
    if groups is not None and len(np.unique(groups)) < 2:
        groups = None
    hard = None
    if groups is not None:
        err = 1 - (np.asarray(baseline_preds) == y[None, :]).mean(axis=0)
        frame = pd.DataFrame({"g": np.asarray(groups), "err": err})
        hard = frame.groupby("g")["err"].mean().idxmax()
    threshold = _lookup("Taxicab CIE threshold used in Fig. 2")
    over_q = round(100 * threshold.number)
    stat = _exemplar_statistic(y, groups, hard, 90, over_q, seed)
    observed, null = audit.permutation_null(
        baseline_preds, pruned_preds, num_classes, stat, n_perm=n_perm, seed=seed
    )
    basis = PERMUTATION_BASIS.format(n_perm=n_perm)

    def row(i: int, name: str, paper: float | None, source: str, direction: int = 0):
        ours, lo, hi = audit.shift_interval(observed[i], null[:, i])
        return audit.finding(name, ours, lo, hi, paper, source=source, basis=basis,
                             direction=direction)

    share = _lookup("share of test set classified as PIE", dataset="ImageNet")
    t6 = {m: _lookup(f"top-1 {m} (%)", dataset="ImageNet", setting="t=90.0%")
          for m in ("PIEs", "non-PIEs", "All")}
    h2 = {m: _lookup(m, dataset="CelebA test", setting="t=90.0%")
          for m in ("top-1 on Taxicab CIEs, 90th pct (%)", "top-1 All (test set) (%)")}
    rows = [
        row(0, "D4.3 share of test examples that are PIEs", share.number, share.source),
        row(1, "D4.5 baseline top-1 on PIEs minus on all", (t6["PIEs"].number
            - t6["All"].number) / 100, t6['PIEs'].source),
        row(2, "D4.6 baseline top-1 without the PIEs minus on all", (t6["non-PIEs"].number
            - t6["All"].number) / 100, t6['non-PIEs'].source),
        row(3, "D4.10 compressed top-1 on the Taxicab top 10% CIE minus on all",
            (h2["top-1 on Taxicab CIEs, 90th pct (%)"].number
             - h2["top-1 All (test set) (%)"].number) / 100,
            h2['top-1 All (test set) (%)'].source),
    ]
    old = _lookup("Error normalized difference vs baseline",
                       dataset="CelebA test subgroup O")
    young = _lookup("Error normalized difference vs baseline",
                         dataset="CelebA test subgroup Y")
    names = ("D4.9 analogue: error rise of the hardest writer series minus the others'",
             f"D4.11 analogue: over-index of the hardest writer series in the Taxicab "
             f"{over_q}th-percentile CIE")
    if groups is None:
        why = "the test examples hold fewer than two groups (writer series)"
        rows += [audit.not_testable(names[0], old.number - young.number,
                                    source=f"{old.source} (Old vs Young)", why=why),
                 audit.not_testable(names[1], None, source="H2 Fig. 2", why=why)]
    else:
        rows += [row(4, names[0] + f" ({hard})", old.number - young.number,
                     f"{old.source} (Old vs Young, t = 95%)"),
                 row(5, names[1] + f" ({hard}; over-index - 1)", None,
                     threshold.source, direction=1)]
    return rows


def findings(
    runs: ImpactRuns,
    alpha: float = 0.05,
    group: str = "series",
    *,
    n_perm: int = 199,
    seed: int = 0,
) -> list[audit.Finding]:
    """D4.1-D4.11 for the pruned population nearest t = 90% (:func:`headline_variant`): each
    with H1's or H2's value, ours with a 95% interval and the computed verdict, or why it cannot
    be tested here (:func:`class_findings`, :func:`exemplar_findings`)."""
    top = headline_variant(runs)
    y, base, comp = _labels(runs), runs.baseline.preds, top.population.preds
    quantized = {c.scheme: c.population.preds for c in runs.compressed if c.kind == QUANTIZATION}
    meta = runs.test.meta
    groups = meta[group].to_numpy() if meta is not None and group in meta.columns else None
    rows = class_findings(y, base, comp, quantized, runs.num_classes, alpha)
    ex = exemplar_findings(y, base, comp, runs.num_classes, groups, n_perm=n_perm, seed=seed)
    cifar = _lookup("count significant classes (Welch p<=0.05)",
                         dataset="CIFAR-10 test", setting="t=90%")
    human = _lookup("share with attribute: ground truth label incorrect or "
                         "inadequate", dataset="ImageNet (1230 images)", setting="PIE")
    blond = _lookup("share of training set: Blond Male")
    return [
        *rows,
        ex[0],
        audit.not_testable("D4.4 CIFAR-10 shows little class-level impact", cifar.number,
                           source=cifar.source,
                           why="no CIFAR-10 offline; the digit task's own count is D4.1"),
        ex[1],
        ex[2],
        audit.not_testable("D4.7 significant decreases fewer but larger than increases", None,
                           source="H1 Sec. 3 (qualitative)",
                           why="H1 states it without a number; the class table below shows "
                           "ours without a verdict"),
        audit.not_testable("D4.8 PIEs over-index on incorrect labels (human study)",
                           human.number, source=human.source,
                           why="needs H1's human annotation of ImageNet PIEs (85 raters)"),
        audit.not_testable("D4.9 CelebA sub-group error and FPR rise (Male, Old)", None,
                           source="H2 Table 3",
                           why="CelebA images are absent offline (attributes only); the writer "
                           "series analogue follows"),
        ex[4],
        ex[3],
        audit.not_testable("D4.11 under-represented CelebA attributes over-index in CIEs",
                           blond.number, source=f"{blond.source} (Blond Male share)",
                           why="CelebA images are absent offline; the writer series analogue "
                           "follows"),
        ex[5],
    ]


def findings_ci_note(runs: ImpactRuns) -> str:
    """One line saying which population the findings use and what their populations share."""
    top = headline_variant(runs)
    how = ("independent populations (each level its own seeds)" if runs.independent
           else "shared seeds (member k of every level has seed k: paired, not independent)")
    return (f"Findings at {top.name} (the level nearest H1's t = 90%), K = "
            f"{len(runs.baseline.specs)} members per population, {how}.")


# --------------------------------------------------------------------------- page


def validate(params: Mapping[str, object]) -> None:
    """Check the page's parameters before any kernel starts or any model trains; one
    :class:`PruneAuditError` names every problem and its fix."""
    problems = []
    for check in (
        lambda: runs.check_seeds(params.get("seeds", [0, 1])),
        lambda: runs.check_levels(params.get("levels", [0.5])),
        lambda: [runs.level_seeds(params.get("seeds", [0, 1]), t,
                                  bool(params.get("independent", True)))
                 for t in params.get("levels", [0.5])],
        lambda: [check_choice("quantization scheme", s, compress.SCHEMES)
                 for s in params.get("schemes", [])],
        lambda: check_choice("subgroup_reduce", params.get("subgroup_reduce", "mean"),
                             ("mean", "modal")),
    ):
        try:
            check()
        except PruneAuditError as err:
            problems.append(str(err))
    if not 0 < float(params.get("alpha", 0.05)) < 1:
        problems.append(f"alpha must lie in (0, 1), got {params.get('alpha')!r}")
    bad = [q for q in params.get("percentiles", [90]) if not 0 < q < 100]
    if bad:
        problems.append(f"percentiles must lie in 1..99, got {bad}")
    for name in ("gallery_size", "n_perm", "epochs"):
        value = params.get(name, 1)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            problems.append(f"{name} must be a positive integer, got {value!r}")
    if problems:
        raise PruneAuditError("bad Study 4 parameters: " + "; ".join(problems))


def protocol_table(runs: ImpactRuns, spec: RunSpec, seconds_per_10k: float) -> pd.DataFrame:
    """The published protocol beside this page's: one row per setting (H1 / H2 vs ours),
    with the training cost of both at ``seconds_per_10k`` (:func:`pruneaudit.runs.training_cost`).
    """
    levels = [c.level for c in runs.compressed if c.kind == PRUNING]
    schemes = [c.scheme for c in runs.compressed if c.kind == QUANTIZATION]
    k, n_train, n_test = len(runs.baseline.specs), len(runs.train), len(runs.test)
    paper = runs_module.training_cost(30 * (1 + 7) * 30, 48_000, seconds_per_10k)
    ours = runs_module.training_cost(k * (1 + len(levels)) * spec.epochs, n_train,
                                     seconds_per_10k)
    meta = runs.test.meta
    groups = (meta["series"].value_counts().sort_index() if meta is not None
              and "series" in meta.columns else None)
    rows = [
        ("task", "ImageNet / ResNet-50 and CIFAR-10 / WRN (H1); CelebA Blond_Hair / ResNet-18 "
         "(H2)", f"{spec.dataset} / {spec.model}"),
        ("population size K", "30 per level", str(k)),
        ("populations", "trained separately for every level",
         "independent: each level its own seeds" if runs.independent
         else "shared seeds: member k of every level has seed k (paired)"),
        ("pruning", "gradual magnitude pruning during training (Zhu & Gupta)",
         f"{runs_module.GRADUAL_TECHNIQUE} per layer, cubic schedule, pruned weights may "
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
        ("training hours on this CPU", f"{paper.hours:.1f}", f"{ours.hours:.2f}"),
        ("training hours on a GPU", runs_module.gpu_cost_text("Study 4"), ""),
    ]
    return pd.DataFrame(rows, columns=["setting", "published", "this page"]).set_index(
        "setting")


def _paper_number(metric: str, **columns: str) -> float:
    try:
        return _lookup(metric, **columns).number
    except PruneAuditError:
        return float("nan")


def _h1_setting(c: Compressed, table: int) -> str:
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
        setting = _h1_setting(c, 2)
        rows.append({
            "variant": c.name,
            "top-1 (ours)": r.compressed_top1,
            "significant classes (ours)": f"{r.significant_classes} of {runs.num_classes}",
            "PIEs (ours)": f"{r.pie:,} of {len(runs.test):,}",
            "H1 ImageNet top-1": _paper_number("top-1 (%)", dataset=IMAGENET,
                                               setting=setting) / 100,
            "H1 ImageNet significant classes (of 1,000)": _paper_number(
                sig, dataset=IMAGENET, setting=setting),
            "H1 ImageNet PIEs (of 50,000)": _paper_number("count PIEs", dataset=IMAGENET,
                                                          setting=setting),
            "H1 CIFAR-10 significant classes (of 10)": _paper_number(
                sig, dataset="CIFAR-10 test", setting=setting),
        })
    return pd.DataFrame(rows)


def h1_pie_table(runs: ImpactRuns) -> pd.DataFrame:
    """H1 Table 6's layout on our data: per pruned level, the modal top-1 of the dense and the
    compressed population on the PIEs, the non-PIEs and all examples, beside H1's ImageNet
    values (its table reports one population per level; NaN where H1 prints none)."""
    acc = pie_accuracy(runs)
    rows = []
    for c in runs.compressed:
        if c.kind != PRUNING:
            continue
        a = acc[acc["variant"] == c.name].set_index(["subset", "population"])["modal_accuracy"]
        setting = _h1_setting(c, 6)
        row = {"variant": c.name, "PIEs": int(acc[(acc["variant"] == c.name)
                                                  & (acc["subset"] == "pie")]["n"].iloc[0])}
        for subset, label in (("pie", "PIEs"), ("non_pie", "non-PIEs"), ("all", "All")):
            row[f"dense on {label}"] = a[(subset, "baseline")]
            row[f"compressed on {label}"] = a[(subset, "compressed")]
            row[f"H1 ImageNet on {label}"] = _paper_number(
                f"top-1 {label} (%)", dataset="ImageNet", setting=setting) / 100
        rows.append(row)
    return pd.DataFrame(rows)


def gallery_explorer(runs: ImpactRuns, per_class: int = 6, columns: int = 6) -> alt.LayerChart:
    """The PIEs of every pruned level, picked by two drop-downs (level and true class), highest
    Taxicab score first: a static explorer (Vega-Lite parameters, no kernel)."""
    parts = []
    for c in runs.compressed:
        if c.kind != PRUNING:
            continue
        frame = pie_examples(runs, c.name, per_category=None)
        frame = frame.groupby("label", sort=False).head(per_class)
        parts.append(frame.assign(variant=c.name))
    frame = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    if frame.empty:
        frame = pd.DataFrame({"image": [""], "caption": ["no PIE"], "variant": ["none"],
                              "label": [0], "category": [""]})
    frame["digit"] = [runs.test.classes[k] if k < len(runs.test.classes) else str(k)
                      for k in frame["label"]]
    variants = list(dict.fromkeys(frame["variant"]))
    digits = sorted(frame["digit"].unique())
    pick_v = alt.param(name="level_shown", value=variants[-1],
                       bind=alt.binding_select(options=variants, name="pruned level "))
    pick_d = alt.param(name="class_shown", value=digits[0],
                       bind=alt.binding_select(options=digits, name="true class "))
    cell = 70
    rows = max(1, -(-per_class // columns))
    keep = ["image", "caption", "variant", "digit", "category",
            *[t for t in ("series", "taxicab") if t in frame.columns]]
    base = (
        alt.Chart(frame[keep])
        .add_params(pick_v, pick_d)
        .transform_filter(f"datum.variant == {pick_v.name} && datum.digit == {pick_d.name}")
        .transform_window(index="row_number()")
        .transform_calculate(col=f"(datum.index - 1) % {columns}",
                             row=f"floor((datum.index - 1) / {columns})")
    )
    x = alt.X("col:Q", axis=None, scale=alt.Scale(domain=[-0.5, columns - 0.5]))
    y = alt.Y("row:Q", axis=None, scale=alt.Scale(domain=[-0.35, rows - 0.35], reverse=True))
    tips = [t for t in keep if t not in ("image",)]
    pics = base.mark_image(width=cell * 0.7, height=cell * 0.7).encode(
        x=x, y=y, url="image:N", tooltip=tips)
    text = base.mark_text(baseline="top", lineBreak="\n", fontSize=10, dy=cell * 0.38).encode(
        x=x, y=y, text="caption:N")
    return alt.layer(pics, text).properties(
        title="PIEs by pruned level and true class (caption: true / baseline / compressed "
        "modal label)", width=columns * cell, height=rows * int(cell * 1.5))


def key_figure(runs: ImpactRuns, alpha: float = 0.05) -> alt.Chart:
    """The page's key figure: top-1 change against the share of PIEs and the count of
    significantly impacted classes per variant (top-line accuracy hides the class-level and
    example-level impact)."""
    table = summary(runs, alpha)
    table["top-1 change (points)"] = 100 * table["top1_change"]
    table["PIEs (% of test)"] = 100 * table["pie_share"]
    long = table.melt(id_vars=["variant", "kind"],
                      value_vars=["top-1 change (points)", "PIEs (% of test)"],
                      var_name="measure", value_name="value")
    return (
        alt.Chart(long)
        .mark_bar()
        .encode(
            x=alt.X("variant:N", sort=list(table["variant"]), title=None),
            y=alt.Y("value:Q", title=None),
            color=alt.Color("kind:N"),
            column=alt.Column("measure:N", title=None),
            tooltip=["variant", "measure", alt.Tooltip("value:Q", format=".2f")],
        )
        .properties(width=260, height=220,
                    title="Top-1 barely moves while the compressed and dense populations "
                    "disagree on a share of the test examples")
    )


def cie_table(
    runs: ImpactRuns, percentiles: Sequence[int] = audit.PERCENTILES, seed: int = 0
) -> pd.DataFrame:
    """H2's CIE accuracy layout: per variant and Taxicab top share, the modal top-1 of both
    populations on the CIEs (:func:`cie_accuracy`), beside H2's CelebA values at the same
    pruning level (NaN where H2 prints none)."""
    cies = cie_accuracy(runs, percentiles, seed)
    taxi = cies[cies["score"] == "taxicab"]
    wide = taxi.pivot_table(index=["variant", "level", "percentile", "n"], columns="population",
                            values="modal_accuracy", sort=False).reset_index()
    wide["H2 CelebA compressed"] = [
        _paper_number(f"top-1 on Taxicab CIEs, {q}th pct (%)", dataset="CelebA test",
                      setting=f"t={100 * t:.1f}%") / 100 if t == t else float("nan")
        for t, q in zip(wide["level"], wide["percentile"], strict=True)
    ]
    wide["top share"] = [f"top {100 - q}%" for q in wide["percentile"]]
    return wide[["variant", "top share", "n", "baseline", "compressed", "H2 CelebA compressed"]]
