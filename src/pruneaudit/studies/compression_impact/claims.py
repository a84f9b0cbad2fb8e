"""Study 4's claims (H1, H2), declared from the papers' text (:mod:`pruneaudit.audit.claims`;
when each was declared or last changed: the claims changelog).

H1 measures on ImageNet (ResNet-50) and CIFAR-10 (a wide ResNet), H2 on CelebA (ResNet-18); we
run LeNet populations on QMNIST digits (:data:`OURS`), so no row here is the paper's own
(``same``): every one of the papers' quantities is carried to our task as an ``analogue``
(direction only, the papers' value beside it, no band and no size, with a smallest effect of
interest declared from the papers' text), or is ``not comparable`` or ``not testable`` with its
reason. Our own questions stand beside as ``beyond`` rows, never a headline: the gaps' excess
over two dense populations (confounded by set size: the disagreement set between two halves of
one dense population is much smaller, so it holds only the hardest examples), the PIE share per
dense error, and the harder writer series' error rise and over-index (H2's groups are CelebA
attributes, absent offline).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from functools import cache

from scipy import stats

from pruneaudit import audit
from pruneaudit.audit.claims import (
    ANALOGUE,
    BEYOND,
    NOT_COMPARABLE,
    NOT_TESTABLE,
    Claim,
    Setting,
)
from pruneaudit.studies.compression_impact.tables import H1_SCHEMES, IMAGENET, lookup

NOTEBOOK = "04_compression_impact"
SIG = "count significant classes (Welch p<=0.05)"
SHARE = "share of classes significant (Welch)"
#: The alpha of H1's class tests, the null share of classes significant by chance.
ALPHA = 0.05
H1_UNITS = "30 models per setting (H1)"
#: ImageNet's validation images, over which H1 counts its PIEs.
IMAGENET_TEST = 50_000
H2_UNITS = "30 models per level (H2)"
CONFOUND = (
    "our own question: how far the gap exceeds the same gap between two dense populations. "
    "Confounded by set size: the disagreement set of two halves of one dense population is much "
    "smaller than the PIE set, so it holds only the hardest examples"
)
#: Smallest rank correlation of interest of the trend rows (their power is against it).
SMALLEST_RHO = 0.5
#: The smallest effects of interest of the analogue gaps (direction only): about a quarter of the
#: papers' smallest raw gap across their tasks (H1's ImageNet PIE gap -36.94 points, its non-PIE
#: lift +4.45 points; H2's Taxicab top-10% gap -32.4 points).
SMALLEST_GAP = 0.09
SMALLEST_LIFT = 0.011
SMALLEST_CIE = 0.08
GAP = "dense top-1 on PIEs minus on all"
#: Why D4.4 (a comparison between two tasks) cannot be tested here.
ONE_TASK = (
    "H1's point compares two tasks (a smaller one, CIFAR-10, against ImageNet); each build of "
    "this study trains populations on one task (QMNIST digits), and no other study trains "
    "populations of members on a second dataset, so no two tasks' class-level impact can be "
    "compared; our one share is D4.1's"
)
DIGITS = "H1 counts over 1,000 ImageNet classes; ours over 10 digit classes"
#: Where this study measures (its protocol, :mod:`~.params`): LeNet populations on QMNIST digits,
#: gradual magnitude pruning; each claim adds its quantity (:func:`settings`).
OURS = Setting("QMNIST", "LeNet", "gradual magnitude pruning", "")
#: Where the papers measure: H1's ImageNet models, H2's CelebA models.
H1_IMAGENET = Setting("ImageNet", "ResNet-50", "gradual magnitude pruning", "")
H2_CELEBA = Setting("CelebA", "ResNet-18", "gradual magnitude pruning", "")
TASKS = ("H1's {} measured on {}; ours on LeNets on QMNIST digits: the quantity carried to "
         "another task, direction only")


def settings(paper: Setting, quantity: str, compression: str | None = None
             ) -> dict[str, Setting]:
    """A claim's ``paper_setting`` and ``our_setting``: ``paper`` and :data:`OURS` with the
    row's ``quantity`` (and ``compression`` where the row compares two)."""
    more = {"quantity": quantity, **({"compression": compression} if compression else {})}
    return {"paper_setting": replace(paper, **more), "our_setting": replace(OURS, **more)}


