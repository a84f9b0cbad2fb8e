"""Study 3's live control: move the accuracy floor (and the fairness weight) to re-pick the
operating point from every operating point of the run (:func:`compute`, :func:`control`)."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from pruneaudit.studies import live

from .frames import UNFAIRNESS, Candidates, candidates, mark_frontiers, picks
from .run import Result
from .views import format_table

#: The columns of a pick shown.
SHOWN = ["rule", "label", "accuracy", "sparsity", UNFAIRNESS, "value"]


@dataclass(frozen=True)
class Repick:
    """The candidates above the floor used (``candidates``, frontiers marked in ``marked``) and
    the value-function pick beside the sparsest candidate (``chosen``)."""

    candidates: Candidates
    marked: pd.DataFrame
    chosen: pd.DataFrame


def compute(
    result: Result, floor: float | None = None, fairness_weight: float | None = None
) -> Repick:
    """Re-pick the operating point at accuracy ``floor`` and ``fairness_weight`` (None: the
    page's), from the run's operating points, as the page does (:func:`~.frames.candidates`
    with the page's ``min_candidates``, then :func:`~.frames.picks`)."""
    p = result.params
    cands = candidates(result.points, p.accuracy_floor if floor is None else floor,
                       p.min_candidates)
    weight = p.fairness_weight if fairness_weight is None else fairness_weight
    return Repick(cands, mark_frontiers(cands.frame), picks(cands.frame, weight,
                                                            p.sparsity_weight))


def show(repick: Repick) -> None:
    """Display the floor used, how many points pass it and the two picks."""
    from IPython.display import HTML, display

    c = repick.candidates
    lowered = (f", lowered to {c.floor_used:.1%} to keep {len(c.frame)} candidates"
               if c.lowered else "")
    display(HTML(f"<p>{c.passed_requested} pruned points reach {c.floor_requested:.1%}{lowered};"
                 f" {int(repick.marked['pareto'].sum())} of the {len(c.frame)} candidates are "
                 "Pareto-optimal (sparsity against max − min unfairness).</p>"))
    cols = [k for k in SHOWN if k in repick.chosen.columns]
    display(format_table(repick.chosen[cols], "The value-function pick and the sparsest "
                         "candidate at this floor and weight"))


def control(result: Result) -> object:
    """Sliders of the accuracy floor and the fairness weight; each move re-picks
    (:func:`compute`)."""
    import ipywidgets as widgets

    p = result.params
    pruned = result.points[result.points["iteration"] > 0]["accuracy"]
    lo = max(0.0, float(pruned.min()) - 0.01)
    floor = widgets.FloatSlider(
        value=min(max(p.accuracy_floor, lo), 1.0), min=round(lo, 3), max=1.0, step=0.001,
        readout_format=".1%", description="accuracy floor", continuous_update=False,
        style={"description_width": "initial"},
    )
    weight = widgets.FloatLogSlider(
        value=p.fairness_weight, base=10, min=-1, max=3, description="fairness weight",
        continuous_update=False, style={"description_width": "initial"},
    )
    return live.control(
        lambda **choice: compute(result, **choice), show,
        {"floor": floor, "fairness_weight": weight}, "Candidates and picks re-chosen",
    )
