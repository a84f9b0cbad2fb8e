"""The glossary page: the terms the book uses, each defined in one or two sentences, in the
table of contents, and linked ({term}) from the pages that first use them."""

from __future__ import annotations

import re

import yaml

from pruneaudit.book.paths import BOOK, REPO

GLOSSARY = BOOK / "glossary.md"
TERMS = ("PIE", "CIE", "sparsity", "pruning", "quantization", "holds here", "does not hold here",
         "negligible", "can't tell yet", "not testable here",
         "a replication would agree N times in 10")


def entries(text: str) -> dict[str, str]:
    """Term -> its definition, from every ``{glossary}`` block of ``text`` (a term's other
    names, lines right under it, share its definition)."""
    found: dict[str, str] = {}
    for block in re.findall(r"^```\{glossary\}\n(.*?)^```$", text, flags=re.M | re.S):
        for entry in re.split(r"\n\s*\n", block.strip()):
            lines = entry.splitlines()
            names = [line for line in lines if not line.startswith(" ")]
            body = " ".join(line.strip() for line in lines if line.startswith(" "))
            assert names and body, entry
            found.update(dict.fromkeys(names, body))
    return found


def test_the_entry_parser() -> None:
    text = "```{glossary}\nA\nalpha\n  First. Second.\n\nB\n  Bee.\n```\n"
    assert entries(text) == {"A": "First. Second.", "alpha": "First. Second.", "B": "Bee."}


def test_every_term_is_defined_in_one_or_two_sentences() -> None:
    found = entries(GLOSSARY.read_text())
    assert set(TERMS) <= set(found), set(TERMS) - set(found)
    assert found["PIE"] == found["pruning identified exemplar"]
    assert found["CIE"] == found["compression identified exemplar"]
    for term, body in found.items():
        # a sentence ends in a full stop before a capital letter or at the end ("0.8³" is none)
        sentences = len(re.findall(r"\.(?=\s+[A-Z]|$)", body))
        assert 1 <= sentences <= 2, (term, body)


def test_the_glossary_is_in_the_toc_and_linked_where_pie_first_appears() -> None:
    toc = yaml.safe_load((REPO / "_toc.yml").read_text())
    files = [c["file"] for part in toc["parts"] for c in part["chapters"]]
    assert "book/glossary" in files
    for page in ("methods_audit.md", "workshop.md"):
        text = (BOOK / page).read_text()
        body = "\n".join(line for line in text.splitlines() if not line.startswith("#"))
        first = re.search(r"\bPIE\b", body)
        assert first, page
        assert body[first.start() - 7:first.start()] == "{term}`", f"{page}: PIE first unlinked"
