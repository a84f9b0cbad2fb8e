"""The findings for people: one sentence per finding (hand cases, and properties over every
combination of direction, size, stability, interval and unit), numbers to one precision, and
the table with its details."""

from __future__ import annotations

import html
import itertools
import math
import re
from dataclasses import replace

import pytest

from pruneaudit import audit
from pruneaudit.audit import rules as F
from pruneaudit.audit.claims import COMPARABILITIES, NOT_TESTABLE, Claim
from pruneaudit.book import findings_table as ft
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
    assert "[" not in said and "interval" not in said
    every = _row(ours=0.0, ci_low=0.0, ci_high=0.0, verdict=F.INCONCLUSIVE,
                 direction=F.CANT_TELL, size=F.CANT_TELL, stability=None, paper=-0.19)
    assert ft.ours_text(every) == "0.0 pts (every unit the same)"  # never 0.000 [0.000, 0.000]


# --------------------------------------------------------------------------- sentences


def test_sentences_by_hand():
    assert ft.sentence(_row()) == (
        f"**D4.5** PIE accuracy minus all: the effect is there, as large as the paper's "
        f"{M}36.9 pts (ours {M}40.1 [{M}44.0, {M}36.2]). A replication would likely agree."
    )
    smaller = _row(verdict=F.SMALLER, size=F.SIZE_SMALLER, stability=0.62,
                   alternative=F.REPRODUCED, ci_low=-0.30, ci_high=-0.20, ours=-0.25)
    assert ft.sentence(smaller) == (
        f"**D4.5** PIE accuracy minus all: the effect is there, smaller than the paper's "
        f"{M}36.9 pts (ours {M}25.0 [{M}30.0, {M}20.0]). A replication could say *reproduced*."
    )
    topline = _row(finding="D2.1 test accuracy falls (pruned − dense)", paper=-0.19, ours=-0.038,
                   ci_low=-0.09, ci_high=0.014, verdict=F.NOT_REPRODUCED, direction=F.CANT_TELL,
                   size=F.SIZE_SMALLER, stability=0.62, alternative=F.SIZE_UNCLEAR)
    assert ft.sentence(topline) == (
        f"**D2.1** test accuracy falls: can't tell if the effect is there; smaller than the "
        f"paper's {M}19.0 pts (ours {M}3.8 [{M}9.0, 1.4]). A replication could say *there, size "
        "unclear*."
    )
    could_stay_open = _row(finding="D2.1 test accuracy falls (pruned − dense)", paper=-0.19,
                           ours=0.012, ci_low=-0.114, ci_high=0.080, verdict=F.NOT_REPRODUCED,
                           direction=F.CANT_TELL, size=F.SIZE_SMALLER, stability=0.6,
                           alternative=F.INCONCLUSIVE)
    assert ft.sentence(could_stay_open).endswith(
        "A replication could leave it undecided.")  # never "could say *can't tell*"
    undecided = _row(finding="D1.2 entropy coefficient F < 0", paper=-0.1, ours=-0.05,
                     ci_low=-0.11, ci_high=0.004, verdict=F.INCONCLUSIVE, direction=F.CANT_TELL,
                     size=F.CANT_TELL, stability=0.97, unit="")
    assert ft.sentence(undecided) == (
        f"**D1.2** entropy coefficient F < 0: can't tell if the effect is there (ours {M}0.050 "
        f"[{M}0.110, 0.004]; the paper's {M}0.100). More units are needed to tell."
    )
    assert ft.stability_text(undecided) == "stays undecided (0.97)"  # never "firm"
    assert ft.stability_text(_row()) == "firm (0.93)"
    reversed_ = _row(ours=0.031, ci_low=0.01, ci_high=0.052, verdict=F.OPPOSITE,
                     direction=F.OPPOSITE, size="", stability=0.99)
    assert ft.sentence(reversed_) == (
        f"**D4.5** PIE accuracy minus all: the effect is reversed, unlike the paper's {M}36.9 pts "
        "(ours 3.1 [1.0, 5.2]). A replication would likely agree."
    )
    direction_only = _row(finding="D3.1 Pareto set spans more than one technique", paper=None,
                          ours=1.0, ci_low=math.nan, ci_high=math.nan, verdict=F.INCONCLUSIVE,
                          direction=F.CANT_TELL, size="", stability=None, unit="")
    assert ft.sentence(direction_only) == (
        "**D3.1** Pareto set spans more than one technique: can't tell if the effect is there "
        "(ours 1.00, too few units to tell)."
    )


def test_claims_of_no_difference_and_rows_that_cannot_be_compared():
    same = _row(finding="D2.2 group-level drops are similar: (a − b) / c", paper=None, ours=0.12,
                ci_low=-0.2, ci_high=0.4, direction="", size="", margin=0.5, unit="")
    assert ft.sentence(same) == (
        "**D2.2** group-level drops are similar: no material difference, as the paper says (ours "
        f"0.12 [{M}0.20, 0.40]; margin ±0.50). A replication would likely agree."
    )
    other = _row(verdict=F.NOT_COMPARABLE, size="", stability=None, basis="another footing")
    assert ft.sentence(other) == (
        f"**D4.5** PIE accuracy minus all: the effect is there (ours {M}40.1 pts [{M}44.0, "
        f"{M}36.2]); not comparable with the paper's number."
    )
    gone = _untested("D4.7 CelebA", "no images offline")
    assert ft.sentence(gone) == "**D4.7** CelebA: not testable here (no images offline)."


