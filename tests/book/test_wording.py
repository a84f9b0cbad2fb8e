"""The book's one way to say a finding: hand cases of each sentence, and every verdict word
against every band of stability (firm, borderline, unknown), with each likeliest other verdict,
interval and unit: short, never cut, numbers with their unit, an open question never sized."""

from __future__ import annotations

import html
import itertools
import math
import re

import pytest

from pruneaudit import audit
from pruneaudit.audit import rules as F
from pruneaudit.book import answer, wording
from pruneaudit.charts import format as fmt

M = fmt.MINUS


def _row(**kw) -> audit.Finding:
    """A row with its answers given (not computed), to pin each sentence by hand."""
    base = dict(finding="D4.5 PIE accuracy minus all", paper=-0.3694, ours=-0.401,
                ci_low=-0.440, ci_high=-0.362, verdict=F.REPRODUCED, source="H1; Table 6",
                basis="K = 16 members per population", direction=F.PAPERS_SIDE, size=F.ABOUT,
                stability=0.93, unit="points", claim="D4.5", comparability="same")
    return audit.Finding(**{**base, **kw})


def test_sentences_by_hand() -> None:
    said = wording.said(_row())
    assert said.found == (
        f"**D4.5** PIE accuracy minus all: *reproduced*, the effect is there, as large as the "
        f"paper's (ours {M}40.1 pts [{M}44.0, {M}36.2]; the paper's {M}36.9 pts).")
    assert said.firm == "A replication keeps this verdict 93% of the time."
    smaller = _row(verdict=F.SMALLER, size=F.SIZE_SMALLER, stability=0.62,
                   alternative=F.REPRODUCED, ci_low=-0.30, ci_high=-0.20, ours=-0.25)
    assert wording.said(smaller).firm == (
        "A replication keeps this verdict 62% of the time; otherwise it says *reproduced*.")
    # an open question: no size verdict, never "could say reproduced"; what more data could show
    topline = _row(finding="D2.1 test accuracy falls (pruned − dense)", paper=-0.19,
                   ours=0.012, ci_low=-0.114, ci_high=0.080, verdict=F.INCONCLUSIVE,
                   direction=F.CANT_TELL, size=F.CANT_TELL, stability=0.6,
                   alternative=F.REPRODUCED)
    assert wording.said(topline).text == (
        "**D2.1** test accuracy falls: *inconclusive*, this build cannot tell whether the effect "
        f"is there (ours 1.2 pts [{M}11.4, 8.0]; the paper's {M}19.0 pts). A replication stays "
        "undecided 60% of the time and might find it there.")
    steady = _row(verdict=F.INCONCLUSIVE, direction=F.CANT_TELL, size=F.CANT_TELL,
                  stability=0.97, ours=-0.05, ci_low=-0.11, ci_high=0.004)
    assert wording.said(steady).firm == (
        "A replication stays undecided 97% of the time: more units are needed to tell.")
    assert wording.stability_words(steady) == (
        "stays undecided: a replication keeps this 97% of the time")  # never "firm"
    assert wording.stability_words(_row()) == "firm: a replication keeps this 93% of the time"


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
        "**D2.2** group-level drops are similar: *reproduced*, no material difference, as the "
        f"paper says (ours 0.12 [{M}0.20, 0.40]; margin ±0.50).")
    other = _row(verdict=F.NOT_COMPARABLE, size="", stability=None, basis="another footing")
    assert wording.said(other).text == (
        "**D4.5** PIE accuracy minus all: *not comparable here*, our quantity is not the "
        f"paper's, so no verdict (ours {M}40.1 pts [{M}44.0, {M}36.2]).")
    gone = audit.Finding("D4.7 CelebA", None, None, None, None, F.NOT_TESTABLE, "H2",
                         basis="no images offline")
    assert wording.said(gone).text == "**D4.7** CelebA: *not testable here*, no images offline."


def test_a_long_name_is_never_cut() -> None:
    long = _row(finding="D4.4 share of classes significantly impacted on a 10-class task "
                "(H1: CIFAR-10)", unit="percent", paper=0.2, ours=0.0, ci_low=0.0,
                ci_high=0.31, verdict=F.INCONCLUSIVE, direction=F.CANT_TELL, size=F.CANT_TELL)
    found = wording.said(long).found
    assert found.startswith(
        "**D4.4** share of classes significantly impacted on a 10-class task: *inconclusive*")
    assert "\u2026" not in found
    longer = _row(finding="D9.9 " + " ".join(f"w{i}" for i in range(24)))
    found = wording.said(longer).found
    assert "w23: *reproduced* (ours" in found  # the meaning gives way, never the name


