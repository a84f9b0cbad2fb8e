"""Study 2's live control: pick any writer and a pruning round to see the writer's digits as
the seeds' models of that round classify them, and the writer's accuracy round by round for
every seed (:func:`compute`, :func:`control`). The models of each round are read from the
results store once per process (:data:`ROUNDS`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from pruneaudit import charts, runs
from pruneaudit.errors import PruneAuditError, check_range
from pruneaudit.runs.store import ResultsStore
from pruneaudit.studies import live

from .frames import gallery_frame, seed_writer_accuracy
from .run import Result, dense_specs, predictions

#: (store root, the seeds' dense run keys, round) -> the population of that round.
ROUNDS: dict[tuple[str, tuple[str, ...], int], runs.Population] = {}


@dataclass(frozen=True)
class WriterRounds:
    """One writer at one round: ``gallery`` (:func:`~.frames.gallery_frame`: the writer's
    digits, "pruned" meaning the models of ``iteration``) and ``rounds`` (one row per round:
    iteration, sparsity, the writer's accuracy on each seed's model, their mean, min and max)."""

    writer: int
    iteration: int
    gallery: pd.DataFrame
    rounds: pd.DataFrame


def round_population(result: Result, iteration: int) -> runs.Population:
    """The stored models of every seed after ``iteration`` rounds (read once per process)."""
    p = result.params
    specs = dense_specs(p)
    key = (str(ResultsStore(p.store).root), tuple(s.key for s in specs), iteration)
    if key not in ROUNDS:
        ROUNDS[key] = predictions(specs, iteration, p.iterations, ResultsStore(p.store))
    return ROUNDS[key]


def compute(result: Result, writer: int, iteration: int | None = None) -> WriterRounds:
    """``writer``'s digits as the models of round ``iteration`` (None: the page's pruned round)
    classify them, and the writer's accuracy on each seed's model at every round."""
    if writer not in set(result.digits["writer"]):
        raise PruneAuditError(f"writer {writer!r} has no test digits; pick one of the writers "
                              "in result.writers")
    last = result.params.iterations
    k = result.pruned_iteration if iteration is None else int(check_range(
        "iteration", iteration, 0, last))
    rows = []
    for i in range(last + 1):
        pop = round_population(result, i)
        ids, acc = seed_writer_accuracy(pop.preds == pop.labels[None, :], result.digits["writer"])
        a = acc[:, int(np.searchsorted(ids, writer))]
        rows.append({"iteration": i, "sparsity": float(pop.sparsity.mean()),
                     **{f"seed {s.seed}": v for s, v in zip(pop.specs, a, strict=True)},
                     "mean": a.mean(), "min": a.min(), "max": a.max()})
    preds = round_population(result, k).preds
    digits = result.digits.assign(
        prediction_pruned=stats.mode(preds, axis=0, keepdims=False).mode,
        correct_pruned=(preds == result.test.labels.numpy()[None, :]).mean(axis=0),
    )
    return WriterRounds(writer, k, gallery_frame(result.test, digits, [writer]),
                        pd.DataFrame(rows))


def show(view: WriterRounds) -> None:
    """Display the gallery (captions: true label, unpruned and round's modal prediction) and
    the table of rounds."""
    from IPython.display import display

    display(charts.image_gallery(
        view.gallery, tooltip=["series", "correct_unpruned", "correct_pruned"],
        title=f"Writer {view.writer}'s digits (true / unpruned / round {view.iteration})"))
    acc = [c for c in view.rounds.columns if c != "iteration"]
    display(charts.table(view.rounds, f"Writer {view.writer}'s accuracy on each seed's model, "
                         "round by round", percent=acc))


def control(result: Result) -> object:
    """Pickers of the writer (every writer of the test digits, most hurt first) and the round;
    each pick reads the models and recomputes (:func:`compute`)."""
    import ipywidgets as widgets

    order = result.writers.sort_values("accuracy_change", kind="mergesort")
    style = {"description_width": "initial"}
    writer = widgets.Dropdown(options=[int(x) for x in order["writer"]], description="writer",
                              style=style)
    iteration = widgets.IntSlider(value=result.pruned_iteration, min=0,
                                  max=result.params.iterations, description="round",
                                  continuous_update=False, style=style)
    return live.control(
        lambda **choice: compute(result, **choice), show,
        {"writer": writer, "iteration": iteration}, "Writer's digits and rounds recomputed",
    )
