"""Study 4's parameters and its populations (their one definition, which Study 5 reads too).

:class:`Params` is the page's parameters cell, typed and checked. :class:`Populations` is made
from it alone: the member run without its seed, the seeds of the dense population, the pruning
levels and whether each level has its own seeds (Study 5 evaluates a subset of them, so a store
that holds Study 4's runs trains nothing there).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pruneaudit import compress, data, models, runs
from pruneaudit.errors import PruneAuditError, check_choice, check_positive_int, check_range
from pruneaudit.runs.series import distinct
from pruneaudit.runs.spec import RunSpec, check_lr
from pruneaudit.studies.params import Rule, StudyParams, Workload, population_workload

#: The notebook whose parameters define the populations (Study 5 declares that it reads them).
NOTEBOOK = "04_compression_impact"


@dataclass(frozen=True, kw_only=True)
class Params(StudyParams):
    """Study 4's page parameters: the populations (the fields :meth:`Populations.from_params`
    reads) and the analysis settings, one field per name of notebook ``04_compression_impact``'s
    parameters cell."""

    STUDY = "Study 4"

    #: QMNIST: its test digits carry the writer series (the H2 group here).
    dataset: str = "qmnist"
    model: str = "lenet"
    #: The K members of each population (16: chosen for the findings' power; evidence: Study 4).
    seeds: tuple[int, ...] = tuple(range(16))
    #: End sparsities t of gradual magnitude pruning.
    levels: tuple[float, ...] = (0.5, 0.7, 0.9, 0.95, 0.99)
    #: Post-training quantization schemes.
    schemes: tuple[str, ...] = ("float16", "dynamic_int8", "static_int8")
    #: Each level its own seeds (H1); False: shared initialisation.
    independent_seeds: bool = True
    epochs: int = 3
    lr: float = 0.1
    batch_size: int = 32
    #: Random crop (padding 2); never a flip for digits.
    augment: bool = False
    #: First N training digits (None: all; 30,000: 24,000 to train).
    train_size: int | None = 30000
    #: First N test digits (None: all 10,000, both writer series).
    test_size: int | None = None
    #: The test meta column used as the group (QMNIST writer series).
    group: str = "series"
    #: Named in advance as the harder series (high-school writers).
    hard_group: str = "hsf4"
    #: "mean" over members, or "modal" (metrics of the modal labels; fairlearn's MetricFrame is
    #: slow).
    subgroup_reduce: str = "modal"
    #: Significance level of the per-class Welch t-tests.
    alpha: float = 0.05
    #: Taxicab / Jaccard CIE: the top 10 %, 5 %, 1 %.
    percentiles: tuple[int, ...] = (90, 95, 99)
    #: Breaks ties of the CIE scores; seeds the permutation null.
    tie_seed: int = 0
    #: Balanced re-splits of the members for the findings' permutation null.
    n_perm: int = 199
    #: Bootstrap resamples of the members for the findings' intervals.
    n_boot: int = 199
    #: PIEs shown per level and class in the gallery.
    gallery_size: int = 6

    def rules(self) -> Iterable[Rule]:
        yield lambda: check_choice("dataset", self.dataset, data.DATASETS)
        yield lambda: check_choice("model", self.model, models.MODELS)
        yield lambda: runs.check_seeds(self.seeds)
        yield lambda: runs.check_levels(self.levels)
        yield lambda: [runs.level_seeds(self.seeds, t, self.independent_seeds)
                       for t in self.levels]
        yield lambda: self.schemes and distinct("schemes", self.schemes, compress.SCHEMES)
        yield lambda: check_lr(self.lr)
        yield lambda: check_choice("subgroup_reduce", self.subgroup_reduce, ("mean", "modal"))
        yield lambda: check_range("alpha", self.alpha, 0, 1, lo_open=True, hi_open=True)
        yield lambda: [check_range("percentiles", q, 1, 99) for q in self.percentiles]
        for name in ("epochs", "batch_size", "n_perm", "n_boot", "gallery_size"):
            yield lambda name=name: check_positive_int(name, getattr(self, name))
        for name in ("train_size", "test_size"):
            if getattr(self, name) is not None:
                yield lambda name=name: check_positive_int(name, getattr(self, name))


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
    def from_params(cls, params: Params) -> Populations:
        """From Study 4's page parameters: the run's fields (dataset, model, epochs, lr,
        batch_size, augment, train_size, test_size), seeds, levels and independent_seeds."""
        if not isinstance(params, Params):
            raise PruneAuditError(f"Study 4's populations are made from its Params (notebook "
                                  f"{NOTEBOOK}), got {type(params).__name__}")
        spec = RunSpec(params.dataset, params.model, epochs=params.epochs, lr=params.lr,
                       batch_size=params.batch_size, augment=params.augment,
                       train_size=params.train_size, test_size=params.test_size)
        return cls(spec, params.seeds, tuple(float(t) for t in params.levels),
                   params.independent_seeds)

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


def cost(params: Params) -> list[Workload]:
    """The workload of ``params``: the dense population and one per pruning level, ``seeds``
    members each (:func:`~pruneaudit.studies.params.population_workload`), each member
    evaluated on the test set, and the dense members quantized with every scheme and evaluated
    (no training)."""
    p = params
    trained = len(p.seeds) * (1 + len(p.levels))
    quantized = len(p.seeds) * len(dict.fromkeys(p.schemes))
    return [population_workload(p.dataset, p.model, trained, p.epochs, trained + quantized,
                                train_size=p.train_size, root=p.data_root)]


#: The values the book's profiles give that differ from the defaults (``quick``: the defaults).
PROFILES = {
    # the first 1,000 test digits are all series hsf4: one group only (fine for a smoke run)
    "smoke": {
        "seeds": [0, 1, 2],
        "levels": [0.5, 0.9],
        "epochs": 2,
        "lr": 0.05,
        "train_size": 2000,
        "test_size": 1000,
        "gallery_size": 8,
    },
    # H1/H2: K = 30 models per level, levels 0.1-0.99, three quantization schemes, the full
    # protocol (30 epochs, lr 0.01, batch 32, crop augmentation, 48,000 training digits)
    "paper": {
        "seeds": list(range(30)),
        "levels": [0.1, 0.3, 0.5, 0.7, 0.9, 0.95, 0.99],
        "epochs": 30,
        "lr": 0.01,
        "augment": True,
        "train_size": None,
        "subgroup_reduce": "mean",
    },
}
