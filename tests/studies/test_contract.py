"""The study contract: every study package has the same modules for the same roles, the same
signatures and exports, and its notebook reads its parameters only through ``page.params``.

Walks the packages of :mod:`pruneaudit.studies` (the template, a module, is not a study), so a
new study is checked without being listed here.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import json
import pkgutil
import typing
from pathlib import Path
from types import ModuleType

import pytest

import pruneaudit.studies
from pruneaudit.book.paths import NBS, study_notebooks
from pruneaudit.studies.params import StudyParams

STUDIES = sorted(m.name for m in pkgutil.iter_modules(pruneaudit.studies.__path__) if m.ispkg)
#: The four modules of the contract and the roles they hold.
MODULES = ("params", "run", "findings", "views")
#: What every study package exports.
EXPORTS = ("Params", "Result", "run", "findings", "numbers", "key_figure")


def _module(study: str, name: str) -> ModuleType:
    return importlib.import_module(f"pruneaudit.studies.{study}.{name}")


def _required(function: typing.Callable) -> list[inspect.Parameter]:
    """The parameters a caller must pass (the others have defaults: options)."""
    params = inspect.signature(function).parameters.values()
    return [p for p in params if p.default is inspect.Parameter.empty]


def _notebook(study: str) -> Path:
    found = sorted(NBS.glob(f"[0-9][0-9]_{study}.ipynb"))
    assert len(found) == 1, f"{study}: expected one notebook nbs/NN_{study}.ipynb, found {found}"
    return found[0]


def test_the_studies_are_the_study_notebooks() -> None:
    """One registry: every study notebook has its package and every package its notebook."""
    assert STUDIES, "no study package found"
    assert sorted(stem.split("_", 1)[1] for stem in study_notebooks()) == STUDIES


@pytest.mark.parametrize("study", STUDIES)
def test_the_four_modules_exist(study: str) -> None:
    for name in MODULES:
        assert importlib.util.find_spec(f"pruneaudit.studies.{study}.{name}"), (
            f"{study} has no {name}.py"
        )


@pytest.mark.parametrize("study", STUDIES)
def test_params_derive_study_params(study: str) -> None:
    params = _module(study, "params").Params
    assert issubclass(params, StudyParams)
    assert params.STUDY.startswith("Study "), params.STUDY
    assert "rules" in vars(params), f"{study}.Params states no rules()"
    assert "progress" not in params.names(), "progress is run's keyword, not a parameter"


@pytest.mark.parametrize("study", STUDIES)
def test_run_signature(study: str) -> None:
    module = _module(study, "run")
    run, result = module.run, module.Result
    got = [(p.name, p.kind, p.default) for p in inspect.signature(run).parameters.values()]
    P = inspect.Parameter
    assert got == [
        ("params", P.POSITIONAL_OR_KEYWORD, P.empty),
        ("store", P.POSITIONAL_OR_KEYWORD, P.empty),
        ("progress", P.KEYWORD_ONLY, True),
    ]
    hints = typing.get_type_hints(run)
    assert hints["return"] is result
    assert hints["params"] is _module(study, "params").Params
    assert "params" in result.__dataclass_fields__
    assert result.__dataclass_params__.frozen, f"{study}.Result is not frozen"


@pytest.mark.parametrize("study", STUDIES)
@pytest.mark.parametrize(("module", "function"), [
    ("findings", "findings"), ("findings", "numbers"), ("views", "key_figure"),
])
def test_findings_numbers_and_key_figure_take_one_result(
    study: str, module: str, function: str
) -> None:
    fn = getattr(_module(study, module), function)
    required = _required(fn)
    assert [p.name for p in required] == ["result"], f"{study}.{module}.{function}{required}"
    assert typing.get_type_hints(fn)["result"] is _module(study, "run").Result


@pytest.mark.parametrize("study", STUDIES)
def test_the_package_exports_the_contract(study: str) -> None:
    package = importlib.import_module(f"pruneaudit.studies.{study}")
    assert package.__doc__, f"{study} has no docstring"
    homes = {"Params": "params", "Result": "run", "run": "run", "findings": "findings",
             "numbers": "findings", "key_figure": "views"}
    for name in EXPORTS:
        assert getattr(package, name) is getattr(_module(study, homes[name]), name), name
        assert name in package.__all__, f"{study}.__all__ lacks {name}"
    private = [n for n in package.__all__ if n.startswith("_")]
    assert not private, f"{study} re-exports private names {private}"


def _private_imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    return [
        f"{path.name}: from {'.' * node.level}{node.module or ''} import {alias.name}"
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        and (node.level or (node.module or "").startswith("pruneaudit"))
        for alias in node.names
        if alias.name.startswith("_") and not alias.name.startswith("__")
    ]


@pytest.mark.parametrize("study", STUDIES)
def test_no_module_imports_a_private_name(study: str) -> None:
    folder = Path(pruneaudit.studies.__path__[0]) / study
    found = [hit for path in sorted(folder.glob("*.py")) for hit in _private_imports(path)]
    assert not found, found


def test_the_private_import_check_can_fail(tmp_path: Path) -> None:
    path = tmp_path / "views.py"
    path.write_text("from .rows import _boot, fit\nfrom pruneaudit.x import _y\nimport os\n")
    assert _private_imports(path) == [
        "views.py: from .rows import _boot", "views.py: from pruneaudit.x import _y",
    ]


def _code_cells(path: Path) -> list[dict]:
    return [c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]


def _bare_names(source: str) -> set[str]:
    """Names a cell reads as globals (IPython magics and shell lines left out)."""
    lines = [ln for ln in source.splitlines() if not ln.lstrip().startswith(("%", "!"))]
    tree = ast.parse("\n".join(lines))
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _after_setup(study: str) -> list[str]:
    cells = _code_cells(_notebook(study))
    setup = next(
        (i for i, c in enumerate(cells) if "book.setup(" in "".join(c["source"])), None
    )
    assert setup is not None, f"{study}: no cell calls book.setup"
    return ["".join(c["source"]) for c in cells[setup + 1:]]


@pytest.mark.parametrize("study", STUDIES)
def test_the_notebook_reads_parameters_only_through_page_params(study: str) -> None:
    names = set(_module(study, "params").Params.names())
    used = {
        (i, name)
        for i, source in enumerate(_after_setup(study))
        for name in _bare_names(source) & names
    }
    assert not used, f"{study}: parameters read as bare globals after setup (cell, name): {used}"


def test_the_bare_name_check_can_fail() -> None:
    assert _bare_names("x = page.params.alpha\nqw.views.hurt_view(result, n_hurt)") == {
        "page", "qw", "result", "n_hurt",
    }


@pytest.mark.parametrize("study", STUDIES)
def test_the_main_cell_runs_the_study(study: str) -> None:
    """The first cell after setup: run, the findings, glue the numbers; the next three show the
    answer, the key figure and the findings table, in that order (answer first)."""
    cells = _after_setup(study)
    main = [ln for ln in cells[0].splitlines() if ln.strip()]
    alias = main[0].partition("=")[2].strip().partition(".")[0]
    assert main == [
        f"result = {alias}.run(page.params, page.store)",
        f"rows = {alias}.findings(result)",
        f"page.glue(**{alias}.numbers(result))",
    ]
    assert [c.strip() for c in cells[1:4]] == [
        "page.show_answer(rows)",
        f"page.show_key_figure({alias}.key_figure(result))",
        "page.show_findings(rows)",
    ]