# Every verdict word against every band of stability, each other verdict, interval and unit.
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
_OPEN_SIZES = re.compile(r"smaller|larger|as large as|\breproduced\b")
_NUMBER = re.compile(rf"(?<![\w.]){M}?\d[\d,]*(?:\.(\d+))?(?![\w.])")


def _rows(verdict: str, stability: float | None):
    for other, ends, unit, paper in itertools.product(
            ("", *audit.VERDICTS), _INTERVALS, _UNITS, (-0.3694, None)):
        if other in (verdict, *audit.UNTESTED):
            continue
        yield _row(finding=_NAME, verdict=verdict, stability=stability, alternative=other,
                   direction=_DIRECTION.get(verdict, F.CANT_TELL), size="", paper=paper,
                   ours=ends[0], ci_low=ends[1], ci_high=ends[2], unit=unit,
                   basis="no images offline; more words")


@pytest.mark.parametrize("stability", _STABILITY, ids=("firm", "borderline", "unknown"))
@pytest.mark.parametrize("verdict", audit.VERDICTS)
def test_every_verdict_at_every_stability_reads(verdict: str, stability: float | None) -> None:
    for row in _rows(verdict, stability):
        said = wording.said(row)
        name = wording.name_of(row)
        assert said.found.startswith(f"{name}: *{verdict}*"), said.found  # never cut
        assert len(said.found.split()) <= wording.SENTENCE_WORDS, said.found
        assert "firm" not in said.text and "\u2026" not in said.text, said.text
        assert said.found != said.firm
        assert not fmt.RAW_FLOAT.search(said.text) and "-" not in said.text.replace(
            "pruned − dense", ""), said.text
        if verdict in audit.UNTESTED or stability is None:
            assert said.firm == "", said.firm
            continue
        assert f"{stability:.0%} of the time" in said.firm, said.firm
        if verdict in (F.INCONCLUSIVE, F.SIZE_UNCLEAR):  # an open question is never sized
            assert not _OPEN_SIZES.search(said.found.split(": ", 1)[1].split("(ours")[0])
            if verdict == F.INCONCLUSIVE:
                assert "reproduced" not in said.firm and "could say" not in said.firm
            if stability < audit.STABLE and row.alternative:
                assert " might find " in said.firm, said.firm
        claim = said.found.split(": ", 1)[1]
        numbers = claim.split("; margin")[0]
        places = {m.group(1) and len(m.group(1)) or 0 for m in _NUMBER.finditer(numbers)
                  if not re.fullmatch(rf"{M}?0", m.group(0))}
        assert len(places) <= 1, said.found  # ours, its interval and the paper's: one precision
        if row.unit in ("percent", "points"):
            suffix = "%" if row.unit == "percent" else " pts"
            assert re.search(rf"ours {M}?[\d.,]+{re.escape(suffix)}", said.found), said.found


def test_every_verdict_has_its_words_a_tooltip_and_a_legend_anchor() -> None:
    for verdict in audit.VERDICTS:
        chip = wording.chip_html(verdict, "m.html")
        assert f'href="m.html#verdict-{wording.slug(verdict)}"' in chip
        assert f'title="{html.escape(wording.tooltip(verdict))}"' in chip
        assert wording.VERDICT_SAID[verdict] in wording.tooltip(verdict)
    text = wording.inline_html("**D1.1** a < b: *inconclusive*; *other*")
    assert text.startswith("<b>D1.1</b> a &lt; b: <a class=\"pa-verdict pa-v-inconclusive\"")
    assert text.endswith("; <i>other</i>")


def test_the_answer_box_says_each_line_once_with_a_legend() -> None:
    rows = [_row(finding=f"D1.{i} coefficient", basis="20 clusters, 320 rows", units=20,
                 stability=0.6 + i / 100, alternative=F.SMALLER, headline=True, ours=-0.4 + i / 100)
            for i in (1, 2)]
    box = answer.answer_html(rows, None)
    plain = html.unescape(re.sub(r"<[^>]+>", " ", box))
    said = [s.strip() for s in re.split(r"(?<=[.:]) ", plain) if len(s.split()) > 3]
    assert len(said) == len(set(said)), said  # no sentence twice
    assert box.count("rests on 20 clusters") == 1
    assert 'class="pa-answer-legend"' in box and "#verdict-words" in box
    assert box.count('class="pa-verdict') >= 2
