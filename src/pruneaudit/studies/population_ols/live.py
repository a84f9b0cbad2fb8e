"""Study 1's live control: pick a dataset, an imbalance factor or a treatment and refit the
findings' OLS (cross terms, errors clustered by dataset and class) on those rows only, beside P's
coefficients (:func:`compute`, :func:`control`)."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
from patsy import PatsyError

from pruneaudit.errors import PruneAuditError, check_choice
from pruneaudit.studies import live

from .fits import coefficient_table, findings_fit
from .run import Result
from .views import coefficients_table

#: The value of a picker that keeps every row.
ALL = "all"
#: The design frame's columns a refit can be restricted on.
PICKS = ("dataset", "imbalance_factor", "treatment")


@dataclass(frozen=True)
class Refit:
    """The refit on the rows picked (``choice``: column -> value, ``"all"`` kept out): the
    pruned rows fitted, their (dataset, class) clusters and the coefficient table
    (:func:`~.fits.coefficient_table`)."""

    choice: dict[str, object]
    rows: int
    clusters: int
    table: pd.DataFrame


def options(result: Result, column: str) -> list[object]:
    """``"all"`` and the values of ``column`` in the design frame."""
    values = result.frame[check_choice("column", column, PICKS)].unique()
    return [ALL, *sorted(v.item() if hasattr(v, "item") else v for v in values)]


def compute(result: Result, **choice: object) -> Refit:
    """Refit the findings' OLS (:func:`~.fits.findings_fit`) on the design frame's rows whose
    ``dataset``, ``imbalance_factor`` and ``treatment`` are the values picked (``"all"`` or
    left out: every value)."""
    frame = result.frame
    picked = {}
    for column, value in choice.items():
        if value == ALL:
            continue
        allowed = options(result, column)[1:]
        if value not in allowed:
            raise PruneAuditError(f"no rows with {column} = {value!r}; pick one of {allowed} "
                                  f"or {ALL!r}")
        frame = frame[frame[column] == value]
        picked[column] = value
    pruned = frame[frame["iteration"] > 0]
    try:
        fit = findings_fit(frame)
    except (ValueError, ArithmeticError, PatsyError, PruneAuditError) as err:
        raise PruneAuditError(f"no OLS fits the {len(pruned)} pruned rows of {picked} ({err}); "
                              "pick fewer restrictions") from None
    clusters = len(pruned[["dataset", "class"]].drop_duplicates())
    return Refit(picked, len(pruned), clusters, coefficient_table(fit))


def show(refit: Refit) -> None:
    """Display the rows fitted and the coefficients beside P's."""
    from IPython.display import HTML, display

    what = ", ".join(f"{k} = {v}" for k, v in refit.choice.items()) or "every row"
    display(HTML(f"<p>Refit on {what}: {refit.rows} pruned rows in {refit.clusters} clusters "
                 "(dataset, class).</p>"))
    display(coefficients_table(refit.table, "Every term both fits have: P's coefficient "
                               "beside ours refitted on these rows (95% interval)."))


def control(result: Result) -> object:
    """Drop-downs of the dataset, imbalance factor and treatment; each pick refits
    (:func:`compute`)."""
    import ipywidgets as widgets

    style = {"description_width": "initial"}
    pickers = {c: widgets.Dropdown(options=options(result, c), value=ALL,
                                   description=c.replace("_", " "), style=style)
               for c in PICKS}
    return live.control(lambda **choice: compute(result, **choice), show, pickers,
                        "OLS refitted")
