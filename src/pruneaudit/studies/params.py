"""The one seam between a study notebook and its study: a typed, frozen parameters object.

Each study declares its parameters once as a frozen dataclass derived from
:class:`StudyParams` (fields typed as the notebook's ``parameters`` cell types them; lists are
stored as tuples, so the object cannot change after it is checked) and its rules as
:meth:`StudyParams.rules`. :func:`pruneaudit.book.setup` builds it from the notebook's globals
(:meth:`StudyParams.from_namespace`); the study's ``run(params, store)`` and the page's views
read it by attribute.

Checking happens once, when the object is made: first every field against its type, then every
rule (the device and precision rules of every study first); one
:class:`~pruneaudit.errors.PruneAuditError` lists each problem, one message per rule.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Self

from pruneaudit.errors import PruneAuditError

#: A rule: a callable that raises :class:`PruneAuditError` naming the problem and the fix.
Rule = Callable[[], object]


def _type_name(kind: object) -> str:
    return kind.__name__ if isinstance(kind, type) else str(kind).replace("typing.", "")


def matches(value: object, kind: object) -> bool:
    """Whether ``value`` is of ``kind``: a type, ``A | B``, ``list[T]``, ``tuple[T, ...]``,
    ``dict[K, V]`` or None (ints pass as floats; bools are neither)."""
    if kind is None or kind is type(None):
        return value is None
    origin = typing.get_origin(kind)
    if origin in (typing.Union, types.UnionType):
        return any(matches(value, k) for k in typing.get_args(kind))
    if origin in (list, tuple, set):
        (item,) = typing.get_args(kind)[:1] or (object,)
        return isinstance(value, origin) and all(matches(v, item) for v in value)
    if origin is dict:
        key, val = typing.get_args(kind) or (object, object)
        return isinstance(value, dict) and all(
            matches(k, key) and matches(v, val) for k, v in value.items()
        )
    if kind is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, kind)  # type: ignore[arg-type]


def check_types(values: Mapping[str, object], schema: Mapping[str, object]) -> dict:
    """Return ``{name: values[name]}`` for the names of ``schema``, each checked against its
    type; one error lists every bad or missing value, e.g. ``epochs must be int, got 'two'``."""
    problems = []
    for name, kind in schema.items():
        if name not in values:
            problems.append(f"{name} is not defined (declare it in the parameters cell)")
        elif not matches(values[name], kind):
            problems.append(f"{name} must be {_type_name(kind)}, got {values[name]!r}")
    if problems:
        raise PruneAuditError("bad notebook parameters: " + "; ".join(problems))
    return {name: values[name] for name in schema}


def _frozen(value: object) -> object:
    return tuple(_frozen(v) for v in value) if isinstance(value, list) else value


@dataclass(frozen=True, kw_only=True)
class StudyParams:
    """What every study page takes: where the data and the results store are, and the device.

    ``device``: ``auto``, ``cpu``, ``cuda`` or ``cuda:N``; a CUDA device this machine lacks is
    an error here, before any kernel starts. The training precision is the setting
    (``$PRUNEAUDIT_PRECISION``: ``fp32``, the default, or ``bf16``, which needs CUDA), checked
    here against the device.

    Subclasses add their fields (``kw_only``: declared in any order) and override :meth:`rules`.
    """

    #: The study page's title in errors (``"Study 3"``).
    STUDY: ClassVar[str] = "study"

    data_root: str | None = None
    store: str | None = None
    device: str = "auto"

    def __post_init__(self) -> None:
        schema = typing.get_type_hints(type(self))
        fields = {f.name: schema[f.name] for f in dataclasses.fields(self)}
        for name in fields:
            object.__setattr__(self, name, _frozen(getattr(self, name)))
        problems = [
            f"{name} must be {_type_name(kind)}, got {getattr(self, name)!r}"
            for name, kind in fields.items()
            if not matches(getattr(self, name), kind)
        ]
        if not problems:
            for rule in (self._device_rule, self._precision_rule, *self.rules()):
                try:
                    rule()
                except PruneAuditError as error:
                    problems.append(str(error))
        if problems:
            raise PruneAuditError(f"bad {self.STUDY} parameters: " + "; ".join(problems))

    def rules(self) -> Iterable[Rule]:
        """The checks beyond the types, each a callable raising one clear error."""
        return ()

    def _device_rule(self) -> None:
        """The device is a setting this machine has (``cuda`` without CUDA names the fix)."""
        from pruneaudit.training.device import resolve_device

        resolve_device(self.device)

    def _precision_rule(self) -> None:
        """The precision setting is ``fp32`` or ``bf16``, and ``bf16`` runs on a CUDA device."""
        from pruneaudit import config
        from pruneaudit.training.device import resolve_device

        if config.precision_setting() == "bf16":
            device = resolve_device(self.device)
            if device.type != "cuda":
                raise PruneAuditError(
                    f"precision 'bf16' (${config.PRECISION_ENV}) needs a CUDA device, and "
                    f"device {self.device!r} is the CPU here; set {config.PRECISION_ENV}=fp32 "
                    "or unset it"
                )

    @classmethod
    def names(cls) -> list[str]:
        """The parameter names, in declaration order."""
        return [f.name for f in dataclasses.fields(cls)]

    @classmethod
    def from_namespace(cls, namespace: Mapping[str, object]) -> Self:
        """Build from a notebook's globals: its ``parameters`` cell declares this class's fields,
        typed (those with a default, such as ``device``, may be left out; papermill's injected
        values are checked against the declared types), and nothing else."""
        declared = dict(namespace.get("__annotations__", {}))
        if not declared:
            raise PruneAuditError(
                "the parameters cell declares no typed parameters; write them as "
                "`name: type = value`"
            )
        required = [
            f.name
            for f in dataclasses.fields(cls)
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        ]
        missing = [n for n in required if n not in declared]
        extra = [n for n in declared if n not in cls.names()]
        if missing or extra:
            raise PruneAuditError(
                f"the parameters cell does not match {cls.__qualname__}: "
                + "; ".join(
                    [f"declare {n}" for n in missing] + [f"{n} is not a parameter" for n in extra]
                )
            )
        return cls(**check_types(namespace, declared))

    def as_dict(self) -> dict[str, Any]:
        """The parameters as plain values (tuples as lists), e.g. for provenance."""
        return {
            f.name: list(v) if isinstance(v := getattr(self, f.name), tuple) else v
            for f in dataclasses.fields(self)
        }


@dataclass(frozen=True)
class Workload:
    """What a study's parameters ask of the machine, for one architecture, counted from the
    parameters (and the datasets' sizes) before anything runs: ``models`` trained,
    ``model_epochs`` (one model over its training images once), ``images`` (training images seen
    in all, over every model and epoch) and ``evaluations`` (one model on one test set)."""

    model: str
    models: int
    model_epochs: int
    images: int
    evaluations: int


def series_workload(**grid: Any) -> list[Workload]:
    """The workload of a grid of pruning series, one :class:`Workload` per architecture;
    ``grid``: the arguments of :func:`pruneaudit.runs.series.grid_cost`, by name. Per dataset,
    imbalance factor and seed: the dense model and one model per technique, treatment and round,
    each evaluated once on its test set; model-epochs and images as ``grid_cost`` counts them."""
    from pruneaudit.runs.series import distinct, grid_cost

    per_seed = 1 + (len(distinct("techniques", grid["techniques"]))
                    * len(distinct("treatments", grid["treatments"])) * grid["iterations"])
    factors = grid.get("imbalance_factors", (1,))
    n = (len(distinct("datasets", grid["datasets"])) * len(distinct("imbalance_factors", factors))
         * len(distinct("seeds", grid["seeds"])) * per_seed)
    return [Workload(str(r.model), n, int(r.model_epochs), int(r.images), n)
            for r in grid_cost(**grid).itertuples()]


def population_workload(
    dataset: str,
    model: str,
    models: int,
    epochs: int,
    evaluations: int,
    *,
    train_size: int | None = None,
    root: str | None = None,
) -> Workload:
    """The workload of ``models`` models of ``model`` trained ``epochs`` epochs each on
    ``dataset``'s training split (80% of its first ``train_size`` images, as a pruning series'
    dense model), and ``evaluations`` evaluations."""
    from pruneaudit.runs.series import grid_cost

    # one dense model and one finetuned round of one epoch each: twice the images of an epoch
    one = grid_cost([dataset], [model], ["l1_unstructured"], ["finetune"], [0], 1, 1,
                    train_size=train_size, root=root)
    per_epoch = int(one["images"].iloc[0]) // 2
    return Workload(model, models, models * epochs, models * epochs * per_epoch, evaluations)
