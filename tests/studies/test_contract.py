"""The study contract: every study package has the same modules for the same roles, the same
signatures and exports, and its notebook reads its parameters only through ``page.params``.

Walks the packages of :mod:`pruneaudit.studies`, the template's included (a new study starts as a
copy of it), so a new study is checked without being listed here; each failure names the role
that is missing and the template's module that holds it.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import json
import pkgutil
import sys
import typing
from pathlib import Path
from types import ModuleType

import pytest

import pruneaudit.studies
from pruneaudit.book.paths import NBS, TEMPLATE, study_notebooks
from pruneaudit.book.profiles import Profile
from pruneaudit.studies import registry
from pruneaudit.studies.params import StudyParams, Workload

STUDIES = sorted(registry.short(page) for page in registry.PAGES)
#: The modules of the contract and the roles they hold.
MODULES = {
    "params": "the page's Params (its fields, rules) and cost(params), the workload",
    "run": "run(params, store, *, progress) and the Result it returns",
    "claims": "claims(): every row the page tests, declared from the papers' text before any "
    "estimate (pruneaudit.audit.register)",
    "findings": "findings(result) and numbers(result), the numbers the prose cites",
    "protocol": "protocol_table(result), the protocol run beside the published one",
    "views": "every table and chart of the page, each a function of the Result; key_figure",
}
#: What every study package exports (``__all__``), and the module each comes from.
HOMES = {"Params": "params", "cost": "params", "Result": "run", "run": "run", "claims": "claims",
         "findings": "findings", "numbers": "findings", "protocol_table": "protocol",
         "key_figure": "views"}
EXPORTS = (*HOMES, "views", "STUDY")
#: The longest a study module and a function in it may be, in lines.
MAX_MODULE, MAX_FUNCTION = 400, 80


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


def test_the_registry_is_every_study_package_and_notebook() -> None:
    """One registry: every registered page has its package and notebook, and every study
    package and notebook is registered (the template's included, first)."""
    assert registry.PAGES[0] == TEMPLATE and (TEMPLATE, *study_notebooks()) == registry.PAGES
    packages = sorted(m.name for m in pkgutil.iter_modules(pruneaudit.studies.__path__)
                      if m.ispkg)
    assert packages == STUDIES
    assert sorted(p.stem for p in NBS.glob("*.ipynb")) == sorted(registry.PAGES)
    assert [s.page for s in registry.studies()] == list(registry.PAGES)


def missing_roles(study: str) -> list[str]:
    """What ``study``'s package lacks of the contract's modules and exports, in words."""
    base = f"pruneaudit.studies.{study}"
    problems = [
        f"{study} has no {name}.py: it holds {role} (copy studies/template/{name}.py)"
        for name, role in MODULES.items() if importlib.util.find_spec(f"{base}.{name}") is None
    ]
    exported = list(getattr(importlib.import_module(base), "__all__", []))
    problems += [f"{study}.__all__ lacks {name}" for name in EXPORTS if name not in exported]
    problems += [f"{study}.__all__ has {name}, which is not in the contract (keep it in its "
                 "module)" for name in exported if name not in EXPORTS]
    return problems


@pytest.mark.parametrize("study", STUDIES)
def test_the_modules_and_exports_exist(study: str) -> None:
    assert not missing_roles(study), missing_roles(study)


def test_a_missing_role_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A study package without protocol.py and cost is told what to add."""
    package = tmp_path / "pruneaudit_fake_study"
    package.mkdir()
    for name in ("params", "run", "claims", "findings", "views"):
        (package / f"{name}.py").write_text("")
    (package / "__init__.py").write_text(
        '__all__ = ["Params", "Result", "run", "claims", "findings", "numbers", "views",'
        ' "key_figure", "protocol_table", "STUDY", "extra"]\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(pruneaudit.studies, "__path__", [str(tmp_path)])
    monkeypatch.setitem(sys.modules, "pruneaudit.studies.pruneaudit_fake_study",
                        importlib.import_module("pruneaudit_fake_study"))
    problems = missing_roles("pruneaudit_fake_study")
    assert problems == [
        "pruneaudit_fake_study has no protocol.py: it holds protocol_table(result), the protocol "
        "run beside the published one (copy studies/template/protocol.py)",
        "pruneaudit_fake_study.__all__ lacks cost",
        "pruneaudit_fake_study.__all__ has extra, which is not in the contract (keep it in its "
        "module)",
    ]


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
        ("runtime", P.KEYWORD_ONLY, None),
    ]
    hints = typing.get_type_hints(run)
    assert hints["return"] is result
    assert hints["params"] is _module(study, "params").Params
    assert "params" in result.__dataclass_fields__
    assert result.__dataclass_params__.frozen, f"{study}.Result is not frozen"


@pytest.mark.parametrize("study", STUDIES)
@pytest.mark.parametrize(("module", "function"), [
    ("findings", "findings"), ("findings", "numbers"), ("views", "key_figure"),
    ("protocol", "protocol_table"),
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
    for name, home in HOMES.items():
        assert getattr(package, name) is getattr(_module(study, home), name), name
    assert package.views is _module(study, "views")
    declared = package.STUDY  # the one declared object holds the same roles
    assert (declared.params, declared.run, declared.claims, declared.findings, declared.numbers,
            declared.protocol_table, declared.cost) == (
        package.Params, package.run, package.claims, package.findings, package.numbers,
        package.protocol_table, package.cost)
    assert declared.views is package.views and declared.package == package.__name__
    assert sorted(package.__all__) == sorted(EXPORTS), f"{study}.__all__: {package.__all__}"


@pytest.mark.parametrize("study", STUDIES)
def test_cost_states_the_workload(study: str) -> None:
    """``cost(params)`` takes the study's Params and returns one Workload per architecture,
    counted on the smoke profile's parameters (whole, non-negative counts)."""
    cost = _module(study, "params").cost
    assert [p.name for p in _required(cost)] == ["params"]
    assert typing.get_type_hints(cost)["params"] is _module(study, "params").Params
    notebook = _notebook(study).stem
    work = cost(Profile.read("smoke").study_params(notebook))
    assert isinstance(work, list) and all(isinstance(w, Workload) for w in work)
    for w in work:
        counts = [w.models, w.model_epochs, w.images, w.evaluations]
        assert all(isinstance(n, int) and n >= 0 for n in counts), w
        assert w.model_epochs >= w.models and w.evaluations >= w.models, w


def _too_long(path: Path) -> list[str]:
    text = path.read_text()
    found = [f"{path.parent.name}/{path.name}: {text.count(chr(10))} lines"
             ] if text.count("\n") > MAX_MODULE else []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            lines = node.end_lineno - node.lineno + 1
            if lines > MAX_FUNCTION:
                found.append(f"{path.parent.name}/{path.name}: {node.name}() {lines} lines")
    return found


@pytest.mark.parametrize("study", STUDIES)
def test_no_module_or_function_is_too_long(study: str) -> None:
    folder = Path(pruneaudit.studies.__path__[0]) / study
    found = [hit for path in sorted(folder.glob("*.py")) for hit in _too_long(path)]
    assert not found, found


def test_the_length_check_can_fail(tmp_path: Path) -> None:
    path = tmp_path / "views.py"
    path.write_text("def f():\n" + "    x = 1\n" * MAX_FUNCTION + "\n" * MAX_MODULE)
    assert _too_long(path) == [f"{tmp_path.name}/views.py: {MAX_FUNCTION + MAX_MODULE + 1} lines",
                               f"{tmp_path.name}/views.py: f() {MAX_FUNCTION + 1} lines"]


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


def _after_setup_tags(study: str) -> list[list[str]]:
    """The tags of the code cells after the setup cell, in order."""
    cells = _code_cells(_notebook(study))
    setup = next(i for i, c in enumerate(cells) if "book.setup(" in "".join(c["source"]))
    return [c.get("metadata", {}).get("tags", []) for c in cells[setup + 1:]]


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
    """The first cell after setup: run, the findings, glue the numbers; the first cells shown
    are the answer and the key figure (answer first), and the findings table follows."""
    cells = _after_setup(study)
    main = [ln for ln in cells[0].splitlines() if ln.strip()]
    alias = main[0].partition("=")[2].strip().partition(".")[0]
    assert main == [
        f"result = {alias}.run(page.params, page.store, runtime=page.runtime)",
        f"rows = {alias}.findings(result)",
        f"page.glue(**{alias}.numbers(result))",
    ]
    shown = [c for c, tags in zip(cells, _after_setup_tags(study), strict=True)
             if "remove-cell" not in tags]  # hidden cells feed the build (e.g. the front page)
    shown = [c.strip() for c in shown]
    assert shown[:2] == [
        "page.show_answer(rows)", f"page.show_key_figure({alias}.key_figure(result))"]
    assert "page.show_findings(rows)" in shown


def test_cost_hand_computed_on_the_smoke_profile() -> None:
    """Counted by hand from nbs/profiles/smoke.yml (training splits: 80% of ``train_size``)."""
    smoke = Profile.read("smoke")

    def work(notebook: str) -> list[tuple]:
        params = smoke.study_params(notebook)
        return [(w.model, w.models, w.model_epochs, w.images, w.evaluations)
                for w in _module(notebook.split("_", 1)[1], "params").cost(params)]

    # 3 seeds x (dense + 2 rounds), 1 epoch each on 800 digits
    assert work("02_qmnist_writers") == [("lenet", 9, 9, 9 * 800, 9)]
    # 2 seeds x (dense + 2 techniques x 5 rounds), 2 epochs each on 2,400 digits
    assert work("03_pareto_selection") == [("lenet", 22, 44, 44 * 2400, 22)]
    # 3 seeds x (dense + 2 levels), 2 epochs on 1,600 digits; 3 x 3 quantized copies evaluated
    assert work("04_compression_impact") == [("lenet", 9, 18, 18 * 1600, 9 + 9)]
    # 2 reference models, 2 epochs; 2 members x 3 populations x (clean + 3 x 3 corrupted) + 2
    assert work("05_robustness") == [("lenet", 2, 4, 4 * 1600, 2 * 3 * 10 + 2)]
    # 2 members x (dense + 5 levels), 3 epochs each on 800 digits
    assert work("00_template") == [("lenet", 12, 36, 36 * 800, 12)]
