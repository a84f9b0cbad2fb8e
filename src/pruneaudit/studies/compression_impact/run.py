"""Study 4's runs: every population of its :class:`~.params.Params` trained (or read from the
store), the baseline quantized with each scheme; :func:`run` returns the page's :class:`Result`.
"""

from __future__ import annotations

from dataclasses import dataclass

from pruneaudit import data, runs
from pruneaudit.errors import PruneAuditError, check_choice
from pruneaudit.runs.store import ResultsStore
from pruneaudit.runtime import Runtime
from pruneaudit.studies.compression_impact.params import Params, Populations

PRUNING, QUANTIZATION = "pruning", "quantization"


def variant_name(level: float | None = None, scheme: str | None = None) -> str:
    """Display name of a compressed variant: ``"pruned 90%"`` or the quantization scheme."""
    if (level is None) == (scheme is None):
        raise PruneAuditError("a variant has either a pruning level or a quantization scheme")
    return scheme if scheme is not None else runs.level_name(level)


@dataclass(frozen=True)
class Compressed:
    """One compressed population and what made it."""

    name: str
    kind: str
    level: float | None
    scheme: str | None
    population: runs.Population


@dataclass(frozen=True)
class ImpactRuns:
    """The baseline population, the compressed ones, and the data they were evaluated on."""

    baseline: runs.Population
    compressed: tuple[Compressed, ...]
    test: data.ImageData
    train: data.ImageData
    #: Whether each pruning level's population has its own seeds (H1) or shares the baseline's.
    independent: bool = True

    @property
    def num_classes(self) -> int:
        return self.test.num_classes

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.compressed]

    def get(self, name: str) -> Compressed:
        """The compressed variant called ``name``."""
        check_choice("compressed variant", name, self.names)
        return next(c for c in self.compressed if c.name == name)


@dataclass(frozen=True)
class Result:
    """What Study 4's page shows: its parameters, the populations they define and the runs."""

    params: Params
    populations: Populations
    runs: ImpactRuns


def run(
    params: Params, store: ResultsStore, *, progress: bool = True, runtime: Runtime | None = None
) -> Result:
    """Train (or read from the store) every population of ``params`` and quantize the baseline
    with each of ``params.schemes`` (:data:`pruneaudit.compress.SCHEMES`).

    The train split returned is member 0's (the split is seeded; the shares of the groups hardly
    differ between seeds).
    ``runtime``: the process's settings (device, threads, progress output) the runs train
    with; None: a fresh one on the parameters' device (:meth:`StudyParams.runtime
    <pruneaudit.studies.params.StudyParams.runtime>`).
    """
    p = Populations.from_params(params)
    root = params.data_root
    runtime = runtime if runtime is not None else params.runtime()
    pops = runs.run_levels(p.spec, p.seeds, p.levels, store, root, progress, p.independent,
                           runtime=runtime)
    baseline = pops.pop(0.0)
    variants = [
        Compressed(variant_name(level=t), PRUNING, t, None, pop) for t, pop in pops.items()
    ]
    for scheme in dict.fromkeys(params.schemes):
        pop = runs.run_quantized(list(baseline.specs), scheme, store, root, progress,
                                 runtime=runtime)
        variants.append(Compressed(variant_name(scheme=scheme), QUANTIZATION, None, scheme, pop))
    split = runs.splits(baseline.specs[0], root)
    impact = ImpactRuns(baseline, tuple(variants), split.test, split.train, p.independent)
    return Result(params, p, impact)
