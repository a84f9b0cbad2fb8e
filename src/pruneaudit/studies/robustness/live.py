"""Study 5's live control: pick any corruption and severity (the page's grid or not) and
evaluate the stored members of every level on that corrupted test set (:func:`compute`,
:func:`control`).

The evaluations are kept in the results store (:func:`pruneaudit.runs.run_corrupted` evaluates
only what the store lacks) and in this process (:data:`CACHE`), so a second pick of the same
set is read back, not evaluated again.
"""

from __future__ import annotations

import functools

import pandas as pd

from pruneaudit import charts, data, runs
from pruneaudit.charts import format as fmt
from pruneaudit.runs.populations import level_name
from pruneaudit.runs.store import ResultsStore
from pruneaudit.studies import live

from .frames import level_rows
from .params import SEVERITIES, check_grid
from .run import Result

#: (store root, member keys, corruption, severity, corruption seed) -> the table of
#: :func:`compute`.
CACHE: dict[tuple, pd.DataFrame] = {}


def _evaluate(result: Result, corruption: str, severity: int) -> pd.DataFrame:
    p, pops = result.params, result.runs.populations
    specs = [s for pop in pops.values() for s in pop.specs]
    store = ResultsStore(p.store)
    shifted = runs.run_corrupted(specs, [(corruption, severity)], store, p.data_root,
                                 seed=p.corruption_seed, progress=False,
                                 runtime=p.runtime())[(corruption, severity)]
    return level_rows(pops, shifted, corruption, severity)


def compute(result: Result, corruption: str, severity: int) -> pd.DataFrame:
    """Each level's population-mean top-1 on the test set under ``corruption`` at ``severity``
    (the page's seeded draw), beside its clean top-1, and the ratio to the dense population's
    (H1's relative robustness at one severity, as a change in %).

    Columns: level, level_name, members, sparsity, accuracy, clean_accuracy, change_pct,
    clean_change_pct. Cached (:data:`CACHE`)."""
    (corruption,), (severity,) = check_grid([corruption], [severity])
    p = result.params
    keys = tuple(s.key for pop in result.runs.populations.values() for s in pop.specs)
    cache_key = (str(ResultsStore(p.store).root), keys, corruption, severity, p.corruption_seed)
    if cache_key not in CACHE:
        CACHE[cache_key] = _table(result, _evaluate(result, corruption, severity))
    return CACHE[cache_key].copy()


def _table(result: Result, members: pd.DataFrame) -> pd.DataFrame:
    acc = result.runs.accuracy
    clean = acc[acc["corruption"] == "clean"].groupby("level")["accuracy"].mean()
    out = (members.groupby("level", sort=True)
           .agg(members=("seed", "size"), sparsity=("sparsity", "mean"),
                accuracy=("accuracy", "mean"))
           .reset_index())
    out["clean_accuracy"] = out["level"].map(clean)
    dense = out.set_index("level")
    out["change_pct"] = 100 * (out["accuracy"] / dense.loc[0.0, "accuracy"] - 1)
    out["clean_change_pct"] = 100 * (out["clean_accuracy"] / dense.loc[0.0, "clean_accuracy"] - 1)
    out.insert(1, "level_name", [level_name(t) for t in out["level"]])
    return out


def show(table: pd.DataFrame) -> None:
    """Display the table."""
    from IPython.display import display

    change = {"change_pct": "change", "clean_change_pct": "clean change"}
    shown = table.drop(columns="level").rename(columns=change)
    shown[list(change.values())] /= 100  # fractions, shown as signed percent
    display(charts.table(
        shown, "Each level's mean top-1 under the picked corruption, beside its clean top-1, "
        "and the change relative to the dense population",
        percent=["sparsity", "accuracy", "clean_accuracy"],
        formats=dict.fromkeys(change.values(), functools.partial(fmt.percent, sign=True))))


def control(result: Result) -> object:
    """Pickers of the corruption (every one the package has) and the severity; each pick
    evaluates the stored models, once (:func:`compute`)."""
    import ipywidgets as widgets

    p = result.params
    style = {"description_width": "initial"}
    corruption = widgets.Dropdown(options=list(data.CORRUPTIONS),
                                  value=p.corruption_names[0], description="corruption",
                                  style=style)
    severity = widgets.Dropdown(options=list(SEVERITIES), value=p.severities[-1],
                                description="severity", style=style)
    return live.control(
        lambda **choice: compute(result, **choice), show,
        {"corruption": corruption, "severity": severity},
        "Stored members evaluated (a pick made before is read back)",
    )
