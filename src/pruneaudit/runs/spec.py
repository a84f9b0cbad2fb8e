"""The full configuration of one run (:class:`RunSpec`): validated, hashed into its store key.

The key is the sha256 of the canonical JSON of every field (:func:`canonical_key`), ``protocol``
included: :data:`pruneaudit.config.PROTOCOL_VERSION` is the switch that retires all stored runs.
The runs of the models the population trainer stacks also carry its scheme
(:attr:`RunSpec.trainer`), which retired their runs made before a member's bits stopped
depending on its companions. The package version is not part of the key (a
release that does not change results reuses every stored run), nor are module paths (moving
code never invalidates a stored run).
Study-specific settings live in ``extra``, whose keys are declared once, typed, in :class:`Extra`
(and read through accessors such as :attr:`RunSpec.level`, :attr:`RunSpec.scheme`,
:attr:`RunSpec.kind`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypedDict, get_type_hints

from pruneaudit import config
from pruneaudit.errors import PruneAuditError, check_choice, check_positive_int, check_range

if TYPE_CHECKING:
    from pandas import DataFrame

CLASS_COLUMNS = ("class", "accuracy", "n")
PREDICTION_COLUMNS = ("index", "label", "prediction")


def predictions_parquet(predictions: DataFrame) -> dict[str, Any]:
    """How ``predictions.parquet`` is written (read back the same frame, as any parquet file):
    the example index, ``0..n-1`` in order, delta-encoded instead of as an n-entry dictionary;
    the labels and predictions (a few classes) dictionary-encoded; zstd. A 10,000-example run
    takes about 10 KB instead of 70 KB (pyarrow's defaults), which is most of a light export."""
    integer = predictions["index"].dtype.kind in "iu"
    return {
        "compression": "zstd",
        "use_dictionary": [str(c) for c in predictions.columns if c != "index"],
        **({"column_encoding": {"index": "DELTA_BINARY_PACKED"}} if integer else {}),
    }


class Extra(TypedDict, total=False):
    """The keys of :attr:`RunSpec.extra` that the package writes and reads, with their types.

    Each enters the store key only when a run sets it (absent is not the same as a default), so
    adding a key here retires no stored run. Other keys are free-form JSON scalars.
    """

    #: Target sparsity of a gradually pruned population member, in [0, 1) (H1).
    level: float
    #: The cubic schedule of a gradually pruned member: start and end (fractions of the training
    #: steps) and how many times the masks are updated.
    gradual_begin: float
    gradual_end: float
    gradual_updates: int
    #: Quantization scheme applied after training (:data:`pruneaudit.compress.SCHEMES`).
    scheme: str
    #: Epochs of the dense run (and of each rewound round) when they differ from ``epochs``.
    dense_epochs: int
    #: Training precision when not ``fp32`` (default: ``$PRUNEAUDIT_PRECISION`` when the spec is
    #: made, :func:`pruneaudit.config.precision_setting`; the runs train at their specs');
    #: ``fp32`` is never stored, so float32 runs keep their keys.
    precision: str
    #: P's horizontal flip in the training augmentation (absent when off).
    flip: bool
    #: Evaluation on a corrupted test set: corruption name, severity and the draw's seed.
    corruption: str
    severity: int
    corruption_seed: int
    #: Long-tailed training pool: the most frequent class has ``imbalance_factor`` times the
    #: examples of the rarest (:func:`pruneaudit.data.long_tail_indices`), classes ranked by
    #: ``imbalance_seed``.
    imbalance_factor: float
    imbalance_seed: int


#: Each declared key of ``extra`` and the type its value must have.
EXTRA_TYPES: Mapping[str, type] = MappingProxyType(get_type_hints(Extra))
LEVEL_KEY = "level"
GRADUAL_BEGIN_KEY = "gradual_begin"
GRADUAL_END_KEY = "gradual_end"
GRADUAL_UPDATES_KEY = "gradual_updates"
SCHEME_KEY = "scheme"
DENSE_EPOCHS_KEY = "dense_epochs"
PRECISION_KEY = "precision"
FLIP_KEY = "flip"
CORRUPTION_KEY = "corruption"
SEVERITY_KEY = "severity"
CORRUPTION_SEED_KEY = "corruption_seed"
IMBALANCE_KEY = "imbalance_factor"
IMBALANCE_SEED_KEY = "imbalance_seed"

#: Models :func:`pruneaudit.training.train_population` trains as stacked blocks (the frames
#: :func:`pruneaudit.training.supports` accepts); others train one by one, their bits unchanged.
STACKED_MODELS: tuple[str, ...] = ("lenet", "alexnet")
#: The population trainer's scheme, :attr:`RunSpec.trainer` of :data:`STACKED_MODELS`' runs.
#: 2: canonical blocks, a member's bits on the CPU independent of its companions and of the
#: threads (:mod:`pruneaudit.training.stacked`; on CUDA not measured). 1
#: (:data:`LEGACY_TRAINER_SCHEME`, never in a key): blocks of the population's size at the
#: threads of the time, whose bits could depend on both.
TRAINER_SCHEME = 2
LEGACY_TRAINER_SCHEME = 1
#: The spec field of the trainer scheme (absent from a run's JSON where it is None or legacy).
TRAINER_FIELD = "trainer"


#: The field every spec carried while the package version was part of the key (until 2026-11-25,
#: at 0.1.0): never a spec's field or ``extra`` key now; a stored spec that has it is of an older
#: store, which :class:`~pruneaudit.runs.store.ResultsStore` refuses.
OLD_VERSION_FIELD = "version"


def canonical_key(fields: Mapping[str, Any]) -> str:
    """sha256 (hex) of the canonical JSON of ``fields``: sorted keys, no spaces, no NaN."""
    text = json.dumps(dict(fields), sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode()).hexdigest()


def _registry(kind: str) -> tuple[str, ...]:
    """The accepted names of a registry, imported lazily (torch-free callers stay light)."""
    if kind == "dataset":
        from pruneaudit.data.datasets import DATASETS

        return tuple(DATASETS)
    if kind == "model":
        from pruneaudit.models import MODELS

        return tuple(MODELS)
    if kind == "technique":
        from pruneaudit.compress.prune import TECHNIQUES

        return tuple(TECHNIQUES)
    if kind == "treatment":
        from pruneaudit.compress.prune import TREATMENTS

        return tuple(TREATMENTS)
    if kind == "scheme":
        from pruneaudit.compress.quantization import SCHEMES

        return tuple(SCHEMES)
    raise KeyError(kind)


def _scalar(name: str, value: object) -> object:
    if value is None or isinstance(value, str | bool | int | float):
        return value
    raise PruneAuditError(
        f"extra[{name!r}] must be a JSON scalar (str, int, float, bool or None), got {value!r}"
    )


def _declared(name: str, value: object) -> None:
    """A declared key's value has its type (an int passes as a float; a bool is neither)."""
    kind = EXTRA_TYPES[name]
    if kind is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
    else:
        ok = isinstance(value, kind) and (kind is bool or not isinstance(value, bool))
    if not ok:
        raise PruneAuditError(f"extra[{name!r}] must be {kind.__name__}, got {value!r}")



def check_lr(lr: object) -> float:
    """The one rule for a learning rate (runs and every study's parameters): a number > 0."""
    if isinstance(lr, bool):
        raise PruneAuditError(f"lr must be in (0, inf], got {lr!r}")
    return check_range("lr", lr, 0, float("inf"), lo_open=True)

@dataclass(frozen=True)
class RunSpec:
    """The full configuration of one run; its ``key`` names the run in the store.

    ``technique``/``treatment`` None means a dense (unpruned) run; ``iteration`` k >= 1 is the k-th
    prune-retrain round of P's iterative protocol. ``train_size`` None uses the whole training set
    (else its first ``train_size`` examples, split 80/20 by ``seed``); ``test_size`` None the whole
    test set. ``extra`` holds study-specific settings (for example ``level``, a target sparsity in
    [0, 1), or ``scheme``, a quantization scheme), given as a mapping and kept as a sorted tuple of
    pairs. ``protocol`` defaults to the current protocol version. ``trainer``: the population
    trainer's scheme for a model it stacks (:data:`~pruneaudit.runs.spec.STACKED_MODELS`),
    default :data:`~pruneaudit.runs.spec.TRAINER_SCHEME`; None for any other model (trained
    one by one).
    """

    dataset: str
    model: str
    technique: str | None = None
    treatment: str | None = None
    iteration: int = 0
    seed: int = 0
    epochs: int = 30
    lr: float = 0.01
    batch_size: int = 32
    augment: bool = True
    train_size: int | None = None
    test_size: int | None = None
    val_fraction: float = 0.2
    extra: tuple[tuple[str, Any], ...] = ()
    protocol: str = config.PROTOCOL_VERSION
    trainer: int | None = None

    def __post_init__(self) -> None:
        check_choice("dataset", self.dataset, _registry("dataset"))
        check_choice("model", self.model, _registry("model"))
        if self.technique is not None:
            check_choice("technique", self.technique, _registry("technique"))
        if self.treatment is not None:
            check_choice("treatment", self.treatment, _registry("treatment"))
            if self.technique is None:
                raise PruneAuditError(
                    f"treatment {self.treatment!r} needs a technique; a dense run has neither"
                )
        if isinstance(self.iteration, bool) or not isinstance(self.iteration, int):
            raise PruneAuditError(f"iteration must be an integer >= 0, got {self.iteration!r}")
        if self.iteration < 0:
            raise PruneAuditError(f"iteration must be an integer >= 0, got {self.iteration!r}")
        if self.iteration > 0 and self.technique is None:
            raise PruneAuditError(
                f"iteration {self.iteration} is a pruning round and needs a technique; "
                "iteration 0 is the dense run"
            )
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise PruneAuditError(f"seed must be an integer >= 0, got {self.seed!r}")
        check_positive_int("epochs", self.epochs)
        check_positive_int("batch_size", self.batch_size)
        for name in ("train_size", "test_size"):
            if getattr(self, name) is not None:
                check_positive_int(name, getattr(self, name))
        if not isinstance(self.augment, bool):
            raise PruneAuditError(f"augment must be True or False, got {self.augment!r}")
        object.__setattr__(self, "lr", check_lr(self.lr))
        object.__setattr__(
            self,
            "val_fraction",
            check_range("val_fraction", self.val_fraction, 0, 1, hi_open=True),
        )
        object.__setattr__(self, "extra", self._checked_extra(self.extra))
        if self.model not in STACKED_MODELS:
            object.__setattr__(self, "trainer", None)  # trained one by one: no scheme
        elif self.trainer is None:
            object.__setattr__(self, "trainer", TRAINER_SCHEME)
        else:
            check_positive_int("trainer", self.trainer)

    @staticmethod
    def _checked_extra(extra: object) -> tuple[tuple[str, Any], ...]:
        items = extra.items() if isinstance(extra, Mapping) else extra
        try:
            pairs = dict(items)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            raise PruneAuditError(
                f"extra must be a mapping of names to JSON scalars, got {extra!r}"
            ) from None
        fields = {f.name for f in dataclasses.fields(RunSpec)} | {"key", *CLASS_COLUMNS}
        fields.add(OLD_VERSION_FIELD)
        for name, value in pairs.items():
            if not isinstance(name, str) or name in fields:
                raise PruneAuditError(
                    f"extra key {name!r} must be a string other than the spec's own fields "
                    f"and the columns {', '.join(CLASS_COLUMNS)}"
                )
            _scalar(name, value)
            if name in EXTRA_TYPES:
                _declared(name, value)
        if LEVEL_KEY in pairs:
            pairs[LEVEL_KEY] = check_range(
                "sparsity level", pairs[LEVEL_KEY], 0, 1, hi_open=True
            )
        if SCHEME_KEY in pairs:
            check_choice("quantization scheme", pairs[SCHEME_KEY], _registry("scheme"))
        if DENSE_EPOCHS_KEY in pairs:
            check_positive_int("dense_epochs", pairs[DENSE_EPOCHS_KEY])
        pairs.setdefault(PRECISION_KEY, config.precision_setting())
        if config.precision_setting(pairs[PRECISION_KEY]) == "fp32":
            del pairs[PRECISION_KEY]
        return tuple(sorted(pairs.items()))

    @property
    def level(self) -> float:
        """Target sparsity of a gradually pruned population member (0.0: dense or iterative)."""
        return float(dict(self.extra).get(LEVEL_KEY, 0.0))

    @property
    def scheme(self) -> str | None:
        """Quantization scheme applied after training, or None."""
        return dict(self.extra).get(SCHEME_KEY)

    @property
    def dense_epochs(self) -> int | None:
        """Epochs of the series' dense run and rewound rounds when they differ from ``epochs``
        (Study 1's budget-matched protocol), else None."""
        value = dict(self.extra).get(DENSE_EPOCHS_KEY)
        return None if value is None else int(value)

    @property
    def precision(self) -> str:
        """Training precision of the run: ``fp32`` or ``bf16``."""
        return str(dict(self.extra).get(PRECISION_KEY, "fp32"))

    @property
    def kind(self) -> str:
        """What the run is: ``dense``, ``iterative`` (P's prune-retrain round), ``gradual``
        (H1's pruning during training) or ``quantized``; a corrupted-test run keeps its kind."""
        if self.scheme is not None:
            return "quantized"
        if self.level > 0:
            return "gradual"
        return "iterative" if self.iteration > 0 else "dense"

    def with_extra(self, **extra: Any) -> RunSpec:
        """A copy with ``extra`` updated by these keys (validated again)."""
        return self.replace(extra={**dict(self.extra), **extra})

    def as_dict(self) -> dict[str, Any]:
        """All fields as plain JSON values (``extra`` as a dict); ``trainer`` only where it is
        set and not the legacy scheme (so runs made before it existed keep their keys)."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        out["extra"] = dict(self.extra)
        if out[TRAINER_FIELD] in (None, LEGACY_TRAINER_SCHEME):
            del out[TRAINER_FIELD]
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> RunSpec:
        """Inverse of :meth:`as_dict`: no ``extra["precision"]`` is fp32; no ``trainer`` is
        :data:`~pruneaudit.runs.spec.LEGACY_TRAINER_SCHEME` (for a stacked model)."""
        fields = dict(d)
        fields["extra"] = {PRECISION_KEY: "fp32", **dict(fields.get("extra", {}))}
        fields.setdefault(TRAINER_FIELD, LEGACY_TRAINER_SCHEME)
        return cls(**fields)

    @property
    def key(self) -> str:
        """:func:`~pruneaudit.runs.spec.canonical_key` of all fields."""
        return canonical_key(self.as_dict())

    def replace(self, **changes: Any) -> RunSpec:
        """A copy with some fields changed (validated again)."""
        return dataclasses.replace(self, **changes)

    def columns(self) -> dict[str, Any]:
        """The spec as tidy-frame columns: its fields with ``extra`` flattened (but the trainer
        scheme, which only keys the run), plus ``key``."""
        d = self.as_dict()
        extra = d.pop("extra")
        d.pop(TRAINER_FIELD, None)
        return {"key": self.key, **d, **extra}
