"""Profiles and notebook parameters, checked before any kernel starts.

A profile is a YAML file ``nbs/profiles/<profile>.yml``: a ``common:`` mapping of parameters given
to every notebook that declares them, and one mapping per notebook name (``00_template:``) of
parameters that notebook must declare. ``-p key=value`` (value read as YAML) overrides both, for
every selected notebook that declares ``key``; ``-p NAME.key=value`` targets one notebook.

A notebook's parameters are read from its cell tagged ``parameters`` with :mod:`ast` (no kernel):
``epochs: int = 3`` declares ``epochs`` of type ``int`` with default 3. :func:`validate_notebook`
checks the resolved values against those annotations and builds the study's parameters object
(``Params`` of ``nbs/03_pareto_selection`` -> ``pruneaudit.studies.pareto_selection``), with the
same one-line errors as inside the kernel (:class:`pruneaudit.studies.params.StudyParams`).

A study may declare that it reads another notebook's parameters (``Params.READS``, field ->
notebook): :func:`resolve_parameters` resolves that notebook's parameters under the same profile
and overrides and passes them as the field, and :func:`build_order` runs the notebooks read
first (:func:`notebook_reads`).
"""

from __future__ import annotations

import ast
import difflib
import importlib
import importlib.util
import os
import re
import types
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

from pruneaudit.book.paths import NBS, PROFILE_NAMES, PROFILES
from pruneaudit.errors import PruneAuditError, check_choice
from pruneaudit.studies.params import check_types

#: Names an annotation in a parameters cell may use.
_ANNOTATION_NAMES = {
    "int": int,
    "float": float,
    "str": str,
    "bool": bool,
    "list": list,
    "dict": dict,
    "tuple": tuple,
    "None": None,
}
_NO_DEFAULT = object()


@dataclass(frozen=True)
class Parameter:
    """One parameter of a notebook's ``parameters`` cell: its type (None when not annotated)
    and its default value."""

    name: str
    kind: object
    default: object


#: A profile's key for its stated measurement (not a notebook): see :func:`profile_measurement`.
MEASURED = "measured"


def _read_profile(profile: str | os.PathLike) -> tuple[Path, dict]:
    """The profile's file and its YAML content (checked to be mappings)."""
    path = Path(profile)
    if path.suffix not in (".yml", ".yaml"):
        check_choice("profile", str(profile), PROFILE_NAMES)
        path = PROFILES / f"{profile}.yml"
    if not path.is_file():
        raise PruneAuditError(f"profile file {path} does not exist")
    content = yaml.safe_load(path.read_text()) or {}
    if not isinstance(content, dict) or not all(
        isinstance(v, dict) or v is None for v in content.values()
    ):
        raise PruneAuditError(
            f"profile {path} must map 'common' and notebook names to parameter mappings"
        )
    return path, content


def load_profile(profile: str | os.PathLike) -> dict[str, dict]:
    """Read a profile by name (``smoke``, ``quick``, ``paper``) or path: ``common`` and one
    parameter mapping per notebook (its ``measured`` mapping is :func:`profile_measurement`'s)."""
    content = _read_profile(profile)[1]
    return {str(k): dict(v or {}) for k, v in content.items() if k != MEASURED}


def profile_measurement(profile: str | os.PathLike) -> dict[str, float]:
    """Seconds per notebook (and ``jupyter-book``) of the profile's stated measurement, its
    ``measured:`` mapping (how it was measured is said in the profile's comments); ``{}`` when
    it states none. What a build expects on a fresh clone, before any timing is recorded."""
    path, content = _read_profile(profile)
    stated = content.get(MEASURED) or {}
    bad = [k for k, v in stated.items() if not isinstance(v, int | float) or v < 0]
    if bad:
        raise PruneAuditError(
            f"profile {path}: 'measured' must map notebook names to seconds, got {bad[0]!r}: "
            f"{stated[bad[0]]!r}"
        )
    return {str(k): float(v) for k, v in stated.items()}


def profile_label(profile: str | os.PathLike | Mapping) -> str:
    """How a profile is named in banners and metadata: its name, a path, or ``custom``."""
    if isinstance(profile, Mapping):
        return "custom"
    path = Path(profile)
    return str(profile) if path.suffix not in (".yml", ".yaml") else str(path.resolve())


def notebook_path(name: str) -> Path:
    """``nbs/<name>.ipynb``, or an error listing the notebooks that exist."""
    path = NBS / f"{name}.ipynb"
    if not path.is_file():
        check_choice("notebook", name, available_notebooks())
    return path


