"""Verdict rules: is the effect there (direction), how large against the paper's band (size),
and the verdict each kind of claim may give.

- *direction* (:func:`direction_of`), negligible first (an equivalence test in Lakens' sense):
  ``negligible`` when the interval lies wholly inside the negligible band around the null (the
  claim's smallest effect of interest, or its margin), whatever its sign; otherwise ``paper's
  side`` when it excludes the null on the paper's side, ``opposite`` on the other side, else
  ``can't tell``;
- *size* (:func:`size_of`) against the *paper's band* (:func:`paper_band`): the values a
  replication of the paper itself could give, ``P ± (q * paper_se + margin)``. ``about the
  paper's`` only when our whole interval lies inside the band (an equivalence test, two
  one-sided), ``smaller`` / ``larger`` when it lies wholly outside on one side, else ``can't
  tell``.

A claim of kind ``same`` (:mod:`pruneaudit.audit.claims`) gets the paper's verdict
(:func:`verdict_rule`): ``reproduced`` = paper's side and about the paper's size (for a finding
stated only as a direction, the paper's side suffices; never when the paper's band itself
contains the null, which no size can then confirm); ``same direction, smaller`` / ``larger`` /
``size can't tell``; ``negligible``; ``not reproduced`` = direction undecided and the interval
wholly below the band; ``inconclusive`` otherwise; ``opposite``. An ``analogue`` (the paper's
quantity carried to another task) gets direction words only (:func:`direction_rule`): ``same
direction``, ``opposite``, ``negligible``, ``inconclusive`` (can't tell). A ``beyond`` claim (our
own question) is judged against its own null in words that never compare with the paper
(:func:`direction_rule`): ``present``, ``other sign``, ``negligible``, ``inconclusive``. A
claim of no material difference gets :func:`equivalence_rule`. Every rule says
``inconclusive`` for an interval that is not finite or has no width (zero width says nothing of
a replication).

Formulas: the book's methods page, section *Findings and verdicts*.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache

import numpy as np

from pruneaudit.audit.intervals import normal_quantile
from pruneaudit.errors import PruneAuditError

#: A rule: the verdict of an interval's ends ``(ci_low, ci_high)``.
Rule = Callable[[float, float], str]

REPRODUCED = "reproduced"
SMALLER = "same direction, smaller"
LARGER = "same direction, larger"
#: The effect is on the paper's side but the interval overlaps an edge of the paper's band.
SIZE_UNCLEAR = "same direction, size can't tell"
INCONCLUSIVE = "inconclusive"
NOT_REPRODUCED = "not reproduced"
OPPOSITE = "opposite"
NOT_TESTABLE = "not testable here"
#: Our quantity is not the paper's (another footing, another population): no size verdict.
NOT_COMPARABLE = "not comparable here"
#: An analogue's answer (the paper's quantity on another task): the effect is on the paper's
#: side; no size is judged.
SAME_DIRECTION = "same direction"
#: The interval lies wholly inside the negligible band around the null, whatever its sign.
EFFECT_ABSENT = "negligible"
#: Our own question's answers (a ``beyond`` claim, judged against its own null, never the
#: paper's): the effect is there on the side we asked about, or on the other.
PRESENT = "present"
OTHER_SIGN = "other sign"
VERDICTS = (
    REPRODUCED, SMALLER, LARGER, SIZE_UNCLEAR, INCONCLUSIVE, NOT_REPRODUCED, OPPOSITE,
    NOT_TESTABLE, NOT_COMPARABLE, SAME_DIRECTION, EFFECT_ABSENT, PRESENT, OTHER_SIGN,
)
#: Verdicts that fail a finding (what a simulated null must give).
FAILING = (INCONCLUSIVE, NOT_REPRODUCED, OPPOSITE, EFFECT_ABSENT, OTHER_SIGN)
#: The margin reason of a row with a paper value whose margin the package's table does not
#: state: its band is the paper's own spread alone (a point without one).
NO_MARGIN = "no margin stated in advance: the band is the paper's own spread alone"
#: Verdicts that say nothing of the finding: the row's basis says why.
UNTESTED = (NOT_TESTABLE, NOT_COMPARABLE)
#: Answers to "is the effect there, on the paper's side?" (:func:`direction_of`).
PAPERS_SIDE = "paper's side"
ABSENT = "negligible"
CANT_TELL = "can't tell"
DIRECTIONS = (PAPERS_SIDE, ABSENT, CANT_TELL, OPPOSITE)
#: Answers to "how large, against the paper's band?" (:func:`size_of`; empty: no number).
ABOUT = "about the paper's"
SIZE_SMALLER = "smaller"
SIZE_LARGER = "larger"
SIZES = (ABOUT, SIZE_SMALLER, SIZE_LARGER, CANT_TELL, "")




def has_width(ci_low: float, ci_high: float) -> bool:
    """Whether ``[ci_low, ci_high]`` is a finite interval of positive width (a zero-width
    interval, every unit the same, says nothing of what a replication would give); an error
    when its low is above its high."""
    if ci_low > ci_high:
        raise PruneAuditError(f"interval low {ci_low} is above its high {ci_high}")
    return math.isfinite(ci_low) and math.isfinite(ci_high) and ci_high > ci_low


class IntervalRule:
    """A rule (:data:`Rule`) that also answers for many intervals at once (:meth:`codes`), as a
    stability quadrature asks (thousands of intervals per row). Built by :func:`verdict_rule`,
    :func:`direction_rule` and :func:`equivalence_rule` from the rule (``one``) and its
    elementwise mirror (``many``: indices into ``answers`` for finite intervals of positive
    width; ``tests/audit/test_stability_quadrature.py`` checks that they agree)."""

    def __init__(
        self,
        answers: tuple[str, ...],
        one: Rule,
        many: Callable[[np.ndarray, np.ndarray], np.ndarray],
    ) -> None:
        self.answers = answers
        self._one, self._many = one, many
        self._inconclusive = answers.index(INCONCLUSIVE)

    def __call__(self, ci_low: float, ci_high: float) -> str:
        return self._one(ci_low, ci_high)

    def codes(self, lows: np.ndarray, highs: np.ndarray) -> np.ndarray:
        """The answers (indices into ``answers``) of the intervals ``[lows, highs]``
        (elementwise; arrays of one shape); an error when a low is above its high."""
        lows, highs = np.asarray(lows, dtype=float), np.asarray(highs, dtype=float)
        above = lows > highs
        if above.any():
            i = np.flatnonzero(above.ravel())[0]
            has_width(lows.ravel()[i], highs.ravel()[i])  # raises, naming the interval
        wide = np.isfinite(lows) & np.isfinite(highs) & (highs > lows)  # has_width
        with np.errstate(invalid="ignore"):
            return np.where(wide, self._many(lows, highs), self._inconclusive)


def _directions(
    lows: np.ndarray, highs: np.ndarray, side: float, null: float, negligible: float | None
) -> np.ndarray:
    """:func:`direction_of` of finite intervals, elementwise: indices into :data:`DIRECTIONS`."""
    a, b = side * (lows - null), side * (highs - null)
    low, high = np.minimum(a, b), np.maximum(a, b)  # distances from the null, paper's side > 0
    small = negligible is not None and negligible > 0
    absent = (-negligible < low) & (high < negligible) if small else np.zeros(low.shape, bool)
    codes = [DIRECTIONS.index(d) for d in (ABSENT, PAPERS_SIDE, OPPOSITE)]
    return np.select([absent, low > 0, high < 0], codes, DIRECTIONS.index(CANT_TELL))


def _sizes(
    lows: np.ndarray, highs: np.ndarray, band: tuple[float, float] | None, side: float
) -> np.ndarray:
    """:func:`size_of` of finite intervals, elementwise: indices into :data:`SIZES`."""
    if band is None:
        return np.full(lows.shape, SIZES.index(""))
    low, high = sorted(band)
    nearer, farther = (SIZE_SMALLER, SIZE_LARGER) if side > 0 else (SIZE_LARGER, SIZE_SMALLER)
    return np.select(
        [(low <= lows) & (highs <= high), highs < low, lows > high],
        [SIZES.index(a) for a in (ABOUT, nearer, farther)],
        SIZES.index(CANT_TELL),
    )


def paper_band(
    paper: float, paper_se: float | None, margin: float, level: float = 0.95
) -> tuple[float, float]:
    """The values a replication of the paper could give, ``paper ± (q * paper_se + margin)``
    (``q`` the normal ``level`` quantile; no spread term without ``paper_se``)."""
    if not margin >= 0:
        raise PruneAuditError(f"margin must be >= 0, got {margin!r}")
    if paper_se is not None and not paper_se >= 0:
        raise PruneAuditError(f"paper_se must be >= 0, got {paper_se!r}")
    half = (0.0 if paper_se is None else normal_quantile(level) * paper_se) + margin
    return paper - half, paper + half


def _side(paper: float | None, null: float, direction: int) -> float:
    """The paper's side of the null (+1 or -1): the sign of ``paper - null``, else
    ``direction``."""
    if paper is not None:
        side = float(np.sign(paper - null))
        if side == 0:
            raise PruneAuditError(f"the paper's value {paper} equals the null {null}: no direction")
        return side
    if direction in (1, -1):
        return float(direction)
    raise PruneAuditError("give the paper's value or a direction of +1 or -1")


def _oriented(ci_low: float, ci_high: float, side: float, null: float) -> tuple[float, float]:
    if ci_low > ci_high:
        raise PruneAuditError(f"interval low {ci_low} is above its high {ci_high}")
    low, high = sorted((side * (ci_low - null), side * (ci_high - null)))
    return low, high



def direction_of(
    ci_low: float, ci_high: float, *, side: int, null: float = 0.0,
    negligible: float | None = None,
) -> str:
    """Is the effect there, on the paper's ``side`` (+1 or -1) of ``null``? Negligible first:
    ``negligible`` when the interval lies wholly inside ``(null - negligible, null +
    negligible)``, whatever its sign; else ``paper's side`` when it excludes the null on that
    side, ``opposite`` on the other, else ``can't tell`` (also when there is no interval)."""
    if not (math.isfinite(ci_low) and math.isfinite(ci_high)):
        return CANT_TELL
    low, high = _oriented(ci_low, ci_high, side, null)
    if negligible is not None and negligible > 0 and -negligible < low and high < negligible:
        return ABSENT
    if low > 0:
        return PAPERS_SIDE
    if high < 0:
        return OPPOSITE
    return CANT_TELL


