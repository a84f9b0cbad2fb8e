"""Notebook runner and book build: parameters, validation, offline HTML."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from pruneaudit import book
from pruneaudit.book import runner
from pruneaudit.errors import PruneAuditError

STUDIES = [
    "01_population_ols",
    "02_qmnist_writers",
    "03_pareto_selection",
    "04_compression_impact",
    "05_robustness",
]
EXTERNAL_LOAD = re.compile(r"<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)=\"(?:https?:)?//")


# --- the built book ----------------------------------------------------------------------------


def test_book_pages_exist_and_load_nothing_external(smoke_book: Path) -> None:
    for page in ["index.html", "book/intro.html", "book/reproducing.html"]:
        assert (smoke_book / page).is_file(), page
    assert (smoke_book / "book/studies/00_template.html").is_file()
    for name in STUDIES:
        if (book.NBS / f"{name}.ipynb").exists():
            assert (smoke_book / f"book/studies/{name}.html").is_file(), name
    pages = list(smoke_book.rglob("*.html"))
    assert len(pages) >= 4
    for page in pages:
        text = page.read_text()
        assert not EXTERNAL_LOAD.search(text), f"{page} loads a resource from another host"
        assert "cdn." not in text.lower(), f"{page} mentions a CDN"
    for vendored in ["vendor/vega-bundle.js", "vendor/mathjax/tex-chtml.js"]:
        assert (smoke_book / "_static" / vendored).is_file()
    template = (smoke_book / "book/studies/00_template.html").read_text()
    assert "vega-bundle.js" in template and 'class="pruneaudit-chart"' in template
    assert "Live control, in the notebook only" in template
    assert "widget-view" not in template and "jupyter-widgets" not in template


def test_executed_notebook_shows_parameters_and_versions(smoke_book: Path) -> None:
    nb = nbformat.read(book.STUDIES / "00_template.ipynb", as_version=4)
    text = "".join(
        o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
    )
    assert "n_classes = 3" in text  # from the smoke profile, not the notebook's default 4
    for library in ["python", "torch", "numpy", "altair", "pruneaudit"]:
        assert f"  {library} " in text
    assert "Data root:" in text
    assert "widgets" not in nb.metadata


# --- running notebooks -------------------------------------------------------------------------


def test_unknown_parameter_is_named_and_nothing_written(tmp_path: Path) -> None:
    with pytest.raises(PruneAuditError, match=r"unknown parameter 'iteration'.*'iterations'"):
        book.run_notebook("00_template", "smoke", {"iteration": 3}, tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_wrong_type_fails_readably_in_the_notebook(tmp_path: Path) -> None:
    with pytest.raises(PruneAuditError, match=r"iterations must be int, got 'two'") as err:
        book.run_notebook("00_template", "smoke", {"iterations": "two"}, tmp_path)
    assert "failed in cell" in str(err.value)
    assert not (tmp_path / "00_template.ipynb").exists()
    assert (tmp_path / "00_template.failed.ipynb").exists()


def test_unknown_profile_and_notebook() -> None:
    with pytest.raises(PruneAuditError, match="unknown profile 'smok'.*'smoke'"):
        book.load_profile("smok")
    with pytest.raises(PruneAuditError, match="unknown notebook '00_templat'"):
        book.notebook_path("00_templat")


# --- parameters --------------------------------------------------------------------------------


def test_parameters_precedence_common_notebook_override() -> None:
    profile = {"common": {"seed": 1, "unused": 5}, "00_template": {"iterations": 2, "seed": 3}}
    assert book.resolve_parameters("00_template", profile) == {"seed": 3, "iterations": 2}
    got = book.resolve_parameters(
        "00_template", profile, {"seed": 7, "00_template.n_classes": 9, "other.x": 1}
    )
    assert got == {"seed": 7, "iterations": 2, "n_classes": 9}


def test_profile_parameter_must_be_declared() -> None:
    with pytest.raises(
        PruneAuditError, match="unknown parameter 'epochs' for notebook 00_template"
    ):
        book.resolve_parameters("00_template", {"00_template": {"epochs": 1}})


def test_every_profile_fits_the_notebooks() -> None:
    for name in book.PROFILE_NAMES:
        content = book.load_profile(name)
        notebooks = [n for n in content if n != "common"]
        for notebook in notebooks:
            book.resolve_parameters(notebook, content)
        book.check_common(notebooks, content.get("common", {}))


def test_common_parameter_nobody_declares() -> None:
    with pytest.raises(PruneAuditError, match="'epoch' declared by none of 00_template"):
        book.check_common(["00_template"], {"seed": 0, "epoch": 1})


def test_parse_overrides_reads_yaml_values() -> None:
    got = book.parse_overrides(["epochs=2", "models=[lenet, alexnet]", "root=null", "w=0.5"])
    assert got == {"epochs": 2, "models": ["lenet", "alexnet"], "root": None, "w": 0.5}
    with pytest.raises(PruneAuditError, match="key=value"):
        book.parse_overrides(["epochs"])


@pytest.mark.parametrize(
    ("value", "kind", "ok"),
    [
        (3, int, True),
        (True, int, False),
        (3, float, True),
        ("3", float, False),
        (None, str | None, True),
        ("x", str | None, True),
        (1, str | None, False),
        (["a", "b"], list[str], True),
        (["a", 1], list[str], False),
        ({"a": 1}, dict[str, int], True),
        ({"a": "1"}, dict[str, int], False),
    ],
)
def test_check_parameters_types(value: object, kind: object, ok: bool) -> None:
    if ok:
        assert book.check_parameters({"p": value, "other": 0}, {"p": kind}) == {"p": value}
    else:
        with pytest.raises(PruneAuditError, match=r"p must be "):
            book.check_parameters({"p": value}, {"p": kind})


def test_check_parameters_lists_every_problem() -> None:
    with pytest.raises(
        PruneAuditError, match=r"epochs must be int, got 'two'; seed is not defined"
    ):
        book.check_parameters({"epochs": "two"}, {"epochs": int, "seed": int})


def test_print_provenance(capsys: pytest.CaptureFixture[str]) -> None:
    record = book.print_provenance({"epochs": 1, "data_root": "/some/where"})
    out = capsys.readouterr().out
    assert "epochs = 1" in out and "Data root: /some/where" in out
    assert set(book.VERSIONED) <= set(record["versions"])


# --- toc and benchmark tables ------------------------------------------------------------------


def test_toc_drops_only_missing_pages(tmp_path: Path) -> None:
    toc = tmp_path / "toc.yml"
    toc.write_text(
        "format: jb-book\nroot: book/intro\nparts:\n"
        "  - caption: A\n    chapters:\n      - file: book/reproducing\n"
        "      - file: book/studies/no_such_study\n"
        "  - caption: B\n    chapters:\n      - file: book/nothing_here\n"
    )
    dropped = runner._toc_for_existing(toc, tmp_path / "out.yml")
    assert dropped == ["book/studies/no_such_study", "book/nothing_here"]
    out = (tmp_path / "out.yml").read_text()
    assert "book/reproducing" in out and "caption: B" not in out


def test_benchmark_tables_fragment(tmp_path: Path) -> None:
    out = book.write_benchmark_tables(tmp_path / "fragment.md")
    assert out.read_text().strip()


def test_strip_widgets(tmp_path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {}}
    view = {"application/vnd.jupyter.widget-view+json": {"model_id": "x"}}
    nb.cells = [
        nbformat.v4.new_code_cell("w", outputs=[nbformat.v4.new_output("display_data", view)])
    ]
    path = tmp_path / "w.ipynb"
    nbformat.write(nb, path)
    book.strip_widgets(path)
    again = nbformat.read(path, as_version=4)
    assert "widgets" not in again.metadata
    assert "application/vnd.jupyter.widget-view+json" not in again.cells[0].outputs[0]["data"]
