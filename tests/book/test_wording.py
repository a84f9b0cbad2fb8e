"""The book's one way to say a finding: the one table of five reader's words, hand cases of
each sentence, and every verdict against every stability, interval and unit: short, numbers
with their unit, no id, no tier word, an open question never sized."""

from __future__ import annotations

import html
import itertools
import math
import re

import pytest

from pruneaudit import audit
from pruneaudit.audit import rules as F
from pruneaudit.book.report import answer, wording
from pruneaudit.charts import format as fmt

M = fmt.MINUS


def _row(**kw) -> audit.Finding:
    """A row with its answers given (not computed), to pin each sentence by hand."""
    base = dict(finding="D4.5 PIE accuracy minus all", paper=-0.3694, ours=-0.401,
                ci_low=-0.440, ci_high=-0.362, verdict=F.REPRODUCED, source="H1; Table 6",
                basis="K = 16 members per population", direction=F.PAPERS_SIDE, size=F.ABOUT,
                stability=0.93, unit="points", claim="D4.5", comparability="same")
    return audit.Finding(**{**base, **kw})


def test_one_table_maps_every_verdict_onto_five_words() -> None:
    assert set(wording.READER_WORD) >= set(audit.VERDICTS)
    assert set(wording.READER_WORD.values()) == set(wording.WORDS) and len(wording.WORDS) == 5
    by_hand = {F.SIZE_UNCLEAR: "holds here", F.SAME_DIRECTION: "holds here",
               F.PRESENT: "holds here", F.OTHER_SIGN: "does not hold here",
               F.NOT_REPRODUCED: "does not hold here", F.EFFECT_ABSENT: "negligible",
               F.INCONCLUSIVE: "can't tell yet", F.NOT_COMPARABLE: "not testable here",
               "negligible": "negligible"}
    assert {v: wording.READER_WORD[v] for v in by_hand} == by_hand
    for word in wording.WORDS:
        assert wording.WORD_MEANS[word] and len(wording.WORD_MEANS[word].split()) <= 20


def test_sentences_by_hand() -> None:
    said = wording.said(_row())
    assert said.found == (
        f"**PIE accuracy minus all**: *holds here*, as large as the paper's (ours {M}40.1 pts "
        f"[{M}44.0, {M}36.2]; the paper's {M}36.9 pts).")
    assert said.firm == "A replication would agree about 9 times in 10."
    unclear = _row(verdict=F.SIZE_UNCLEAR, size=F.CANT_TELL, stability=0.62)
    assert ": *holds here*, size against the paper's unclear (ours" in wording.said(
        unclear).found  # its size said in words
    assert wording.said(unclear).firm == "A replication would agree about 6 times in 10."
    topline = _row(finding="D2.1 test accuracy falls (pruned − dense)", paper=-0.19,
                   ours=0.012, ci_low=-0.114, ci_high=0.080, verdict=F.INCONCLUSIVE,
                   direction=F.CANT_TELL, size=F.CANT_TELL, stability=0.6)
    assert wording.said(topline).text == (
        f"**Test accuracy falls**: *can't tell yet* (ours 1.2 pts [{M}11.4, 8.0]; the paper's "
        f"{M}19.0 pts). A replication would agree about 6 times in 10.")
    assert wording.stability_words(_row()) == "a replication would agree about 9 times in 10"
    assert wording.stability_words(_row(stability=None)) == "\u2014"


def test_counts_say_what_they_count_and_percents_keep_their_unit() -> None:
    techniques = _row(finding="D3.1 Pareto set spans more than one technique", paper=None,
                      ours=1.0, ci_low=math.nan, ci_high=math.nan, verdict=F.INCONCLUSIVE,
                      direction=F.CANT_TELL, size="", stability=None, unit="",
                      definition="mean over seeds of the number of techniques on the frontier")
    assert "(ours 1 technique, too few units for an interval)" in wording.said(techniques).found
    assert wording.said(techniques).firm == ""
    share = _row(finding="D5.2 relative top-1 under corruption", unit="percent", paper=-0.155,
                 ours=-0.787, ci_low=-0.859, ci_high=-0.679, verdict=F.SAME_DIRECTION,
                 comparability="analogue", size="")
    assert f"(ours {M}78.7% [{M}85.9, {M}67.9]; the paper's {M}15.5%)" in wording.said(
        share).found


