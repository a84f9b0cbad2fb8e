"""Where each finding id (``D4.5``; ``B4.5`` for our own question beside it) is defined: one
anchor per id on the methods page.

The methods page ``book/methods_audit.md`` includes ``studies/_definitions.md``
(:func:`pruneaudit.book.report.pages.write_definitions_page`), which gives every id of the
built pages its own anchor :func:`anchor`; a study page links an id with :func:`link`. Ids live
in the details of a row, never in a reader's sentence (:func:`split_id` takes them off a name).
"""

from __future__ import annotations

import re

from pruneaudit.errors import PruneAuditError

#: A finding id: ``D`` (a paper's claim) or ``B`` (our own, beside it), study ``.`` number.
ID = re.compile(r"([DB])(\d+)\.(\d+)")
#: The methods page that holds the anchors, as a study page links it.
METHODS_PAGE = "../methods_audit.html"


def finding_id(name: str) -> str:
    """The id a finding's name opens with (``"D4.1 trend: ..."`` -> ``"D4.1"``), else ``""``."""
    match = re.match(rf"\s*({ID.pattern})\b", name)
    return match.group(1) if match else ""


def split_id(name: str) -> tuple[str, str]:
    """The id and the rest of a finding's name: ``"D4.5 dense top-1"`` -> ``("D4.5", "dense
    top-1")``; ``("", name)`` without an id."""
    ident = finding_id(name)
    return ident, name.strip()[len(ident):].strip() if ident else name.strip()


def anchor(ident: str) -> str:
    """The HTML id of ``ident``'s definition (``D4.10`` -> ``finding-d4-10``)."""
    match = ID.fullmatch(ident.strip())
    if not match:
        raise PruneAuditError(f"{ident!r} is not a finding id: write D<study>.<number>, e.g. D4.1")
    return f"finding-{match.group(1).lower()}{match.group(2)}-{match.group(3)}"


def link(ident: str, page: str = METHODS_PAGE) -> str:
    """The link from a study page to ``ident``'s definition on the methods page."""
    return f"{page}#{anchor(ident)}"


def sort_key(ident: str) -> tuple[int, int, str]:
    """Ids in reading order (``D4.2`` before ``D4.10``, ``D4.5`` before ``B4.5``)."""
    match = ID.fullmatch(ident)
    if not match:
        return (10**6, 0, "")
    return (int(match.group(2)), int(match.group(3)), "0" if match.group(1) == "D" else "1")


__all__ = ["ID", "METHODS_PAGE", "finding_id", "split_id", "anchor", "link", "sort_key"]
