"""Profiles and notebook parameters, checked before any kernel starts.

A profile gives each notebook the values that differ from its study's defaults. The book's
profiles (``smoke``, ``quick``, ``paper``) take them from the registered studies, each of which
declares its own (``PROFILES`` in its ``params.py``, :class:`pruneaudit.studies.study.Study`);
their files ``nbs/profiles/<profile>.yml`` state only what is not a study's: the measured cold
build. A profile of one's own is a YAML file (``--profile FILE.yml``) or a mapping: a ``common:``
mapping of parameters given to every notebook that declares them, and one mapping per notebook
name (``00_template:``) of parameters that notebook must declare. ``-p key=value`` (value read
as YAML) overrides both, for every selected notebook that declares ``key``; ``-p
NAME.key=value`` targets one notebook.

A notebook's parameters are its study's ``Params`` (``nbs/03_pareto_selection`` ->
``pruneaudit.studies.pareto_selection.Params``), the one declaration: their names, types and
defaults are its fields (:func:`notebook_parameters`); the notebook's ``parameters`` cell is
generated from them (``pruneaudit params --cell STUDY --write``) and never read back. A key no
field names is one error naming the notebook's parameters; :meth:`Profile.values` builds the
``Params`` from the resolved values, and its own check is the one check of every value (the same
one-line errors as inside the kernel, :class:`pruneaudit.studies.params.StudyParams`).

A study may declare that it reads another notebook's parameters (``Params.READS``, field ->
notebook): :meth:`Profile.parameters` resolves that notebook's parameters under the same profile
and overrides and passes them as the field, and :func:`build_order` runs the notebooks read
first (:func:`notebook_reads`).

:class:`Profile` is a profile read once (``Profile.read(profile, overrides)``: its file,
sections, stated measurement and the overrides applied), resolving and validating each
notebook's parameters once; the runner hands it on. Every answer about a profile is one of its
attributes or methods: :meth:`~Profile.content`, :attr:`~Profile.measured`,
:meth:`~Profile.parameters`, :meth:`~Profile.values`, :meth:`~Profile.check`.
"""

from __future__ import annotations

import copy
import dataclasses
import difflib
import os
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from pruneaudit.book.paths import NBS, PROFILE_NAMES, PROFILES
from pruneaudit.errors import PruneAuditError, check_choice
from pruneaudit.studies.params import StudyParams, cell_fields, cell_kind, plain

if typing.TYPE_CHECKING:
    from pruneaudit.studies.study import Study


@dataclass(frozen=True)
class Parameter:
    """One parameter of a notebook: a field of its study's ``Params``, with its type as the
    ``parameters`` cell writes it (papermill's lists for tuples) and its default as a plain
    value (``dataclasses.MISSING`` when it has none)."""

    name: str
    kind: object
    default: object


@dataclass(frozen=True)
class Job:
    """What one notebook of a build runs with, resolved and checked by its :class:`Profile`:
    the values papermill gives it (``parameters``), its checked values (``values``) and the
    seconds the profile states for it (``""`` when none)."""

    name: str
    parameters: dict[str, object]
    values: dict[str, object]
    measured: float | str


#: A profile's key for its stated measurement (not a notebook): see :attr:`Profile.measured`.
MEASURED = "measured"
#: A profile's key for the machine its stated measurement ran on (:func:`timing.machine
#: <pruneaudit.timing.machine>`'s words), said beside the duration a build expects from it.
MEASURED_ON = "measured_on"
#: A profile's key for its measured build's :func:`~pruneaudit.runs.speed_probe`.
MEASURED_PROBE = "measured_probe"
#: A profile's keys that state its measurement, not a notebook's parameters.
MEASUREMENT_KEYS = (MEASURED, MEASURED_ON, MEASURED_PROBE)


#: Profile files parsed in this process: (path, modification time, size) -> content.
_PARSED: dict[tuple[Path, int, int], object] = {}


