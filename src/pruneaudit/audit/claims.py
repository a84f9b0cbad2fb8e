"""Claims: what each study tests, declared from the papers' text; every change dated and logged.

A :class:`Claim` is one row of a study's findings table, declared in the study's own
``claims.py``: the paper's sentence and source, the quantity exactly as computed, the paper's
value and its noise, the margin with its reason, whether the page states it first, and its
*comparability*, which decides the words its verdict may use
(:mod:`pruneaudit.audit.rules`):

- ``same``: the paper's quantity, computed the paper's way, on a comparable task: direction and
  size are judged, and only such a row can be *reproduced*;
- ``analogue``: the quantity carried to another task, model or data: direction words only
  (``same direction``, ``opposite``, ``absent``, ``inconclusive``), no size, no paper band;
- ``beyond``: our own question beside the paper's, judged against its own null in words that
  never compare with the paper (``present``, ``other sign``, ``absent``, ``inconclusive``);
  never a headline;
- ``not comparable`` and ``not testable``, each with its reason.

Comparability is derived, never chosen (:func:`derived_kind`): a claim of kind ``same`` or
``analogue`` declares the paper's :class:`Setting` (dataset, model family, compression,
quantity) and ours (the study's dataset, model and compression, with the quantity this row
computes). Only a match is ``same``; any difference makes the row an analogue at most, and
:func:`problems` names a claim whose kind disagrees with its settings.

A change to a claim's quantity, comparability, margin, paper value, headline or settings after
it was declared is recorded in ``data/claims_changelog.csv`` (:func:`changelog`): the date, the
reason, whether our estimate had been seen, and the verdict before and after. :func:`unlogged`
names every claim whose current :func:`fingerprint` no entry records (a test keeps it empty).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, replace
from functools import cache
from importlib import resources
from types import MappingProxyType

import pandas as pd

from pruneaudit.errors import PruneAuditError

SAME = "same"
ANALOGUE = "analogue"
BEYOND = "beyond"
NOT_COMPARABLE = "not comparable"
NOT_TESTABLE = "not testable"
COMPARABILITIES = (SAME, ANALOGUE, BEYOND, NOT_COMPARABLE, NOT_TESTABLE)
#: Kinds whose rows an answer box may state first.
HEADLINE_KINDS = (SAME, ANALOGUE)
#: Units a claim's numbers are in: ``percent`` (a share shown in %), ``points`` (a difference of
#: shares shown in percentage points), ``ratio`` or ``""`` (a plain number).
UNITS = ("", "percent", "points", "ratio")
#: The fields a change to which must be logged (:func:`fingerprint`).
LOGGED_FIELDS = (
    "quantity", "comparability", "paper", "paper_se", "paper_units", "margin", "null", "side",
    "smallest", "equivalence", "headline", "paper_setting", "our_setting",
)
#: Columns of ``data/claims_changelog.csv``.
CHANGELOG_COLUMNS = (
    "date", "study", "claim", "fingerprint", "estimate_seen", "verdict_before",
    "verdict_after", "reason",
)


@dataclass(frozen=True)
class Setting:
    """Where a number is measured: its dataset, model family, compression and quantity (short
    names, compared exactly: ``MNIST``, ``LeNet``, ``global magnitude pruning``, ``worst-writer
    accuracy drop``)."""

    dataset: str
    model: str
    compression: str
    quantity: str

    def differences(self, other: Setting) -> list[str]:
        """The fields in which ``other`` differs from this setting, as ``field: ours vs
        other``."""
        return [f"{f}: {getattr(self, f)!r} vs {getattr(other, f)!r}"
                for f in ("dataset", "model", "compression", "quantity")
                if getattr(self, f) != getattr(other, f)]


def derived_kind(paper: Setting, ours: Setting) -> str:
    """The comparability the settings allow: ``same`` when they match in every field, else
    ``analogue`` (the paper's quantity carried to another task at most)."""
    return SAME if not ours.differences(paper) else ANALOGUE


@dataclass(frozen=True)
class Claim:
    """One claim a study tests (module doc). Numbers are in the claim's ``unit`` as fractions
    (``points`` and ``percent`` as shares: 0.05 is five points)."""

    #: Its key, unique in the study: the paper's finding (``D4.5``), then a word when the
    #: finding has several rows (``D2.3 hsf0``); our own question beside a finding takes a
    #: ``B`` in place of the ``D`` (``B4.5 excess``), so that no id names two findings.
    id: str
    #: The row's name as the page prints it.
    name: str
    #: The paper's sentence (for ``beyond``: our question, beside which paper sentence).
    says: str
    #: Where the paper prints it.
    source: str
    #: The quantity exactly as computed, in one line a reader can check against the paper.
    quantity: str
    comparability: str
    #: Why the claim is of its kind (required for every kind but ``same``).
    why: str = ""
    #: The paper's value; None for a claim stated as a direction only (or ``beyond``).
    paper: float | None = None
    #: The paper's noise in words: its printed standard error, or the units its number rests on.
    paper_noise: str = ""
    #: The paper's printed standard error, where it prints one.
    paper_se: float | None = None
    #: How many units of our units' kind the paper's number rests on, when stated.
    paper_units: int | None = None
    #: The smallest difference a reader of the paper would care about (the band's margin, and
    #: the negligible band around the null), fixed in advance, with its reason.
    margin: float | None = None
    margin_reason: str = ""
    unit: str = ""
    null: float = 0.0
    #: The side of the null the claim expects (+1 or -1) when it has no paper value.
    side: int = 0
    #: The smallest effect of interest of a direction-only claim (a distance from the null).
    smallest: float | None = None
    #: Whether the page states this row first.
    headline: bool = False
    #: A claim of *no* material difference (within ``margin`` of the null).
    equivalence: bool = False
    #: The study (a notebook name) that declares it: set by :func:`register`.
    study: str = ""
    #: Where the paper measured its number (required for ``same`` and ``analogue``).
    paper_setting: Setting | None = None
    #: Where we measure ours: the study's setting with this row's quantity (required for
    #: ``same`` and ``analogue``).
    our_setting: Setting | None = None

    @property
    def negligible(self) -> float | None:
        """The half-width of the band around the null that makes an effect *absent*: the
        smallest effect of interest, else the margin (None without either)."""
        return self.smallest if self.smallest is not None else (self.margin or None)

    @property
    def expected_side(self) -> int:
        """+1 or -1: the sign of ``paper - null``, else ``side``; 0 when neither says."""
        if self.paper is not None and self.paper != self.null:
            return 1 if self.paper > self.null else -1
        return self.side


def problems(claim: Claim) -> list[str]:
    """What is missing or contradictory in ``claim`` (empty when it is complete)."""
    said = []
    for field in ("id", "name", "says", "source", "quantity"):
        if not str(getattr(claim, field)).strip():
            said.append(f"no {field}")
    if claim.comparability not in COMPARABILITIES:
        said.append(f"comparability {claim.comparability!r} is not one of {COMPARABILITIES}")
    if claim.unit not in UNITS:
        said.append(f"unit {claim.unit!r} is not one of {UNITS}")
    if claim.comparability != SAME and not claim.why.strip():
        said.append(f"a claim of kind {claim.comparability!r} needs its reason (why)")
    if claim.headline and claim.comparability not in HEADLINE_KINDS:
        said.append(f"a {claim.comparability!r} claim cannot be a headline")
    if claim.margin is not None and not (claim.margin >= 0 and claim.margin_reason.strip()):
        said.append("a margin needs a value >= 0 and its reason")
    if claim.comparability == BEYOND and claim.paper is not None:
        said.append("a 'beyond' claim is our own question: it carries no paper value")
    if claim.comparability == SAME and claim.paper is not None and not claim.equivalence:
        if claim.margin is None:
            said.append("a 'same' claim with a paper value needs its margin")
        if not claim.paper_noise.strip():
            said.append("a 'same' claim with a paper value needs the paper's noise")
    judged = claim.comparability in (SAME, ANALOGUE, BEYOND)
    if claim.equivalence and claim.comparability != SAME:
        said.append("a claim of no material difference is the paper's own ('same')")
    if claim.equivalence and not (claim.margin or 0) > 0:
        said.append("a claim of no difference needs a margin > 0")
    if judged and not claim.equivalence and claim.expected_side not in (1, -1):
        said.append("give the paper's value or the side (+1 or -1) the claim expects")
    if claim.smallest is not None and not claim.smallest > 0:
        said.append("smallest must be > 0")
    return said + setting_problems(claim)


def setting_problems(claim: Claim, *, required: bool = True) -> list[str]:
    """Where ``claim``'s kind disagrees with its settings (:func:`derived_kind`): a ``same`` or
    ``analogue`` claim declares both settings (unless not ``required``), and is ``same``
    exactly when they match."""
    if claim.comparability not in HEADLINE_KINDS:
        return []
    if claim.paper_setting is None or claim.our_setting is None:
        return [f"a {claim.comparability!r} claim declares the paper's setting and ours"] \
            if required else []
    kind = derived_kind(claim.paper_setting, claim.our_setting)
    if kind == claim.comparability:
        return []
    if kind == SAME:
        return ["the settings match: the claim is the paper's own quantity ('same')"]
    apart = "; ".join(claim.our_setting.differences(claim.paper_setting))
    return [f"declared 'same' but the settings differ ({apart}): an analogue at most"]


def register(study: str, claims: Iterable[Claim]) -> Mapping[str, Claim]:
    """The claims of ``study`` by id, read-only, each stamped with its study; an error lists
    every incomplete claim and repeated id."""
    table: dict[str, Claim] = {}
    said = []
    for claim in claims:
        if claim.id in table:
            said.append(f"{claim.id}: declared twice")
        table[claim.id] = replace(claim, study=study)
        said += [f"{claim.id}: {p}" for p in problems(claim)]
    if said:
        raise PruneAuditError(f"incomplete claims in {study}: " + "; ".join(said))
    return MappingProxyType(table)


def fingerprint(claim: Claim) -> str:
    """A short hash of the fields whose change must be logged (:data:`LOGGED_FIELDS`)."""

    def plain(value: object) -> object:
        if isinstance(value, Setting):
            return asdict(value)
        return round(value, 12) if isinstance(value, float) and math.isfinite(value) else value

    fields = {f: plain(getattr(claim, f)) for f in LOGGED_FIELDS}
    return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()[:12]


@cache
def _changelog() -> pd.DataFrame:
    with resources.files("pruneaudit.audit").joinpath("data/claims_changelog.csv").open() as f:
        return pd.read_csv(f, dtype=str, keep_default_na=False)


def changelog() -> pd.DataFrame:
    """Every recorded declaration or change of a claim (:data:`CHANGELOG_COLUMNS`), oldest
    first: a copy."""
    return _changelog().copy()


def unlogged(claims: Iterable[Claim]) -> list[str]:
    """The claims whose current fingerprint is not the last one the changelog records for them
    (a change made without an entry), as ``study claim``."""
    log = _changelog()
    said = []
    for claim in claims:
        mine = log[(log.study == claim.study) & (log.claim == claim.id)]
        if mine.empty or mine.fingerprint.iloc[-1] != fingerprint(claim):
            said.append(f"{claim.study} {claim.id}")
    return said

