"""The template's findings and the numbers its prose cites, from the :class:`~.run.Result`."""

from __future__ import annotations

from pruneaudit import audit

from .run import Result, accuracy_drops


def numbers(result: Result) -> dict[str, float | str | int]:
    """The numbers the page's prose cites: the mean and the largest drop, the class it hits,
    and the number of classes (glued into the Markdown by :meth:`pruneaudit.book.Page.glue`)."""
    drops = accuracy_drops(result.curves)
    return {
        "mean_drop": float(drops.mean()),
        "worst_drop": float(drops.min()),
        "worst_class": str(drops.idxmin()),
        "n_classes": int(len(drops)),
    }


def findings(result: Result) -> list[audit.Finding]:
    """One finding: pruning lowers class accuracy (mean drop over classes below 0, Student-t
    interval over classes). A direction only: the template has no paper value."""
    drops = accuracy_drops(result.curves).to_numpy()
    ours, lo, hi = audit.mean_interval(drops)
    return [
        audit.finding(
            "pruning lowers class accuracy (synthetic)",
            ours,
            lo,
            hi,
            None,
            source="template; synthetic data",
            basis="mean over classes of the last-minus-first accuracy, t interval over classes; "
            "smallest effect 5 points",
            direction=-1,
            smallest=0.05,
            df=max(len(drops) - 1, 1),
            unit="points",
            definition="mean over classes of accuracy at the last iteration minus the first",
        )
    ]