def _class_claims() -> list[Claim]:
    p90 = lookup(SIG, dataset=IMAGENET, setting="t=90%")
    dyn = lookup(SIG, dataset=IMAGENET, setting=H1_SCHEMES["dynamic_int8"])
    cifar = lookup(SIG, dataset="CIFAR-10 test", setting="t=90%")
    return [
        Claim("D4.1", "D4.1 share of classes significantly impacted by pruning",
              says="Significant ImageNet classes grow with sparsity, 68/170/372/637 at "
              "30/50/70/90%, while top-1 only moves 76.68 -> 72.60", source=p90.source,
              quantity="classes with Welch p <= alpha (mean-shifted recall, pruned vs dense "
              "members) / all classes, at the level nearest 90%; H1: 637 of 1,000",
              comparability=ANALOGUE, why=DIGITS, paper=p90.number / 1000, null=ALPHA,
              smallest=0.1, unit="percent", headline=True, **settings(H1_IMAGENET, SHARE)),
        Claim("D4.1 trend", "D4.1 trend: share of significant classes grows with sparsity",
              says="Significant ImageNet classes grow with sparsity (68/170/372/637)",
              source="H1; Table 2", quantity="Spearman rho of the share of classes with Welch "
              "p <= alpha with the pruning level; H1's values give rho = 1",
              comparability=ANALOGUE, why=DIGITS, side=1, smallest=SMALLEST_RHO, unit="ratio",
              **settings(H1_IMAGENET, f"rank correlation of the {SHARE} with t")),
        Claim("D4.2", "D4.2 pruning impacts more classes than quantization",
              says="Quantization hurts fewer classes than heavy pruning: float16 58, dynamic "
              "int8 144, fixed-point int8 119 vs 637 at 90%", source=dyn.source,
              quantity="share of classes significant under pruning minus under the first of "
              "dynamic int8, static int8, float16 run; H1: (637 - 144) / 1,000",
              comparability=ANALOGUE, why=DIGITS, paper=(p90.number - dyn.number) / 1000,
              smallest=0.1, unit="points",
              **settings(H1_IMAGENET, f"{SHARE}, pruned minus quantized",
                         "gradual magnitude pruning vs post-training quantization")),
        Claim("D4.4", "D4.4 the smaller task shows a lower class-level impact (H1: CIFAR-10 "
              "against ImageNet)", says="CIFAR-10 shows little class-level impact (1, 1, 0, 2 "
              "significant classes), lower than ImageNet's (68/170/372/637)",
              source=cifar.source, quantity="share of classes significant on the smaller task "
              "minus on the larger, at the level nearest 90%; H1: 2 of 10 (CIFAR-10) minus 637 "
              "of 1,000 (ImageNet)", comparability=NOT_TESTABLE, why=ONE_TASK,
              paper=cifar.number / 10 - p90.number / 1000, unit="points"),
    ]