def _load_yaml(path: Path) -> object:
    """The YAML content of a profile file (the one place a profile is parsed)."""
    try:
        return yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as err:
        raise PruneAuditError(f"profile {path} is not valid YAML: {err}") from None


def _read_profile(profile: str | os.PathLike) -> tuple[Path, dict]:
    """The profile's file and its YAML content (checked to be mappings), parsed once per
    process while the file is unchanged (a copy is returned)."""
    path = Path(profile)
    if path.suffix not in (".yml", ".yaml"):
        check_choice("profile", str(profile), PROFILE_NAMES)
        path = PROFILES / f"{profile}.yml"
    if not path.is_file():
        raise PruneAuditError(f"profile file {path} does not exist")
    stat = path.stat()
    key = (path.resolve(), stat.st_mtime_ns, stat.st_size)
    if key not in _PARSED:
        _PARSED[key] = _load_yaml(path)
    content = copy.deepcopy(_PARSED[key])
    scalars = (MEASURED_ON, MEASURED_PROBE)
    if not isinstance(content, dict) or not all(
            isinstance(v, dict) or v is None for k, v in content.items() if k not in scalars):
        raise PruneAuditError(
            f"profile {path} must map 'common' and notebook names to parameter mappings")
    if not isinstance(content.get(MEASURED_ON, ""), str):
        raise PruneAuditError(f"profile {path}: '{MEASURED_ON}' must name a machine in words, "
                              f"got {content[MEASURED_ON]!r}")
    probe = content.get(MEASURED_PROBE, 1.0)
    if isinstance(probe, bool) or not isinstance(probe, int | float) or not probe > 0:
        raise PruneAuditError(f"profile {path}: '{MEASURED_PROBE}' must be the measured build's "
                              f"speed probe, seconds > 0 per 10k images, got {probe!r}")
    return path, content


def _book_sections(path: Path, name: str, stated: Mapping[str, object]) -> dict[str, dict]:
    """The sections of book profile ``name``: every registered study's values under it, as the
    study declares them (:meth:`Study.values <pruneaudit.studies.study.Study.values>`); its file
    states only the measurement, so study values there are one error naming where they go."""
    if stated:
        raise PruneAuditError(
            f"profile {path} gives parameters ({', '.join(stated)}); a book profile's values are "
            f"declared by each study (PROFILES in its params.py): move them there, or give "
            f"your own profile file (--profile FILE.yml)"
        )
    from pruneaudit.studies import registry

    return {study.page: study.values(name) for study in registry.studies()}


def _measured(path: object, stated: object) -> dict[str, float]:
    """The ``measured:`` mapping checked: notebook (or ``jupyter-book``) -> seconds."""
    stated = dict(stated or {})  # a mapping: _read_profile checks every section is one
    bad = [k for k, v in stated.items() if not isinstance(v, int | float) or v < 0]
    if bad:
        raise PruneAuditError(
            f"profile {path}: 'measured' must map notebook names to seconds, got {bad[0]!r}: "
            f"{stated[bad[0]]!r}"
        )
    return {str(k): float(v) for k, v in stated.items()}