def test_a_long_name_is_cut_to_keep_the_sentence_short():
    long = _row(finding="D4.4 analogue: share of classes significantly impacted on a 10-class "
                "task with many more words in its name")
    said = ft.sentence(long)
    assert said.startswith("**D4.4** analogue, share of classes significantly impacted on a")
    assert "\u2026: the effect is there" in said and _words(said) == ft.SENTENCE_WORDS
    writer = _row(finding="D2.2 a writer at 100% collapses: worst drop per seed (null: a second)")
    assert ft.sentence(writer).startswith("**D2.2** a writer at 100% collapses: the effect")
    longer = _row(finding="D9.9 " + " ".join(f"w{i}" for i in range(20)))
    said = ft.sentence(longer)
    assert _words(said) <= ft.SENTENCE_WORDS and "\u2026" in said


# Every combination the rules can produce: (direction, size) pairs with the verdict they make.
_UNITS = ("", "percent", "points", "ratio")
_STABILITY = ((0.95, ""), (0.55, F.SMALLER), (0.6, F.SIZE_UNCLEAR), (None, ""))
_INTERVALS = (
    (-0.0401, -0.0902, 0.0123),  # crosses the null
    (-0.401, -0.4404, -0.3617),  # on the paper's side
    (0.00031, 0.00012, 0.00051),  # tiny, reversed
    (-12.3, -20.04, -4.61),  # wide
    (-0.15, math.nan, math.nan),  # no interval
    (0.0, 0.0, 0.0),  # every unit the same
)
_NAME = "D2.1 test accuracy falls at ~98.6% sparsity (pruned − dense), per seed"


def _grid():
    for direction, size, stab, ends, unit, paper in itertools.product(
        F.DIRECTIONS, F.SIZES, _STABILITY, _INTERVALS, _UNITS, (-0.3694, None)
    ):
        if paper is None and size not in ("", F.CANT_TELL):
            continue
        verdict = F.combined(direction, size, has_paper=paper is not None)
        steady, other = stab
        yield _row(finding=_NAME, direction=direction, size=size, verdict=verdict,
                   stability=steady, alternative=other, ours=ends[0], ci_low=ends[1],
                   ci_high=ends[2], unit=unit, paper=paper)
    for verdict, ends in itertools.product((F.REPRODUCED, F.NOT_REPRODUCED, F.INCONCLUSIVE),
                                           _INTERVALS):
        yield _row(finding=_NAME, paper=None, direction="", size="", margin=0.05,
                   verdict=verdict, ours=ends[0], ci_low=ends[1], ci_high=ends[2])
        yield _row(finding=_NAME, verdict=F.NOT_COMPARABLE, ours=ends[0], ci_low=ends[1],
                   ci_high=ends[2], stability=None, comparability="not comparable")
    # analogue rows (direction words, the paper's value, no size) and our own questions
    # (their own null, no paper value)
    for (kind, words, paper), direction, stab, ends, unit in itertools.product(
        (("analogue", F.ANALOGUE_WORDS, -0.3694), ("beyond", F.BEYOND_WORDS, None)),
        F.DIRECTIONS, _STABILITY, _INTERVALS, _UNITS,
    ):
        steady, other = stab
        other = words.get({F.SMALLER: F.PAPERS_SIDE}.get(other, F.CANT_TELL)) if other else ""
        yield _row(finding=_NAME, comparability=kind, direction=direction, size="",
                   verdict=words[direction], paper=paper, stability=steady, alternative=other,
                   ours=ends[0], ci_low=ends[1], ci_high=ends[2], unit=unit)


_NUMBER = re.compile(rf"(?<![\w.]){M}?\d[\d,]*(?:\.(\d+))?(?![\w.])")


def test_every_sentence_reads():
    rows = list(_grid())
    assert len(rows) > 1000  # every combination, not a sample
    for row in rows:
        _reads(row)


