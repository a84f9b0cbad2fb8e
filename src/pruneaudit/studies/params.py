"""The one seam between a study notebook and its study: a typed, frozen parameters object.

Each study declares its parameters once as a frozen dataclass derived from
:class:`StudyParams`, each field with its type, its default (the value a notebook run without a
profile takes) and a ``#:`` comment; lists are stored as tuples, so the object cannot change
after it is checked. Its rules are :meth:`StudyParams.rules`. The notebook's ``parameters`` cell
is generated from it (:func:`cell_source`; ``pruneaudit params --cell STUDY``
prints it, ``--write`` rewrites the notebook's cell), and a profile gives only the values that
differ from the defaults. :func:`pruneaudit.book.setup` builds the object from the notebook's
globals (:meth:`StudyParams.from_namespace`); the study's ``run(params, store)`` and the page's
views read it by attribute.

Checking happens once, when the object is made: first every field against its type, then every
rule (the device and precision rules of every study first); one
:class:`~pruneaudit.errors.PruneAuditError` lists each problem, one message per rule.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import inspect
import json
import operator
import textwrap
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Self

from pruneaudit.errors import PruneAuditError

if TYPE_CHECKING:
    from pruneaudit.runs.series import SeriesGrid
    from pruneaudit.runtime import Runtime

#: A rule: a callable that raises :class:`PruneAuditError` naming the problem and the fix.
Rule = Callable[[], object]


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

    #: The data folder (None: the setting, ``$PRUNEAUDIT_DATA``).
    data_root: str | None = None
    #: The results store (None: the setting, ``$PRUNEAUDIT_STORE``).
    store: str | None = None
    #: ``auto``, ``cpu``, ``cuda`` or ``cuda:N``.
    device: str = "auto"

    def __post_init__(self) -> None:
        schema = typing.get_type_hints(type(self))
        fields = {f.name: schema[f.name] for f in dataclasses.fields(self)}
        given = {name: getattr(self, name) for name in fields}
        for name in fields:
            object.__setattr__(self, name, _frozen(given[name]))
        problems = [  # the type as a profile, -p and the cell write it: lists, not tuples
            f"{name} must be {_kind_text(cell_kind(kind))}, got {given[name]!r}"
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

    def runtime(self) -> Runtime:
        """A fresh :class:`~pruneaudit.runtime.Runtime` on these parameters' device: what a
        study's ``run`` runs with when it is handed none (as a test calls it)."""
        from pruneaudit.runtime import Runtime

        return Runtime(device=self.device)

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
        typed (those with a default, such as ``device``, may be left out), and nothing else;
        the values (papermill's injected ones) are checked once, by the construction."""
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
        unset = [n for n in declared if n not in namespace]
        if unset:
            raise PruneAuditError(
                f"bad {cls.STUDY} parameters: "
                + "; ".join(f"{n} is not defined (give it a value in the parameters cell)"
                            for n in unset)
            )
        return cls(**{n: namespace[n] for n in declared})

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
    in all, over every model and epoch), ``evaluations`` (one model on one test set) and
    ``populations`` (stacked trainings: calls of the population trainer, each member of one
    trained in the same computation; None where not counted)."""

    model: str
    models: int
    model_epochs: int
    images: int
    evaluations: int
    populations: int | None = None


def series_workload(grid: SeriesGrid, epochs: int, **cost: Any) -> list[Workload]:
    """The workload of ``grid``, one :class:`Workload` per architecture; ``epochs`` and
    ``cost``: the other arguments of :func:`pruneaudit.runs.series.grid_cost`. Per dataset,
    imbalance factor and seed: the dense model and one model per technique, treatment and round,
    each evaluated once on its test set; model-epochs and images as ``grid_cost`` counts them.
    Populations per model, as :func:`pruneaudit.runs.series.series_frame` trains them into an
    empty store: for a stacked model the dense models of every pool and seed, then one per round
    (every pool's, treatment's, technique's and seed's round packed); for the others, per pool,
    the dense seeds and one per treatment and round."""
    from pruneaudit.runs.series import distinct, grid_cost
    from pruneaudit.runs.spec import STACKED_MODELS

    techniques = len(distinct("techniques", grid.techniques))
    treatments = len(distinct("treatments", grid.treatments))
    per_seed = 1 + techniques * treatments * grid.iterations
    pools = (len(distinct("datasets", grid.datasets))
             * len(distinct("imbalance_factors", grid.imbalance_factors)))
    n = pools * len(distinct("seeds", grid.seeds)) * per_seed
    unpacked = pools * (1 + treatments * grid.iterations)
    return [Workload(str(r.model), n, int(r.model_epochs), int(r.images), n,
                     1 + grid.iterations if r.model in STACKED_MODELS else unpacked)
            for r in grid_cost(grid, epochs, **cost).itertuples()]


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
    from pruneaudit.runs.series import SeriesGrid, grid_cost

    # one dense model and one finetuned round of one epoch each: twice the images of an epoch
    one = grid_cost(SeriesGrid([dataset], [model], ["l1_unstructured"], ["finetune"], [0], 1), 1,
                    train_size=train_size, root=root)
    per_epoch = int(one["images"].iloc[0]) // 2
    return Workload(model, models, models * epochs, models * epochs * per_epoch, evaluations,
                    populations=1 if models else 0)


# --------------------------------------------------------------------------- the parameters cell

#: The fields every study has, put last in the cell (after the study's own).
BASE_FIELDS = ("data_root", "store", "device")
#: The cell's opening lines (``{study}``: the study package).
CELL_HEADER = (
    "# Parameters: papermill replaces these values; a profile gives those that differ.\n"
    "# Generated from the study's Params: pruneaudit params --cell {study}"
)
#: The longest line of a generated cell.
CELL_WIDTH = 100


def cell_kind(kind: object) -> object:
    """The type a ``parameters`` cell declares for a field of type ``kind``: ``tuple[T, ...]``
    as ``list[T]`` (papermill gives lists), a study's parameters (a field of ``Params.READS``)
    as ``dict``, ``A | B`` member by member, anything else as is."""
    origin = typing.get_origin(kind)
    if origin in (typing.Union, types.UnionType):
        return functools.reduce(operator.or_, [cell_kind(k) for k in typing.get_args(kind)])
    if origin is tuple:
        return list[cell_kind(typing.get_args(kind)[0])]  # type: ignore[misc]
    if isinstance(kind, type) and issubclass(kind, StudyParams):
        return dict
    return kind


def _kind_text(kind: object) -> str:
    """``kind`` as the cell writes it: ``int``, ``list[str]``, ``int | None``."""
    if kind is None or kind is type(None):
        return "None"
    origin = typing.get_origin(kind)
    if origin in (typing.Union, types.UnionType):
        return " | ".join(_kind_text(k) for k in typing.get_args(kind))
    if origin is not None:
        return f"{origin.__name__}[{', '.join(_kind_text(k) for k in typing.get_args(kind))}]"
    return kind.__name__ if isinstance(kind, type) else str(kind)


def plain(value: object) -> object:
    """``value`` as papermill and a profile give it: tuples as lists, at every depth (a fresh
    list, so that changing it changes no declaration)."""
    return [plain(v) for v in value] if isinstance(value, list | tuple) else value


def _literal(value: object) -> str:
    """``value`` as a Python literal, strings in double quotes and tuples as lists."""
    if isinstance(value, list | tuple):
        return "[" + ", ".join(map(_literal, value)) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_literal(k)}: {_literal(v)}" for k, v in value.items()) + "}"
    return json.dumps(value) if isinstance(value, str) else repr(value)


def field_docs(cls: type[StudyParams]) -> dict[str, str]:
    """The ``#:`` comment above each field of ``cls`` and of its parameter bases, one line
    each (``field -> text``; fields without one are left out)."""
    docs: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if not (isinstance(klass, type) and issubclass(klass, StudyParams)):
            continue
        lines, _ = inspect.getsourcelines(klass)
        body = ast.parse(textwrap.dedent("".join(lines))).body[0]
        for node in getattr(body, "body", []):
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                above, i = [], node.lineno - 2
                while i >= 0 and lines[i].strip().startswith("#:"):
                    above.insert(0, lines[i].strip()[2:].strip())
                    i -= 1
                if above:
                    docs[node.target.id] = " ".join(above).replace("``", "`")
    return docs


def cell_fields(cls: type[StudyParams]) -> list[dataclasses.Field]:
    """The fields of ``cls`` in its ``parameters`` cell's order: the study's own, then
    :data:`BASE_FIELDS`."""
    fields = dataclasses.fields(cls)
    return ([f for f in fields if f.name not in BASE_FIELDS]
            + [f for f in fields if f.name in BASE_FIELDS])


def _declaration(name: str, kind: object, default: object, doc: str) -> list[str]:
    """The cell's lines of one parameter: ``name: kind = default  # doc``, a long list wrapped
    under its first item and a long comment above the declaration."""
    head = f"{name}: {_kind_text(kind)} = "
    text = _literal(default)
    lines = [head + text]
    if len(lines[0]) > CELL_WIDTH and isinstance(default, list | tuple):
        items, lines = [_literal(v) for v in default], [head + "["]
        for i, item in enumerate(items):
            piece = item + ("]" if i == len(items) - 1 else ",")
            if len(lines[-1]) + 1 + len(piece) > CELL_WIDTH and not lines[-1].endswith("["):
                lines.append(" " * (len(head) + 1) + piece)
            else:
                lines[-1] += ("" if lines[-1].endswith("[") else " ") + piece
    if not doc:
        return lines
    if len(lines) == 1 and len(lines[0]) + 4 + len(doc) <= CELL_WIDTH:
        return [f"{lines[0]}  # {doc}"]
    return [*textwrap.wrap(doc, CELL_WIDTH, initial_indent="# ", subsequent_indent="# "), *lines]


def cell_source(cls: type[StudyParams], study: str) -> str:
    """The ``parameters`` cell of ``cls``'s notebook, generated from its fields: one typed
    declaration per field with its default and its ``#:`` comment (:func:`field_docs`), the
    study's own fields first; ``study`` names the package in the opening comment. An error
    names a field without a default."""
    hints, docs = typing.get_type_hints(cls), field_docs(cls)
    lines = CELL_HEADER.format(study=study).splitlines()
    for f in cell_fields(cls):
        if f.default is dataclasses.MISSING:
            raise PruneAuditError(
                f"{cls.__module__}.{cls.__qualname__}.{f.name} has no default; give it the value "
                "a notebook run without a profile takes"
            )
        lines += _declaration(f.name, cell_kind(hints[f.name]), f.default, docs.get(f.name, ""))
    return "\n".join(lines)


def study_notebook(study: str) -> Path:
    """``nbs/<page>.ipynb``, the notebook of registered study ``study`` (its page or package's
    short name)."""
    from pruneaudit.config import REPO
    from pruneaudit.studies import registry

    path = REPO / "nbs" / f"{registry.study(study).page}.ipynb"
    if not path.is_file():
        raise PruneAuditError(f"study {study} has no notebook {path}; copy "
                              "nbs/00_template.ipynb there")
    return path


def write_cell(study: str, source: str) -> Path:
    """Replace the source of the cell tagged ``parameters`` of ``study``'s notebook by
    ``source`` (the notebook read and written with nbformat); return the notebook's path."""
    import nbformat

    path = study_notebook(study)
    nb = nbformat.read(path, as_version=4)
    cells = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    if len(cells) != 1:
        raise PruneAuditError(f"{path} needs one cell tagged 'parameters', found {len(cells)}")
    cells[0].source = source
    nbformat.write(nb, path)
    return path


def print_cell(study: str, write: bool = False) -> int:
    """``pruneaudit params --cell STUDY [--write]``: print the parameters cell of ``study`` (a
    study package, or a notebook name ``NN_study``) generated from its ``Params``, or, with
    ``write``, rewrite the notebook's cell; the exit status."""
    from pruneaudit.studies import registry

    declared = registry.study(study)
    name = registry.short(declared.page)
    source = cell_source(declared.params, name)
    print(f"wrote {write_cell(name, source)}" if write else source)
    return 0
