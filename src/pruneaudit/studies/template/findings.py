"""The template's findings and the numbers its prose cites, from the :class:`~.run.Result`."""

from __future__ import annotations

from pruneaudit import audit

from .claims import claims
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
    """Claim T1 (:func:`~.claims.claims`): the mean drop over classes, Student-t interval over
    classes."""
    drops = accuracy_drops(result.curves).to_numpy()
    ours, lo, hi = audit.mean_interval(drops)
    basis = "t interval over classes; smallest effect 5 points"
    return [audit.judge(claims()["T1"], audit.Estimate(ours, lo, hi, basis,
                                                       df=max(len(drops) - 1, 1)))]