def _pie_claims() -> list[Claim]:
    share = lookup("share of test set classified as PIE", dataset="ImageNet")
    t6 = {m: lookup(f"top-1 {m} (%)", dataset="ImageNet", setting="t=90.0%")
          for m in ("PIEs", "non-PIEs", "All")}
    gap = (t6["PIEs"].number - t6["All"].number) / 100
    lifts = [lookup("top-1 non-PIEs (%)", dataset="ImageNet", setting=f"t={t}.0%")
             for t in (10, 30, 50, 70, 90)]
    rho = float(stats.spearmanr([10, 30, 50, 70, 90], [v.number for v in lifts]).statistic)
    return [
        Claim("D4.3", "D4.3 share of test examples that are PIEs",
              says="PIE counts grow with sparsity: ImageNet 1,819 -> 5,136 (10.27% of the test "
              "set at t = 90%); CIFAR-10 114 -> 216", source=share.source,
              quantity="share of examples whose dense and pruned modal labels differ, at the "
              "level nearest 90%; H1: 10.27% (ImageNet, t = 90%)", comparability=ANALOGUE,
              why=TASKS.format("PIE share", "ResNet-50 on ImageNet") + " (H1's own share spans "
              "2.16% on CIFAR-10 to 16.17% on CelebA: a size does not carry between tasks)",
              paper=share.number, paper_noise=H1_UNITS, smallest=0.005, unit="percent",
              **settings(H1_IMAGENET, "PIE share")),
        Claim("B4.3 per error", "B4.3 ours: PIEs per dense error (PIE share / dense error rate)",
              says="our question beside D4.3: is the PIE share large for the task's error "
              "rate: are there fewer PIEs than dense errors?", source=share.source,
              quantity="PIE share over the dense members' mean error rate, against 1 (as many "
              "PIEs as dense errors)", comparability=BEYOND,
              why="our own ratio: H1's does not carry between its tasks (0.44 ImageNet, 0.42 "
              "CIFAR-10, 3.07 CelebA)", null=1.0, side=-1, smallest=0.1, unit="ratio"),
        Claim("D4.3 trend", "D4.3 trend: PIE share grows with sparsity",
              says="PIE counts grow with sparsity (ImageNet 1,819 -> 5,136; CIFAR-10 114 -> "
              "216)", source="H1; Table 2", quantity="Spearman rho of the PIE share with the "
              "pruning level; H1's values give rho = 1", comparability=ANALOGUE,
              why=TASKS.format("PIE counts", "ResNet-50 on ImageNet"), side=1,
              smallest=SMALLEST_RHO, unit="ratio",
              **settings(H1_IMAGENET, "rank correlation of the PIE share with t")),
        Claim("D4.5", "D4.5 dense top-1 on PIEs minus on all",
              says="PIEs are hard even for dense models: ImageNet 39.81 vs 76.75 (t = 90)",
              source=t6["PIEs"].source, quantity="dense members' mean top-1 on the PIEs minus "
              "on all examples (raw, no null taken off), at the level nearest 90%; H1: 39.81 - "
              "76.75", comparability=ANALOGUE, why=TASKS.format("gap", "ResNet-50 on ImageNet"),
              paper=gap, paper_noise=H1_UNITS, smallest=SMALLEST_GAP, unit="points",
              headline=True, **settings(H1_IMAGENET, GAP)),
        Claim("B4.5 excess", "B4.5 ours: the PIE gap beyond two dense populations",
              says="our question beside D4.5: is the PIE gap more than two dense populations' "
              "disagreement set shows?", source=t6["PIEs"].source,
              quantity="D4.5's gap minus the same gap between balanced re-splits of the dense "
              "and pruned members into two populations", comparability=BEYOND, why=CONFOUND,
              side=-1, smallest=0.05, unit="points"),
        Claim("D4.6", "D4.6 dense top-1 without the PIEs minus on all (derived)",
              says="Dropping PIEs lifts ImageNet top-1 above the baseline: 81.20 vs 76.75 (t = "
              "90)", source=t6["non-PIEs"].source,
              quantity="dense members' mean top-1 on the non-PIEs minus on all; derived: equals "
              "-s / (1 - s) x D4.5's gap, s the PIE share; H1: 81.20 - 76.75",
              comparability=ANALOGUE, why=TASKS.format("lift", "ResNet-50 on ImageNet"),
              paper=(t6["non-PIEs"].number - t6["All"].number) / 100, paper_noise=H1_UNITS,
              smallest=SMALLEST_LIFT, unit="points",
              **settings(H1_IMAGENET, "dense top-1 on non-PIEs minus on all")),
        Claim("D4.6 trend", "D4.6 trend: the non-PIE lift grows with sparsity",
              says="Dropping PIEs lifts top-1 more at higher t: 79.34 (t = 10) -> 81.20 (t = "
              "90)", source=t6["non-PIEs"].source, quantity="Spearman rho of the dense "
              "non-PIE lift with the pruning level; H1's non-PIE top-1 "
              f"({', '.join(v.value for v in lifts)} at t = 10-90%) gives rho = {rho:.1f}",
              comparability=ANALOGUE, why=TASKS.format("lift", "ResNet-50 on ImageNet"),
              paper=rho, smallest=SMALLEST_RHO, unit="ratio",
              **settings(H1_IMAGENET, "rank correlation of the non-PIE lift with t")),
    ]


