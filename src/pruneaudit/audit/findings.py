"""Findings beside the papers: each study's claims (:mod:`pruneaudit.audit.claims`) judged on
our estimates, with verdicts that can fail.

A *finding* is one claim with the paper's value, ours with a 95% interval (an
:class:`Estimate`), and a verdict computed from that interval alone, never from the point
estimate, in the words the claim's comparability allows (:mod:`pruneaudit.audit.rules`): the
paper's verdict for the paper's quantity computed the paper's way (``same``), direction words for
an ``analogue``, words of its own null for our own question (``beyond``). Each row also carries
its direction and size, the paper's band, the power to show the paper's effect
(:func:`pruneaudit.audit.intervals.power`) and the stability of its verdict
(:func:`pruneaudit.audit.stability.stability`): a row below :data:`STABLE` is *borderline*.

Formulas: the book's methods page, section *Findings and verdicts*.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from pruneaudit.audit import rules as R
from pruneaudit.audit.claims import (
    ANALOGUE,
    BEYOND,
    NOT_COMPARABLE,
    NOT_TESTABLE,
    SAME,
    UNITS,
    Claim,
    fingerprint,
)
from pruneaudit.audit.intervals import (
    paper_se_from_sd,
    paper_se_from_units,
    power,
    units_for_power,
)
from pruneaudit.audit.rules import (
    VERDICTS,
)
from pruneaudit.audit.stability import (
    STABLE,
    between_sd,
    spread_df_of,
    stability,
    units_for_stability,
)
from pruneaudit.errors import PruneAuditError, check_choice

#: The margin reason of a row with a paper value whose claim states no margin: its band is the
#: paper's own spread alone (a point without one).
NO_MARGIN = "no margin stated in advance: the band is the paper's own spread alone"
#: Verdicts that say nothing of the finding: the row's basis says why.
UNTESTED = (R.NOT_TESTABLE, R.NOT_COMPARABLE)
#: Keys of each object in ``<notebook>.findings.json``.
JSON_KEYS = (
    "finding", "claim", "comparability", "paper", "ours", "ci_low", "ci_high", "verdict",
    "source", "power", "unit", "definition", "basis", "units", "needed", "direction", "size",
    "stability", "direction_stability", "alternative", "paper_se", "headline", "firm_at",
    "paper_band", "margin", "margin_reason", "paper_units", "between_sd", "fingerprint",
    "negligible", "df",
)
@dataclass(frozen=True)
class Estimate:
    """Our estimate of a claim's quantity with its 95% interval and what it rests on."""

    ours: float
    ci_low: float
    ci_high: float
    #: What the interval is over (seeds, writers, models...) and how it is made.
    basis: str
    #: Degrees of freedom of the interval's t; None for normal or bootstrap intervals.
    df: float | None = None
    #: How many units the interval rests on (default ``df + 1`` for a t interval).
    units: int | None = None
    #: The spread of one unit (the standard deviation over seeds, say): with the claim's
    #: ``paper_units``, the paper's standard error (:func:`paper_se_from_sd`), for rows whose
    #: interval is not a plain standard error of a mean.
    unit_sd: float | None = None
    #: The between-build standard deviation (default: the study's, :func:`between_sd`).
    between: float | None = None

    @property
    def n(self) -> int | None:
        """The units, else ``df + 1``."""
        return self.units if self.units is not None or self.df is None else round(self.df) + 1


@dataclass(frozen=True)
class Finding:
    """One row of a study's findings table: a claim and what our estimate says of it."""

    finding: str
    paper: float | None
    ours: float | None
    ci_low: float | None
    ci_high: float | None
    verdict: str
    source: str
    #: What the interval is over (seeds, writers, models...), or why it is not testable here.
    basis: str = ""
    #: Power to show the paper's effect (or the smallest effect of interest) at our precision.
    power: float | None = None
    unit: str = ""  # of paper, ours and the interval (claims.UNITS)
    #: The quantity computed, in one line a reader can check against the paper.
    definition: str = ""
    #: How many units (seeds, writers, members...) the interval rests on, when known.
    units: int | None = None
    #: Units that would give the target power (:func:`units_for_power`), when power is below.
    needed: int | None = None
    #: Is the effect there, on the paper's side (:data:`DIRECTIONS`).
    direction: str = ""
    #: Its size against the paper's band (:data:`SIZES`).
    size: str = ""
    #: Probability that a replication with the same units gives the same verdict.
    stability: float | None = None
    #: The same for the direction alone.
    direction_stability: float | None = None
    #: The likeliest other verdict of a replication ("" if none).
    alternative: str = ""
    #: The paper's standard error of its number (printed, or from its units).
    paper_se: float | None = None
    #: Whether the page states this row in its first sentences (its headline).
    headline: bool = False
    #: Units at which a borderline row would be firm if its estimate held.
    firm_at: int | None = None
    #: The values a replication of the paper could give, [low, high]; None without one.
    paper_band: tuple[float, float] | None = None
    #: The claim's margin, fixed in advance, with its reason.
    margin: float | None = None
    margin_reason: str = ""
    #: How many units the paper's number rests on, when stated (and of our units' kind).
    paper_units: int | None = None
    #: The spread between independent builds beyond sampling used by the stability.
    between_sd: float | None = None
    claim: str = ""  # the claim's id and comparability (pruneaudit.audit.claims)
    comparability: str = ""
    #: The claim's fingerprint when the row was judged
    #: (:func:`pruneaudit.audit.claims.fingerprint`): the verdict traces to the claim it used.
    fingerprint: str = ""
    #: The half-width of the negligible band around the null the verdict used (None: none).
    negligible: float | None = None
    #: Degrees of freedom of the interval's t (None: normal or bootstrap), so that the row can be
    #: judged again exactly (:func:`rejudge`); NaN in a build written before they were recorded.
    df: float | None = None

    def __post_init__(self) -> None:
        check_choice("verdict", self.verdict, VERDICTS)
        check_choice("unit", self.unit, UNITS)
        check_choice("direction", self.direction, (*R.DIRECTIONS, ""))
        check_choice("size", self.size, R.SIZES)
        if self.verdict in UNTESTED and not self.basis:
            raise PruneAuditError(f"finding {self.finding!r} is {self.verdict}: say why in basis")


