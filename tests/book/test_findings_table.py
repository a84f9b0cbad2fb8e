"""The findings table for people: rounding, units, sentences and the HTML (hand cases)."""

from __future__ import annotations

import math

import pytest

from pruneaudit import audit
from pruneaudit.book import findings_table as ft


def _row(**kw):
    base = dict(source="H1; Table 6", basis="K = 16 members per population")
    return audit.finding(**{**dict(name="D4.5 PIE accuracy minus all", ours=-0.401,
                                   ci_low=-0.440, ci_high=-0.362, paper=-0.3694), **base, **kw})


@pytest.mark.parametrize(
    ("low", "high", "unit", "expected"),
    [
        (-0.440, -0.362, "", 3),  # half-width 0.039 -> 0.039 (2 significant digits)
        (-0.440, -0.362, "points", 1),  # 3.9 points -> 3.9
        (0.0075, 0.0119, "", 4),  # 0.0022 -> capped at 4 decimals
        (0.0, 40.0, "", 0),  # 20 -> 20
        (math.nan, 1.0, "", 3),  # no interval
        (1.0, 1.0, "", 3),  # no width
    ],
)
def test_decimals_keep_two_significant_digits_of_the_half_width(low, high, unit, expected):
    assert ft.decimals(low, high, unit) == expected


def test_numbers_use_the_papers_unit_and_a_true_minus():
    assert ft.number(-0.401, "points", 1) == "\u221240.1 pts"
    assert ft.number(0.0097, "percent", 2) == "0.97%"
    assert ft.number(-0.0001, "", 2) == "0.00"  # no negative zero
    assert ft.number(None) == "\u2014" and ft.number(math.nan) == "\u2014"
    row = _row(unit="points")
    assert ft.ours_text(row) == "\u221240.1 pts [\u221244.0, \u221236.2]"
    assert ft.paper_text(row) == "\u221236.94 pts"
    assert ft.ours_text(_row()) == "\u22120.401 [\u22120.440, \u22120.362]"


def test_a_row_without_interval_or_power_says_so():
    row = audit.finding("D2.1 x", -0.15, math.nan, math.nan, -0.19, source="P; Sec. 4.1",
                        basis="two seeds")
    assert ft.ours_text(row).endswith("[no interval]")
    assert ft.power_text(row) == "\u2014"
    assert row.verdict == audit.INCONCLUSIVE


def test_sentences_say_what_was_found_and_what_the_verdict_means():
    said = ft.sentence(_row(unit="points"))
    assert said.startswith("**D4.5** PIE accuracy minus all: ours \u221240.1 pts")
    assert "the paper: \u221236.94 pts" in said
    assert "The effect is there, on the paper's side (firm); about the paper's size." in said
    # Its interval sits near the paper's value: a replication would often call it larger.
    assert "*borderline: reproduced / same direction, larger*" in said
    assert ft.MEANING[audit.REPRODUCED] in said and "keep this verdict only 60%" in said
    firm = _row(ours=-0.37, ci_low=-0.38, ci_high=-0.36, paper=-0.3694)
    assert "*reproduced*: " + ft.MEANING[audit.REPRODUCED] in ft.sentence(firm)
    assert ft.stability_text(firm) == f"firm ({firm.stability:.2f})"
    gone = audit.not_testable("D4.7 CelebA", None, source="H2; Fig. 2", why="no images offline")
    assert ft.sentence(gone) == "**D4.7** CelebA: not testable here (no images offline)."
    assert set(ft.MEANING) == set(audit.VERDICTS)


def test_table_has_one_row_and_one_details_row_per_finding_and_a_legend():
    rows = [_row(unit="points", definition="mean-member top-1 on PIEs minus on all <test>",
                 excess=(0.11, 0.05, 0.17)),
            audit.not_testable("D4.7 CelebA", None, source="H2; Fig. 2", why="no images")]
    page = ft.table_html(rows)
    assert page.count('<tr class="pa-row">') == 2 and page.count('class="pa-details"') == 2
    assert "&lt;test&gt;" in page and "<test>" not in page  # text is escaped
    assert "Beyond dense-vs-dense noise:</b> 11.0 pts [5.0, 17.0]" in page
    assert '<a href="../intro.html">H1</a>; Table 6' in page
    assert '<a href="../methods_audit.html#finding-d4-5">D4.5</a>' in page
    for verdict in audit.VERDICTS:  # every verdict has its label class in the legend
        slug = verdict.replace(",", "").replace(" ", "-")
        assert f'pa-v-{slug}"' in page
    assert "pa-v-reproduced" in page and "pa-v-not-testable-here" in page
    # Direction first, size second, and the borderline row names both verdicts it sits between.
    assert '<td data-label="Effect there?">yes</td>' in page
    assert "about the paper&#x27;s</td>" in page
    assert 'borderline:</span> <span class="pa-verdict pa-v-reproduced">' in page
    assert "borderline (0.60)" in page


def test_an_underpowered_inconclusive_row_says_what_would_resolve_it():
    # 6 seeds, -0.196 [-0.41, 0.017] against -0.19: t power about 0.46
    row = audit.finding("D2.1 accuracy falls", -0.196, -0.41, 0.017, -0.19, source="P; Fig. 7",
                        basis="per-seed change, Student-t over 6 seeds", df=5)
    assert row.verdict == audit.INCONCLUSIVE and row.units == 6
    assert row.needed == audit.units_for_power(-0.41, 0.017, -0.19, 6)
    said = ft.sentence(row)
    assert said.endswith(
        f"at this budget; about {row.needed} seeds (this build: 6) would give power 0.8."
    )
    assert "would give power 0.8" in ft.table_html([row])
    # a row with the power it needs says nothing of the budget
    assert ft.budget_text(_row(df=15)) == "" and "budget" not in ft.sentence(_row(df=15))


@pytest.mark.parametrize(
    ("basis", "word"),
    [
        ("per-seed change, Student-t over 6 seeds", "seeds"),
        ("mean over 6 dense models (each averaged over its series)", "dense models"),
        ("jackknife over 6 (dataset, class) clusters", "units"),
    ],
)
def test_the_units_are_named_from_the_basis(basis, word):
    row = audit.finding("D9.9 x", -0.1, -0.3, 0.1, -0.2, source="P", basis=basis, df=5)
    assert ft.budget_text(row).startswith(f"about {row.needed} {word} (this build: 6)")
