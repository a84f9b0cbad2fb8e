"""Study 4's live control: pick a pruning level or quantization scheme, the members per
population and the significance level, and rerun H1's per-class tests on them
(:func:`compute`, :func:`control`)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import pandas as pd

from pruneaudit import audit, charts, runs
from pruneaudit.errors import PruneAuditError
from pruneaudit.studies import live

from .run import ImpactRuns, Result
from .tables import class_tests

#: The columns of the class tests shown.
SHOWN = ["class_name", "baseline_recall", "compressed_recall", "absolute_recall_difference",
         "p", "significant", "p_bh", "significant_bh"]


@dataclass(frozen=True)
class ClassTests:
    """The per-class tests of one variant (``table``, :func:`~.tables.class_tests`), on the
    first ``members`` of each population, at ``alpha``; ``counts``: the significant classes,
    raw and Benjamini-Hochberg."""

    variant: str
    members: int
    alpha: float
    table: pd.DataFrame
    counts: dict[str, int]


def first_members(pop: runs.Population, k: int) -> runs.Population:
    """The population of the first ``k`` members of ``pop``."""
    keys = {s.key for s in pop.specs[:k]}
    return runs.Population(pop.specs[:k], pop.preds[:k], pop.labels,
                           pop.classes[pop.classes["key"].isin(keys)], pop.sparsity[:k])


def subset(impact: ImpactRuns, variant: str, members: int) -> ImpactRuns:
    """``impact`` with only ``variant`` and the first ``members`` of it and of the baseline."""
    chosen = impact.get(variant)
    k = len(impact.baseline.specs)
    if isinstance(members, bool) or not isinstance(members, int) or not 2 <= members <= k:
        raise PruneAuditError(f"members must be an integer in 2..{k} (the populations have {k} "
                              f"members), got {members!r}")
    pop = first_members(chosen.population, members)
    return replace(impact, baseline=first_members(impact.baseline, members),
                   compressed=(replace(chosen, population=pop),))


def compute(
    result: Result, variant: str, members: int | None = None, alpha: float | None = None
) -> ClassTests:
    """H1's per-class Welch tests of ``variant`` (a name of ``result.runs.names``) against the
    dense population, on their first ``members`` (None: all) at ``alpha`` (None: the page's)."""
    k = len(result.runs.baseline.specs) if members is None else members
    a = result.params.alpha if alpha is None else alpha
    table = class_tests(subset(result.runs, variant, k), a)
    return ClassTests(variant, k, a, table, audit.significant_counts(table))


def show(tests: ClassTests) -> None:
    """Display the counts and the per-class table."""
    from IPython.display import HTML, display

    n = len(tests.table)
    display(HTML(
        f"<p>{tests.variant}, {tests.members} members per population, α = {tests.alpha:g}: "
        f"{tests.counts['significant']} of {n} classes change significantly "
        f"({tests.counts['significant_bh']} after Benjamini-Hochberg).</p>"))
    display(charts.table(
        tests.table[SHOWN], "Per-class recall, dense and compressed population, and the test",
        percent=["baseline_recall", "compressed_recall"], points=["absolute_recall_difference"],
        pvalue=["p", "p_bh"]))


def control(result: Result) -> object:
    """Pickers of the variant, the members and α; each change reruns the tests (:func:`compute`)."""
    import ipywidgets as widgets

    k = len(result.runs.baseline.specs)
    style = {"description_width": "initial"}
    variant = widgets.Dropdown(options=result.runs.names, description="level or scheme",
                               style=style)
    members = widgets.IntSlider(value=k, min=2, max=k, description="members",
                                continuous_update=False, style=style)
    alpha = widgets.Dropdown(options=sorted({0.01, 0.05, 0.1, result.params.alpha}),
                             value=result.params.alpha, description="α", style=style)
    return live.control(
        lambda **choice: compute(result, **choice), show,
        {"variant": variant, "members": members, "alpha": alpha}, "Class tests rerun",
    )