#: Why D4.10's step is not comparable with H2's.
STEP_WHY = (
    "H2's step is on a binary task (Blond hair, chance 50%), where top-1 on the top 1% of "
    "Taxicab scores falls below chance (29.21%); ours is on 10 digit classes (chance 10%), where "
    "the pruned members split their votes on those examples and top-1 there sits near chance: "
    "the step is set by each task's chance level, so its size or sign carries no comparison "
    "with H2's (shown, not judged)"
)


def _compressed_pie_claims() -> list[Claim]:
    """H1's PIE claims on the compressed models themselves (D4.12, D4.14)."""
    share = lookup("share of test set classified as PIE", dataset="ImageNet")
    pies = {t: lookup("count PIEs", dataset=IMAGENET, setting=t)
            for t in ("t=90%", H1_SCHEMES["dynamic_int8"])}
    fewer = (pies[H1_SCHEMES["dynamic_int8"]].number - pies["t=90%"].number) / IMAGENET_TEST
    quantized, pruned = (f"{pies[t].number:,.0f}" for t in (H1_SCHEMES["dynamic_int8"], "t=90%"))
    return [
        Claim("D4.12", "D4.12 pruned top-1 on PIEs minus on all",
              says="PIEs are harder for the compressed models too: their top-1 on the PIEs is "
              "far below their top-1 on all examples", source="H1; Sec. 3.2",
              quantity="pruned members' mean top-1 on the PIEs minus on all examples (raw), at "
              "the level nearest 90%; H1 states it without a number", comparability=ANALOGUE,
              why=TASKS.format("gap", "ResNet-50 on ImageNet") + ". The PIEs are chosen where "
              "the pruned modal label leaves the dense one, so the gap leans negative by "
              "construction (B4.5 excess measures that lean for the dense gap)", side=-1,
              smallest=SMALLEST_GAP, unit="points",
              **settings(H1_IMAGENET, "pruned top-1 on PIEs minus on all")),
        Claim("D4.14", "D4.14 quantization leaves fewer PIEs than pruning",
              says="At comparable size, quantization leaves fewer PIEs than pruning: dynamic "
              f"int8 {quantized} PIEs against {pruned} at t = 90% (ImageNet)",
              source=share.source,
              quantity="PIE share under dynamic int8 (else the first of static int8, float16 "
              "run) minus under pruning at the level nearest 90%, both against the same dense "
              f"members; H1: ({quantized} - {pruned}) / {IMAGENET_TEST:,} (ImageNet)",
              comparability=ANALOGUE, why=TASKS.format("PIE counts", "ResNet-50 on ImageNet"),
              paper=fewer, paper_noise=H1_UNITS, smallest=0.005,
              unit="points", **settings(H1_IMAGENET, "PIE share, quantized minus pruned",
                                        "post-training quantization vs gradual magnitude "
                                        "pruning")),
    ]


