"""Study 4's findings: H1's and H2's claims (:mod:`~.claims`) judged on our populations.

Every ``same`` row is the quantity the paper prints, computed the paper's way (mean-member
accuracy where the paper's "All" is a mean over models; modal labels with H1's tie rule), at the
pruned level nearest H1's t = 90%
(:func:`~pruneaudit.studies.compression_impact.tables.headline_variant`); rows are built by
claim id and shown in the claims' order:

- class tests (D4.1: Clopper-Pearson over the classes; D4.2: Student t over the classes of the
  per-class difference of significance indicators, df = C - 1; D4.4 compares two tasks and is
  not testable on one);
- PIE and CIE statistics (:mod:`~pruneaudit.studies.compression_impact.exemplar_statistics`):
  the statistic with a bootstrap over the population members
  (:meth:`pruneaudit.audit.MemberVotes.bootstrap`: dense and compressed members drawn with
  replacement, modal labels, PIEs and the statistic recomputed). A resample that repeats members
  has noisier modal labels, so its PIE share is biased upwards and percentile intervals can miss
  the estimate: the interval is the estimate plus or minus 1.96 bootstrap standard errors, on a
  scale that respects the statistic's bound (:func:`pruneaudit.audit.bounded_interval`);
- the selection-based gaps (D4.5, D4.10 against the dense top-1 as H2's baseline, and its step,
  not comparable) are taken raw, as the papers print them; their excess over the balanced
  dense-vs-dense re-split null
  (:meth:`pruneaudit.audit.MemberVotes.permutation_null`, interval by inverting that test:
  :func:`pruneaudit.audit.shift_interval`) is our own question, a ``beyond`` row (B4.x);
- trends over sparsity (D4.1, D4.3, D4.6 "grow with t"): Spearman's rank correlation of the
  statistic with the level (:mod:`~.trends`);
- the writer-series rows (B4.9 at the level nearest H2's 95%, B4.11) are our own questions: H2's
  groups are CelebA attributes, absent offline.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from pruneaudit import audit
from pruneaudit.audit import exemplars
from pruneaudit.errors import PruneAuditError
from pruneaudit.runs import Population
from pruneaudit.studies.compression_impact.claims import claims
from pruneaudit.studies.compression_impact.exemplar_statistics import (
    exemplar_statistic,
    set_size,
    tie_fill_sd,
)
from pruneaudit.studies.compression_impact.run import PRUNING, QUANTIZATION, ImpactRuns, Result
from pruneaudit.studies.compression_impact.tables import headline_variant, lookup, summary
from pruneaudit.studies.compression_impact.trends import normal_interval, trend_findings

BOOT_BASIS = (
    "95% interval over {k} members = estimate +/- 1.96 standard errors (variance x K/(K-1)) "
    "of {n_boot} bootstrap resamples of the members (dense and compressed drawn with "
    "replacement, modal labels and PIEs recomputed){scale}"
)
EXCESS_BASIS = (
    "excess over {n_perm} balanced dense-vs-dense re-splits of the {k} + {k} members, 95% "
    "interval by inverting the re-split test"
)
#: Quantization schemes in the order D4.2 prefers them: H1's D4.2 pair is pruning vs dynamic int8.
D42_SCHEMES = ("dynamic_int8", "static_int8", "float16")
#: The pruned level of H2's sub-group tables (D4.9).
H2_GROUP_LEVEL = 0.95


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
    """D4.1 and D4.2 from H1's per-class Welch t-tests of one pruned population (and one
    quantized one) against the dense population.

    D4.1: the share of classes significantly impacted, Clopper-Pearson over the classes, against
    the null share ``alpha`` (an analogue of H1's 1,000 ImageNet classes). D4.2 (an analogue): per
    class, significant under pruning minus under dynamic int8 (else the first of
    :data:`D42_SCHEMES` run), mean over the classes with its Student-t interval (df = C - 1).
    """
    table = claims()
    sig = _significant(labels, baseline_preds, pruned_preds, num_classes, alpha)
    share = audit.Estimate(*audit.share_interval(int(sig.sum()), sig.size),
                           f"Clopper-Pearson over the {sig.size} classes; null = alpha = {alpha}")
    rows = [audit.judge(table["D4.1"], share)]
    scheme = next((s for s in D42_SCHEMES if s in quantized_preds), None)
    if scheme is None:
        return rows + [audit.untested(table["D4.2"],
                                      why="no quantization scheme was run on this page")]
    quant = _significant(labels, baseline_preds, quantized_preds[scheme], num_classes, alpha)
    m, lo, hi = audit.mean_interval(sig - quant)
    basis = (f"Student t over the {sig.size} classes of the per-class difference of "
             "significance indicators")
    return rows + [audit.judge(table["D4.2"], audit.Estimate(m, lo, hi, basis,
                                                             df=sig.size - 1),
                               name=f"{table['D4.2'].name} (share, pruned - {scheme})")]


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

    def measured(self, i: int, claim: str, scale: str | None = None,
                 caveat: str = "") -> audit.Finding:
        """Statistic ``i`` with its bootstrap interval (on ``scale``), judged as ``claim``."""
        ours, lo, hi = normal_interval(self.observed[i], self.draws[:, i], self.k)
        if scale:
            ours, lo, hi = audit.bounded_interval(ours, lo, hi, scale)
        said = f", on the {scale} scale" if scale else ""
        basis = BOOT_BASIS.format(k=self.k, n_boot=self.n_boot, scale=said) + caveat
        return audit.judge(claims()[claim], audit.Estimate(ours, lo, hi, basis, units=self.k))

    def excess(self, i: int, claim: str) -> audit.Finding:
        """Statistic ``i``'s excess over the re-split null, judged as ``claim`` (beyond)."""
        basis = EXCESS_BASIS.format(n_perm=self.n_perm, k=self.k)
        return audit.judge(claims()[claim], audit.Estimate(
            *audit.shift_interval(self.observed[i], self.null[:, i]), basis, units=self.k))


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
    resampling: audit.Resampling | None = None,
) -> list[audit.Finding]:
    """D4.3, D4.5, D4.6, D4.12, D4.13 and D4.10 (raw, with their ``beyond`` rows) and the
    writer-series questions beside D4.9 and D4.11 (B4.9, B4.11; :func:`exemplar_statistic`,
    module docstring), all on ``pruned_preds``. ``hard``: the group named in advance as the
    one expected to be harder; None picks the group the observed dense population errs on
    most, a choice made on the same data that the intervals do not account for. The D4.11 CIE
    set is H2's Fig. 2 one, the Taxicab scores above the 80th percentile, its boundary ties
    averaged over. ``resampling`` (default :class:`~pruneaudit.audit.Resampling`'s): the
    null's re-splits, the bootstrap's resamples and their seed."""
    draws = resampling or audit.Resampling()
    n_perm, n_boot, seed = draws.n_perm, draws.n_boot, draws.seed
    y = np.asarray(labels)
    groups, hard = _hard_group(y, baseline_preds, groups, hard)
    over_q = _over_q()
    stat = exemplar_statistic(y, groups, hard, over_q, seed)
    votes = audit.MemberVotes.of(baseline_preds, pruned_preds, num_classes)
    observed, draws = votes.bootstrap(stat, n_boot=n_boot, seed=seed)
    _, null = votes.permutation_null(stat, n_perm=n_perm, seed=seed)
    make = _Rows(observed, draws, null, min(len(baseline_preds), len(pruned_preds)), n_boot,
                 n_perm)
    rows = [
        make.measured(len(observed) - 1, "D4.3", scale="share"),
        make.measured(0, "B4.3 per error", scale="positive"),
        make.measured(1, "D4.5"), make.excess(1, "B4.5 excess"),
        make.measured(2, "D4.6"),
        make.measured(len(observed) - 3, "D4.12"), make.measured(len(observed) - 2, "D4.13"),
        make.measured(3, "D4.10"), make.measured(4, "D4.10 step"),
        make.excess(3, "B4.10 excess"), make.excess(4, "B4.10 step excess"),
    ]
    table = claims()
    if groups is None:
        why = "the test examples hold fewer than two groups (writer series)"
        return rows + [audit.untested(table[c], why=why)
                       for c in ("B4.9 writers", "B4.11 writers", "B4.11 writers excess")]
    b, v = (exemplars.vote_counts(p, num_classes) for p in (baseline_preds, pruned_preds))
    taxicab = np.abs(b / b[0].sum() - v / v[0].sum()).sum(axis=1)
    in_hard = np.asarray(groups) == hard
    spread = tie_fill_sd(taxicab, in_hard, set_size(y.size, over_q)) / in_hard.mean()
    caveat = (f"; the CIE set's boundary ties averaged over exactly (one random fill would move "
              f"the over-index by {spread:.3f}, one standard deviation)")
    named = f" ({hard})"
    rise = make.measured(5, "B4.9 writers")
    over = make.measured(6, "B4.11 writers", scale="relative", caveat=caveat)
    beyond = make.excess(6, "B4.11 writers excess")
    return rows + [_named(r, named) for r in (rise, over, beyond)]


