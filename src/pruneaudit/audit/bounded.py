"""Intervals of bounded quantities on a scale that respects the bound, back-transformed.

A share lies in [0, 1], a relative change (``a / b - 1``) above -1, a ratio above 0; an interval
``estimate -/+ h`` computed on the raw scale (Student t, Welch, normal bootstrap) can cross the
bound (a relative drop of "-78% [-113, -43]"). :func:`bounded_interval` moves each end's distance
to the transform's scale by the delta method, ``g(estimate) -/+ h * g'(estimate)``, and maps the
ends back with ``g``'s inverse:

- ``share``: ``g = logit``, ``g' = 1 / (p (1 - p))``; ends in (0, 1);
- ``relative``: ``g(r) = log(1 + r)`` (the log-ratio), ``g' = 1 / (1 + r)``; ends above -1;
- ``positive``: ``g = log``, ``g' = 1 / x``; ends above 0.

The estimate is unchanged and stays inside the interval; an interval already inside the bounds
near its estimate changes little (to first order it is the same). An estimate on the bound (a
share of 0) has no finite slope there: the raw interval is then clipped to the bounds.

Formulas: the book's methods page, section *Findings and verdicts* (bounded quantities).
"""

from __future__ import annotations

import math

from pruneaudit.errors import check_choice

#: Scales of :func:`bounded_interval` and the bounds each keeps the interval inside.
SCALES = {"share": (0.0, 1.0), "relative": (-1.0, math.inf), "positive": (0.0, math.inf)}


def _forward(x: float, scale: str) -> tuple[float, float]:
    """``g(x)`` and ``g'(x)`` of ``scale``."""
    if scale == "share":
        return math.log(x / (1 - x)), 1 / (x * (1 - x))
    shifted = 1 + x if scale == "relative" else x
    return math.log(shifted), 1 / shifted


def _back(z: float, scale: str) -> float:
    if scale == "share":
        return 1 / (1 + math.exp(-z)) if z > -700 else 0.0
    value = math.exp(min(z, 700))
    return value - 1 if scale == "relative" else value


def bounded_interval(
    estimate: float, ci_low: float, ci_high: float, scale: str
) -> tuple[float, float, float]:
    """``(estimate, low, high)``: the interval ``[ci_low, ci_high]`` around ``estimate`` carried
    to ``scale``'s transform and back (module doc), so that it respects the bounds of
    :data:`SCALES`. NaN ends stay NaN; an estimate on or outside a bound gives the raw interval
    clipped to the bounds."""
    check_choice("scale", scale, tuple(SCALES))
    low_bound, high_bound = SCALES[scale]
    values = (estimate, ci_low, ci_high)
    if not all(math.isfinite(v) for v in values):
        return float(estimate), float(ci_low), float(ci_high)
    if not low_bound < estimate < high_bound:
        return (float(estimate), float(min(max(ci_low, low_bound), high_bound)),
                float(min(max(ci_high, low_bound), high_bound)))
    centre, slope = _forward(estimate, scale)
    low = _back(centre - (estimate - ci_low) * slope, scale) if ci_low < estimate else ci_low
    high = _back(centre + (ci_high - estimate) * slope, scale) if ci_high > estimate else ci_high
    return float(estimate), float(min(low, estimate)), float(max(high, estimate))


def difference_interval(estimate: float, ci_low: float, ci_high: float
                        ) -> tuple[float, float, float]:
    """An interval of a difference of two shares (accuracy minus accuracy: inside [-1, 1])
    kept inside its bounds: the interval of ``(d + 1) / 2`` on the share scale of
    :func:`bounded_interval` (its logit is ``2 atanh d``), mapped back.
    ``(estimate, low, high)``; NaN ends stay NaN."""
    m, lo, hi = bounded_interval((estimate + 1) / 2, (ci_low + 1) / 2, (ci_high + 1) / 2,
                                 "share")
    return 2 * m - 1, 2 * lo - 1, 2 * hi - 1