def _cie_claims() -> list[Claim]:
    h2 = {q: lookup(f"top-1 on Taxicab CIEs, {q}th pct (%)", dataset="CelebA test",
                    setting="t=90.0%") for q in (90, 99)}
    dense = lookup("top-1 (%)", dataset="CelebA test (Blond hair, binary)", setting="t=0",
                   paper="H2")
    top10 = (h2[90].number - dense.number) / 100
    step = (h2[99].number - h2[90].number) / 100
    says = "CIE accuracy falls as the Taxicab percentile rises; CIE top-1 is far below the test set"
    beyond = "our question beside D4.10: is the gap more than two dense populations show?"
    return [
        Claim("D4.10", "D4.10 compressed top-1 on the Taxicab top 10% CIEs minus the dense "
              "top-1", says=says, source=f"{h2[90].source} and {dense.source}",
              quantity="pruned members' mean top-1 on the 10% highest Taxicab scores minus the "
              "dense members' mean top-1 on all (H2's reference, the non-compressed baseline), "
              f"level nearest 90%; H2: {h2[90].value} - {dense.value} (CelebA, t = 90%)",
              comparability=ANALOGUE,
              why=TASKS.format("gap", "ResNet-18 on CelebA").replace("H1's", "H2's"),
              paper=top10, paper_noise=H2_UNITS, smallest=SMALLEST_CIE, unit="points",
              headline=True, **settings(H2_CELEBA, "pruned top-1 on the Taxicab top 10% minus "
                                        "the dense top-1")),
        Claim("D4.13", "D4.13 the pruned models' drop on the Modal CIEs minus their drop on all",
              says="Compressed models degrade far more on the CIEs than the non-compressed model "
              "and than on the whole test set (overall drop under 3%; on Modal CIEs the "
              "accuracy 'degrades by 45.86%')", source="H2; Sec. 3.2 and Fig. 4",
              quantity="(pruned minus dense members' mean top-1 on the Modal CIEs, where the "
              "two modal labels differ) minus (the same on all examples), level nearest 90%; "
              "H2 prints no comparable number (Fig. 4's basis is not stated)",
              comparability=ANALOGUE,
              why=TASKS.format("drop", "ResNet-18 on CelebA").replace("H1's", "H2's") + ". The "
              "Modal CIEs are chosen where the two modal labels differ, so the drop there leans "
              "negative by construction", side=-1, smallest=SMALLEST_CIE, unit="points",
              **settings(H2_CELEBA, "pruned minus dense top-1 on Modal CIEs, minus on all")),
        Claim("D4.10 step", "D4.10 compressed top-1 on the Taxicab top 1% minus on the top 10%",
              says=says, source=h2[99].source, quantity="pruned members' mean top-1 on the 1% "
              "highest Taxicab scores minus on the 10%, level nearest 90%; H2: "
              f"{h2[99].value} - {h2[90].value} (CelebA, t = 90%)",
              comparability=NOT_COMPARABLE, why=STEP_WHY, paper=step, paper_noise=H2_UNITS,
              unit="points"),
        Claim("B4.10 excess", "B4.10 ours: the top 10% CIE gap beyond two dense populations",
              says=beyond, source=h2[90].source, quantity="D4.10's gap (pruned "
              "on the top 10% minus dense on all) minus the same gap between balanced re-splits "
              "of the members into two populations",
              comparability=BEYOND, why=CONFOUND, side=-1, smallest=0.05, unit="points"),
        Claim("B4.10 step excess", "B4.10 ours: the top 1% step beyond two dense populations",
              says=beyond, source=h2[99].source, quantity="D4.10's step minus the same step "
              "between balanced re-splits of the members into two populations",
              comparability=BEYOND, why=CONFOUND, side=-1, smallest=0.05, unit="points"),
    ]