def quantized_pie_finding(
    labels: np.ndarray, baseline_preds: np.ndarray, pruned_preds: np.ndarray,
    quantized_preds: Mapping[str, np.ndarray], num_classes: int,
    resampling: audit.Resampling | None = None,
) -> audit.Finding:
    """D4.14: the PIE share under quantization (the first of :data:`D42_SCHEMES` run) minus
    under pruning, both against the same dense members. The quantized members are the dense
    ones quantized, so a bootstrap resample draws the dense members once and keeps each one's
    quantized copy beside it; the pruned members are drawn on their own (independent seeds).
    :class:`~pruneaudit.audit.MemberVotes` resamples two independent populations, so this
    paired resample is written here. ``resampling``: its bootstrap's size and seed (default
    :class:`~pruneaudit.audit.Resampling`'s)."""
    draws = resampling or audit.Resampling()
    n_boot, seed = draws.n_boot, draws.seed
    scheme = next((s for s in D42_SCHEMES if s in quantized_preds), None)
    if scheme is None:
        return audit.untested(claims()["D4.14"], why="no quantization scheme was run here")
    quant = quantized_preds[scheme]
    if len(quant) != len(baseline_preds):
        return audit.untested(claims()["D4.14"], why="the quantized members do not pair with "
                              "the dense ones")
    dense, pruned = (audit.MemberVotes.of(baseline_preds, x, num_classes)
                     for x in (quant, pruned_preds))
    flat = [v.reshape(len(v), -1) for v in (dense.baseline, dense.compressed, pruned.compressed)]
    shape = dense.baseline.shape[1:]

    def statistic(counts_b: np.ndarray, counts_p: np.ndarray) -> float:
        b, q, v = ((c @ f).reshape(shape) for c, f in zip((counts_b, counts_b, counts_p), flat,
                                                          strict=True))
        modal = exemplars.modal_from_votes(b)
        return float((modal != exemplars.modal_from_votes(q)).mean()
                     - (modal != exemplars.modal_from_votes(v)).mean())

    k_b, k_p = len(flat[0]), len(flat[2])
    rng = np.random.default_rng(seed)
    counts_b = rng.multinomial(k_b, np.full(k_b, 1 / k_b), size=n_boot)
    counts_p = rng.multinomial(k_p, np.full(k_p, 1 / k_p), size=n_boot)
    observed = statistic(np.ones(k_b, dtype=int), np.ones(k_p, dtype=int))
    draws = np.array([statistic(counts_b[i], counts_p[i]) for i in range(n_boot)])
    k = min(k_b, k_p)
    ours, lo, hi = normal_interval(observed, draws, k)
    basis = BOOT_BASIS.format(k=k, n_boot=n_boot, scale="") + (
        f"; each dense member drawn with its {scheme} copy")
    return audit.judge(claims()["D4.14"], audit.Estimate(ours, lo, hi, basis, units=k))