def size_of(
    ci_low: float,
    ci_high: float,
    band: tuple[float, float] | None,
    *,
    side: int,
) -> str:
    """How large, against the paper's ``band`` (:func:`paper_band`) on the paper's ``side``:
    ``about the paper's`` when the whole interval lies inside it, ``smaller`` / ``larger`` when
    it lies wholly nearer to / farther from the null than the band, else ``can't tell``; empty
    when there is no band or no interval. A band may be open on the far side (``inf``): a
    direction-only finding's smallest effect of interest."""
    if band is None or not (math.isfinite(ci_low) and math.isfinite(ci_high)):
        return ""
    low, high = sorted(band)
    if low <= ci_low and ci_high <= high:
        return ABOUT
    if ci_high < low:
        return SIZE_SMALLER if side > 0 else SIZE_LARGER
    if ci_low > high:
        return SIZE_LARGER if side > 0 else SIZE_SMALLER
    return CANT_TELL


def combined(direction: str, size: str, *, has_paper: bool, null_in_band: bool = False) -> str:
    """The verdict (module doc) of a direction and a size: on the paper's side, *reproduced*
    about the paper's size (or when only a direction is stated), else *same direction, smaller
    / larger / size can't tell* (always *size can't tell* when the paper's band contains the
    null: no size then confirms the paper); *negligible* stays *negligible*; an undecided
    direction is *not reproduced* when the interval lies wholly below the band, else
    *inconclusive*."""
    if direction == OPPOSITE:
        return OPPOSITE
    if direction == ABSENT:
        return EFFECT_ABSENT
    if direction == PAPERS_SIDE:
        if null_in_band:
            return SIZE_UNCLEAR
        if not has_paper or size == ABOUT:
            return REPRODUCED
        return {SIZE_SMALLER: SMALLER, SIZE_LARGER: LARGER}.get(size, SIZE_UNCLEAR)
    return NOT_REPRODUCED if size == SIZE_SMALLER else INCONCLUSIVE


