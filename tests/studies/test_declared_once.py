"""Each parameter is declared once: a study's ``Params`` is the declaration, its notebook's
``parameters`` cell is generated from it, a profile gives only the values that differ from its
defaults, and the book's table of contents lists exactly the discovered studies."""

from __future__ import annotations

import dataclasses
import difflib
import importlib
from collections.abc import Mapping, Sequence

import pytest
import yaml

from pruneaudit import cli
from pruneaudit.book.paths import PROFILE_NAMES, TEMPLATE, study_notebooks
from pruneaudit.book.profiles import MEASUREMENT_KEYS, Profile
from pruneaudit.config import REPO
from pruneaudit.errors import PruneAuditError
from pruneaudit.studies import params as study_params
from pruneaudit.studies import registry
from pruneaudit.studies.params import StudyParams, cell_source

STUDIES = sorted(registry.short(page) for page in registry.PAGES)


def _params(study: str) -> type[StudyParams]:
    return importlib.import_module(f"pruneaudit.studies.{study}").Params


def _notebook(study: str) -> str:
    return study_params.study_notebook(study).stem


@pytest.mark.parametrize("study", STUDIES)
def test_the_cell_is_the_generated_one(study: str) -> None:
    """The cell's text, comments included, is the cell generated from the study's Params (its
    names, types, defaults and comments); compared as text, never parsed back. The fix for any
    difference is one command."""
    source = cell_source(_params(study), study)
    assert max(len(line) for line in source.splitlines()) <= study_params.CELL_WIDTH
    cell = _cell_text(_notebook(study))
    diff = "\n".join(difflib.unified_diff(cell.splitlines(), source.splitlines(), "cell",
                                          "generated", lineterm=""))
    assert cell == source, (f"{_notebook(study)}'s parameters cell differs from its Params; run "
                            f"pruneaudit params --cell {study} --write\n{diff}")


def test_each_field_is_one_declaration_of_the_cell() -> None:
    """One line per field (a long one wrapped under it, a long comment above it), in the
    order the book reads them, the study's own fields first."""
    source = cell_source(Example, "example")
    declared = [line.split(":", 1)[0] for line in source.splitlines()
                if line and line[0] not in "# "]
    assert declared == ["epochs", "seeds", "lr", "floor", *study_params.BASE_FIELDS]
    assert [f.name for f in study_params.cell_fields(Example)] == declared


def _cell_text(notebook: str) -> str:
    import nbformat

    nb = nbformat.read(REPO / "nbs" / f"{notebook}.ipynb", as_version=4)
    return next(c.source for c in nb.cells if "parameters" in c.metadata.get("tags", []))


@dataclasses.dataclass(frozen=True, kw_only=True)
class Example(StudyParams):
    STUDY = "Study X"

    #: Rounds.
    epochs: int = 3
    seeds: tuple[int, ...] = (0, 1)
    lr: float = 0.1
    floor: float | None = None


def test_the_generated_cell(capsys: pytest.CaptureFixture[str]) -> None:
    source = cell_source(Example, "example")
    assert source.splitlines()[2:] == [
        "epochs: int = 3  # Rounds.",
        "seeds: list[int] = [0, 1]",
        "lr: float = 0.1",
        "floor: float | None = None",
        'data_root: str | None = None  # The data folder (None: the setting, `$PRUNEAUDIT_DATA`).',
        'store: str | None = None  # The results store (None: the setting, `$PRUNEAUDIT_STORE`).',
        'device: str = "auto"  # `auto`, `cpu`, `cuda` or `cuda:N`.',
    ]
    assert cli.main(["params", "--cell", "03_pareto_selection"]) == 0
    assert capsys.readouterr().out.strip() == cell_source(_params("pareto_selection"),
                                                          "pareto_selection")
    assert cli.main(["params", "--cell", "pareto"]) == 2
    assert "unknown study 'pareto'" in capsys.readouterr().err


def test_a_field_without_default_is_named() -> None:
    @dataclasses.dataclass(frozen=True, kw_only=True)
    class NoDefault(StudyParams):
        epochs: int

    with pytest.raises(PruneAuditError, match="NoDefault.epochs has no default"):
        cell_source(NoDefault, "x")