def _over_q() -> int:
    """The percentile of H2's Fig. 2 CIE set (the Taxicab scores above it)."""
    return round(100 * lookup("Taxicab CIE threshold used in Fig. 2").number)


def _rise_at(
    labels: np.ndarray, baseline_preds: np.ndarray, pruned_preds: np.ndarray, num_classes: int,
    groups: np.ndarray, hard: object, n_boot: int, seed: int,
) -> audit.Finding:
    """The D4.9 writer row on ``pruned_preds`` alone (another level than the other rows'): the
    same statistic and bootstrap as :func:`exemplar_findings`'s, without the rows it does not
    need (no re-split null)."""
    y = np.asarray(labels)
    groups, hard = _hard_group(y, baseline_preds, groups, hard)
    stat = exemplar_statistic(y, groups, hard, _over_q(), seed)
    votes = audit.MemberVotes.of(baseline_preds, pruned_preds, num_classes)
    observed, draws = votes.bootstrap(stat, n_boot=n_boot, seed=seed)
    make = _Rows(observed, draws, np.empty((0, observed.size)),
                 min(len(baseline_preds), len(pruned_preds)), n_boot, 0)
    return _named(make.measured(5, "B4.9 writers"), f" ({hard})")


def _named(row: audit.Finding, suffix: str) -> audit.Finding:
    """``row`` with ``suffix`` (the group it was computed for) after its name."""
    return replace(row, finding=row.finding + suffix)


