"""Study 3's claims (P, section 4.2 and Figs. 3-4), declared from P's text
(:mod:`pruneaudit.audit.claims`; when each was declared or last changed: the claims changelog).

P prunes AlexNet on MNIST with the four structured techniques (20 rounds of 30 epochs, both
treatments, six seeds averaged per point), keeps the networks of at least 98% accuracy and picks
one with fairness weighted 100x sparsity. Our builds run LeNet in its place (a dense AlexNet
alone exceeds their budget) with fewer and shorter rounds, and lower the floor when too few
networks reach it: D3.1 and D3.3 are ``analogue`` rows (direction only, no paper band). P's
pick "at around 68% sparsity" is a point read from its figure for AlexNet's candidates: our
pick's sparsity, among LeNet's candidates, is not comparable with it (its direction, below the
sparsest candidate, is shown). Whether the pick is fairer than the sparsest net on seeds it was
not chosen on is our own question (``beyond``), never a headline.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from functools import cache

from pruneaudit import audit
from pruneaudit.audit.claims import ANALOGUE, BEYOND, NOT_COMPARABLE, Claim, Setting

from .params import SOURCE, STUDY

NOTEBOOK = "03_pareto_selection"
#: Where P selects (AlexNet on MNIST) and where we do (the default parameters, :mod:`~.params`:
#: LeNet); each claim adds its quantity (:func:`settings`).
P_SETTING = Setting("MNIST", "AlexNet", "structured pruning", "")
OURS = Setting("MNIST", "LeNet", "structured pruning", "")
#: D3.1's smallest effect of interest: one technique more than the null of a single one.
ONE_MORE_TECHNIQUE = 1.0
#: D3.3's smallest effect of interest: unfairness (max − min, a fraction) rising by 0.1 from no
#: pruning to full sparsity (P: a figure only).
SMALLEST_SLOPE = 0.1
#: The held-out gain's smallest effect of interest: one point of unfairness (max − min).
SMALLEST_GAIN = 0.01
LENET_WHY = (
    "P's quantity carried to LeNet in place of P's AlexNet (the quick and smoke profiles: a "
    "dense AlexNet alone exceeds their budget), with fewer and shorter rounds than P's 20 of 30 "
    "epochs and the 98% floor lowered when too few networks reach it: direction only"
)
PICK_WHY = (
    "P's 'around 68%' is the pick among AlexNet's candidates, read from Fig. 4a; ours is the "
    "pick among LeNet's candidates at this build's budget, whose sparsities are set by which "
    "networks pass the floor (when our sparsest candidate is not above 68%, no pick can sit "
    "near 68% below it), and its null, the sparsest candidate, is a property of those "
    "candidates: the pick's sparsity has no footing beside P's number"
)
HELD_OUT_WHY = (
    "our own question, stronger than P's claim: P compares no held-out unfairness, and noise "
    "alone in the unfairness moves a pick chosen on the same seeds below the sparsest candidate"
)


def settings(quantity: str) -> dict[str, Setting]:
    """A claim's ``paper_setting`` and ``our_setting``: P's and ours with the row's
    ``quantity``."""
    return {"paper_setting": replace(P_SETTING, quantity=quantity),
            "our_setting": replace(OURS, quantity=quantity)}


@cache
def claims() -> Mapping[str, Claim]:
    """Study 3's claims by id: D3.1, D3.2 (P's pick), our held-out question beside it (B3.2),
    D3.3."""
    pick = audit.lookup(STUDY, "sparsity")  # P's selected point, read from Fig. 4a
    return audit.register(NOTEBOOK, [
        Claim("D3.1", "D3.1 Pareto set spans more than one technique",
              says="Among AlexNet/MNIST structured-pruned nets with accuracy >= 98%, the "
              "sparsity-fairness Pareto set spans more than one technique", source=SOURCE,
              quantity="the number of techniques on the (sparsity, max − min unfairness) "
              "frontier of the candidates averaged over seeds (P: each point the mean of six "
              "networks); null: one technique",
              comparability=ANALOGUE, why=LENET_WHY, null=1.0, side=1,
              smallest=ONE_MORE_TECHNIQUE, headline=True,
              **settings("techniques on the Pareto frontier")),
        Claim("D3.2", f"D3.2 the fairness pick's sparsity, below the sparsest candidate (P: "
              f"{pick.value})",
              says="With fairness weighted 100x sparsity, the selected point is at around 68% "
              "sparsity, not the sparsest feasible net", source=pick.source,
              quantity="mean over seeds of the sparsity of the fairness-weighted pick among "
              "each seed's candidates above the floor; null: the sparsest candidate's",
              comparability=NOT_COMPARABLE, why=PICK_WHY, paper=pick.number,
              paper_noise="read from Fig. 4a (the blue point); each point the mean of 6 seeds",
              paper_units=6, margin=0.04,
              margin_reason="half of one pruning iteration's step in sparsity near P's pick "
              "(59.0% -> 67.2% -> 73.8%); P's point is the mean of 6 seeds", unit="percent"),
        Claim("B3.2 held out", "B3.2 ours: the fairness pick is fairer than the sparsest net, "
              "held out",
              says="beside D3.2 (the selected point is not the sparsest feasible net): is the "
              "fairness pick fairer than the sparsest candidate on a seed it was not chosen on?",
              source=SOURCE,
              quantity="per seed, unfairness (max − min) of the sparsest candidate minus the "
              "pick's, both chosen on the other seeds' means (held out)",
              comparability=BEYOND, why=HELD_OUT_WHY, side=1, smallest=SMALLEST_GAIN,
              unit="points"),
        Claim("D3.3", "D3.3 unfairness rises with sparsity",
              says="Unfairness rises with sparsity for all structured techniques (Fig. 3c)",
              source="P; Fig. 3c",
              quantity="mean over pruning series of the least-squares slope of max − min class "
              "accuracy on sparsity (pruned rounds)",
              comparability=ANALOGUE, why=LENET_WHY, side=1, smallest=SMALLEST_SLOPE,
              unit="points", **settings("unfairness slope on sparsity")),
    ])
