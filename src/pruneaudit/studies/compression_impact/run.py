"""Study 4's populations: their one definition, the runs, and the page's parameter checks.

:class:`Populations` is the definition Study 5 reads too (the same member runs, so a store that
holds Study 4's runs trains nothing there): the member run without its seed, the seeds of the
dense population, the pruning levels and whether each level has its own seeds.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pruneaudit import compress, data, runs
from pruneaudit.errors import PruneAuditError, check_choice
from pruneaudit.runs.store import ResultsStore, RunSpec

PRUNING, QUANTIZATION = "pruning", "quantization"
#: The notebook whose parameters define the populations (Study 5 reads them from its profile).
NOTEBOOK = "04_compression_impact"
#: Study 4's parameters that define its populations (the rest are analysis settings).
POPULATION_KEYS = ("dataset", "model", "epochs", "lr", "batch_size", "augment", "train_size",
                   "test_size", "seeds", "levels", "independent_seeds")


@dataclass(frozen=True)
class Populations:
    """The populations of Study 4: ``spec`` (every field but the seed), the dense population's
    ``seeds``, the pruning ``levels`` and ``independent`` (each level its own seeds, as in H1:
    :func:`pruneaudit.runs.level_seeds`)."""

    spec: RunSpec
    seeds: tuple[int, ...]
    levels: tuple[float, ...]
    independent: bool = True

    def __post_init__(self) -> None:
        runs.check_seeds(list(self.seeds))
        runs.check_levels(list(self.levels))
        for t in self.levels:
            runs.level_seeds(self.seeds, t, self.independent)

    @classmethod
    def from_params(cls, params: Mapping[str, object]) -> Populations:
        """From Study 4's page parameters (:data:`POPULATION_KEYS`)."""
        missing = [k for k in POPULATION_KEYS if k not in params]
        if missing:
            raise PruneAuditError(f"Study 4's parameters lack {missing}; pass the parameters of "
                                  f"notebook {NOTEBOOK}")
        spec = RunSpec(str(params["dataset"]), str(params["model"]), epochs=params["epochs"],
                       lr=params["lr"], batch_size=params["batch_size"],
                       augment=params["augment"], train_size=params["train_size"],
                       test_size=params["test_size"])
        return cls(spec, tuple(params["seeds"]), tuple(float(t) for t in params["levels"]),
                   bool(params["independent_seeds"]))

    def subset(self, members: int | None = None,
               levels: Sequence[float] | None = None) -> Populations:
        """The first ``members`` seeds (None: all) at ``levels`` (None: all; each must be one of
        these populations' levels): a page that evaluates fewer of Study 4's runs."""
        k = len(self.seeds) if members is None else members
        if isinstance(k, bool) or not isinstance(k, int) or not 2 <= k <= len(self.seeds):
            raise PruneAuditError(f"members must be an integer in 2..{len(self.seeds)} (Study 4 "
                                  f"has {len(self.seeds)} members per population), got {k!r}")
        chosen = self.levels if levels is None else tuple(float(t) for t in levels)
        extra = [t for t in chosen if t not in self.levels]
        if extra:
            raise PruneAuditError(f"levels {extra} are not Study 4's levels {list(self.levels)}; "
                                  "pick among them (or add them to Study 4's profile section)")
        return dataclasses.replace(self, seeds=self.seeds[:k], levels=chosen)


def population_overrides(overrides: Mapping[str, object]) -> dict[str, object]:
    """The build overrides (``key`` or ``NAME.key``) that change Study 4's populations."""
    out = {}
    for key, value in overrides.items():
        target, _, short = key.rpartition(".")
        if target in ("", NOTEBOOK) and short in POPULATION_KEYS:
            out[f"{NOTEBOOK}.{short}"] = value
    return out


def profile_of(build: Mapping[str, object] | None) -> tuple[object, dict[str, object]]:
    """``(profile, overrides)`` under which another page reads Study 4's parameters: the book
    build's (``build``: ``{"profile", "overrides"}``), or Study 4's notebook defaults (an empty
    profile) when the page runs by hand or with an unnamed (custom) profile."""
    if not build or build.get("profile") in (None, "custom"):
        return {}, {}
    return build["profile"], population_overrides(dict(build.get("overrides") or {}))


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


def run(
    populations: Populations,
    schemes: Sequence[str],
    store: ResultsStore,
    root: str | None = None,
    progress: bool = True,
) -> ImpactRuns:
    """Train (or read from the store) every population of the study and quantize the baseline.

    ``schemes``: names from :data:`pruneaudit.compress.SCHEMES`. The train split returned is
    member 0's (the split is seeded; the shares of the groups hardly differ between seeds).
    """
    p = populations
    pops = runs.run_levels(p.spec, p.seeds, p.levels, store, root, progress, p.independent)
    baseline = pops.pop(0.0)
    variants = [
        Compressed(variant_name(level=t), PRUNING, t, None, pop) for t, pop in pops.items()
    ]
    for scheme in dict.fromkeys(schemes):
        pop = runs.run_quantized(list(baseline.specs), scheme, store, root, progress)
        variants.append(Compressed(variant_name(scheme=scheme), QUANTIZATION, None, scheme, pop))
    split = runs.splits(baseline.specs[0], root)
    return ImpactRuns(baseline, tuple(variants), split.test, split.train, p.independent)


def validate(params: Mapping[str, object]) -> None:
    """Check the page's parameters before any kernel starts or any model trains; one
    :class:`PruneAuditError` names every problem and its fix."""
    problems = []
    for check in (
        lambda: runs.check_seeds(params.get("seeds", [0, 1])),
        lambda: runs.check_levels(params.get("levels", [0.5])),
        lambda: [runs.level_seeds(params.get("seeds", [0, 1]), t,
                                  bool(params.get("independent_seeds", True)))
                 for t in params.get("levels", [0.5])],
        lambda: [check_choice("quantization scheme", s, compress.SCHEMES)
                 for s in params.get("schemes", [])],
        lambda: check_choice("subgroup_reduce", params.get("subgroup_reduce", "mean"),
                             ("mean", "modal")),
    ):
        try:
            check()
        except PruneAuditError as err:
            problems.append(str(err))
    if not 0 < float(params.get("alpha", 0.05)) < 1:
        problems.append(f"alpha must lie in (0, 1), got {params.get('alpha')!r}")
    bad = [q for q in params.get("percentiles", [90]) if not 0 < q < 100]
    if bad:
        problems.append(f"percentiles must lie in 1..99, got {bad}")
    for name in ("gallery_size", "n_perm", "n_boot", "epochs"):
        value = params.get(name, 1)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            problems.append(f"{name} must be a positive integer, got {value!r}")
    if problems:
        raise PruneAuditError("bad Study 4 parameters: " + "; ".join(problems))