def _group_claims() -> list[Claim]:
    old = lookup("Error normalized difference vs baseline", dataset="CelebA test subgroup O")
    threshold = lookup("Taxicab CIE threshold used in Fig. 2")
    blond = lookup("share of training set: Blond Male")
    writers = ("H2's groups are CelebA attributes (absent offline) and its under-represented "
               "group is a minority; our groups are the writer series, nearly balanced: this is "
               "our own question, not H2's")
    return [
        Claim("D4.9", "D4.9 CelebA sub-group error and FPR rise (Male, Old)",
              says="At 95% pruning on CelebA: FPR for Male +49.54% vs not-Male +6.32%; Old "
              "error +35.84% vs Young +20.64%", source="H2; Table 3",
              quantity="(95%-pruned - dense FPR) / dense FPR per CelebA group",
              comparability=NOT_TESTABLE, why="CelebA images are absent offline (attributes "
              "only); our writer-series question follows", paper=old.number, unit="points"),
        Claim("B4.9 writers", "B4.9 ours: the harder writer series' error rises more at 95%",
              says="our question beside D4.9: does pruning raise the error of the harder "
              "writer series more than the others'?", source=old.source,
              quantity="(pruned - dense error) / dense error of the series named in advance as "
              "harder, minus the other series' mean, at the pruned level nearest 95% (H2's "
              "level)", comparability=BEYOND, why=writers, side=1, smallest=0.05,
              unit="points"),
        Claim("D4.11", "D4.11 under-represented CelebA attributes over-index in CIEs",
              says="Under-represented CelebA attributes over-index in CIEs (Fig. 2); Blond Male "
              "is 0.85% of the training set", source=f"{blond.source} (Blond Male share)",
              quantity="a group's share of the Taxicab CIEs vs of the training set",
              comparability=NOT_TESTABLE, why="CelebA images are absent offline; our "
              "writer-series question follows", paper=blond.number, unit="percent"),
        Claim("B4.11 writers", "B4.11 ours: the harder writer series over-indexes in the "
              "Taxicab CIEs", says="our question beside D4.11: do the CIEs over-index the "
              "harder writer series?", source=threshold.source,
              quantity=f"share of the harder series among the Taxicab "
              f"{round(100 * threshold.number)}th-percentile CIEs (boundary ties averaged over) "
              "/ its share of the test set, minus 1", comparability=BEYOND, why=writers, side=1,
              smallest=0.1, unit="ratio"),
        Claim("B4.11 writers excess", "B4.11 ours: the writer over-index beyond two dense "
              "populations", says="our question beside D4.11: is the over-index more than two "
              "dense populations' CIEs show?", source=threshold.source,
              quantity="the over-index minus the same over-index between balanced re-splits of "
              "the members into two populations", comparability=BEYOND, why=CONFOUND, side=1,
              smallest=0.1, unit="ratio"),
    ]


def _untestable_claims() -> list[Claim]:
    human = lookup("share with attribute: ground truth label incorrect or inadequate",
                   dataset="ImageNet (1230 images)", setting="PIE")
    rows = []
    for dataset in ("CIFAR-10", "CelebA"):
        pie = lookup("top-1 PIEs (%)", dataset=dataset, setting="t=90.0%")
        everything = lookup("top-1 All (%)", dataset=dataset, setting="t=90.0%")
        rows.append(Claim(
            f"D4.5 {dataset}", f"D4.5 on {dataset} (H1, another dataset)",
            says=f"PIEs are hard even for dense models on {dataset}", source=pie.source,
            quantity=f"dense top-1 on PIEs minus on all: {pie.value} - {everything.value}",
            comparability=NOT_TESTABLE, why=f"H1's raw {dataset} gap, beside ImageNet's in the "
            f"D4.5 row; no {dataset} images offline",
            paper=(pie.number - everything.number) / 100, unit="points"))
    return rows + [
        Claim("D4.7", "D4.7 significant decreases fewer but larger than increases",
              says="Significant class decreases are fewer but larger than increases",
              source="H1; Sec. 3 (qualitative)", quantity="among significant classes, the count "
              "and mean size of recall decreases vs increases", comparability=NOT_TESTABLE,
              why="H1 states it without a number, and 10 digit classes give too few "
              "significant ones to compare counts and sizes; the class table shows ours"),
        Claim("D4.8", "D4.8 PIEs over-index on incorrect labels (human study)",
              says="PIEs over-index on incorrect labels (20.05% vs 8.90%)", source=human.source,
              quantity="share of PIEs raters judged wrongly labelled",
              comparability=NOT_TESTABLE, why="needs H1's human annotation of ImageNet PIEs "
              "(85 raters)", paper=human.number, unit="percent"),
    ]


@cache
def claims() -> Mapping[str, Claim]:
    """Study 4's claims by id, in the order the findings table shows them."""
    return audit.register(NOTEBOOK, [
        *_class_claims(), *_pie_claims(), *_compressed_pie_claims(), *_cie_claims(),
        *_group_claims(), *_untestable_claims()])