def _frozen(value: object) -> object:
    return tuple(_frozen(v) for v in value) if isinstance(value, list) else value


def repeated_defaults(name: str, content: Mapping[str, object]) -> list[str]:
    """The values of profile ``content`` (common and notebook sections) that equal the
    default of the notebook's Params, as ``profile: notebook.key = value``."""
    found = []
    notebooks = [n for n in content if n not in ("common", *MEASUREMENT_KEYS)]
    for section, values in content.items():
        if section in MEASUREMENT_KEYS:
            continue
        for nb in notebooks if section == "common" else [section]:
            defaults = {f.name: f.default for f in
                        dataclasses.fields(_params(nb.split("_", 1)[1]))}
            found += [f"{name}: {section}.{key} = {value!r} is {nb}'s default; remove it"
                      for key, value in dict(values or {}).items()
                      if key in defaults and _frozen(value) == defaults[key]]
    return found


@pytest.mark.parametrize("profile", PROFILE_NAMES)
def test_no_profile_repeats_a_default(profile: str) -> None:
    path = Profile.read(profile).path
    assert repeated_defaults(profile, yaml.safe_load(path.read_text())) == []


def test_a_repeated_default_is_named() -> None:
    content = {"common": {"seed": 0}, "00_template": {"iterations": 5, "n_classes": 10},
               "03_pareto_selection": {"lr": 0.1, "seeds": [0, 1, 2, 3, 4]}}
    assert repeated_defaults("p", content) == [
        "p: common.seed = 0 is 00_template's default; remove it",
        "p: 00_template.n_classes = 10 is 00_template's default; remove it",
        "p: 03_pareto_selection.lr = 0.1 is 03_pareto_selection's default; remove it",
        "p: 03_pareto_selection.seeds = [0, 1, 2, 3, 4] is 03_pareto_selection's default; "
        "remove it",
    ]


def toc_problems(toc: Mapping, studies: Sequence[str], notebooks: Sequence[str]) -> list[str]:
    """What ``toc`` (the parsed ``_toc.yml``) misses or has beyond the study packages
    ``studies`` and the study notebooks ``notebooks`` (stems ``NN_<package>``, the template's
    left out), one line each."""
    chapters = {part.get("caption"): [c["file"] for c in part.get("chapters", [])]
                for part in toc.get("parts", [])}
    pages = [f for files in chapters.values() for f in files if f.startswith("book/studies/")]
    by_package = {stem.split("_", 1)[1]: stem for stem in [TEMPLATE, *notebooks]}
    found = [f"study {s}: no chapter book/studies/{by_package.get(s, 'NN_' + s)} in _toc.yml"
             for s in studies if f"book/studies/{by_package.get(s)}" not in pages]
    found += [f"_toc.yml chapter {f}: no study package pruneaudit.studies."
              f"{f.rsplit('/', 1)[1].split('_', 1)[-1]}" for f in pages
              if f.rsplit("/", 1)[1] not in [by_package.get(s) for s in studies]]
    wanted = [f"book/studies/{n}" for n in notebooks]
    if chapters.get("Studies", []) != wanted:
        found.append(f"the Studies chapters are {chapters.get('Studies', [])}, the studies in "
                     f"book order {wanted}")
    return found


def test_the_toc_lists_the_discovered_studies() -> None:
    toc = yaml.safe_load((REPO / "_toc.yml").read_text())
    assert toc_problems(toc, STUDIES, study_notebooks()) == []


def test_a_toc_difference_is_named() -> None:
    toc = {"parts": [
        {"caption": "Studies", "chapters": [{"file": "book/studies/01_a"},
                                            {"file": "book/studies/09_gone"}]},
        {"caption": "Appendix", "chapters": [{"file": "book/api"}]},
    ]}
    assert toc_problems(toc, ["a", "b", "template"], ["01_a", "02_b"]) == [
        "study b: no chapter book/studies/02_b in _toc.yml",
        "study template: no chapter book/studies/00_template in _toc.yml",
        "_toc.yml chapter book/studies/09_gone: no study package pruneaudit.studies.gone",
        "the Studies chapters are ['book/studies/01_a', 'book/studies/09_gone'], the studies in "
        "book order ['book/studies/01_a', 'book/studies/02_b']",
    ]
