"""Live controls of the study pages (``make live``): ipywidgets that compute from the results
store what a static explorer cannot.

Each study's ``live`` module holds a pure ``compute(result, **choice)`` (the package's own
functions on the page's :class:`Result`, nothing recomputed by hand) and ``control(result)``,
which wraps it with :func:`control`: the pickers, and below them the computed answer with the
seconds it took. The static book shows only the note of
:func:`pruneaudit.charts.show_widget`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from pruneaudit.errors import PruneAuditError


def timed(compute: Callable[..., Any], **choice: object) -> tuple[Any, float]:
    """``compute(**choice)`` and the seconds it took (wall clock)."""
    start = time.perf_counter()
    value = compute(**choice)
    return value, time.perf_counter() - start


def control(
    compute: Callable[..., Any],
    show: Callable[[Any], None],
    pickers: Mapping[str, Any],
    what: str,
) -> Any:
    """An ipywidgets box: ``pickers`` (keyword -> widget) in a row and, below them, ``show`` of
    ``compute(**choice)`` for the picked values, recomputed on every change, with a line saying
    ``what`` was computed and in how many seconds, shown included. A bad choice shows its error
    instead. Show it with :func:`pruneaudit.charts.show_widget`, which builds nothing in the
    static book."""
    import ipywidgets as widgets
    from IPython.display import HTML, display

    def update(**choice: object) -> None:
        try:
            _, seconds = timed(lambda: show(compute(**choice)))
        except PruneAuditError as err:
            display(HTML(f"<p class='pa-live-error'>Cannot compute this choice: {err}</p>"))
            return
        display(HTML(f"<p class='pa-live-cost'><i>{what} and shown in {seconds:.2f} s."
                     "</i></p>"))

    row = widgets.HBox(list(pickers.values()))
    return widgets.VBox([row, widgets.interactive_output(update, dict(pickers))])