def _paper_se(claim: Claim, est: Estimate) -> float | None:
    """The paper's standard error: printed, else from one unit's spread and the paper's units,
    else from our interval scaled to the paper's units; None for a claim without a band."""
    if claim.comparability != SAME or claim.paper is None:
        return None
    if claim.paper_se is not None:
        return claim.paper_se
    if est.unit_sd is not None:
        return paper_se_from_sd(est.unit_sd, claim.paper_units)
    return paper_se_from_units(est.ci_low, est.ci_high, est.n, claim.paper_units, df=est.df)


def rule_of(claim: Claim, paper_se: float | None = None) -> R.Rule:
    """The verdict rule the claim's comparability allows (module doc of
    :mod:`pruneaudit.audit.rules`)."""
    if claim.equivalence:
        return R.equivalence_rule(claim.margin, null=claim.null)
    if claim.comparability == SAME:
        return R.verdict_rule(
            claim.paper, null=claim.null, direction=claim.side, smallest=claim.smallest,
            paper_se=paper_se, margin=claim.margin or 0.0,
        )
    words = {ANALOGUE: R.ANALOGUE_WORDS, BEYOND: R.BEYOND_WORDS}.get(claim.comparability)
    if words is None:
        raise PruneAuditError(f"claim {claim.id} is {claim.comparability!r}: it has no verdict")
    return R.direction_rule(words, claim.expected_side, null=claim.null,
                            negligible=claim.negligible)


def _band(claim: Claim, paper_se: float | None) -> tuple[float, float] | None:
    if claim.comparability != SAME or claim.paper is None or claim.equivalence:
        return None
    low, high = R.paper_band(claim.paper, paper_se, claim.margin or 0.0)
    return float(low), float(high)


def _row(claim: Claim, est: Estimate | None, verdict: str, **fields) -> Finding:
    """A :class:`Finding` of ``claim`` with the estimate's numbers and the given fields."""
    numbers = (None, None, None) if est is None else (est.ours, est.ci_low, est.ci_high)
    return Finding(
        fields.pop("name", None) or claim.name, claim.paper, *numbers, verdict, claim.source,
        unit=claim.unit, claim=claim.id, comparability=claim.comparability,
        definition=fields.pop("definition", None) or claim.quantity,
        headline=claim.headline, fingerprint=fingerprint(claim),
        negligible=None if claim.equivalence else claim.negligible, **fields,
    )


def _direction(claim: Claim, est: Estimate) -> str:
    if claim.equivalence or claim.expected_side not in (1, -1):
        return ""
    if not R.has_width(est.ci_low, est.ci_high):  # every unit the same: nothing to tell
        return R.CANT_TELL
    return R.direction_of(est.ci_low, est.ci_high, side=claim.expected_side, null=claim.null,
                          negligible=claim.negligible)