def _band(
    paper: float | None, side: float, null: float, smallest: float | None,
    paper_se: float | None, margin: float,
) -> tuple[float, float] | None:
    """The paper's band, or for a direction-only finding with a smallest effect of interest the
    effects at least that large on the paper's side (open on the far side); else None."""
    if paper is not None:
        return paper_band(paper, paper_se, margin)
    if smallest is None:
        return None
    edge = null + side * smallest
    return (edge, math.inf) if side > 0 else (-math.inf, edge)


def verdict_rule(
    paper: float | None,
    *,
    null: float = 0.0,
    direction: int = 0,
    smallest: float | None = None,
    paper_se: float | None = None,
    margin: float = 0.0,
) -> Callable[[float, float], str]:
    """The verdict of an interval's ends ``(ci_low, ci_high)`` against one paper value, as a
    function: the arguments are checked and the paper's side and band worked out once (a
    stability quadrature calls it thousands of times). Arguments as :func:`verdict`'s."""
    side = _side(paper, null, direction)
    if smallest is not None and not smallest > 0:
        raise PruneAuditError(f"smallest must be > 0, got {smallest!r}")
    band = _band(paper, side, null, smallest, paper_se, margin)
    negligible = smallest if smallest is not None else (margin or None)
    null_in_band = band is not None and min(band) <= null <= max(band)

    def rule(ci_low: float, ci_high: float) -> str:
        if not has_width(ci_low, ci_high):
            return INCONCLUSIVE
        said = direction_of(ci_low, ci_high, side=int(side), null=null, negligible=negligible)
        size = size_of(ci_low, ci_high, band, side=int(side))
        return combined(said, size, has_paper=paper is not None, null_in_band=null_in_band)

    table = _verdict_table(paper is not None, null_in_band)

    def many(lows: np.ndarray, highs: np.ndarray) -> np.ndarray:
        return table[_directions(lows, highs, side, null, negligible),
                     _sizes(lows, highs, band, side)]

    return IntervalRule(VERDICTS, rule, many)