@dataclass
class Profile:
    """A profile read once, with the overrides of one build or run.

    ``common`` and ``sections`` (one parameter mapping per notebook) are the YAML's; ``measured``
    its stated cold build (seconds per notebook and ``jupyter-book``; ``{}`` when it states
    none; how it was measured is said in ``benchmarks/out/profile_evidence.md``). Each
    notebook's parameters are resolved (:meth:`parameters`) and validated (:meth:`values`) once
    and kept, as are the notebooks' declared parameters.
    """

    #: How the profile is named in banners and metadata (:func:`profile_label`).
    label: str
    #: Its YAML file (None for a mapping given in code).
    path: Path | None
    common: dict[str, object]
    sections: dict[str, dict[str, object]]
    #: Its stated cold build, seconds per notebook and ``jupyter-book`` (``{}`` when it states
    #: none): what a build expects on a fresh clone, before any timing is recorded.
    measured: dict[str, float]
    #: ``-p`` values: ``key`` for every notebook that declares it, ``NAME.key`` for one.
    overrides: dict[str, object] = field(default_factory=dict)
    #: The machine the stated measurement ran on ("" when the profile does not say).
    measured_on: str = ""
    #: That machine's speed probe (None when the profile does not state one).
    measured_probe: float | None = None
    _cache: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    @classmethod
    def read(
        cls,
        profile: str | os.PathLike | Mapping | Profile,
        overrides: Mapping[str, object] | None = None,
    ) -> Profile:
        """A profile by name (``smoke``, ``quick``, ``paper``), YAML path, mapping (``common``
        and notebook sections) or :class:`Profile`, with ``overrides`` (None: a Profile keeps
        its own)."""
        if isinstance(profile, Profile):
            return profile if overrides is None else profile.with_overrides(overrides)
        if isinstance(profile, Mapping):
            path, content = None, dict(profile)
        else:
            path, content = _read_profile(profile)
        measured = _measured(path, content.get(MEASURED)) if path is not None else {}
        measured_on = str(content.get(MEASURED_ON, "")) if path is not None else ""
        sections = {str(k): dict(v or {}) for k, v in content.items()
                    if k not in MEASUREMENT_KEYS}
        if path is not None and profile_label(profile) in PROFILE_NAMES:
            sections = _book_sections(path, profile_label(profile), sections)
        return cls(
            label=profile_label(profile),
            path=path,
            common=sections.pop("common", {}),
            sections=sections,
            measured=measured,
            overrides=dict(overrides or {}),
            measured_on=measured_on,
            measured_probe=float(content[MEASURED_PROBE])
            if path is not None and MEASURED_PROBE in content else None,
        )

    @property
    def notebooks(self) -> list[str]:
        """The notebooks the profile has a section for, in name order."""
        return sorted(self.sections)

    def content(self) -> dict[str, dict]:
        """``common`` and one parameter mapping per notebook (its ``measured`` mapping is
        :attr:`measured`)."""
        return {"common": dict(self.common), **{k: dict(v) for k, v in self.sections.items()}}

    def with_overrides(self, overrides: Mapping[str, object]) -> Profile:
        """The same profile with ``overrides`` in place of its own (nothing re-read)."""
        other = Profile(self.label, self.path, self.common, self.sections, self.measured,
                        dict(overrides), self.measured_on, self.measured_probe)
        other._cache["declared"] = self._declared_cache()
        return other

    def _declared_cache(self) -> dict[str, dict[str, Parameter]]:
        return self._cache.setdefault("declared", {})

    def declared(self, name: str) -> dict[str, Parameter]:
        """:func:`notebook_parameters` of notebook ``name``, read once."""
        cache = self._declared_cache()
        if name not in cache:
            cache[name] = notebook_parameters(name)
        return cache[name]

    def parameters(self, name: str) -> dict[str, object]:
        """The values notebook ``name`` is given (papermill's): profile ``common`` (keys the
        notebook declares), then the notebook's own section, then the overrides (``key`` or
        ``NAME.key``); a field the study reads from another notebook (``Params.READS``) is that
        notebook's :meth:`values`."""
        return dict(self._resolved(name, self.overrides))

    def values(self, name: str) -> dict[str, object]:
        """The values notebook ``name`` runs with, checked without a kernel.

        The study's ``Params`` is built from the profile's and overrides' values (its defaults
        for the others): its check is the only one, first the types (one error naming each bad
        value, e.g. ``epochs must be int, got 'two'``), then its rules; the values are its
        :meth:`as_dict <pruneaudit.studies.params.StudyParams.as_dict>`.
        """
        return self._values(name, self.overrides)

    def _values(self, name: str, overrides: Mapping[str, object]) -> dict[str, object]:
        """The built ``Params``' values, in the order of :func:`notebook_parameters`."""
        values = self._built(name, overrides).as_dict()
        return {key: values[key] for key in self.declared(name)}

    def _cached(self, compute: Callable[[str, Mapping[str, object]], object],
                name: str, overrides: Mapping[str, object]) -> object:
        """``compute(name, overrides)``, computed once per method, notebook and overrides."""
        key = (compute.__name__, name, repr(sorted(overrides.items())))
        if key not in self._cache:
            self._cache[key] = compute(name, overrides)
        return self._cache[key]

    def _resolved(self, name: str, overrides: Mapping[str, object]) -> dict[str, object]:
        return self._cached(self._resolve, name, overrides)  # type: ignore[return-value]

    def _resolve(self, name: str, overrides: Mapping[str, object]) -> dict[str, object]:
        declared = self.declared(name)
        params = {k: v for k, v in self.common.items() if k in declared}
        for key, value in self.sections.get(name, {}).items():
            _check_declared(name, key, declared)
            params[key] = value
        for key, value in overrides.items():
            target, dot, short = key.rpartition(".")
            if dot and target != name:
                continue
            _check_declared(name, short if dot else key, declared)
            params[short if dot else key] = value
        reads = notebook_reads(name)
        if reads:
            build_order([name])  # one clear error on a cycle before resolving any
        for field_name, target in reads.items():
            if field_name in params:
                raise PruneAuditError(
                    f"{field_name} of notebook {name} is set from notebook {target}'s parameters "
                    f"under the same profile and overrides; set those (the profile's {target} "
                    f"section or -p {target}.key=value) instead of {field_name}"
                )
            params[field_name] = self._values(
                target, overrides_for(target, overrides, self.declared(target)))
        return params

    def _built(self, name: str, overrides: Mapping[str, object]) -> StudyParams:
        return self._cached(self._build, name, overrides)  # type: ignore[return-value]

    def _build(self, name: str, overrides: Mapping[str, object]) -> StudyParams:
        """The study's ``Params`` of the resolved values: its construction is the one check of
        every value (its types, then its rules), each problem one line naming the parameter."""
        params = self._resolved(name, overrides)
        params_type = study_of(name).params
        unset = [n for n, p in self.declared(name).items()
                 if p.default is dataclasses.MISSING and n not in params]
        if unset:
            raise PruneAuditError(
                f"notebook {name}: {', '.join(unset)} of {params_type.__qualname__} has no "
                f"default; give it in the profile's {name} section or with -p {name}.{unset[0]}="
                "VALUE"
            )
        try:
            return params_type(**params)
        except PruneAuditError as err:
            raise PruneAuditError(f"notebook {name}: {err}") from None

    def study_params(self, name: str) -> StudyParams:
        """The study's checked ``Params`` for notebook ``name`` (what its page's ``book.setup``
        builds), for running a study without a kernel."""
        return self._built(name, self.overrides)

    def jobs(self, names: Sequence[str]) -> dict[str, Job]:
        """Each of ``names`` as a :class:`Job`, all resolved here at once: the runner asks the
        profile nothing more while the notebooks run."""
        return {n: Job(n, self.parameters(n), self.values(n), self.measured.get(n, ""))
                for n in names}

    def check(self, notebooks: Sequence[str] | None = None) -> list[str]:
        """Check a build of ``notebooks`` (default: the profile's) before any kernel starts and
        return them in build order: every notebook exists, every override names a parameter of
        a selected notebook or one they read, every ``common`` key is declared by a notebook of
        the profile, and every selected notebook's values validate."""
        names = list(notebooks) if notebooks else self.notebooks
        for name in dict.fromkeys([*self.notebooks, *names]):
            notebook_path(name)
        names = build_order(names)
        read = [t for n in names for t in notebook_reads(n).values()]
        selected = list(dict.fromkeys([*names, *read]))
        check_overrides(selected, self.overrides, {n: self.declared(n) for n in selected})
        check_common(self.notebooks, self.common, [self.declared(n) for n in self.notebooks])
        for name in names:
            self.values(name)
        return names