def judge(claim: Claim, est: Estimate, *, name: str | None = None,
          definition: str | None = None) -> Finding:
    """The :class:`Finding` of ``claim`` on our estimate: its verdict in the words its
    comparability allows, its direction and size, the paper's band (``same`` claims only),
    power, stability (with the study's between-build spread) and, when borderline, the units
    at which it would be firm. ``name`` and ``definition`` replace the claim's (e.g. to name
    the level or the group the row was computed at); a ``not testable`` or ``not comparable``
    claim gets its verdict and reason."""
    if claim.comparability == NOT_TESTABLE:
        return untested(claim, name=name)
    est = Estimate(float(est.ours), float(est.ci_low), float(est.ci_high), est.basis, est.df,
                   est.units, est.unit_sd, est.between)
    if claim.comparability == NOT_COMPARABLE:
        return _row(claim, est, R.NOT_COMPARABLE, name=name, definition=definition,
                    basis=f"{claim.why}; {est.basis}", direction=_direction(claim, est),
                    units=est.n)
    paper_se = _paper_se(claim, est)
    rule = rule_of(claim, paper_se)
    band = _band(claim, paper_se)
    verdict = rule(est.ci_low, est.ci_high)
    effect = claim.paper - claim.null if claim.paper is not None else claim.smallest
    steady = _stabilities(claim, est, rule)
    margin = claim.margin if claim.comparability == SAME or claim.equivalence else None
    reason = claim.margin_reason if margin is not None else ""
    if band is not None and margin is None:
        reason = NO_MARGIN
    size = R.size_of(est.ci_low, est.ci_high, band, side=claim.expected_side) if band else ""
    return _row(
        claim, est, verdict, name=name, definition=definition, basis=est.basis,
        power=json_value(power(est.ci_low, est.ci_high, effect, df=est.df)), units=est.n,
        needed=(units_for_power(est.ci_low, est.ci_high, effect, est.n, t=est.df is not None)
                if est.n is not None else None),
        direction=_direction(claim, est), size=size, paper_se=json_value(paper_se),
        paper_band=band, margin=margin, margin_reason=reason,
        paper_units=claim.paper_units if band is not None else None, df=est.df, **steady,
    )


def rejudge(row: Finding, claim: Claim) -> Finding:
    """``row`` (a committed build's, :func:`from_json`) judged again under ``claim`` and the
    rules of now: the same estimate, interval, units, degrees of freedom and between-build
    spread, so that a build made under older claims or rules reads as it would today. Rows
    this build left untested stay as they are; an error for a row written before its degrees of
    freedom were recorded (its stability could not be recomputed exactly)."""
    if row.verdict in UNTESTED or row.ours is None:
        return row
    if row.df is not None and math.isnan(row.df):
        raise PruneAuditError(
            f"{row.claim or row.finding}: this build was written before findings recorded their "
            "degrees of freedom, so its stability cannot be recomputed; rebuild it")
    est = Estimate(row.ours, row.ci_low, row.ci_high, row.basis, df=row.df, units=row.units,
                   between=row.between_sd)
    return judge(claim, est, name=row.finding, definition=row.definition)


def _stabilities(claim: Claim, est: Estimate, rule: R.Rule) -> dict[str, object]:
    """The stability of the verdict and of the direction, the likeliest other verdict, the
    between-build spread used and the units at which a borderline row would be firm."""
    spread = (between_sd(claim.study, est.ci_low, est.ci_high, df=est.df)
              if est.between is None else float(est.between))
    k = spread_df_of(est.df, est.n)
    steady, other = stability(est.ours, est.ci_low, est.ci_high, rule, df=est.df,
                              between_sd=spread, spread_df=k)
    said = {"stability": json_value(steady), "alternative": other,
            "between_sd": json_value(spread) if steady is not None else None}
    side = claim.expected_side
    if side in (1, -1) and not claim.equivalence:
        words = {d: d for d in R.DIRECTIONS}
        along = R.direction_rule(words, side, null=claim.null, negligible=claim.negligible)
        said["direction_stability"] = json_value(stability(
            est.ours, est.ci_low, est.ci_high, along, df=est.df, between_sd=spread,
            spread_df=k)[0])
    if est.n is not None and steady is not None and steady < STABLE:
        said["firm_at"] = units_for_stability(est.ours, est.ci_low, est.ci_high, rule, est.n,
                                              t=est.df is not None, between_sd=spread)
    return said


def untested(claim: Claim, *, name: str | None = None, why: str | None = None) -> Finding:
    """The row of a claim this build cannot test (``not testable here``), with the reason: the
    claim's, or ``why`` for one that this build's data or parameters leave untested."""
    return _row(claim, None, R.NOT_TESTABLE, name=name, basis=why or claim.why)


def findings_frame(rows: Sequence[Finding]) -> pd.DataFrame:
    """The findings as a table, one row each, in the order given."""
    return pd.DataFrame([asdict(r) for r in rows], columns=list(JSON_KEYS))


def json_value(value: object) -> object:
    """``value`` as JSON holds it: floats plain (NaN and infinities as None), sequences as
    lists."""
    if value is None:
        return None
    if isinstance(value, tuple | list):
        return [json_value(v) for v in value]
    if isinstance(value, float | np.floating):
        return None if not math.isfinite(float(value)) else float(value)
    return value


def is_borderline(row: Finding) -> bool:
    """Whether ``row``'s verdict would change in more than ``1 - STABLE`` of replications."""
    return row.stability is not None and row.stability < STABLE


def verdict_label(row: Finding) -> str:
    """The verdict as printed: ``borderline: reproduced / same direction, smaller`` (the row's
    verdict first, then the likeliest other) for a borderline row, else the verdict."""
    if is_borderline(row) and row.alternative:
        return f"borderline: {row.verdict} / {row.alternative}"
    return row.verdict

