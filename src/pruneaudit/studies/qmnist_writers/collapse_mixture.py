"""D2.1's interval over seeds: a collapse mixture, whose tail is on one side only.

Now and then a seed's pruned model collapses far below the others; a build without such a seed
has a Student-t interval too narrow to hold a replication that has one, and a build with one
has a t interval widened on both sides, though a collapse can only deepen the drop. The mean
change over seeds is modelled as

    mu = (1 - pi) * mu_R + pi * mu_C,

``mu_R`` the regular seeds' mean, ``pi`` the collapse rate and ``mu_C`` the collapsed seeds'
mean, which lies between the regular mean and the *floor*, the change of a seed whose pruned
model predicts a single class (top-1 ``1 / C``). A seed is collapsed when its modified z-score
``0.6745 (x - median) / MAD`` is below -3.5 (Iglewicz and Hoaglin's outlier rule, on the
collapse side only; no seed when the MAD is 0). The interval:

- upper end: the regular seeds' two-sided 97.5% Student-t interval's upper end (a collapse only
  lowers ``mu``);
- lower end: ``(1 - pi_hi) * R_lo + pi_hi * floor``, ``R_lo`` that interval's lower end and
  ``pi_hi`` the one-sided 98.75% Clopper-Pearson upper bound on the collapse rate from the
  collapsed count (``1 - 0.0125^(1/n)`` when no seed collapsed).

Each end misses with probability at most 2.5% (a Bonferroni split of each tail between the
regular mean and the collapse rate), whatever the collapsed seeds' depth above the floor. The
estimate is the plain mean over seeds, always inside. Formulas: the book's methods page,
section *Study 2*.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from pruneaudit import audit

#: Modified z-score below which a seed is collapsed (Iglewicz and Hoaglin 1993).
COLLAPSE_Z = -3.5
#: Each tail's miss probability, split equally between the regular mean and the collapse rate.
TAIL = 0.025


@dataclass(frozen=True)
class MixtureInterval:
    """The mean over seeds and its collapse-mixture interval (module doc), with the counts the
    interval rests on and the collapse rate's upper bound."""

    mean: float
    ci_low: float
    ci_high: float
    seeds: int
    collapsed: int
    rate_high: float


def collapsed(values: Sequence[float]) -> np.ndarray:
    """Which ``values`` (one per seed) are collapsed: modified z-score below
    :data:`COLLAPSE_Z`, lower side only; none when the median absolute deviation is 0."""
    x = np.asarray(values, dtype=float)
    mad = float(np.median(np.abs(x - np.median(x))))
    if mad == 0:
        return np.zeros(x.size, dtype=bool)
    return 0.6745 * (x - np.median(x)) / mad < COLLAPSE_Z


def rate_upper(k: int, n: int, tail: float = TAIL / 2) -> float:
    """The one-sided ``1 - tail`` Clopper-Pearson upper bound on a rate seen ``k`` times in
    ``n``."""
    return 1.0 if k >= n else float(stats.beta.ppf(1 - tail, k + 1, n - k))


def mixture_interval(values: Sequence[float], floor: float) -> MixtureInterval:
    """The mean of ``values`` (one per seed, finite ones) and its collapse-mixture interval
    (module doc) with collapses bounded below by ``floor`` (lowered to the smallest value if one
    lies below it); NaN ends with fewer than three regular seeds."""
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    down = collapsed(x) if x.size else np.zeros(0, dtype=bool)
    n, k = int(x.size), int(down.sum())
    mean = float(x.mean()) if n else math.nan
    _, low, high = audit.mean_interval(x[~down], level=1 - TAIL)
    if not (math.isfinite(low) and math.isfinite(high)):
        return MixtureInterval(mean, math.nan, math.nan, n, k, math.nan)
    floor = min(float(floor), float(x.min()))
    rate = rate_upper(k, n)
    low = (1 - rate) * low + rate * floor
    return MixtureInterval(mean, float(min(low, mean)), float(max(high, mean)), n, k, rate)
