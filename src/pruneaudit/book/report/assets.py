"""The book's static files: offline JavaScript and the staged sources.

- :func:`vendor_assets`: Vega, Vega-Lite and Vega-Embed generated into the book's own
  ``_static/vendor`` (no CDN); MathJax is committed once in ``book/_static/mathjax``
  (:data:`~pruneaudit.book.paths.MATHJAX`), so nothing needs npm or root.
- :func:`stage_sources`: a copy of the book's sources (``_config.yml``, ``_toc.yml``,
  ``book/*.md``, ``book/_static``) in another folder, so that a build elsewhere (the tests')
  never writes into the repository's ``book/studies``.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from pruneaudit import charts
from pruneaudit.book.paths import BOOK, MATHJAX, MATHJAX_VERSION, REPO, VENDOR
from pruneaudit.errors import PruneAuditError


def vendor_assets(vendor: str | os.PathLike = VENDOR) -> Path:
    """Put the Vega bundle into ``vendor`` (``book/_static/vendor``) if missing or stale, and
    check that the committed MathJax is there.

    ``vega-bundle.js``: Vega, Vega-Lite (Altair's schema version) and Vega-Embed as plain
    globals, generated offline by vl-convert (:func:`pruneaudit.charts.vega_bundle`).
    MathJax: the ``es5`` folder of the npm package ``mathjax@MATHJAX_VERSION`` less the builds
    the book does not load, committed with its licence in ``book/_static/mathjax``.
    """
    tex = MATHJAX / "tex-chtml.js"
    if not tex.is_file():
        raise PruneAuditError(
            f"{tex} is missing: MathJax {MATHJAX_VERSION} is part of the repository; restore it "
            "with `git checkout -- book/_static/mathjax`"
        )
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
    return vendor


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def stage_sources(target: str | os.PathLike) -> Path:
    """Copy the book's sources into ``target`` (its executed notebooks go to
    ``target/book/studies``); return ``target``. A no-op for the repository itself."""
    target = Path(target).resolve()
    if target == REPO.resolve():
        return target
    (target / "book").mkdir(parents=True, exist_ok=True)
    for name in ("_config.yml", "_toc.yml"):
        shutil.copy2(REPO / name, target / name)
    for page in BOOK.glob("*.md"):
        shutil.copy2(page, target / "book" / page.name)
    for folder in ("_static", "_extra"):  # Sphinx's html_static_path and html_extra_path
        if (BOOK / folder).is_dir():
            shutil.copytree(BOOK / folder, target / "book" / folder, dirs_exist_ok=True)
    return target