def profile_label(profile: str | os.PathLike | Mapping | Profile) -> str:
    """How a profile is named in banners and metadata: its name, a path, or ``custom``."""
    if isinstance(profile, Profile):
        return profile.label
    if isinstance(profile, Mapping):
        return "custom"
    path = Path(profile)
    return str(profile) if path.suffix not in (".yml", ".yaml") else str(path.resolve())


def notebook_path(name: str) -> Path:
    """``nbs/<name>.ipynb`` of registered study page ``name``; an unregistered name is one error
    listing the pages (:data:`pruneaudit.studies.registry.PAGES`), a missing file one naming it."""
    from pruneaudit.studies import registry

    check_choice("notebook", name, registry.PAGES)
    path = NBS / f"{name}.ipynb"
    if not path.is_file():
        raise PruneAuditError(f"study page {name} is registered but its notebook {path} is "
                              "missing; copy nbs/00_template.ipynb there")
    return path


def study_of(name: str) -> Study:
    """The :class:`~pruneaudit.studies.study.Study` of notebook ``name`` (its registered page),
    whose ``params`` are the one declaration of the notebook's parameters."""
    from pruneaudit.studies import registry

    notebook_path(name)
    return registry.study(name)


def notebook_parameters(name: str) -> dict[str, Parameter]:
    """The parameters of notebook ``name``: the fields of its study's ``Params``
    (:func:`study_of`), in its ``parameters`` cell's order (the study's own first)."""
    params_type = study_of(name).params
    hints = typing.get_type_hints(params_type)
    return {f.name: Parameter(f.name, cell_kind(hints[f.name]), plain(f.default))
            for f in cell_fields(params_type)}


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
            f"unknown parameter {key!r} for notebook {name}; its parameters (its study's Params) "
            f"are {', '.join(map(repr, declared))}.{hint or ' Correct or remove it.'}"
        )



