"""The glued numbers' minus sign (``pruneaudit.book.report.sphinx_minus``)."""

from __future__ import annotations

from docutils import nodes
from docutils.frontend import get_default_settings
from docutils.parsers.rst import Parser
from docutils.utils import new_document

from pruneaudit.book.report.sphinx_minus import true_minus, with_minus

M = "\u2212"


def test_with_minus_by_hand() -> None:
    assert with_minus("-77.7%") == f"{M}77.7%"
    assert with_minus("-0.5 and -.5 pts") == f"{M}0.5 and {M}.5 pts"
    assert with_minus("+1.2%") == "+1.2%"
    # hyphens inside words and ranges stay
    assert with_minus("l1-structured, 2-4, x-1, --3") == "l1-structured, 2-4, x-1, --3"


def test_only_pasted_text_changes() -> None:
    doc = new_document("page", get_default_settings(Parser))
    para = nodes.paragraph()
    para += nodes.Text("a range 1 -2 ")
    para += nodes.inline("-77.7%", "-77.7%", classes=["pasted-text"])
    doc += para
    true_minus(None, doc)
    assert para.astext() == f"a range 1 -2 {M}77.7%"
