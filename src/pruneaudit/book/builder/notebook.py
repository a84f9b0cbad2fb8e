"""What a study notebook calls: :func:`setup` builds its parameters object and prints provenance.

A notebook declares each parameter once, typed, in its cell tagged ``parameters``::

    epochs: int = 3
    seeds: list[int] = [0, 1]
    store: str | None = None

and its next cell calls ``page = book.setup(globals(), study.Params)``, which builds the study's
frozen parameters object (:class:`pruneaudit.studies.params.StudyParams`: every value checked
against its type, papermill's injected values included, then the study's rules), makes the
kernel's :class:`pruneaudit.runtime.Runtime` (the page's device, torch's thread count from the
free cores, training progress bars into the build's log when the book's runner started the
kernel: its :class:`~pruneaudit.runtime.KernelRecord`), prints the banner (profile, overrides
and build date, or "run by hand"), the parameters and library versions, turns on the offline
chart renderer and returns a :class:`Page` with the results store and the runtime, which the
page hands to its study: ``study.run(page.params, page.store, runtime=page.runtime)``.

Every page runs alone (JupyterLab, or papermill with only its own parameters): a study that reads
another notebook's parameters (``Params.READS``, e.g. Study 5's ``study4``) is given them by the
book's runner; run otherwise, :func:`setup` resolves them itself from a profile
(:func:`page_profile`: the one named in the call, else ``$PRUNEAUDIT_PAGE_PROFILE``, which
``make live`` sets to the profile its copies were made for, else ``quick``, whose values the
notebooks' parameters cells hold).
"""

from __future__ import annotations

import html
import importlib.metadata
import os
import platform
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pruneaudit import charts, config, runtime, timing
from pruneaudit.audit import findings as audit_findings
from pruneaudit.audit import findings_file
from pruneaudit.book.paths import phases_path
from pruneaudit.book.profiles import Profile
from pruneaudit.book.report import answer, findings_table
from pruneaudit.book.report.banner import banner_text, pipeline_check_html
from pruneaudit.runs import ResultsStore
from pruneaudit.studies.params import StudyParams

#: The profile a page run outside the book's runner reads other notebooks' parameters from
#: (:func:`page_profile`); set by ``make live`` to the profile its copies were made for.
PAGE_PROFILE_ENV = "PRUNEAUDIT_PAGE_PROFILE"
#: The profile whose values the notebooks' parameters cells hold.
DEFAULT_PROFILE = "quick"
#: Where the book's runner hands a kernel its :class:`~pruneaudit.runtime.KernelRecord` (JSON).
KERNEL_ENV = runtime.KERNEL_ENV

VERSIONED = (
    "torch",
    "torchvision",
    "numpy",
    "pandas",
    "statsmodels",
    "altair",
    "pruneaudit",
)


