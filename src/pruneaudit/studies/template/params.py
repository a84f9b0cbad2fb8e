"""The template's parameters: ``n_classes`` synthetic accuracy curves over ``iterations`` pruning
rounds of 20% (sparsity ``s_k = 1 - 0.8**k`` after round ``k``), drawn from ``seed``."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pruneaudit.errors import PruneAuditError
from pruneaudit.studies.params import Rule, StudyParams, Workload


def check_sizes(n_classes: int, iterations: int) -> None:
    """At least 2 classes and 1 pruning round, or one clear error."""
    if n_classes < 2:
        raise PruneAuditError(f"n_classes must be at least 2, got {n_classes}")
    if iterations < 1:
        raise PruneAuditError(f"iterations must be at least 1, got {iterations}")


@dataclass(frozen=True, kw_only=True)
class Params(StudyParams):
    """The template's page parameters (notebook ``00_template``'s parameters cell)."""

    STUDY = "Study 0 (template)"

    n_classes: int
    iterations: int
    seed: int

    def rules(self) -> Iterable[Rule]:
        yield lambda: check_sizes(self.n_classes, self.iterations)


def cost(params: Params) -> list[Workload]:
    """The workload of ``params``, one :class:`~pruneaudit.studies.params.Workload` per
    architecture trained: none (the curves are synthetic)."""
    return []
