"""The findings for people: one sentence per finding (hand cases, and properties over every
combination of direction, size, stability, interval and unit), numbers to one precision, and
the table with its details."""

from __future__ import annotations

import html
import math
import re
from dataclasses import replace

import pytest

from pruneaudit import audit
from pruneaudit.audit import rules as F
from pruneaudit.audit.claims import COMPARABILITIES, NOT_TESTABLE, Claim
from pruneaudit.book.report import findings_table as ft
from pruneaudit.book.report import wording
from pruneaudit.charts import format as fmt

M = fmt.MINUS


def _row(**kw) -> audit.Finding:
    """A row with its answers given (not computed), to pin each sentence by hand."""
    base = dict(finding="D4.5 PIE accuracy minus all", paper=-0.3694, ours=-0.401,
                ci_low=-0.440, ci_high=-0.362, verdict=F.REPRODUCED, source="H1; Table 6",
                basis="K = 16 members per population", direction=F.PAPERS_SIDE, size=F.ABOUT,
                stability=0.93, unit="points", claim="D4.5", comparability="same")
    return audit.Finding(**{**base, **kw})


def _untested(name: str, why: str, source: str = "H2; Fig. 2") -> audit.Finding:
    """The row of a claim not testable here."""
    return audit.untested(Claim(name.split()[0], name, says="the paper says so", source=source,
                                quantity="a test quantity", comparability=NOT_TESTABLE,
                                why=why))


def _words(text: str) -> int:
    return len(text.replace("*", "").split())


# --------------------------------------------------------------------------- numbers


def test_ours_and_the_papers_value_share_one_precision_and_true_minus_signs():
    row = _row()
    assert ft.ours_text(row) == f"{M}40.1 pts [{M}44.0, {M}36.2]"
    assert ft.paper_text(row) == f"{M}36.9 pts"  # not -36.94 beside -40.1
    plain = _row(unit="")
    assert ft.ours_text(plain) == f"{M}0.401 [{M}0.440, {M}0.362]"
    assert ft.paper_text(plain) == f"{M}0.369"
    assert ft.paper_text(_row(paper=None)) == "\u2014"
    assert ft.ours_text(_row(ours=None, ci_low=None, ci_high=None)) == "\u2014"


def test_a_row_without_an_interval_says_so_and_shows_no_brackets():
    row = _row(ours=-0.15, ci_low=math.nan, ci_high=math.nan, paper=-0.19, verdict=F.INCONCLUSIVE,
               direction=F.CANT_TELL, size="", stability=None)
    assert ft.ours_text(row) == f"{M}15.0 pts (no interval: too few units)"
    assert ft.paper_text(row) == f"{M}19.0 pts"
    said = ft.sentence(row)
    assert "[" not in said and "too few units for an interval" in said
    every = _row(ours=0.0, ci_low=0.0, ci_high=0.0, verdict=F.INCONCLUSIVE,
                 direction=F.CANT_TELL, size=F.CANT_TELL, stability=None, paper=-0.19)
    assert ft.ours_text(every) == "0.0 pts (every unit the same)"  # never 0.000 [0.000, 0.000]


# --------------------------------------------------------------------------- sentences
# (the sentences themselves: tests/book/test_wording.py)


def test_the_sentence_is_the_wording_of_both_halves():
    row = _row(stability=0.6, alternative=F.LARGER)
    said = wording.said(row)
    assert ft.sentence(row) == f"{said.found} {said.firm}"
    assert ft.sentences([row, row]) == f"- {ft.sentence(row)}\n- {ft.sentence(row)}"


# --------------------------------------------------------------------------- units


@pytest.mark.parametrize(
    ("basis", "units", "word", "bought"),
    [
        ("per-seed change, Student-t over 6 seeds", 6, "seeds", True),
        ("mean over 6 dense models (each averaged over its series)", 6, "dense models", True),
        ("95% interval of the OLS coefficient (pruned rows, errors clustered by (dataset, "
         "class): CV3 jackknife, Student t on 29 df): 30 clusters, 1,234 rows", 30, "clusters",
         False),
        ("cluster jackknife over the 30 (dataset, class) clusters, Student t", 30,
         "(dataset, class) clusters", False),
        ("Clopper-Pearson over the 10 classes; null = alpha = 0.05", 10, "classes", False),
        ("95% percentile bootstrap over writers (writer accuracy = mean over seeds)", 400,
         "writers", False),
        ("Welch interval over the members (4 pruned and 4 dense models, df 5.2)", 4,
         "dense models", True),
        ("something else", 6, "units", None),
    ],
)
def test_the_units_are_named_from_the_basis(basis, units, word, bought):
    got = ft.units_of(_row(basis=basis, units=units))
    assert (got.word, got.bought) == (word, bought)
    assert bool(got.instead) == (bought is False)