def available_notebooks() -> list[str]:
    """Names of the notebooks in ``nbs/``."""
    return sorted(p.stem for p in NBS.glob("*.ipynb"))


def parse_parameters_cell(source: str, where: str = "parameters cell") -> dict[str, Parameter]:
    """The parameters a ``parameters`` cell declares: ``name: type = value`` (typed) or
    ``name = value`` (untyped); values must be literals, annotations builtin types."""
    try:
        tree = ast.parse(source)
    except SyntaxError as err:
        raise PruneAuditError(f"{where} is not valid Python: {err}") from None
    declared: dict[str, Parameter] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            name, kind = stmt.target.id, _annotation(stmt.annotation, where)
            value = stmt.value
        elif (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
        ):
            name, kind, value = stmt.targets[0].id, None, stmt.value
        else:
            continue
        default = _NO_DEFAULT
        if value is not None:
            try:
                default = ast.literal_eval(value)
            except ValueError:
                raise PruneAuditError(
                    f"{where}: the value of {name!r} must be a literal, got {ast.unparse(value)}"
                ) from None
        declared[name] = Parameter(name, kind, default)
    return declared


def _annotation(node: ast.expr, where: str) -> object:
    unknown = [
        n.id for n in ast.walk(node) if isinstance(n, ast.Name) and n.id not in _ANNOTATION_NAMES
    ]
    if unknown:
        raise PruneAuditError(f"{where}: unknown type {unknown[0]!r} in {ast.unparse(node)}")
    kind = eval(compile(ast.Expression(node), where, "eval"), {"__builtins__": {}},  # noqa: S307
                dict(_ANNOTATION_NAMES))
    return type(None) if kind is None else kind