def library_versions() -> dict[str, str]:
    """Python and the versions of the libraries the results depend on."""
    versions = {"python": platform.python_version()}
    for package in VERSIONED:
        try:
            versions[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            versions[package] = "not installed"
    return versions


def print_provenance(params: Mapping[str, object]) -> dict:
    """Print the parameters, library versions, data root and results store (parameters
    ``data_root`` and ``store``, None for the settings' defaults); return them."""
    record = {
        "parameters": dict(params),
        "versions": library_versions(),
        "data_root": str(config.data_root(params.get("data_root")).resolve()),
        "store_root": str(config.store_root(params.get("store")).resolve()),
        "protocol_version": config.PROTOCOL_VERSION,
        "platform": platform.platform(),
    }
    print(provenance_text(record))
    return record


def provenance_text(record: Mapping[str, object]) -> str:
    """The lines :func:`print_provenance` prints from its ``record``: the parameters, versions,
    data root, results store, protocol version and platform."""
    lines = ["Parameters"]
    lines += [f"  {key} = {value!r}" for key, value in dict(record["parameters"]).items()]
    lines.append("Versions")
    lines += [f"  {key} {value}" for key, value in dict(record["versions"]).items()]
    lines += [
        f"Data root: {record['data_root']}",
        f"Results store: {record['store_root']}",
        f"Protocol version: {record['protocol_version']}  Platform: {record['platform']}",
    ]
    return "\n".join(lines)


def build_info(environ: Mapping[str, str] | None = None) -> dict | None:
    """``{"profile", "overrides", "date", "seconds"}`` from the runner's record in ``environ``
    (default ``os.environ``; ``seconds``: the profile's stated seconds for the notebook, None
    when it states none), None when run by hand."""
    record = runtime.KernelRecord.read(environ)
    if record is None or record.profile is None:
        return None
    return {
        "profile": record.profile,
        "overrides": dict(record.overrides),
        "date": record.date,
        "seconds": record.measured,
    }


def provenance_html(record: Mapping[str, object], info: Mapping[str, object] | None) -> str:
    """The build's provenance folded under one line (``<details>``, class ``pa-provenance``):
    the build (:func:`banner_text`) and :func:`provenance_text` of ``record``."""
    body = "\n".join([banner_text(info), provenance_text(record)])
    return (
        '<details class="pa-provenance"><summary>Parameters, versions and platform of this '
        f"build</summary><pre>{html.escape(body)}</pre></details>"
    )


@dataclass(frozen=True)
class Page:
    """What a study page needs after :func:`setup`: its checked parameters and where things are."""

    params: StudyParams
    store: ResultsStore
    data_root: Path
    provenance: dict = field(repr=False)
    #: Folder of the executed page and the notebook's name (None when run by hand).
    page_dir: Path | None = None
    notebook: str | None = None
    #: The kernel's process settings (threads, device, precision, progress output), handed to
    #: the study's ``run(..., runtime=page.runtime)``.
    runtime: runtime.Runtime | None = field(default=None, repr=False)

    def show_answer(self, rows: Sequence[audit_findings.Finding]) -> None:
        """Display the page's answer box, its first result under the title: the headline
        findings in plain words with their numbers, the verdict counts (firm and borderline
        apart) and the profile and date of the build
        (:func:`pruneaudit.book.report.answer.answer_html`);
        on a smoke build, just above it, that its numbers are a pipeline check
        (``pipeline_check_html``)."""
        from IPython.display import HTML, display

        info = build_info()
        seconds = None
        if info is not None and self.notebook is not None:
            seconds = info.get("seconds")
        display(HTML(pipeline_check_html(info) + answer.answer_html(rows, info, seconds)))

    def show_provenance(self) -> None:
        """Display what built the page, folded (``provenance_html``): the profile, overrides
        and date, the parameters, library versions, data root, results store and platform. The
        page's "Re-run this page" section ends with it."""
        from IPython.display import HTML, display

        display(HTML(provenance_html(self.provenance, build_info())))

    def show_findings(self, rows: Sequence[audit_findings.Finding]) -> None:
        """Display the findings once: how to read them (a short note linking the methods page),
        the table (paper beside ours with its interval, direction, size, power, verdict; each
        row's plain sentence and details on demand) and what its verdicts mean at this budget;
        when the page is built, also write them as ``<page_dir>/<notebook>.findings.json``.
        Nothing is returned, so a cell that ends with this call shows the findings once (the
        rows as a frame: :func:`pruneaudit.audit.findings.findings_frame`)."""
        from IPython.display import HTML, Markdown, display

        info = build_info()
        display(Markdown(findings_table.method_note()))
        display(HTML(findings_table.table_html(rows)))
        display(Markdown(findings_table.summary_text(rows, info["profile"] if info else None)))
        if self.page_dir is not None and self.notebook is not None:
            findings_file.write_findings_json(
                rows, self.page_dir / f"{self.notebook}.findings.json"
            )

    def glue(self, **values: object) -> None:
        """Hand each value to the page's Markdown under its name (MyST-NB's ``glue``, not shown
        in the cell): the prose writes ``{glue:text}`name:.1%``` where the number goes. NumPy
        scalars become Python numbers, so that the format spec applies."""
        from myst_nb import glue

        for name, value in values.items():
            glue(name, value.item() if hasattr(value, "item") else value, display=False)

    def show_key_figure(self, chart: object) -> None:
        """Display ``chart`` (an Altair chart), the page's key figure, once (nothing is returned,
        so a cell that ends with this call shows it once), and when the page is built also write
        it as ``<page_dir>/<notebook>.key.svg`` for the book's front page."""
        from IPython.display import display

        display(chart)
        if self.page_dir is not None and self.notebook is not None:
            import vl_convert

            svg = vl_convert.vegalite_to_svg(chart.to_dict(), vl_version=charts.vega_lite_version())
            (self.page_dir / f"{self.notebook}.key.svg").write_text(svg)


def _write_phases_after_each_cell(path: Path) -> None:
    from IPython import get_ipython

    shell = get_ipython()
    if shell is not None:
        timing.reset()
        shell.events.register("post_run_cell", lambda _result: timing.write(path))


def page_profile(
    profile: str | os.PathLike | None = None, environ: Mapping[str, str] | None = None
) -> str:
    """The profile a page run outside the book's runner reads other notebooks' parameters
    from: ``profile`` if given, else ``$PRUNEAUDIT_PAGE_PROFILE``, else :data:`DEFAULT_PROFILE`."""
    environ = os.environ if environ is None else environ
    return str(profile or environ.get(PAGE_PROFILE_ENV) or DEFAULT_PROFILE)


def read_upstream(
    namespace: Mapping[str, object],
    params_type: type[StudyParams],
    profile: str | os.PathLike | None = None,
) -> dict[str, object]:
    """``namespace`` with every parameter the study reads from another notebook
    (``Params.READS``: field -> notebook) that nobody passed (None) set to that notebook's
    checked values under :func:`page_profile` (:meth:`Profile.values
    <pruneaudit.book.profiles.Profile.values>`), each said in one line; the runner passes them.
    """
    reads = dict(getattr(params_type, "READS", None) or {})
    missing = [name for name in reads if namespace.get(name) is None]
    if not missing:
        return dict(namespace)
    chosen = page_profile(profile)
    read = Profile.read(chosen)
    out = dict(namespace)
    for name in missing:
        out[name] = read.values(reads[name])
        print(f"{name}: notebook {reads[name]}'s parameters in profile {chosen} "
              "(not passed by the book's runner)")
    return out


def setup(
    namespace: Mapping[str, object],
    params_type: type[StudyParams],
    *,
    profile: str | os.PathLike | None = None,
) -> Page:
    """Build the study's parameters object from the notebook, print provenance, return a
    :class:`Page`.

    Pass ``globals()`` and the study's parameters class: its fields must be the names the
    parameters cell declares, typed
    (:meth:`pruneaudit.studies.params.StudyParams.from_namespace`); one error names every bad
    value and every broken rule. Parameters read from another notebook that the runner did not
    pass come from ``profile`` (``read_upstream``).
    """
    params = params_type.from_namespace(read_upstream(namespace, params_type, profile))
    record = runtime.KernelRecord.read() or runtime.KernelRecord()
    kernel = runtime.Runtime(
        device=params.device,
        threads=record.threads or runtime.fixed_threads(),
        follow=True,  # the trainer re-reads the free cores before each population
        progress_file=Path(record.progress_file) if record.progress_file else None,
        progress_interval=record.progress_interval,
    )
    info = build_info()
    print(banner_text(info))
    threads, why = kernel.start()
    print(f"Torch threads: {threads} ({why})")
    charts.enable_offline()
    provenance = print_provenance(params.as_dict())
    provenance.update(build=info, threads=threads)
    page_dir = Path(record.page_dir) if record.page_dir else None
    if page_dir is not None and record.notebook:
        _write_phases_after_each_cell(phases_path(page_dir, record.notebook))
    return Page(
        params=params,
        store=ResultsStore(params.store),
        data_root=config.data_root(params.data_root),
        provenance=provenance,
        page_dir=page_dir,
        notebook=record.notebook,
        runtime=kernel,
    )
