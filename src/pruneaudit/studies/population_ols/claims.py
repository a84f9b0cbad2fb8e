"""Study 1's claims (P, section 3 and appendix D), taken from P's text
(:mod:`pruneaudit.audit.claims`); every change is logged with its date.

P fits its Eq. 2 with cross terms by OLS on almost a million class rows: 4 models (LeNet,
AlexNet, VGG11, ResNet18) on 8 datasets, 7 pruning techniques, both weight treatments, 20 rounds
to 98.8% sparsity, HAC errors. This page fits the same equation to a much smaller population:
LeNet on 3 of P's datasets in the quick profile, each training pool also subsampled to a long
tail of our own making (so that the imbalance r_c varies at all), 6 rounds to 73.8% sparsity,
errors clustered by (dataset, class). Every row is therefore an ``analogue``: its direction
only, P's value shown beside it, no band and no size; the margins (about a quarter of P's value)
serve only as the negligible band that makes an effect *absent*. The rewinding term is not
comparable in a build whose rewound rounds train longer than its finetuned ones (P trained both
30 epochs a round): :func:`pruneaudit.studies.population_ols.findings.regression_findings`
decides that from the parameters and says why.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from functools import cache

from pruneaudit import audit
from pruneaudit.audit.claims import ANALOGUE, Claim, Setting

from .params import STUDY

NOTEBOOK = "01_population_ols"
#: Where P fits its Eq. 2 (its whole population) and where we do (the default parameters,
#: :mod:`~.params`); each claim adds its quantity (:func:`settings`).
P_SETTING = Setting("P's 8 datasets", "LeNet, AlexNet, VGG11, ResNet18",
                    "7 pruning techniques, finetune or rewind", "")
OURS = Setting("MNIST, Fashion-MNIST, KMNIST", "LeNet",
               "4 of P's pruning techniques, finetune or rewind", "")
#: D1.3's null: P's claim is that the fit explains *most* of the variance, more than half (an
#: adjusted R² above 0 says only that it explains some, which no fit of this size can fail).
R2_NULL = 0.5
#: The smallest widening of the max − min class-accuracy gap (dense → last round, accuracy as a
#: fraction) the page cares about for D1.5 (P gives a figure only): 5 points, fixed in advance.
SPREAD_SMALLEST = 0.05
COEF_DEFINITION = (
    "coefficient of {term} in the OLS of per-class accuracy on P's Eq. 2 terms with P's cross "
    "terms (pruned rows; accuracies as fractions)"
)
ANALOGUE_WHY = (
    "P's regression carried to a smaller population: LeNet only on 3 of P's 8 datasets (the "
    "quick profile; P: 4 models, 7 techniques, 8 datasets), each pool also cut to a long tail "
    "of our own making so that r_c varies, 73.8% sparsity after 6 rounds against P's 98.8% "
    "after 20, errors clustered by (dataset, class) rather than HAC: direction only"
)
SPREAD_WHY = (
    "P shows the widening gap in figures of its own population (Figs. 3, 5, 7); ours is LeNet "
    "on our datasets and long tails, per imbalance factor and treatment, at 73.8% sparsity "
    "(quick profile): direction only"
)
QUARTER = "about a quarter of P's {}; the negligible band around the null"


def settings(quantity: str) -> dict[str, Setting]:
    """A claim's ``paper_setting`` and ``our_setting``: P's and ours with the row's
    ``quantity``."""
    return {"paper_setting": replace(P_SETTING, quantity=quantity),
            "our_setting": replace(OURS, quantity=quantity)}


def _coef(ident: str, name: str, metric: str, says: str, margin: float, reason: str,
          headline: bool = False) -> Claim:
    """The claim on one of P's App. D coefficients (``metric``: P's term)."""
    paper = audit.lookup(STUDY, "OLS coef: " + metric)
    return Claim(
        ident, name, says=says, source=paper.source,
        quantity=COEF_DEFINITION.format(term=metric), comparability=ANALOGUE, why=ANALOGUE_WHY,
        paper=paper.number, paper_se=paper.se,
        paper_noise=f"printed std err {paper.se:g} (HAC, 3 lags) on 949,298 class rows",
        margin=margin, margin_reason=reason, headline=headline,
        **settings(f"Eq. 2 coefficient of {metric}"),
    )


def _regression_claims() -> list[Claim]:
    r2 = audit.lookup(STUDY, "OLS Adj. R-squared")
    d14 = ("Pre-pruning class accuracy dominates (accuracy0 = 1.1384); its effect shrinks with "
           "e^sparsity (-0.1907) and under rewinding (-0.1827)")
    return [
        _coef("D1.1", "D1.1 imbalance coefficient E > 0", "imbalance",
              "Controlling for sparsity, a_c^0, dataset, model, weight treatment and technique, "
              "better-represented classes keep more accuracy: imbalance coefficient E = 1.2429 "
              "> 0 (t = 53.527)", 0.3,
              "about a quarter of P's 1.24: a reader reads the coefficient's magnitude (12 "
              "points of class accuracy per 10 points of class share), not its second digit; "
              "the negligible band around the null", headline=True),
        _coef("D1.2", "D1.2 entropy coefficient F < 0", "class_entropy",
              "Higher-entropy classes keep less accuracy: F = -0.0237 < 0 (t = -43.313)", 0.006,
              QUARTER.format("-0.0237 (accuracy per bit of class entropy)"), headline=True),
        Claim("D1.3", "D1.3 adjusted R² of the fit (P: 0.753)",
              says="The fit explains most variance: adj. R² = 0.753, N = 949298",
              source="P; Sec. 3.1 and App. D",
              quantity="adjusted R² of the cross-term OLS of per-class accuracy (P: its whole "
              "population; here the pruned rows of this grid); null "
              f"{R2_NULL:g}: P's claim is that the fit explains most of the variance",
              comparability=ANALOGUE, why=ANALOGUE_WHY, paper=r2.number,
              paper_noise="no standard error printed; 949,298 class rows", margin=0.05,
              margin_reason="five points of explained variance: P's claim is that the fit "
              "explains most of it (0.753); the negligible band around the null",
              null=R2_NULL, **settings("adjusted R² of Eq. 2")),
        _coef("D1.4", "D1.4 pre-pruning class accuracy a0 dominates (main effect)", "accuracy0",
              d14, 0.25, QUARTER.format("1.14")),
        _coef("D1.4 e^sparsity", "D1.4 a0 effect shrinks with e^sparsity",
              "np.exp(sparsity):accuracy0", d14, 0.05, QUARTER.format("-0.191")),
        _coef("D1.4 rewind", "D1.4 a0 effect shrinks under rewinding",
              "accuracy0:weight_treatment[T.rewind]", d14, 0.05, QUARTER.format("-0.183")),
        _coef("D1.6", "D1.6 rewinding's main effect on class accuracy",
              "weight_treatment[T.rewind]", "App. D's rewinding main effect: rows retrained from "
              "the original initialization sit higher than finetuned ones, +0.0670 (t = "
              "42.561), the cross terms held at zero", 0.017,
              QUARTER.format("+0.0670 (class accuracy, as a fraction)")),
    ]


@cache
def claims() -> Mapping[str, Claim]:
    """Study 1's claims by id: D1.1-D1.4 on P's App. D fit, D1.5 on its figures (one claim for
    every imbalance factor and treatment the page splits it by)."""
    return audit.register(NOTEBOOK, [
        *_regression_claims(),
        Claim("D1.5", "D1.5 max − min class gap widens with sparsity",
              says="Per-class accuracies fall at unequal rates, and the max - min gap widens "
              "with sparsity toward 'winner-takes-all' (Figs. 3, 5, 7)",
              source="P; Figs. 3, 5, 7",
              quantity="change of the max − min class accuracy (fraction) from the dense model "
              "to the last round, averaged over techniques per dense model, per imbalance "
              "factor and treatment",
              comparability=ANALOGUE, why=SPREAD_WHY, side=1, smallest=SPREAD_SMALLEST,
              unit="points", **settings("change of the max − min class-accuracy gap")),
    ])