@cache
def _verdict_table(has_paper: bool, null_in_band: bool) -> np.ndarray:
    """:func:`combined` of every direction and size: indices into :data:`VERDICTS`."""
    return np.array([[VERDICTS.index(combined(d, z, has_paper=has_paper,
                                              null_in_band=null_in_band)) for z in SIZES]
                     for d in DIRECTIONS])


def verdict(
    ci_low: float,
    ci_high: float,
    paper: float | None,
    *,
    null: float = 0.0,
    direction: int = 0,
    smallest: float | None = None,
    paper_se: float | None = None,
    margin: float = 0.0,
) -> str:
    """The verdict of an interval ``[ci_low, ci_high]`` against the paper's value (module doc).

    The paper's side of ``null`` is the sign of ``paper - null``, or ``direction`` (+1 or -1)
    when ``paper`` is None (a finding stated as a direction only); ``smallest`` is then the
    smallest effect of interest (an absolute distance from the null), if any. ``paper_se`` (the
    paper's own standard error) and ``margin`` (fixed in advance) make the paper's band
    (:func:`paper_band`); ``margin`` (or ``smallest``) is also the negligible band around the
    null that makes the effect *negligible*. Without either, the band is the paper's point and no
    interval of positive width is *reproduced*.
    """
    return verdict_rule(
        paper, null=null, direction=direction, smallest=smallest, paper_se=paper_se,
        margin=margin,
    )(ci_low, ci_high)


#: What an analogue says of each direction (the paper's quantity on another task: no size).
ANALOGUE_WORDS = {
    PAPERS_SIDE: SAME_DIRECTION, OPPOSITE: OPPOSITE, ABSENT: EFFECT_ABSENT,
    CANT_TELL: INCONCLUSIVE,
}
#: What our own question says of each direction (against its own null, never the paper's).
BEYOND_WORDS = {
    PAPERS_SIDE: PRESENT, OPPOSITE: OTHER_SIGN, ABSENT: EFFECT_ABSENT, CANT_TELL: INCONCLUSIVE,
}


def direction_rule(
    words: dict[str, str], side: int, *, null: float = 0.0, negligible: float | None = None
) -> Rule:
    """The rule that answers with ``words[direction_of(...)]`` (:data:`ANALOGUE_WORDS` or
    :data:`BEYOND_WORDS`): a direction only, on ``side`` (+1 or -1) of ``null``, ``negligible``
    wholly inside ``negligible``; ``inconclusive`` without an interval of positive width."""
    if side not in (1, -1):
        raise PruneAuditError(f"a direction rule needs a side of +1 or -1, got {side!r}")

    def rule(ci_low: float, ci_high: float) -> str:
        if not has_width(ci_low, ci_high):
            return INCONCLUSIVE
        return words[direction_of(ci_low, ci_high, side=side, null=null, negligible=negligible)]

    answers = tuple(dict.fromkeys([*(words[d] for d in DIRECTIONS), INCONCLUSIVE]))
    word = np.array([answers.index(words[d]) for d in DIRECTIONS])

    def many(lows: np.ndarray, highs: np.ndarray) -> np.ndarray:
        return word[_directions(lows, highs, side, null, negligible)]

    return IntervalRule(answers, rule, many)


def equivalence_rule(margin: float, *, null: float = 0.0) -> Rule:
    """A claim of *no* material difference: ``reproduced`` when the interval lies inside
    ``(null - margin, null + margin)`` (an equivalence test with a margin fixed in advance),
    ``not reproduced`` when it lies wholly outside that range, else ``inconclusive``."""
    if not margin > 0:
        raise PruneAuditError(f"margin must be > 0, got {margin!r}")

    def rule(low: float, high: float) -> str:
        if not has_width(low, high):
            return INCONCLUSIVE
        if null - margin < low <= high < null + margin:
            return REPRODUCED
        if low >= null + margin or high <= null - margin:
            return NOT_REPRODUCED
        return INCONCLUSIVE

    def many(lows: np.ndarray, highs: np.ndarray) -> np.ndarray:
        inside = (null - margin < lows) & (highs < null + margin)
        outside = (lows >= null + margin) | (highs <= null - margin)
        return np.select([inside, outside], [0, 1], 2)

    return IntervalRule((REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE), rule, many)
