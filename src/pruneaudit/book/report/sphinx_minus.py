"""Sphinx extension: numbers pasted into the prose by MyST-NB's ``{glue:text}`` role carry a
true minus sign.

The role formats a glued number with Python's format spec (``{glue:text}`x:+.1%```), which
writes a hyphen (``-77.7%``); every other number in the book has the minus sign U+2212
(:data:`pruneaudit.charts.format.MINUS`). :func:`true_minus` replaces a hyphen that starts a
number in each pasted text.
"""

from __future__ import annotations

import re
from typing import Any

from docutils import nodes

from pruneaudit.charts.format import MINUS

#: A hyphen that starts a number: not after a letter, digit or another hyphen.
HYPHEN = re.compile(r"(?<![\w-])-(?=\.?\d)")


def with_minus(text: str) -> str:
    """``text`` with each number's leading hyphen as the minus sign."""
    return HYPHEN.sub(MINUS, text)


def true_minus(app, doctree: nodes.document) -> None:
    """``doctree-read`` handler: the minus sign in every ``pasted-text`` inline of the page."""
    for inline in doctree.findall(nodes.inline):
        if "pasted-text" not in inline["classes"]:
            continue
        for text in list(inline.findall(nodes.Text)):
            fixed = with_minus(str(text))
            if fixed != str(text):
                text.parent.replace(text, nodes.Text(fixed))


def setup(app) -> dict[str, Any]:
    app.connect("doctree-read", true_minus)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
