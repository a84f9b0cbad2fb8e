"""Study 5's parameters: the corrupted test sets, the reference population, and which of
Study 4's populations the page evaluates (Study 4's parameters, declared in :data:`Params.READS`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar

from pruneaudit import data, runs
from pruneaudit.errors import PruneAuditError, check_choice, check_positive_int
from pruneaudit.studies.compression_impact.params import NOTEBOOK as IMPACT_NOTEBOOK
from pruneaudit.studies.compression_impact.params import Params as ImpactParams
from pruneaudit.studies.compression_impact.params import Populations
from pruneaudit.studies.params import Rule, StudyParams, Workload, population_workload

SEVERITIES = (1, 2, 3, 4, 5)


def check_grid(names: Sequence[str], severities: Sequence[int]) -> tuple[list[str], list[int]]:
    """The corruption names (each of :data:`pruneaudit.data.CORRUPTIONS`) and severities (in
    1..5), repeats dropped; at least one of each, or one clear error."""
    names = [check_choice("corruption", n, data.CORRUPTIONS) for n in dict.fromkeys(names)]
    sev = list(dict.fromkeys(severities))
    bad = [s for s in sev if isinstance(s, bool) or not isinstance(s, int) or not 1 <= s <= 5]
    if bad or not sev or not names:
        raise PruneAuditError(
            f"need at least one corruption and severities among 1..5; got corruptions {names} "
            f"and severities {list(severities)}"
        )
    return names, sev


def _at_least(name: str, value: int, low: int) -> None:
    if value < low:
        raise PruneAuditError(f"{name} must be an integer >= {low}, got {value!r}")


def _other_seeds(reference: Sequence[int], seeds: Sequence[int]) -> None:
    overlap = sorted(set(reference) & set(seeds))
    if overlap:
        raise PruneAuditError(
            f"the reference population must be trained on other seeds; seeds {overlap} "
            "are also population members"
        )


@dataclass(frozen=True, kw_only=True)
class Params(StudyParams):
    """Study 5's page parameters (notebook ``05_robustness``'s parameters cell) and Study 4's,
    whose populations the page evaluates: the page declares which of them (its first
    ``members`` members at ``levels``), and :data:`READS` declares that ``study4`` holds the
    parameters of notebook ``04_compression_impact`` under the same build (profile and
    overrides), which the book's runner resolves and passes; a page run otherwise resolves them
    from a profile in :func:`pruneaudit.book.setup` (a mapping is built into Study 4's
    :class:`~pruneaudit.studies.compression_impact.Params`)."""

    STUDY = "Study 5"
    #: The parameters this page reads from other notebooks: field name -> notebook.
    READS: ClassVar[Mapping[str, str]] = MappingProxyType({"study4": IMPACT_NOTEBOOK})

    #: The first members of Study 4's members per level (5: evidence, Study 5).
    members: int = 5
    #: Pruning end sparsities, a subset of Study 4's levels (0.7: H1's lower ImageNet-C level,
    #: for D5.4).
    levels: tuple[float, ...] = (0.5, 0.7, 0.9)
    corruption_names: tuple[str, ...] = tuple(data.CORRUPTIONS)
    severities: tuple[int, ...] = SEVERITIES
    #: Seeds the random draws of the corruptions (shared by every model).
    corruption_seed: int = 0
    #: The dense reference population (other seeds than the members').
    reference_seeds: tuple[int, ...] = (100, 101, 102, 103)
    #: Bootstrap resamples of the members for the shares and the trend.
    n_boot: int = 999
    #: The test digit shown under every corruption.
    example_index: int = 0
    #: Study 4's parameters: the book's runner passes them (its section of the same profile);
    #: run otherwise, book.setup reads them from the quick profile (make live --profile names
    #: another).
    study4: ImpactParams | None = None

    def __post_init__(self) -> None:
        if isinstance(self.study4, Mapping):
            object.__setattr__(self, "study4", ImpactParams(**self.study4))
        super().__post_init__()

    def rules(self) -> Iterable[Rule]:
        yield lambda: runs.check_levels(self.levels)
        yield lambda: check_grid(self.corruption_names, self.severities)
        if self.reference_seeds:
            yield lambda: runs.check_seeds(self.reference_seeds)
        yield lambda: _at_least("members", self.members, 2)
        yield lambda: _at_least("example_index", self.example_index, 0)
        yield lambda: check_positive_int("n_boot", self.n_boot)
        if self.study4 is not None and self.members >= 2:
            yield lambda: _other_seeds(self.reference_seeds, self.populations().seeds)

    def populations(self) -> Populations:
        """Study 4's populations this page evaluates: its first ``members`` members at
        ``levels`` (:meth:`pruneaudit.studies.compression_impact.Populations.subset`)."""
        if self.study4 is None:
            raise PruneAuditError(
                "Study 5 evaluates Study 4's populations: give Study 4's parameters as study4 "
                "(book.setup resolves them from a profile, as does "
                "Profile.read(profile).study_params('04_compression_impact'))")
        return Populations.from_params(self.study4).subset(self.members, self.levels)

    def as_dict(self) -> dict[str, Any]:
        """The parameters as plain values, Study 4's as a mapping."""
        out = super().as_dict()
        if self.study4 is not None:
            out["study4"] = self.study4.as_dict()
        return out


def cost(params: Params) -> list[Workload]:
    """The workload of ``params``: the dense reference population (``reference_seeds``, trained
    as Study 4's members are; Study 4's members themselves are Study 4's workload), and every
    evaluated member (``members`` per population, dense and at ``levels``) on the clean test set
    and every corruption at every severity, the reference members on the clean test set."""
    p = params
    spec = p.populations().spec
    grid = len(dict.fromkeys(p.corruption_names)) * len(dict.fromkeys(p.severities))
    evaluated = p.members * (1 + len(p.levels)) * (1 + grid) + len(p.reference_seeds)
    return [population_workload(spec.dataset, spec.model, len(p.reference_seeds), spec.epochs,
                                evaluated, train_size=spec.train_size, root=p.data_root)]


#: The values the book's profiles give that differ from the defaults (``quick``: the defaults).
PROFILES = {
    # Study 4's smoke populations (its smoke values), 2 of its members, 3 corruptions
    "smoke": {
        "members": 2,
        "levels": [0.5, 0.9],
        "corruption_names": ["gaussian_noise", "contrast", "rotate"],
        "severities": [1, 3, 5],
        "reference_seeds": [100, 101],
    },
    # H1 section 4 on Study 4's paper populations: K = 30 at six levels and dense on 12
    # corruptions x 5 severities, and a reference population of 30 other seeds
    "paper": {
        "members": 30,
        "levels": [0.3, 0.5, 0.7, 0.9, 0.95, 0.99],
        "reference_seeds": list(range(100, 130)),
    },
}
