"""Study 4's findings (D4.1-D4.11): H1's and H2's numbers beside ours, like for like.

Every row's "ours" is the quantity the paper prints, computed the paper's way (mean-member
accuracy where the paper's "All" is a mean over models; modal labels with H1's tie rule), at the
pruned level nearest H1's t = 90% (:func:`~pruneaudit.studies.compression_impact.tables.
headline_variant`), or, where the paper's quantity does not carry over, the one that does, said
in the row:

- class tests (D4.1, D4.4 analogue): Clopper-Pearson over the classes; D4.2: Student t over the
  classes of the per-class difference of significance indicators (df = C - 1). D4.4 (H1's
  10-class CIFAR-10) carries the size comparison; D4.1 (1,000 ImageNet classes) only the
  direction;
- PIE and CIE statistics (:mod:`~pruneaudit.studies.compression_impact.exemplar_statistics`):
  the statistic with a bootstrap over the population members
  (:meth:`pruneaudit.audit.MemberVotes.bootstrap`: dense and compressed members drawn with
  replacement, modal labels, PIEs and the statistic recomputed). A resample that repeats members
  has noisier modal labels, so its PIE share is biased upwards and percentile intervals can miss
  the estimate: the interval is the estimate plus or minus 1.96 bootstrap standard errors, on a
  scale that respects the statistic's bound (:func:`pruneaudit.audit.bounded_interval`);
- D4.3: the PIE share over the dense error rate (H1's ImageNet share is of a 23% error rate, a
  digit task's of a few percent: shares of all examples do not compare);
- selection-based gaps (D4.5, D4.10 and its step): examples selected by disagreement are hard
  for both populations by construction, so the verdict rests on the gap's excess over the
  balanced dense-vs-dense re-split null
  (:meth:`pruneaudit.audit.MemberVotes.permutation_null`, interval by inverting that test:
  :func:`pruneaudit.audit.shift_interval`), a direction; the raw gap and
  the paper's (which no null was taken from) are stated beside;
- D4.6 is derived (non-PIE minus all = -s / (1 - s) x D4.5's raw gap, s the PIE share): shown
  without a verdict of its own;
- trends over sparsity (D4.1, D4.3, D4.6 "grow with t"): Spearman's rank correlation of the
  statistic with the level, across our levels, with the same bootstrap over members (each
  level's members and the dense ones resampled on their own), a direction-only finding.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pruneaudit import audit
from pruneaudit.audit import exemplars
from pruneaudit.errors import PruneAuditError
from pruneaudit.runs import Population
from pruneaudit.studies.compression_impact.comparators import (
    celeba_over_index,
    not_testable_here,
    other_datasets,
)
from pruneaudit.studies.compression_impact.exemplar_statistics import (
    exemplar_statistic,
    set_size,
    tie_fill_sd,
)
from pruneaudit.studies.compression_impact.run import PRUNING, QUANTIZATION, ImpactRuns, Result
from pruneaudit.studies.compression_impact.tables import (
    H1_SCHEMES,
    IMAGENET,
    headline_variant,
    lookup,
    summary,
)
from pruneaudit.studies.compression_impact.trends import normal_interval, trend_findings

SIG = "count significant classes (Welch p<=0.05)"
BOOT_BASIS = (
    "95% interval over {k} members = estimate +/- 1.96 standard errors (variance x K/(K-1)) "
    "of {n_boot} bootstrap resamples of the members (dense and compressed drawn with "
    "replacement, modal labels and PIEs recomputed){scale}; beside it, the excess over "
    "{n_perm} balanced dense-vs-dense re-splits"
)
EXCESS_BASIS = (
    "excess over {n_perm} balanced dense-vs-dense re-splits of the {k} + {k} members, 95% "
    "interval by inverting the re-split test; raw gap {raw:+.3f} [{raw_lo:+.3f}, "
    "{raw_hi:+.3f}] ({n_boot} bootstrap resamples of the members); smallest effect "
    "{smallest:g}"
)
#: Smallest effect of interest of the D4.11 analogue, a direction-only row (its power is
#: against it).
SMALLEST_OVER_INDEX = 0.1
#: Smallest effect of interest of a selection-based gap's excess over the dense-vs-dense null
#: (top-1 as a fraction: 5 points), fixed in advance; those rows are direction-only.
SMALLEST_EXCESS = 0.05
#: Smallest effect of interest of D4.1 (direction only): one class in ten beyond ``alpha``.
SMALLEST_SHARE = 0.1
#: Quantization schemes in the order D4.2 prefers them: H1's D4.2 pair is pruning vs dynamic int8.
D42_SCHEMES = ("dynamic_int8", "static_int8", "float16")


def _significant(labels, base, comp, k: int, alpha: float) -> np.ndarray:
    (b, b_acc), (v, v_acc) = (audit.population_recalls(labels, x, k) for x in [base, comp])
    table = audit.class_recall_ttest(b, b_acc, v, v_acc, alpha=alpha)
    return table.sort_values("class")["significant"].to_numpy(dtype=float)


def class_findings(
    labels: np.ndarray,
    baseline_preds: np.ndarray,
    pruned_preds: np.ndarray,
    quantized_preds: Mapping[str, np.ndarray],
    num_classes: int,
    alpha: float = 0.05,
) -> list[audit.Finding]:
    """D4.1, D4.2 and the D4.4 analogue from H1's per-class Welch t-tests of one pruned
    population (and one quantized one) against the dense population.

    D4.1: share of classes significantly impacted, Clopper-Pearson over the classes, against the
    null share ``alpha`` (the tests' false-positive rate), direction only (smallest effect
    :data:`SMALLEST_SHARE`): H1's 637 of 1,000 ImageNet classes (50 test images each) is no size
    for 10 digit classes. D4.4 analogue: the same share against H1's CIFAR-10, also 10 classes:
    2 of 10, the size comparison.
    D4.2: per class, significant under pruning minus under dynamic int8 (else the first of
    :data:`D42_SCHEMES` run), mean over the classes with its Student-t interval (df = C - 1);
    H1: (637 - 144) / 1,000 for dynamic int8 (each scheme against H1's same scheme).
    """
    sig = _significant(labels, baseline_preds, pruned_preds, num_classes, alpha)
    share, lo, hi = audit.share_interval(int(sig.sum()), sig.size)
    paper_90 = lookup(SIG, dataset=IMAGENET, setting="t=90%")
    cifar = lookup(SIG, dataset="CIFAR-10 test", setting="t=90%")
    basis = f"Clopper-Pearson over the {sig.size} classes; null = alpha = {alpha}"
    definition = (f"classes with Welch p <= {alpha} (mean-shifted recall, pruned vs dense "
                  "members) / all classes")
    rows = [
        audit.finding("D4.1 share of classes significantly impacted by pruning", share, lo, hi,
                      None, source=paper_90.source, null=alpha, direction=1,
                      smallest=SMALLEST_SHARE, unit="percent",
                      basis=basis + "; direction only: H1's share is of 1,000 ImageNet classes, "
                      "not comparable in size with 10 digit classes (D4.4 is)",
                      definition=definition + "; H1: 637 of 1,000 (ImageNet)"),
        audit.finding("D4.4 analogue: share of classes significantly impacted on a 10-class task "
                      "(H1: CIFAR-10)", share, lo, hi, cifar.number / 10, source=cifar.source,
                      basis=basis + "; the digit task beside H1's CIFAR-10 (another dataset); "
                      "the same interval as D4.1: 10 classes cannot separate H1's two values",
                      null=alpha, unit="percent",
                      definition=definition + "; H1: 2 of 10 (CIFAR-10)"),
    ]
    scheme = next((s for s in D42_SCHEMES if s in quantized_preds), None)
    name = "D4.2 pruning impacts more classes than quantization"
    if scheme is None:
        rows.insert(1, audit.not_testable(name, None, source="H1; Table 2",
                                          why="no quantization scheme was run on this page"))
        return rows
    quant = _significant(labels, baseline_preds, quantized_preds[scheme], num_classes, alpha)
    paper_q = lookup(SIG, dataset=IMAGENET, setting=H1_SCHEMES[scheme])
    m, lo, hi = audit.mean_interval(sig - quant)
    rows.insert(1, audit.finding(
        f"{name} (share, pruned - {scheme})", m, lo, hi,
        (paper_90.number - paper_q.number) / 1000, source=paper_q.source,
        basis=f"Student t over the {sig.size} classes of the per-class difference of "
        "significance indicators", df=sig.size - 1, unit="points",
        definition=f"share of classes significant under pruning minus under {scheme}; H1: "
        f"(637 - {paper_q.number:g}) / 1,000 with H1's {H1_SCHEMES[scheme].lower()}"))
    return rows


@dataclass(frozen=True)
class _Rows:
    """Builds the PIE and CIE rows from the observed statistics, their bootstrap draws and their
    dense-vs-dense re-split null (:func:`exemplar_statistic`'s order)."""

    observed: np.ndarray
    draws: np.ndarray
    null: np.ndarray
    k: int
    n_boot: int
    n_perm: int

    def interval(self, i: int, scale: str | None = None) -> tuple[float, float, float]:
        ours, lo, hi = normal_interval(self.observed[i], self.draws[:, i], self.k)
        return audit.bounded_interval(ours, lo, hi, scale) if scale else (ours, lo, hi)

    def excess(self, i: int) -> tuple[float, float, float]:
        return audit.shift_interval(self.observed[i], self.null[:, i])

    def measured(self, i: int, name: str, paper, *, scale: str | None = None, caveat: str = "",
                 **kw) -> audit.Finding:
        """The statistic itself with its bootstrap interval (on ``scale``), the excess beside."""
        said = f", on the {scale} scale" if scale else ""
        basis = BOOT_BASIS.format(k=self.k, n_boot=self.n_boot, n_perm=self.n_perm, scale=said)
        return audit.finding(name, *self.interval(i, scale), paper, basis=basis + caveat,
                             units=self.k, excess=self.excess(i), **kw)

    def beyond_null(self, i: int, name: str, *, definition: str, **kw) -> audit.Finding:
        """A selection-based gap: its excess over the re-split null, direction only (-1), the
        raw gap with its bootstrap interval stated in the basis."""
        raw = self.interval(i)
        basis = EXCESS_BASIS.format(n_perm=self.n_perm, k=self.k, raw=raw[0], raw_lo=raw[1],
                                    raw_hi=raw[2], n_boot=self.n_boot, smallest=SMALLEST_EXCESS)
        return audit.finding(name, *self.excess(i), None, direction=-1, smallest=SMALLEST_EXCESS,
                             basis=basis, units=self.k, unit="points", definition=definition,
                             **kw)

    def derived(self, i: int, name: str, paper: float, *, why: str, **kw) -> audit.Finding:
        """A row that follows from others: ours and its interval beside the paper's, no
        verdict of its own (``why`` says from what)."""
        return audit.not_comparable(name, *self.interval(i), paper, why=why, **kw)


def _hard_group(y: np.ndarray, baseline_preds: np.ndarray, groups, hard):
    """``(groups, hard)``: no groups when fewer than two; ``hard`` checked, or (None) the group
    the dense members err on most."""
    if groups is not None and len(np.unique(groups)) < 2:
        return None, hard
    if groups is not None and hard is None:
        err = 1 - (np.asarray(baseline_preds) == y[None, :]).mean(axis=0)
        table = pd.DataFrame({"g": np.asarray(groups), "err": err}).groupby("g")["err"].mean()
        return groups, table.idxmax()
    if groups is not None and hard not in set(np.asarray(groups).tolist()):
        raise PruneAuditError(f"hard group {hard!r} is not among the groups "
                              f"{sorted(set(np.asarray(groups).tolist()))}")
    return groups, hard


def exemplar_findings(
    labels: np.ndarray,
    baseline_preds: np.ndarray,
    pruned_preds: np.ndarray,
    num_classes: int,
    groups: np.ndarray | None = None,
    *,
    hard: object = None,
    n_perm: int = 199,
    n_boot: int = 199,
    seed: int = 0,
) -> list[audit.Finding]:
    """D4.3, D4.5, D4.6, D4.10 (and its percentile step) and the writer-series analogues of
    D4.9 and D4.11 (:func:`exemplar_statistic`; module docstring for what each row tests).
    ``hard``: the group named in advance as the one expected to be harder (H2's
    under-represented group); None picks the group the observed dense population errs on most,
    a choice made on the same data that the intervals do not account for. The D4.11 CIE set is
    H2's Fig. 2 one, the Taxicab scores above the 80th percentile, its boundary ties averaged
    over (:mod:`~pruneaudit.studies.compression_impact.exemplar_statistics`)."""
    y = np.asarray(labels)
    groups, hard = _hard_group(y, baseline_preds, groups, hard)
    threshold = lookup("Taxicab CIE threshold used in Fig. 2")
    over_q = round(100 * threshold.number)
    stat = exemplar_statistic(y, groups, hard, over_q, seed)
    votes = audit.MemberVotes.of(baseline_preds, pruned_preds, num_classes)
    observed, draws = votes.bootstrap(stat, n_boot=n_boot, seed=seed)
    _, null = votes.permutation_null(stat, n_perm=n_perm, seed=seed)
    make = _Rows(observed, draws, null, min(len(baseline_preds), len(pruned_preds)), n_boot,
                 n_perm)
    rows = _pie_rows(make)
    old = lookup("Error normalized difference vs baseline", dataset="CelebA test subgroup O")
    young = lookup("Error normalized difference vs baseline", dataset="CelebA test subgroup Y")
    names = ("D4.9 analogue: error rise of the harder writer series minus the others'",
             f"D4.11 analogue: over-index of the harder writer series in the Taxicab "
             f"{over_q}th-percentile CIE")
    if groups is None:
        why = "the test examples hold fewer than two groups (writer series)"
        return rows + [
            audit.not_testable(names[0], old.number - young.number,
                               source=f"{old.source} (Old vs Young)", why=why, unit="points"),
            audit.not_testable(names[1], None, source=threshold.source, why=why,
                               unit="ratio")]
    b, v = exemplars.vote_counts(baseline_preds, num_classes), exemplars.vote_counts(
        pruned_preds, num_classes)
    taxicab = np.abs(b / b[0].sum() - v / v[0].sum()).sum(axis=1)
    in_hard = np.asarray(groups) == hard
    spread = tie_fill_sd(taxicab, in_hard, set_size(y.size, over_q)) / in_hard.mean()
    return rows + [
        make.measured(5, names[0] + f" ({hard})", old.number - young.number,
                      source=f"{old.source} (Old vs Young, t = 95%)", unit="points",
                      definition=f"(pruned - dense error) / dense error of {hard}, minus the "
                      "other series' mean (members' mean error); H2: +35.84% Old vs +20.64% "
                      "Young"),
        make.measured(6, names[1] + f" ({hard}; over-index - 1)", None, scale="relative",
                      caveat=f"; the CIE set's boundary ties averaged over exactly (one random "
                      f"fill would move the over-index by {spread:.3f}, one standard deviation)",
                      source=threshold.source, unit="ratio", direction=1,
                      smallest=SMALLEST_OVER_INDEX,
                      definition=f"share of {hard} among the CIEs (ties at the set's boundary "
                      f"averaged over) / its share of the test set, minus 1; H2 gives no number "
                      f"(smallest effect of interest {SMALLEST_OVER_INDEX:g})"),
    ]


def _pie_rows(make: _Rows) -> list[audit.Finding]:
    """D4.3, D4.5, D4.6, D4.10 and its step (statistics 0-4 of :func:`exemplar_statistic`)."""
    share = lookup("share of test set classified as PIE", dataset="ImageNet")
    t6 = {m: lookup(f"top-1 {m} (%)", dataset="ImageNet", setting="t=90.0%")
          for m in ("PIEs", "non-PIEs", "All")}
    h2 = {q: lookup(f"top-1 on Taxicab CIEs, {q}th pct (%)", dataset="CelebA test",
                    setting="t=90.0%") for q in (90, 99)}
    h2_all = lookup("top-1 All (test set) (%)", dataset="CelebA test", setting="t=90.0%")
    return [
        make.measured(0, "D4.3 PIEs per dense error (PIE share / dense error rate)",
                      share.number / (1 - t6["All"].number / 100), scale="positive",
                      source=f"{share.source}; {t6['All'].source}", unit="ratio",
                      definition="share of examples whose dense and pruned modal labels differ, "
                      "over the dense members' mean error rate; H1: 10.27% / (1 - 76.75%) on "
                      "ImageNet at t = 90% (CIFAR-10: 2.16% / (1 - 94.89%) = 0.42)"),
        make.beyond_null(1, "D4.5 beyond two dense populations: dense top-1 on "
                         "PIEs minus on all", source=t6["PIEs"].source,
                         definition="dense members' mean top-1 on the PIEs minus on all "
                         "examples, minus the same gap between two dense populations (PIEs "
                         "are hard by selection); H1's raw gap 39.81 - 76.75 takes no null "
                         "off"),
        make.derived(2, "D4.6 dense top-1 without the PIEs minus on all (derived)",
                     (t6["non-PIEs"].number - t6["All"].number) / 100,
                     source=t6["non-PIEs"].source, unit="points",
                     why="derived, no verdict of its own: non-PIE minus all = -s / (1 - s) x "
                     "(PIE minus all) with s the PIE share, so it follows from D4.3 and D4.5",
                     definition="dense members' mean top-1 on the non-PIEs minus on all; H1: "
                     "81.20 - 76.75"),
        *(
            make.beyond_null(i, f"D4.10 beyond two dense populations: compressed top-1 on the "
                             f"Taxicab {what}", source=top.source,
                             definition=f"pruned members' mean top-1 on the {chosen}, minus the "
                             f"same {kind} between two dense populations; H2's raw {kind} "
                             f"{top.value} - {base.value} (CelebA, t = 90%) takes no null off")
            for i, what, chosen, kind, top, base in (
                (3, "top 10% CIE minus on all", "10% highest Taxicab scores minus on all", "gap",
                 h2[90], h2_all),
                (4, "top 1% minus on the top 10%", "1% highest Taxicab scores minus on the 10%",
                 "step", h2[99], h2[90]),
            )
        ),
    ]


def by_seed(population: Population) -> np.ndarray:
    """The members' predictions ``(K, N)`` in the order of their seeds: the bootstrap and
    re-split draws pick members by position, so this makes the findings a function of the set
    of runs, not of the order the profile lists the seeds in."""
    order = np.argsort([spec.seed for spec in population.specs], kind="stable")
    return np.asarray(population.preds)[order]


#: The rows the page states first: does pruning hit some classes (D4.4, the 10-class analogue
#: of H1's CIFAR-10) and some examples (D4.5, the PIEs) far more than top-line accuracy says?
HEADLINE = ("D4.4", "D4.5")


def findings(result: Result) -> list[audit.Finding]:
    """The page's findings (:func:`runs_findings`) with the options of its parameters: ``alpha``,
    ``group``, ``hard_group``, ``n_perm``, ``n_boot`` and ``tie_seed`` as the seed."""
    p = result.params
    rows = runs_findings(result.runs, p.alpha, p.group, hard_group=p.hard_group,
                         n_perm=p.n_perm, n_boot=p.n_boot, seed=p.tie_seed)
    return audit.mark_headlines(rows, HEADLINE)


def runs_findings(
    runs: ImpactRuns,
    alpha: float = 0.05,
    group: str = "series",
    *,
    hard_group: object = None,
    n_perm: int = 199,
    n_boot: int = 199,
    seed: int = 0,
) -> list[audit.Finding]:
    """D4.1-D4.11 for the pruned population nearest t = 90%, with the trend rows over all pruned
    levels and the papers' other-dataset comparators (:func:`class_findings`,
    :func:`exemplar_findings` with ``hard=hard_group``, :func:`trend_findings`); each
    population's members in seed order (:func:`by_seed`)."""
    top = headline_variant(runs)
    y, base, comp = runs.baseline.labels, by_seed(runs.baseline), by_seed(top.population)
    quantized = {c.scheme: by_seed(c.population) for c in runs.compressed
                 if c.kind == QUANTIZATION}
    pruned = {c.level: by_seed(c.population) for c in runs.compressed if c.kind == PRUNING}
    meta = runs.test.meta
    groups = meta[group].to_numpy() if meta is not None and group in meta.columns else None
    d41, d42, d44 = class_findings(y, base, comp, quantized, runs.num_classes, alpha)
    if groups is not None and hard_group not in set(groups.tolist()):
        hard_group = None  # e.g. a test subset holding other series: pick it from the data
    ex = exemplar_findings(y, base, comp, runs.num_classes, groups, hard=hard_group,
                           n_perm=n_perm, n_boot=n_boot, seed=seed)
    trend = trend_findings(y, base, pruned, runs.num_classes, alpha, n_boot=n_boot, seed=seed)
    return [d41, trend[0], d42, ex[0], trend[1], d44, ex[1], *other_datasets(), ex[2],
            trend[2], *not_testable_here(), ex[5], ex[3], ex[4], celeba_over_index(), ex[6]]


def numbers(result: Result) -> dict[str, float | int | str]:
    """The numbers the page's prose cites, at the pruned level the findings use
    (:func:`~pruneaudit.studies.compression_impact.tables.headline_variant`): its name, the
    members per population, how the populations pair (``independent`` or ``paired``), the
    change of mean-member top-1 against the dense population (percentage points), the share of
    PIEs, the count of significantly impacted classes, the count of classes and ``alpha``; and
    what this build trained: ``epochs``, ``train_digits`` (``2,000``, or ``all``) and the series
    named in advance as harder (``hard_group``)."""
    runs, alpha = result.runs, result.params.alpha
    top = headline_variant(runs)
    row = summary(runs, alpha).set_index("variant").loc[top.name]
    return {
        "headline": top.name,
        "members": len(runs.baseline.specs),
        "pairing": "independent" if runs.independent else "paired",
        "top1_change_points": float(100 * row["top1_change"]),
        "pie_share": float(row["pie_share"]),
        "significant_classes": int(row["significant_classes"]),
        "classes": int(runs.num_classes),
        "alpha": float(alpha),
        "epochs": int(result.params.epochs),
        "train_digits": f"{result.params.train_size:,}" if result.params.train_size else "all",
        "hard_group": str(result.params.hard_group),
    }