def test_claims_of_no_difference_and_rows_that_cannot_be_compared_or_tested() -> None:
    same = _row(finding="D2.2 group-level drops are similar: (a − b) / c", paper=None, ours=0.12,
                ci_low=-0.2, ci_high=0.4, direction="", size="", margin=0.5, unit="")
    assert wording.said(same).found == (
        "**Group-level drops are similar**: *holds here*, no material difference, as the "
        f"paper says (ours 0.12 [{M}0.20, 0.40]).")
    other = _row(verdict=F.NOT_COMPARABLE, size="", stability=None, basis="another footing")
    assert wording.said(other).text == (
        "**PIE accuracy minus all**: *not testable here*: another footing.")
    gone = audit.Finding("D4.7 CelebA", None, None, None, None, F.NOT_TESTABLE, "H2",
                         basis="no images offline")
    assert wording.said(gone).text == "**CelebA**: *not testable here*: no images offline."


def test_a_long_name_is_cut_at_a_word_to_keep_the_sentence_short() -> None:
    longer = _row(finding="D9.9 " + " ".join(f"w{i}" for i in range(40)))
    found = wording.said(longer).found
    assert found.startswith("**W0 w1") and "\u2026**: *holds here*" in found
    assert len(found.split()) <= wording.SENTENCE_WORDS


def test_plain_names_leave_the_jargon_for_the_front_page() -> None:
    row = _row(finding="D4.5 ours: dense top-1 on PIEs minus on all (raw)")
    assert wording.plain_name(row) == "Dense top-1 on PIEs minus on all"
    assert wording.plain_name(row, plain=True) == "Dense accuracy on forgotten digits minus on all"


def test_only_paper_rows_count_and_a_derived_row_never_does() -> None:
    rows = [_row(), _row(finding="D4.6 lift (derived)", verdict=F.EFFECT_ABSENT),
            _row(finding="B4.5 excess", comparability="beyond", verdict=F.OTHER_SIGN),
            _row(finding="D4.4 share", comparability="analogue", verdict=F.INCONCLUSIVE),
            _row(finding="D4.8 human", comparability="not testable", verdict=F.NOT_TESTABLE)]
    assert wording.is_derived(rows[1]) and not wording.is_derived(rows[0])
    assert wording.counted(rows) == [rows[0], rows[3]]
    assert wording.counts_text(rows) == "2 paper findings: 1 holds here, 1 can't tell yet."
    two = [_row(), _row(claim="D4.1")]
    assert wording.counts_text(two) == "2 paper findings: 2 hold here."


# Every verdict against every stability, interval and unit.
_STABILITY = (0.95, 0.55, None)
_INTERVALS = (
    (-0.0401, -0.0902, 0.0123),  # crosses the null
    (-0.401, -0.4404, -0.3617),  # on the paper's side
    (0.00031, 0.00012, 0.00051),  # tiny, reversed
    (-0.15, math.nan, math.nan),  # no interval
    (0.0, 0.0, 0.0),  # every unit the same
)
_UNITS = ("", "percent", "points", "ratio")
_NAME = "D2.1 test accuracy falls at ~98.6% sparsity (pruned − dense), per seed"
_DIRECTION = {F.REPRODUCED: F.PAPERS_SIDE, F.SMALLER: F.PAPERS_SIDE, F.LARGER: F.PAPERS_SIDE,
              F.SIZE_UNCLEAR: F.PAPERS_SIDE, F.SAME_DIRECTION: F.PAPERS_SIDE,
              F.PRESENT: F.PAPERS_SIDE, F.OPPOSITE: F.OPPOSITE, F.OTHER_SIGN: F.OPPOSITE,
              F.EFFECT_ABSENT: F.ABSENT, F.NOT_REPRODUCED: F.ABSENT}
_OPEN_SIZES = re.compile(r"smaller|larger|as large as")
_NUMBER = re.compile(rf"(?<![\w.]){M}?\d[\d,]*(?:\.(\d+))?(?![\w.])")
_TIERS = re.compile(r"\b(firm|borderline|reproduced|inconclusive)\b")


def _rows(verdict: str, stability: float | None):
    for ends, unit, paper in itertools.product(_INTERVALS, _UNITS, (-0.3694, None)):
        yield _row(finding=_NAME, verdict=verdict, stability=stability,
                   direction=_DIRECTION.get(verdict, F.CANT_TELL), size="", paper=paper,
                   ours=ends[0], ci_low=ends[1], ci_high=ends[2], unit=unit,
                   basis="no images offline; more words")