def test_what_makes_a_row_firm_names_its_units():
    seeds = _row(basis="Student t over 8 seeds", units=8, firm_at=20)
    assert ft.firm_text(seeds) == (
        "about 20 seeds (this build: 8) would make a replication agree 8 times in 10 if the "
        "estimate held")
    classes = _row(basis="Clopper-Pearson over the 10 classes", units=10, firm_at=40)
    assert ft.firm_text(classes) == (
        "it rests on 10 classes, which no budget raises (more seeds cannot settle it); "
        "another task with more classes would")
    assert ft.firm_text(_row()) == ""


# --------------------------------------------------------------------------- the table


def test_table_has_one_row_and_one_details_row_per_finding_and_a_legend():
    row = _row(definition="mean-member top-1 on PIEs minus on all <test>",
               paper_band=(-0.42, -0.32), margin=0.03,
               margin_reason="three points", power=0.91, stability=0.6,
               alternative=F.LARGER, units=16, basis="Welch over 16 members", firm_at=40)
    page = ft.table_html([row, _untested("D4.7 CelebA", "no images")])
    assert page.count('<tr class="pa-row">') == 2 and page.count('class="pa-details"') == 2
    assert "&lt;test&gt;" in page and "<test>" not in page  # text is escaped
    # each row's details say its claim and comparability (no excess line: our own questions
    # are rows of their own, 'beyond' claims)
    assert f"<b>Claim D4.5:</b> {html.escape(ft.COMPARABILITY_SAID['same'])}" in page
    assert f"<b>Claim D4.7:</b> {html.escape(ft.COMPARABILITY_SAID['not testable'])}" in page
    assert "Beyond dense-vs-dense noise" not in page
    assert f"<b>The paper's band:</b> {M}42.0 to {M}32.0 pts (margin 3.0 pts: three points)" in page
    assert "power 0.91" in page and "about 40 members (this build: 16) would make a" in page
    assert '<a href="../intro.html">H1</a>; Table 6' in page
    # the id sits in the row's folded details, never in its name cell
    assert '<b>Id:</b> <a href="../methods_audit.html#finding-d4-5">D4.5</a>' in page
    assert '<td data-label="Finding">PIE accuracy minus all</td>' in page
    assert wording.chip_html(F.REPRODUCED) in page and wording.chip_html(F.NOT_TESTABLE) in page
    legend = page.split('class="pa-legend"')[1]
    assert "<b>Holds here</b>" in legend and "<b>Not testable here</b>" in legend
    assert "<b>Can't tell yet</b>" not in legend  # only the words the table uses
    assert '<td data-label="Effect there?">yes</td>' in page
    assert "<th>Power</th>" not in page  # power is in the details, beside what it means
    assert "borderline" not in page and "firm" not in page.replace("confirm", "")
    assert "a replication would agree about 6 times in 10" in page
    assert set(ft.COMPARABILITY_SAID) == set(COMPARABILITIES)


def test_the_details_say_an_analogue_or_beyond_claim_in_its_own_words():
    analogue = _row(claim="D4.1", comparability="analogue", verdict=F.SAME_DIRECTION, size="",
                    paper_band=None)
    beyond = _row(claim="D4.5 excess", comparability="beyond", verdict=F.OTHER_SIGN,
                  direction=F.OPPOSITE, size="", paper=None, paper_band=None)
    page = ft.table_html([analogue, beyond])
    assert f"<b>Claim D4.1:</b> {html.escape(ft.COMPARABILITY_SAID['analogue'])}" in page
    assert f"<b>Claim D4.5 excess:</b> {html.escape(ft.COMPARABILITY_SAID['beyond'])}" in page
    assert wording.chip_html(F.SAME_DIRECTION) in page
    assert wording.chip_html(F.OTHER_SIGN) in page
    assert "The paper's band" not in page  # neither has one
    absent = _row(comparability="beyond", verdict=F.EFFECT_ABSENT, direction=F.ABSENT, size="",
                  paper=None, stability=0.6, alternative=F.PRESENT)
    assert ft.sentence(absent).endswith(
        "*negligible* (ours \u221240.1 pts [\u221244.0, \u221236.2]). A replication would agree "
        "about 6 times in 10.")
    # our own questions sit under their own heading, after the paper's rows
    assert page.index("Our own questions") > page.index("Claim D4.1:")
    assert page.index("Our own questions") < page.index("Claim D4.5 excess:")
    # a row without a claim (an old findings file) shows no claim line
    assert "<b>Claim" not in ft.table_html([_row(claim="", comparability="")])


def test_high_power_beside_cant_tell_is_explained():
    row = _row(verdict=F.NOT_REPRODUCED, direction=F.CANT_TELL, size=F.SIZE_SMALLER,
               power=1.0, ci_low=-0.09, ci_high=0.014, ours=-0.038, paper=-0.19)
    details = ft.table_html([row])
    assert "power 1.00" in details and "any effect here is likely smaller" in details


