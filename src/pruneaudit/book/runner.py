"""Run the study notebooks with a parameter profile (papermill) and build the book (Jupyter Book).

Command line::

    python -m pruneaudit.book build --profile quick [-p key=value ...] [--only NAME ...]
    python -m pruneaudit.book run NAME --profile smoke [-p key=value ...]

Profiles are YAML files ``nbs/profiles/<profile>.yml``: a ``common:`` mapping of parameters given
to every notebook that declares them, and one mapping per notebook name (``00_template:``) of
parameters that notebook must declare. ``-p key=value`` (value read as YAML) overrides both, for
every selected notebook that declares ``key``; ``-p NAME.key=value`` targets one notebook.

Executed notebooks go to ``book/studies/<name>.ipynb`` (git-ignored), then ``jupyter-book build``
renders them (execution off in ``_config.yml``). The study list of ``_toc.yml`` is the book's full
contents; the build uses a copy of it without the pages whose executed notebook does not exist yet.

Inside each notebook, the cell after ``parameters`` calls :func:`check_parameters` and
:func:`print_provenance`.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import yaml

from pruneaudit import charts
from pruneaudit.book.notebook import NOTEBOOK_ENV, PAGE_DIR_ENV
from pruneaudit.book.paths import (
    MATHJAX_VERSION,
    NBS,
    PROFILE_NAMES,
    PROFILES,
    REPO,
    STUDIES,
    VENDOR,
)
from pruneaudit.errors import PruneAuditError, check_choice

KERNEL_NAME = "python3"


# ---------------------------------------------------------------------------------------------
# Profiles and parameters


def load_profile(profile: str | os.PathLike) -> dict[str, dict]:
    """Read a profile by name (``smoke``, ``quick``, ``paper``) or path."""
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
    return {str(k): dict(v or {}) for k, v in content.items()}


def notebook_path(name: str) -> Path:
    """``nbs/<name>.ipynb``, or an error listing the notebooks that exist."""
    path = NBS / f"{name}.ipynb"
    if not path.is_file():
        check_choice("notebook", name, available_notebooks())
    return path


def available_notebooks() -> list[str]:
    """Names of the notebooks in ``nbs/``."""
    return sorted(p.stem for p in NBS.glob("*.ipynb"))


def declared_parameters(name: str) -> dict[str, dict]:
    """The parameters declared in the notebook's ``parameters`` cell (papermill's inspection)."""
    import ast

    import nbformat

    # papermill's inspection skips annotations with "|" (``int | None``): read the cell's AST
    nb = nbformat.read(notebook_path(name), as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code" and "parameters" in cell.metadata.get("tags", []):
            names = {}
            for stmt in ast.parse(cell.source).body:
                target = (
                    stmt.target
                    if isinstance(stmt, ast.AnnAssign)
                    else (stmt.targets[0] if isinstance(stmt, ast.Assign) else None)
                )
                if isinstance(target, ast.Name):
                    names[target.id] = {"name": target.id}
            return names
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
    return params


# ---------------------------------------------------------------------------------------------
# Execution


def kernel_name() -> str:
    """The kernel to execute with: ``python3`` when it runs this interpreter.

    ipykernel installs its ``python3`` kernelspec into the virtual environment, and jupyter-client
    starts a spec whose command is ``python`` with the running interpreter. When another
    ``python3`` spec (e.g. a user-level one) shadows it, a spec named ``pruneaudit`` is installed
    into this environment (``sys.prefix``) and used.
    """
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    manager = KernelSpecManager()
    with contextlib.suppress(NoSuchKernel):
        command = manager.get_kernel_spec(KERNEL_NAME).argv[0]
        if command in ("python", "python3", sys.executable):
            return KERNEL_NAME
    with contextlib.suppress(NoSuchKernel):
        if manager.get_kernel_spec("pruneaudit").argv[0] == sys.executable:
            return "pruneaudit"
    subprocess.run(
        [sys.executable, "-m", "ipykernel", "install", "--sys-prefix", "--name", "pruneaudit"],
        check=True,
        capture_output=True,
    )
    return "pruneaudit"


@contextlib.contextmanager
def _environment(**values: str) -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def strip_widgets(path: Path) -> None:
    """Remove saved ipywidgets state and widget views from an executed notebook.

    The static book shows no live widget (see :func:`pruneaudit.charts.show_widget`); without
    saved state Jupyter Book also loads no widget JavaScript from a CDN.
    """
    import nbformat

    nb = nbformat.read(path, as_version=4)
    nb.metadata.pop("widgets", None)
    view = "application/vnd.jupyter.widget-view+json"
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if view in data:
                data.pop(view)
                if not data:
                    data["text/plain"] = ""
    nbformat.write(nb, path)


def run_notebook(
    name: str,
    profile: str | os.PathLike | Mapping = "smoke",
    overrides: Mapping[str, object] | None = None,
    out_dir: str | os.PathLike = STUDIES,
    *,
    progress: bool = False,
) -> Path:
    """Execute ``nbs/<name>.ipynb`` with the profile's parameters into ``out_dir/<name>.ipynb``.

    Runs in the repository root with ``$PRUNEAUDIT_STATIC=1``, and tells the kernel where its page
    goes (``$PRUNEAUDIT_PAGE_DIR``, ``$PRUNEAUDIT_NOTEBOOK``: the findings JSON lands beside it).
    On failure the executed copy is kept as ``<name>.failed.ipynb`` and the error names the
    cell's exception; the output path is only written on success.
    """
    import papermill

    params = resolve_parameters(name, profile, overrides)
    source = notebook_path(name)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / f"{name}.ipynb"
    partial = out_dir / f"{name}.partial.ipynb"
    failed = out_dir / f"{name}.failed.ipynb"
    page_env = {charts.STATIC_ENV: "1", PAGE_DIR_ENV: str(out_dir.resolve()), NOTEBOOK_ENV: name}
    with _environment(**page_env):
        try:
            papermill.execute_notebook(
                str(source),
                str(partial),
                parameters=params,
                kernel_name=kernel_name(),
                cwd=str(REPO),
                progress_bar=progress,
            )
        except papermill.PapermillExecutionError as err:
            os.replace(partial, failed)
            raise PruneAuditError(
                f"notebook {name} failed in cell {err.exec_count}: {err.ename}: {err.evalue} "
                f"(executed copy: {failed})"
            ) from None
        except BaseException:
            partial.unlink(missing_ok=True)
            raise
    strip_widgets(partial)
    os.replace(partial, target)
    failed.unlink(missing_ok=True)
    return target


# ---------------------------------------------------------------------------------------------
# Offline JavaScript


def vendor_assets(vendor: str | os.PathLike = VENDOR) -> Path:
    """Put the Vega bundle and MathJax into ``vendor`` (``book/_static/vendor``) if missing.

    - ``vega-bundle.js``: Vega, Vega-Lite (Altair's schema version) and Vega-Embed as plain
      globals, generated offline by vl-convert (:func:`pruneaudit.charts.vega_bundle`).
    - ``mathjax/``: the ``es5`` folder of the npm package ``mathjax@MATHJAX_VERSION``
      (``npm pack``, verified by npm against the registry's checksum).
    """
    vendor = Path(vendor)
    vendor.mkdir(parents=True, exist_ok=True)
    stamp = vendor / "vega-bundle.json"
    versions = charts.bundle_versions()
    if (
        not (vendor / "vega-bundle.js").is_file()
        or not stamp.is_file()
        or (json.loads(stamp.read_text()) != versions)
    ):
        _write_atomic(vendor / "vega-bundle.js", charts.vega_bundle())
        _write_atomic(stamp, json.dumps(versions, indent=1))
    mathjax = vendor / "mathjax"
    marker = mathjax / f".mathjax-{MATHJAX_VERSION}"
    if not marker.is_file():
        _fetch_mathjax(mathjax)
        marker.touch()
    return vendor


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def _mathjax_keeps(name: str) -> bool:
    """The part of the MathJax package the book loads: ``tex-chtml.js`` and what it may load
    lazily (TeX extensions, CHTML fonts, menu, accessibility), not the other combined builds."""
    if not name.startswith("package/es5/"):
        return False
    rest = name.removeprefix("package/es5/")
    if "/" not in rest:
        return rest in ("tex-chtml.js", "core.js", "loader.js", "startup.js")
    return not rest.startswith(("output/svg", "adaptors/"))


def _fetch_mathjax(target: Path) -> None:
    npm = shutil.which("npm")
    if npm is None:
        raise PruneAuditError(
            "npm is needed once to fetch MathJax for the offline book "
            "(Debian: apt-get install npm); or unpack the es5/ folder of "
            f"mathjax@{MATHJAX_VERSION} into {target}"
        )
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run(
            [npm, "pack", f"mathjax@{MATHJAX_VERSION}", "--pack-destination", tmp, "--silent"],
            capture_output=True,
            text=True,
        )
        tarballs = list(Path(tmp).glob("mathjax-*.tgz"))
        if done.returncode or not tarballs:
            raise PruneAuditError(f"npm pack mathjax@{MATHJAX_VERSION} failed: {done.stderr}")
        unpacked = Path(tmp) / "unpacked"
        with tarfile.open(tarballs[0]) as archive:
            members = [m for m in archive.getmembers() if _mathjax_keeps(m.name)]
            archive.extractall(unpacked, members=members, filter="data")
        if target.exists():
            shutil.rmtree(target)
        shutil.move(unpacked / "package" / "es5", target)


# ---------------------------------------------------------------------------------------------
# Book


def _toc_for_existing(toc: Path, out: Path) -> list[str]:
    """Write ``toc`` to ``out`` without entries whose source file does not exist; return those."""
    content = yaml.safe_load(toc.read_text())
    dropped: list[str] = []

    def exists(entry: dict) -> bool:
        if "file" not in entry:
            return True
        stem = REPO / entry["file"]
        if any(stem.with_suffix(s).is_file() for s in (".md", ".ipynb")) or stem.is_file():
            return True
        dropped.append(entry["file"])
        return False

    def prune(node: dict) -> dict:
        for key in ("parts", "chapters", "sections"):
            if key in node:
                node[key] = [prune(e) for e in node[key] if exists(e)]
        return node

    content = prune(content)
    content["parts"] = [p for p in content.get("parts", []) if p.get("chapters")]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(yaml.safe_dump(content, sort_keys=False))
    return dropped


def write_benchmark_tables(out: Path = STUDIES / "_benchmarks.md") -> Path:
    """Collect ``benchmarks/out/*.md`` into one page fragment, headings two levels down."""
    tables = sorted((REPO / "benchmarks" / "out").glob("*.md"))
    parts = []
    for table in tables:
        lines = [
            "##" + line if line.startswith("#") else line for line in table.read_text().splitlines()
        ]
        head = f"## {table.stem}\n\nFrom `benchmarks/out/{table.name}`.\n\n"
        parts.append(head + "\n".join(lines))
    text = "\n\n".join(parts) or (
        "No benchmark tables yet: `make bench` writes them to `benchmarks/out/`."
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    _write_atomic(out, text + "\n")
    return out


def build(
    profile: str | os.PathLike = "quick",
    notebooks: Sequence[str] | None = None,
    overrides: Mapping[str, object] | None = None,
    path_output: str | os.PathLike = REPO,
    *,
    execute: bool = True,
) -> Path:
    """Run the profile's notebooks (or ``notebooks``), then build the HTML book; return its folder.

    The HTML goes to ``<path_output>/_build/html`` (jupyter-book's ``--path-output``), warnings
    are errors. Study pages whose executed notebook is missing are left out of the toc used.
    """
    content = load_profile(profile)
    in_profile = sorted(k for k in content if k != "common")
    names = list(notebooks) if notebooks else in_profile
    for name in dict.fromkeys([*in_profile, *names]):
        notebook_path(name)
    _check_overrides(names, overrides or {})
    check_common(in_profile, content.get("common", {}))
    vendor_assets()
    if execute:
        for name in names:
            start = time.perf_counter()
            run_notebook(name, content, overrides)
            print(f"executed {name} ({time.perf_counter() - start:.1f} s)", flush=True)
    write_benchmark_tables()
    build_dir = Path(path_output).resolve() / "_build"
    toc = build_dir / "_toc.yml"
    dropped = _toc_for_existing(REPO / "_toc.yml", toc)
    if dropped:
        print(f"not in this build (no executed notebook yet): {', '.join(dropped)}")
    jupyter_book = Path(sys.executable).with_name("jupyter-book")
    command = [str(jupyter_book) if jupyter_book.exists() else "jupyter-book", "build", str(REPO)]
    command += ["--warningiserror", "--path-output", str(Path(path_output).resolve())]
    command += ["--toc", str(toc)]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
    if done.returncode:
        log = (done.stdout + done.stderr).splitlines()
        causes = [line for line in log if "arning" in line or "rror" in line]
        raise PruneAuditError(
            f"jupyter-book build failed (exit {done.returncode}):\n" + "\n".join(causes[-20:])
        )
    return build_dir / "html"


def _check_overrides(names: Sequence[str], overrides: Mapping[str, object]) -> None:
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


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: ``build`` the book or ``run`` one notebook."""
    parser = argparse.ArgumentParser(prog="python -m pruneaudit.book", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    for command in ("build", "run"):
        p = sub.add_parser(command)
        if command == "run":
            p.add_argument("name", help="notebook name in nbs/, e.g. 00_template")
        p.add_argument("--profile", default="quick", help="smoke, quick, paper or a YAML path")
        p.add_argument("-p", dest="params", action="append", default=[], metavar="KEY=VALUE")
        if command == "build":
            p.add_argument("--only", nargs="+", metavar="NAME", help="run only these notebooks")
            p.add_argument("--path-output", default=str(REPO), help="HTML in <this>/_build/html")
            p.add_argument("--no-execute", action="store_true", help="reuse executed notebooks")
    args = parser.parse_args(argv)
    try:
        overrides = parse_overrides(args.params)
        if args.command == "run":
            print(run_notebook(args.name, args.profile, overrides, progress=True))
        else:
            start = time.perf_counter()
            html = build(
                args.profile, args.only, overrides, args.path_output, execute=not args.no_execute
            )
            print(f"book built in {time.perf_counter() - start:.1f} s: {html / 'index.html'}")
    except PruneAuditError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0