def declared_parameters(name: str) -> dict[str, Parameter]:
    """The parameters declared in ``nbs/<name>.ipynb``'s cell tagged ``parameters``."""
    import nbformat

    nb = nbformat.read(notebook_path(name), as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code" and "parameters" in cell.metadata.get("tags", []):
            return parse_parameters_cell(cell.source, f"notebook {name}, parameters cell")
    raise PruneAuditError(f"notebook {name} has no cell tagged 'parameters'")


def parse_overrides(pairs: Sequence[str]) -> dict[str, object]:
    """``["epochs=2", "models=[lenet]"]`` -> ``{"epochs": 2, "models": ["lenet"]}`` (YAML)."""
    overrides = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep or not key.strip():
            raise PruneAuditError(f"override must be key=value, got {pair!r}")
        try:
            overrides[key.strip()] = yaml.safe_load(text)
        except yaml.YAMLError as err:
            raise PruneAuditError(f"override {pair!r}: value is not valid YAML ({err})") from None
    return overrides


def _check_declared(name: str, key: str, declared: Mapping[str, object]) -> None:
    if key not in declared:
        close = difflib.get_close_matches(key, list(declared), n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise PruneAuditError(
            f"unknown parameter {key!r} for notebook {name}; its parameters cell declares "
            f"{', '.join(map(repr, declared))}.{hint}"
        )


def resolve_parameters(
    name: str, profile: str | os.PathLike | Mapping, overrides: Mapping[str, object] | None = None
) -> dict[str, object]:
    """Parameters for one notebook: profile ``common`` (keys the notebook declares), then the
    notebook's own profile section, then ``overrides`` (``key`` or ``NAME.key``)."""
    content = dict(profile) if isinstance(profile, Mapping) else load_profile(profile)
    declared = declared_parameters(name)
    params = {k: v for k, v in content.get("common", {}).items() if k in declared}
    for key, value in content.get(name, {}).items():
        _check_declared(name, key, declared)
        params[key] = value
    for key, value in (overrides or {}).items():
        target, dot, short = key.rpartition(".")
        if dot and target != name:
            continue
        _check_declared(name, short if dot else key, declared)
        params[short if dot else key] = value
    reads = notebook_reads(name)
    if reads:
        build_order([name])  # one clear error on a cycle before resolving any
    for field, target in reads.items():
        if field in params:
            raise PruneAuditError(
                f"{field} of notebook {name} is set from notebook {target}'s parameters under "
                f"the same profile and overrides; set those (the profile's {target} section or "
                f"-p {target}.key=value) instead of {field}"
            )
        params[field] = validate_notebook(target, content, overrides_for(target, overrides or {}))
    return params


def overrides_for(name: str, overrides: Mapping[str, object]) -> dict[str, object]:
    """The overrides that apply to notebook ``name``: ``name.key`` and the bare keys it declares
    (as when ``name`` is built itself)."""
    declared = declared_parameters(name)
    out = {}
    for key, value in overrides.items():
        target, dot, short = key.rpartition(".")
        if (dot and target == name) or (not dot and key in declared):
            out[key] = value
    return out


def notebook_reads(name: str) -> dict[str, str]:
    """The parameters notebook ``name`` reads from other notebooks, as its study declares them
    (``Params.READS``: field -> notebook, e.g. Study 5's ``{"study4": "04_compression_impact"}``);
    each must be a notebook in ``nbs/``."""
    params_type = getattr(study_module(name), "Params", None)
    reads = {str(k): str(v) for k, v in (getattr(params_type, "READS", None) or {}).items()}
    missing = [t for t in reads.values() if not (NBS / f"{t}.ipynb").is_file()]
    if missing:
        raise PruneAuditError(
            f"notebook {name} reads the parameters of {', '.join(missing)}, which is not a "
            f"notebook in {NBS}; add it or correct {params_type.__qualname__}.READS "
            f"(notebooks: {', '.join(available_notebooks())})"
        )
    return reads


def build_order(
    names: Sequence[str], reads: Callable[[str], Mapping[str, str]] | None = None
) -> list[str]:
    """``names`` in build order: every notebook after the notebooks whose parameters it reads
    (``reads``: :func:`notebook_reads`), otherwise in the order given. A notebook read but not
    among ``names`` is not added (its parameters are resolved, it is not run); a cycle of reads
    is one error naming it."""
    reads = notebook_reads if reads is None else reads
    order: list[str] = []
    done: set[str] = set()
    path: list[str] = []

    def visit(name: str) -> None:
        if name in done:
            return
        if name in path:
            cycle = " -> ".join([*path[path.index(name):], name])
            raise PruneAuditError(
                f"notebooks read each other's parameters in a cycle: {cycle}; a study may read "
                "only notebooks that do not read it back (correct their Params.READS)"
            )
        path.append(name)
        for target in dict(reads(name)).values():
            visit(target)
        path.pop()
        done.add(name)
        if name in wanted:
            order.append(name)

    wanted = set(names)
    for name in names:
        visit(name)
    return order


def study_module(name: str) -> types.ModuleType | None:
    """The study module of notebook ``name`` (its stem less the number: ``03_pareto_selection``
    -> ``pruneaudit.studies.pareto_selection``), or None when there is none."""
    stem = re.sub(r"^\d+_", "", name)
    module = f"pruneaudit.studies.{stem}"
    if importlib.util.find_spec("pruneaudit.studies") is None:
        return None
    if importlib.util.find_spec(module) is None:
        return None
    return importlib.import_module(module)


def validate_notebook(
    name: str, profile: str | os.PathLike | Mapping, overrides: Mapping[str, object] | None = None
) -> dict[str, object]:
    """Check a notebook's parameters without a kernel; return the values it will run with.

    The profile's and overrides' values, over the cell's defaults, must match the annotations
    (one error naming each bad value, e.g. ``epochs must be int, got 'two'``); then the study's
    ``Params`` is built from them, which checks its rules.
    """
    params = resolve_parameters(name, profile, overrides)
    declared = declared_parameters(name)
    values = {k: p.default for k, p in declared.items() if p.default is not _NO_DEFAULT}
    values.update(params)
    schema = {k: p.kind for k, p in declared.items() if p.kind is not None}
    try:
        check_types(values, schema)
        module = study_module(name)
        params_type = getattr(module, "Params", None)
        if params_type is not None:
            params_type.from_namespace({**values, "__annotations__": schema})
    except PruneAuditError as err:
        raise PruneAuditError(f"notebook {name}: {err}") from None
    return values


def check_overrides(names: Sequence[str], overrides: Mapping[str, object]) -> None:
    """Every override names a parameter of a selected notebook (``NAME.key``: of that one)."""
    declared = {name: declared_parameters(name) for name in names}
    for key in overrides:
        target, dot, short = key.rpartition(".")
        if dot:
            check_choice("notebook in override", target, names)
            _check_declared(target, short, declared[target])
        elif not any(key in d for d in declared.values()):
            raise PruneAuditError(
                f"override {key!r} is not a parameter of any selected notebook ({', '.join(names)})"
            )


def check_common(names: Sequence[str], common: Mapping[str, object]) -> None:
    """Every ``common`` parameter must be declared by at least one of the notebooks ``names``."""
    declared = set().union(*(declared_parameters(n) for n in names)) if names else set()
    unused = [k for k in common if k not in declared]
    if names and unused:
        raise PruneAuditError(
            f"profile 'common' parameter(s) {', '.join(map(repr, unused))} declared by none of "
            f"{', '.join(names)}"
        )