def _reads(row):
    said = ft.sentence(row)
    claim = said.split(": ", 1)[1]  # after the finding's name
    assert _words(said) <= ft.SENTENCE_WORDS, said
    assert "firm" not in said  # so never "firm" beside "can't tell"
    if not ft.has_interval(row):
        assert "interval" not in said and "[" not in said, said
    assert "-" not in claim.replace("D2.1", ""), said  # true minus signs only
    assert not fmt.RAW_FLOAT.search(said), said
    # ours, its interval and the paper's value to one precision (the margin aside)
    numbers = claim.split("; margin")[0]
    places = {m.group(1) and len(m.group(1)) or 0 for m in _NUMBER.finditer(numbers)
              if not re.fullmatch(rf"{M}?0", m.group(0))}
    assert len(places) <= 1, said
    # the direction is said first
    if row.direction and row.verdict != F.NOT_COMPARABLE:
        assert claim.startswith(ft.DIRECTION_WORDS[row.direction]), said


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
        "about 20 seeds (this build: 8) would make it firm if the estimate held")
    classes = _row(basis="Clopper-Pearson over the 10 classes", units=10, firm_at=40)
    assert ft.firm_text(classes) == (
        "it rests on 10 classes, which no budget raises (more seeds cannot make it firm); "
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
    assert "power 0.91" in page and "about 40 members (this build: 16) would make it firm" in page
    assert '<a href="../intro.html">H1</a>; Table 6' in page
    assert '<a href="../methods_audit.html#finding-d4-5">D4.5</a>' in page
    for verdict in audit.VERDICTS:  # every verdict has its label class in the legend
        assert f'pa-v-{ft._slug(verdict)}"' in page
    assert '<td data-label="Effect there?">yes</td>' in page
    assert "<th>Power</th>" not in page  # power is in the details, beside what it means
    assert 'borderline:</span> <span class="pa-verdict pa-v-reproduced">' in page
    assert "borderline (0.60)" in page
    assert set(ft.MEANING) == set(audit.VERDICTS)
    assert set(ft.SHORT_VERDICT) == set(audit.VERDICTS) - set(audit.UNTESTED)
    assert set(ft.COMPARABILITY_SAID) == set(COMPARABILITIES)


def test_the_details_say_an_analogue_or_beyond_claim_in_its_own_words():
    analogue = _row(claim="D4.1", comparability="analogue", verdict=F.SAME_DIRECTION, size="",
                    paper_band=None)
    beyond = _row(claim="D4.5 excess", comparability="beyond", verdict=F.OTHER_SIGN,
                  direction=F.OPPOSITE, size="", paper=None, paper_band=None)
    page = ft.table_html([analogue, beyond])
    assert f"<b>Claim D4.1:</b> {html.escape(ft.COMPARABILITY_SAID['analogue'])}" in page
    assert f"<b>Claim D4.5 excess:</b> {html.escape(ft.COMPARABILITY_SAID['beyond'])}" in page
    assert '<span class="pa-verdict pa-v-same-direction">same direction</span>' in page
    assert '<span class="pa-verdict pa-v-other-sign">other sign</span>' in page
    assert "The paper's band" not in page  # neither has one
    absent = _row(comparability="beyond", verdict=F.EFFECT_ABSENT, direction=F.ABSENT, size="",
                  paper=None, stability=0.6, alternative=F.PRESENT)
    assert ft.sentence(absent).endswith("A replication could say *present*.")
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

    from pruneaudit.book import answer
    from pruneaudit.studies import population_ols as po

    runs, stats = population(np.random.default_rng(10), mode="effect")
    rows = po.findings(result_of(runs, stats))
    page = answer.answer_html(rows, {"profile": "smoke", "overrides": {}, "date": "d"}, 60.0)
    page += ft.table_html(rows)
    text = _visible(page)
    assert "D1.1" in text and "D1.4" in text
    assert not _NOT_FOR_READERS.search(text), _NOT_FOR_READERS.search(text)
    for row in rows:
        assert _words(ft.sentence(row)) <= ft.SENTENCE_WORDS


def test_study_4_findings_page_in_the_words_of_each_claim_shows_no_raw_float():
    """Study 4's exemplar rows on a simulated task (``same`` rows with the papers' bands,
    ``beyond`` rows in their own words) read as the book writes numbers, each with its claim."""
    import numpy as np
    from studies.test_impact_findings_null import C, _members, _task

    from pruneaudit.book import answer
    from pruneaudit.studies import compression_impact as impact

    rng = np.random.default_rng(4)
    y, wrong = _task(rng, 600)
    p = rng.beta(6, 1, y.size)
    base = _members(rng, 6, p, y, wrong)
    comp = _members(rng, 6, np.clip(p - 0.15, 0.0, 1.0), y, wrong)
    groups = np.repeat(["hsf0", "hsf4"], y.size // 2)
    rows = impact.exemplar_findings(y, base, comp, C, groups, hard="hsf4", n_perm=19, n_boot=99)
    kinds = {r.comparability for r in rows}
    assert {"same", "beyond"} <= kinds
    page = answer.answer_html(rows, {"profile": "smoke", "overrides": {}, "date": "d"}, 60.0)
    page += ft.table_html(rows)
    text = _visible(page)
    assert not _NOT_FOR_READERS.search(text), _NOT_FOR_READERS.search(text)
    for row in rows:
        assert _words(ft.sentence(row)) <= ft.SENTENCE_WORDS
        said = html.escape(ft.COMPARABILITY_SAID[row.comparability])
        assert f"<b>Claim {html.escape(row.claim)}:</b> {said}" in page
        if row.comparability != "same":
            assert row.verdict != audit.REPRODUCED and row.paper_band is None
