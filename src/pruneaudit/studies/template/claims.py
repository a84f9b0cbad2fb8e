"""The template's claims, each change logged with its date (:mod:`pruneaudit.audit.claims`).

A study declares here, once, every row its findings table shows: the paper's sentence and
source, the quantity as computed, the paper's value and its noise, the margin and its reason,
the headline rows, and the comparability that decides the words a verdict may use. It declares
its own setting once (:data:`OURS`: dataset, model, compression); a ``same`` or ``analogue``
claim then names the paper's setting and ours with its quantity (``paper_setting``,
``our_setting``), and is ``same`` only when the two match. The findings
build each row by its id (:func:`pruneaudit.audit.judge`); a change to a claim's quantity,
comparability, margin or paper value needs an entry in the package's claims changelog.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from functools import cache

from pruneaudit import audit
from pruneaudit.audit.claims import BEYOND, Claim, Setting

STUDY = "00_template"
#: Where the template measures (:mod:`~.params`): LeNets on MNIST, magnitude pruning.
OURS = Setting("MNIST", "LeNet", "magnitude pruning", "")


@cache
def claims() -> Mapping[str, Claim]:
    """The template's one claim: pruning lowers class accuracy (no paper)."""
    return audit.register(STUDY, [
        Claim(
            "T1", "pruning lowers class accuracy (template)",
            says="the template's own question: do the pruned populations lose class accuracy?",
            source="template; MNIST populations",
            quantity="mean over classes of accuracy at the last iteration minus the first",
            comparability=BEYOND, why="the template has no paper: its question is its own",
            unit="points", side=-1, smallest=0.05,
            our_setting=replace(OURS, quantity="mean class accuracy change"),
        ),
    ])