def test_an_underpowered_row_says_in_its_details_what_would_resolve_it():
    # 6 seeds, -0.196 [-0.41, 0.017] against -0.19: t power about 0.46
    claim = Claim("D2.1", "D2.1 accuracy falls", says="accuracy falls", source="P; Fig. 7",
                  quantity="pruned minus dense test accuracy", comparability="same",
                  paper=-0.19, paper_noise="six replicates", margin=0.0,
                  margin_reason="none: the band is the paper's own spread")
    row = audit.judge(claim, audit.Estimate(-0.196, -0.41, 0.017,
                                            "per-seed change, Student-t over 6 seeds", df=5))
    assert row.units == 6 and row.needed == audit.units_for_power(-0.41, 0.017, -0.19, 6)
    assert ft.budget_text(row) == f"about {row.needed} seeds (this build: 6) would give power 0.8"
    assert ft.budget_text(row) in ft.table_html([row])
    assert "power" not in ft.sentence(row)  # the sentence leaves power to the details
    assert ft.budget_text(replace(row, needed=None)) == ""


# --------------------------------------------------------------------------- a whole page

#: What a reader must never see in a page's findings: Python's raw floats (five or more
#: decimals, four zeros, exponents), trailing zeros of an interval of no width, model terms as
#: statsmodels writes them, result attributes, and hyphens for minus signs.
_NOT_FOR_READERS = re.compile(
    r"\d\.\d{5}|\.0000\b|\de[-+]?\d|\[(\S+), \1\]|np\.|\[T\.|\bC\(|rsquared|_adj\b"
    r"|(?<![\w.\-+/])-\d"
)


def _visible(page: str) -> str:
    """The text of ``page``'s HTML a browser shows (tags dropped, entities read)."""
    return html.unescape(re.sub(r"<style.*?</style>|<[^>]+>", " ", page, flags=re.S))


def test_the_pattern_catches_what_readers_must_not_see():
    for bad in ("0.09034", "9.0000", "1.79e-04", "0.000 [0.000, 0.000]", "np.exp(sparsity)",
                "weight_treatment[T.rewind]", "C(treatment)", "rsquared adj", "(-0.1827"):
        assert _NOT_FOR_READERS.search(bad), bad
    for good in (f"{M}0.183 [{M}0.2, 0.05]", "0.0417", "top-1, K-1, 2026-11-20, e^sparsity"):
        assert not _NOT_FOR_READERS.search(good), good


def test_study_1_findings_page_shows_no_raw_float_or_model_term():
    """The answer box and findings table of Study 1 computed from a simulated population (the
    study's own test population, with P's effects) read as the book writes numbers."""
    import numpy as np
    from studies.test_population_ols import population, result_of

    from pruneaudit.book.report import answer
    from pruneaudit.studies import population_ols as po

    runs, stats = population(np.random.default_rng(10), mode="effect")
    rows = po.findings(result_of(runs, stats))
    page = answer.answer_html(rows, {"profile": "smoke", "overrides": {}, "date": "d"}, 60.0)
    page += ft.table_html(rows)
    text = _visible(page)
    assert "D1.1" in text and "D1.4" in text
    assert not _NOT_FOR_READERS.search(text), _NOT_FOR_READERS.search(text)
    for row in rows:
        assert _words(wording.said(row).found) <= ft.SENTENCE_WORDS


def test_study_4_findings_page_in_the_words_of_each_claim_shows_no_raw_float():
    """Study 4's exemplar rows on a simulated task (``analogue`` rows in direction words, a
    ``not comparable`` row, ``beyond`` rows in their own words) read as the book writes numbers,
    each with its claim."""
    import numpy as np
    from studies.test_impact_findings_null import C, _members, _task

    from pruneaudit.book.report import answer
    from pruneaudit.studies import compression_impact as impact

    rng = np.random.default_rng(4)
    y, wrong = _task(rng, 600)
    p = rng.beta(6, 1, y.size)
    base = _members(rng, 6, p, y, wrong)
    comp = _members(rng, 6, np.clip(p - 0.15, 0.0, 1.0), y, wrong)
    groups = np.repeat(["hsf0", "hsf4"], y.size // 2)
    rows = impact.exemplar_findings(y, base, comp, C, groups, hard="hsf4",
                                    resampling=audit.Resampling(19, 99))
    kinds = {r.comparability for r in rows}
    assert {"analogue", "not comparable", "beyond"} <= kinds
    page = answer.answer_html(rows, {"profile": "smoke", "overrides": {}, "date": "d"}, 60.0)
    page += ft.table_html(rows)
    text = _visible(page)
    assert not _NOT_FOR_READERS.search(text), _NOT_FOR_READERS.search(text)
    for row in rows:
        assert _words(wording.said(row).found) <= ft.SENTENCE_WORDS
        said = html.escape(ft.COMPARABILITY_SAID[row.comparability])
        assert f"<b>Claim {html.escape(row.claim)}:</b> {said}" in page
        if row.comparability != "same":
            assert row.verdict != audit.REPRODUCED and row.paper_band is None
