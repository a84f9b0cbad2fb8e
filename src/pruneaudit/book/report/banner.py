"""What a built page says of its build: the banner line and the smoke build's note. Kept apart
from :mod:`pruneaudit.book.builder.notebook` so that the book's runner, which stamps every executed
notebook with the banner, does not import what a kernel needs (torch, the audit, the data)."""

from __future__ import annotations

import html
from collections.abc import Mapping


def banner_text(info: Mapping[str, object] | None) -> str:
    """One line: ``Profile smoke, overrides: none, built 2026-01-01 12:00 UTC`` or run by hand."""
    if info is None:
        return "Run by hand: not built by the book's runner (no profile; the parameters below)."
    overrides = info.get("overrides") or {}
    shown = ", ".join(f"{k}={v!r}" for k, v in overrides.items()) or "none"
    return f"Profile {info['profile']}, overrides: {shown}, built {info['date']}."


#: The profile whose pages check the pipeline on tiny subsets (their numbers are no evidence).
PIPELINE_CHECK_PROFILE = "smoke"
#: What a page of that profile says just above its answer box.
PIPELINE_CHECK_NOTE = (
    "Smoke build: tiny subsets that check the pipeline runs; its numbers are not evidence."
)


def pipeline_check_html(info: Mapping[str, object] | None) -> str:
    """The note above the answer box of a page built with the smoke profile (class
    ``pa-pipeline-check``); empty for any other build and when run by hand."""
    if info is None or str(info.get("profile")) != PIPELINE_CHECK_PROFILE:
        return ""
    return f'<p class="pa-pipeline-check">{html.escape(PIPELINE_CHECK_NOTE)}</p>'