def _level_nearest(runs: ImpactRuns, level: float) -> float | None:
    """The pruned level nearest ``level`` (ties: the higher); None without a pruned one."""
    levels = [c.level for c in runs.compressed if c.kind == PRUNING]
    return min(levels, key=lambda t: (abs(t - level), -t)) if levels else None


def by_seed(population: Population) -> np.ndarray:
    """The members' predictions ``(K, N)`` in the order of their seeds: the bootstrap and
    re-split draws pick members by position, so this makes the findings a function of the set
    of runs, not of the order the profile lists the seeds in."""
    order = np.argsort([spec.seed for spec in population.specs], kind="stable")
    return np.asarray(population.preds)[order]


def findings(result: Result) -> list[audit.Finding]:
    """The page's findings (:func:`runs_findings`) with the options of its parameters: ``alpha``,
    ``group``, ``hard_group``, ``n_perm``, ``n_boot`` and ``tie_seed`` as the seed."""
    p = result.params
    return runs_findings(result.runs, p.alpha, p.group, hard_group=p.hard_group,
                         n_perm=p.n_perm, n_boot=p.n_boot, seed=p.tie_seed)


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
    """Every claim of :func:`~.claims.claims`, in its order: the class rows, the PIE and CIE rows
    (:func:`exemplar_findings` with ``hard=hard_group``) and the trends over all pruned levels
    for the pruned population nearest t = 90%; D4.9's writer row at the level nearest H2's 95%
    (:data:`H2_GROUP_LEVEL`); the claims this page cannot test (D4.4 among them), with their
    reasons. Each
    population's members in seed order (:func:`by_seed`)."""
    top = headline_variant(runs)
    y, base, comp = runs.baseline.labels, by_seed(runs.baseline), by_seed(top.population)
    quantized = {c.scheme: by_seed(c.population) for c in runs.compressed
                 if c.kind == QUANTIZATION}
    pruned = {c.level: by_seed(c.population) for c in runs.compressed if c.kind == PRUNING}
    meta = runs.test.meta
    groups = meta[group].to_numpy() if meta is not None and group in meta.columns else None
    if groups is not None and hard_group not in set(groups.tolist()):
        hard_group = None  # e.g. a test subset holding other series: pick it from the data
    draws = audit.Resampling(n_perm, n_boot, seed)
    options = {"hard": hard_group, "resampling": draws}
    rows = [*class_findings(y, base, comp, quantized, runs.num_classes, alpha),
            *exemplar_findings(y, base, comp, runs.num_classes, groups, **options),
            quantized_pie_finding(y, base, comp, quantized, runs.num_classes, draws),
            *trend_findings(y, base, pruned, runs.num_classes, alpha, n_boot=n_boot, seed=seed)]
    at95 = _level_nearest(runs, H2_GROUP_LEVEL)
    if groups is not None and at95 is not None and at95 != top.level:
        rise = _rise_at(y, base, pruned[at95], runs.num_classes, groups, hard_group, n_boot,
                        seed)
        rows = [r for r in rows if r.claim != "B4.9 writers"] + [rise]
    by_claim = {r.claim: r for r in rows}
    return [by_claim.get(c) or audit.untested(claims()[c]) for c in claims()]


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
