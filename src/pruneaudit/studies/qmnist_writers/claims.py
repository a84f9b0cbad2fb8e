"""Study 2's claims (P, section 4.1 and appendix C), declared from P's text
(:mod:`pruneaudit.audit.claims`; when each was declared or last changed: the claims changelog).

Study 2 runs P's own task (LeNet on QMNIST, global unstructured pruning with rewinding to about
98.6% sparsity: :data:`OURS` matches :data:`P_SETTING`), so every testable row is the paper's
quantity computed the paper's way (``same``):

- D2.1 (the top-line drop) is P's mean over 6 replicates: its band holds P's 6-seed noise;
- D2.2's group-level "similar" is a claim of no material difference (an equivalence margin);
  its individual collapse (writer 469, 100% -> 47.7%) is P's raw worst-writer drop, one writer
  of one seed: its band holds a single model's noise; how far that drop exceeds what a second
  dense model gives is our own question beside it (``beyond``, B2.2 writer excess), with a
  smallest effect of ten points;
- D2.3 and D2.4 come from P's Table 1, the fits of one model (seed 0): their band holds the
  noise of a single model (``paper_units = 1``; the findings give the spread of the statistic
  over our seeds, :class:`pruneaudit.audit.Estimate` ``unit_sd``);
- D2.5 and D2.6 are figures in P: directions with a smallest effect of interest, in standardized
  units where the quantity's own scale is arbitrary (Cohen's small effects: d = 0.2, r = 0.1);
  the effect of distance to the class mean "differs by group" in no direction: not testable.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from functools import cache

from pruneaudit import audit
from pruneaudit.audit.claims import BEYOND, NOT_TESTABLE, SAME, Claim, Setting

NOTEBOOK = "02_qmnist_writers"
#: P's numbers for this study in the package's table of published values.
STUDY = "S2_QMNIST_writers"
TILT_METRIC = "linear fit of per-writer accuracy vs average absolute tilt: "
#: P's Table 1 groups; hsf1 is not in the offline test digits.
TABLE1_GROUPS: tuple[str, ...] = ("hsf0", "hsf1", "hsf4", "all")
HSF1_MISSING = (
    "series hsf1 occurs only in the 50,000 QMNIST test digits that are not available offline "
    "(the offline test10k has hsf0 and hsf4 only)"
)
#: Equivalence margin of "group-level drops are similar" (D2.2), fixed before any run.
SIMILAR_MARGIN = 0.5
#: Smallest effects of interest of the figure-only claims (P prints no number): Cohen's small
#: effects (d = 0.2 for a difference of means, r = 0.1 for a standardized slope) and one point of
#: class accuracy (D2.6).
SMALL_D = 0.2
SMALL_R = 0.1
SMALLEST_MARGIN = 0.01
#: Smallest effect of the individual collapse (D2.2): ten points of one writer's accuracy beyond
#: a second dense model (P's number is one writer of one seed, so only its direction is claimed).
SMALLEST_COLLAPSE = 0.1
#: Where P measures and where we do (:mod:`~.params`: LeNet on QMNIST, global unstructured
#: magnitude pruning with rewinding); each claim adds its quantity (:func:`settings`).
P_SETTING = Setting("QMNIST", "LeNet", "global magnitude pruning", "")
OURS = Setting("QMNIST", "LeNet", "global magnitude pruning", "")
ONE_MODEL = "one model (seed 0); single-model noise from our per-seed spread"
TABLE1_SAYS = "P Table 1 (linear fits of per-writer accuracy on mean |tilt|, Figs. 13a/13b)"


def settings(quantity: str) -> dict[str, Setting]:
    """A claim's ``paper_setting`` and ``our_setting``: P's and ours with the row's
    ``quantity``."""
    return {"paper_setting": replace(P_SETTING, quantity=quantity),
            "our_setting": replace(OURS, quantity=quantity)}


def printed_difference(x: float) -> float:
    """A difference of two printed values, without float noise (-0.18999999999999995: -0.19)."""
    return round(x, 6)


def paper_tilt(coefficient: str, stage: str, group: str) -> audit.Published:
    """P Table 1: ``coefficient`` (intercept/slope) before/after pruning for ``group``."""
    return audit.lookup(
        STUDY,
        TILT_METRIC + coefficient,
        setting="before pruning" if stage == "unpruned" else "after pruning",
        dataset=f"QMNIST test, writer group {'full' if group == 'all' else group}",
    )


def _topline_claims() -> list[Claim]:
    metric = "test accuracy (mean of 6 replicates)"
    dense = audit.lookup(STUDY, metric, setting="0% sparsity")
    pruned = audit.lookup(STUDY, metric, setting="~98.6% sparsity")
    before = audit.lookup(STUDY, "writer accuracy", setting="seed 0")
    after = audit.lookup(STUDY, "writer accuracy", setting="seed 0, ~98.6%")
    collapse = ("... yet individual writers can collapse: writer 469 goes from 100% to "
                f"{after.value} (seed 0, Fig. 1; dense {before.value})")
    return [
        Claim("D2.1", "D2.1 test accuracy falls at ~98.6% sparsity (pruned − dense)",
              says="LeNet pruned to ~98.6%: total test accuracy ~97% -> ~78% (average over "
              "six replicates)", source=pruned.source,
              quantity="mean over seeds of the pruned model's test accuracy minus its dense "
              "model's, all offline test digits (P: mean of 6 replicates, ~97% -> ~78%)",
              comparability=SAME, paper=printed_difference(pruned.number - dense.number),
              paper_noise="a mean over 6 replicates (seeds): our per-seed spread / sqrt(6)",
              paper_units=6, margin=0.05,
              margin_reason="five points of test accuracy: P states the drop in whole points "
              "(~97% -> ~78%)", unit="points", headline=True,
              **settings("test accuracy, pruned minus dense")),
        Claim("D2.2", "D2.2 group-level drops are similar: (drop hsf4 − drop hsf0) / overall "
              "drop", says="Group-level drops are similar across hsf0/1/4",
              source="P; Sec. 4.1",
              quantity="(mean writer accuracy change hsf4 − hsf0) / mean change of all writers "
              "(writer accuracy: mean over seeds); P: drops comparable across hsf0/1/4, no "
              "number", comparability=SAME, margin=SIMILAR_MARGIN,
              margin_reason="the two series' mean drops differ by less than half of the mean "
              "drop over all writers (fixed before any run)", unit="ratio", equivalence=True,
              **settings("series accuracy drops compared")),
        Claim("D2.2 writer", "D2.2 a writer the dense model gets right collapses: worst drop "
              "per seed (pruned − dense)",
              says=collapse, source=after.source,
              quantity="per seed, the largest accuracy drop (pruned − dense) among the writers "
              "that seed's dense model gets 100% right; mean over seeds (P: writer 469, "
              f"{after.value} - {before.value}, seed 0)", comparability=SAME,
              paper=printed_difference(after.number - before.number), paper_noise=ONE_MODEL,
              paper_units=1, margin=0.13,
              margin_reason="about a quarter of P's -52.3 points (one writer's accuracy)",
              unit="points", headline=True, **settings("worst-writer accuracy drop")),
        Claim("B2.2 writer excess", "B2.2 ours: the worst writer drop beyond a second dense "
              "model", says="our question beside D2.2's collapse: is the worst writer drop more "
              "than a second dense model in place of the pruned one gives?", source=after.source,
              quantity="D2.2 writer's per-seed worst drop minus the same statistic with another "
              "seed's dense model in place of the pruned one (seed k vs k+1 mod K); mean over "
              "seeds", comparability=BEYOND,
              why="our own question: P compares the collapse with no null; a second dense model "
              "also loses some writers it does not get wholly right", side=-1,
              smallest=SMALLEST_COLLAPSE, unit="points"),
    ]


def _table1_claims() -> list[Claim]:
    out = []
    for group in TABLE1_GROUPS:
        before, after = (paper_tilt("slope", stage, group) for stage in ("unpruned", "pruned"))
        testable = group != "hsf1"
        out.append(Claim(
            f"D2.3 {group}",
            f"D2.3 tilt slope turns more negative ({group}: slope pruned − slope dense)",
            says="The accuracy-vs-|tilt| slope turns more negative after pruning in every "
            f"group: {group} {before.value} -> {after.value} ({TABLE1_SAYS})",
            source=after.source,
            quantity=f"least-squares slope of writer accuracy on mean |tilt| ({group}), pruned "
            "minus dense (writer accuracy: mean over seeds, so the slope is the mean of the "
            "seeds' slopes)",
            comparability=SAME if testable else NOT_TESTABLE, why="" if testable else HSF1_MISSING,
            paper=printed_difference(after.number - before.number),
            paper_noise=ONE_MODEL, paper_units=1, margin=0.05,
            margin_reason="under a quarter of P's smallest slope change (-0.14 to -0.27 "
            "accuracy per unit of mean |tilt|)",
            **(settings("tilt slope, pruned minus dense") if testable else {}),
        ))
    for stage, words in (("unpruned", "before"), ("pruned", "after")):
        hsf4, hsf0 = (paper_tilt("intercept", stage, g) for g in ("hsf4", "hsf0"))
        out.append(Claim(
            f"D2.4 {stage}", f"D2.4 hsf4 has the lowest fitted intercept, {stage} (hsf4 − hsf0)",
            says="Of the three groups, hsf4 has the lowest fitted intercept before and after "
            f"pruning (0.974 -> 0.771); {words} pruning hsf4 {hsf4.value}, hsf0 {hsf0.value} "
            f"({TABLE1_SAYS})", source=hsf4.source,
            quantity=f"fitted intercept of writer accuracy on mean |tilt|, hsf4 minus hsf0, "
            f"{stage} (hsf1 is not offline, so hsf4 vs hsf0 only)", comparability=SAME,
            paper=printed_difference(hsf4.number - hsf0.number), paper_noise=ONE_MODEL,
            paper_units=1, margin=0.01,
            margin_reason="one point of fitted writer accuracy between series (P's gaps: 1.4 "
            "points unpruned, 8.3 pruned)", unit="points",
            **settings("tilt-fit intercept, hsf4 minus hsf0"),
        ))
    return out


def _figure_claims() -> list[Claim]:
    figure = " (P: a figure, direction only)"
    return [
        Claim("D2.5 tilt", "D2.5 hsf4 writers draw more vertical digits (mean |tilt| hsf4 − "
              "hsf0, in pooled SDs)", says="hsf4 writers draw more vertical digits (Fig. 11)",
              source="P; App. C, Fig. 11",
              quantity="mean over writers of mean |tilt|, hsf4 minus hsf0, over the pooled "
              "standard deviation of the two series (Cohen's d)" + figure,
              comparability=SAME, side=-1, smallest=SMALL_D,
              **settings("mean |tilt|, hsf4 minus hsf0")),
        Claim("D2.5 activation", "D2.5 writers with atypical activation lose more (slope of "
              "change on |activation − mean|, standardized)",
              says="Writers with atypical pixel activation (either direction) lose more",
              source="P; App. C",
              quantity="least-squares slope of writer accuracy change on |mean activation − "
              "mean over writers|, times the SD of that deviation over the SD of the change "
              "(a standardized slope, a correlation)" + figure,
              comparability=SAME, side=-1, smallest=SMALL_R,
              **settings("accuracy change on atypical activation")),
        Claim("D2.5 distance", "D2.5 the effect of distance to the class mean differs by group",
              says="The effect of Euclidean distance to the class-mean image differs by group",
              source="P; Fig. 2",
              quantity="per-series slope of writer accuracy change on mean distance to the "
              "class-mean image (P: differs by group, no direction)", comparability=NOT_TESTABLE,
              why="P states neither a direction nor a size for the difference, so no verdict "
              "can be computed; our per-series slopes are in the property-effects table below"),
        Claim("D2.6 digit 1", "D2.6 digit 1 stays the best class after pruning (acc 1 − best "
              "other)", says="Class ranking persists under pruning: digit 1 (most frequent) "
              "stays best", source="P; Sec. 4.1",
              quantity="mean over seeds of the pruned accuracy on digit 1 minus the best other "
              "digit's" + figure, comparability=SAME, side=1, smallest=SMALLEST_MARGIN,
              unit="points", **settings("digit 1's pruned accuracy margin")),
        Claim("D2.6 digit 5", "D2.6 digit 5 drops most (change of 5 − largest other drop)",
              says="digit 5 (least frequent) is worst and drops most", source="P; Sec. 4.1",
              quantity="mean over seeds of digit 5's accuracy change minus the largest other "
              "drop" + figure, comparability=SAME, side=-1, smallest=SMALLEST_MARGIN,
              unit="points", **settings("digit 5's accuracy drop margin")),
    ]


@cache
def claims() -> Mapping[str, Claim]:
    """Study 2's claims by id, in the findings table's order (module doc)."""
    return audit.register(NOTEBOOK, [*_topline_claims(), *_table1_claims(), *_figure_claims()])