@pytest.mark.parametrize("stability", _STABILITY, ids=("sure", "shaky", "unknown"))
@pytest.mark.parametrize("verdict", audit.VERDICTS)
def test_every_verdict_at_every_stability_reads(verdict: str, stability: float | None) -> None:
    word = wording.READER_WORD[verdict]
    for row in _rows(verdict, stability):
        said = wording.said(row)
        assert said.found.startswith(f"{wording.name_of(row)}: *{word}*"), said.found
        assert len(said.found.split()) <= wording.SENTENCE_WORDS, said.found
        assert not _TIERS.search(said.text) and "D2.1" not in said.text, said.text
        assert not fmt.RAW_FLOAT.search(said.text) and "-" not in said.text.replace(
            "pruned − dense", ""), said.text
        if verdict in audit.UNTESTED or stability is None:
            assert said.firm == "", said.firm
            continue
        assert said.firm == f"A replication would agree about {round(10 * stability)} times in 10."
        if verdict == F.INCONCLUSIVE:  # an open question is never sized
            assert not _OPEN_SIZES.search(said.found.split("(ours")[0])
        numbers = said.found.split(": ", 1)[1]
        places = {m.group(1) and len(m.group(1)) or 0 for m in _NUMBER.finditer(numbers)
                  if not re.fullmatch(rf"{M}?0", m.group(0))}
        assert len(places) <= 1, said.found  # ours, its interval and the paper's: one precision
        if row.unit in ("percent", "points") and math.isfinite(row.ours):
            suffix = "%" if row.unit == "percent" else " pts"
            assert re.search(rf"ours {M}?[\d.,]+{re.escape(suffix)}", said.found), said.found


def test_every_verdict_shows_its_word_with_a_tooltip_and_a_glossary_link() -> None:
    for verdict in audit.VERDICTS:
        word = wording.READER_WORD[verdict]
        chip = wording.chip_html(verdict, "g.html")
        assert f">{html.escape(word)}</a>" in chip
        assert f'href="g.html#{wording.glossary_anchor(word)}"' in chip
        assert f'title="{html.escape(wording.tooltip(verdict))}"' in chip
        assert wording.WORD_MEANS[word] in wording.tooltip(verdict)
    assert wording.glossary_anchor("can't tell yet") == "term-can-t-tell-yet"
    assert wording.glossary_anchor("PIE") == "term-PIE"
    text = wording.inline_html("**Name** a < b: *can't tell yet*; *other*")
    assert text.startswith('<b>Name</b> a &lt; b: <a class="pa-verdict pa-v-can-t-tell-yet"')
    assert text.endswith("; <i>other</i>")
    legend = wording.legend_line(["holds here", F.INCONCLUSIVE, "holds here"])
    assert legend.count("<b>") == 2 and "<b>Holds here</b>" in legend


def test_the_answer_box_says_each_line_once_with_a_legend() -> None:
    rows = [_row(finding=f"D1.{i} coefficient", basis="20 clusters, 320 rows", units=20,
                 stability=0.6 + i / 100, headline=True, ours=-0.4 + i / 100) for i in (1, 2)]
    box = answer.answer_html(rows, None)
    plain = html.unescape(re.sub(r"<[^>]+>", " ", box))
    said = [s.strip() for s in re.split(r"(?<=[.:]) ", plain) if len(s.split()) > 3]
    assert len(said) == len(set(said)), said  # no sentence twice
    assert box.count("rests on 20 clusters") == 1
    assert 'class="pa-answer-legend"' in box and "<b>Holds here</b>" in box
    assert box.count('class="pa-verdict') == 2


def test_a_chip_links_to_the_glossary_or_without_one_to_the_methods_legend(monkeypatch) -> None:
    monkeypatch.setattr(wording, "has_glossary", lambda: True)
    assert wording.definition_link("can't tell yet") == "../glossary.html#term-can-t-tell-yet"
    assert "Glossary</a>" in wording.legend_line(["negligible"])
    monkeypatch.setattr(wording, "has_glossary", lambda: False)
    assert wording.definition_link("can't tell yet") == (
        "../methods_audit.html#verdict-can-t-tell-yet")
    assert wording.definition_link("negligible", "glossary.html") == (
        "methods_audit.html#verdict-negligible")
    assert "Glossary" not in wording.legend_line(["negligible"])