def overrides_for(
    name: str,
    overrides: Mapping[str, object],
    declared: Mapping[str, Parameter] | None = None,
) -> dict[str, object]:
    """The overrides that apply to notebook ``name``: ``name.key`` and the bare keys it declares
    (as when ``name`` is built itself; ``declared``: its parameters, when already read)."""
    declared = notebook_parameters(name) if declared is None else declared
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
    from pruneaudit.studies import registry

    params_type = study_of(name).params
    reads = {str(k): str(v) for k, v in (getattr(params_type, "READS", None) or {}).items()}
    missing = [t for t in reads.values() if t not in registry.PAGES]
    if missing:
        raise PruneAuditError(
            f"notebook {name} reads the parameters of {', '.join(missing)}, which is not a "
            f"registered study page; register it or correct {params_type.__qualname__}.READS "
            f"(pages: {', '.join(registry.PAGES)})"
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



def check_overrides(
    names: Sequence[str],
    overrides: Mapping[str, object],
    declared: Mapping[str, Mapping[str, Parameter]] | None = None,
) -> None:
    """Every override names a parameter of a selected notebook (``NAME.key``: of that one);
    ``declared``: the notebooks' parameters, when already read."""
    if declared is None:
        declared = {name: notebook_parameters(name) for name in names}
    for key in overrides:
        target, dot, short = key.rpartition(".")
        if dot:
            check_choice("notebook in override", target, names)
            _check_declared(target, short, declared[target])
        elif not any(key in d for d in declared.values()):
            raise PruneAuditError(
                f"override {key!r} is not a parameter of any selected notebook ({', '.join(names)})"
            )


def check_common(
    names: Sequence[str],
    common: Mapping[str, object],
    declared: Sequence[Mapping[str, Parameter]] | None = None,
) -> None:
    """Every ``common`` parameter must be declared by at least one of the notebooks ``names``
    (``declared``: their parameters, when already read)."""
    if declared is None:
        declared = [notebook_parameters(n) for n in names]
    known = set().union(*declared) if names else set()
    unused = [k for k in common if k not in known]
    if names and unused:
        raise PruneAuditError(
            f"profile 'common' parameter(s) {', '.join(map(repr, unused))} declared by none of "
            f"{', '.join(names)}"
        )
