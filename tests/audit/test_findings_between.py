"""Stability with a spread between builds: simulated builds with a known between-build variance,
its estimate from pairs of builds, and the reading of the replication reports."""

from __future__ import annotations

import importlib
import math
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from pruneaudit import audit
from pruneaudit.audit import between_builds as BB
from pruneaudit.audit.claims import Claim
from pruneaudit.audit.intervals import interval_se

#: The module (``pruneaudit.audit.stability`` as an attribute is the function of that name).
S = importlib.import_module("pruneaudit.audit.stability")


#: Where a test paper measures; an analogue's paper measured on another task.
HERE = audit.Setting("QMNIST", "LeNet", "global magnitude pruning", "a test quantity")


def _settings(kind: str) -> dict:
    """The settings a claim of ``kind`` declares: the same for ``same``, another dataset for an
    analogue (other kinds declare none)."""
    paper = HERE if kind != "analogue" else replace(HERE, dataset="ImageNet")
    return {"paper_setting": paper, "our_setting": HERE}
Q = stats.norm.ppf(0.975)
PAPER, MARGIN = 1.0, 0.5


def rule(low: float, high: float) -> str:
    return audit.verdict(low, high, PAPER, margin=MARGIN)


def _builds(rng, truths, se, tau, n_builds):
    """Each build's estimate of each row: the truth, the build's own effect, sampling noise."""
    return truths[None] + tau * rng.standard_normal((n_builds, truths.size)) + (
        se * rng.standard_normal((n_builds, truths.size)))


def _stated_and_kept(estimates, se, between):
    half = Q * se
    stated, kept = [], []
    for est, rep in zip(estimates[0], estimates[1], strict=True):
        steady, _ = audit.stability(est, est - half, est + half, rule, between_sd=between)
        stated.append(steady)
        kept.append(rule(rep - half, rep + half) == rule(est - half, est + half))
    return np.array(stated), np.array(kept)


def test_stability_with_the_between_build_spread_matches_simulated_builds():
    rng = np.random.default_rng(3)
    se, tau, n = 0.25, 0.25, 1500
    truths = rng.uniform(-3.0, 5.0, n)
    estimates = _builds(rng, truths, se, tau, 2)
    stated, kept = _stated_and_kept(estimates, se, tau)
    firm = stated >= audit.STABLE
    assert firm.sum() > 200
    assert kept.mean() == pytest.approx(stated.mean(), abs=0.03)
    assert kept[firm].mean() == pytest.approx(stated[firm].mean(), abs=0.03)
    assert kept[firm].mean() >= audit.STABLE
    # Sampling alone claims too much when builds differ beyond it.
    naive, _ = _stated_and_kept(estimates, se, 0.0)
    assert naive.mean() - kept.mean() > 0.04


def test_without_a_between_build_spread_the_two_models_agree():
    rng = np.random.default_rng(4)
    se, n = 0.25, 1200
    truths = rng.uniform(-3.0, 5.0, n)
    estimates = _builds(rng, truths, se, 0.0, 2)
    stated, kept = _stated_and_kept(estimates, se, 0.0)
    assert kept.mean() == pytest.approx(stated.mean(), abs=0.03)


def test_the_variance_ratio_recovers_a_known_one():
    rng = np.random.default_rng(5)
    n, ratio = 6000, 0.8
    se_a, se_b = rng.uniform(0.05, 0.5, n), rng.uniform(0.05, 0.5, n)
    tau = np.sqrt(ratio * (se_a**2 + se_b**2) / 2)
    diff = np.sqrt(se_a**2 + se_b**2 + 2 * tau**2) * rng.standard_normal(n)
    z2 = diff**2 / (se_a**2 + se_b**2)
    assert BB.variance_ratio(z2) == pytest.approx(ratio, abs=0.1)
    assert BB.variance_ratio(rng.standard_normal(n) ** 2) == pytest.approx(0.0, abs=0.06)
    assert math.isnan(BB.variance_ratio([]))


def _frame(rng, n_rows, n_builds, se, ratio, study="09_sim"):
    tau = math.sqrt(ratio) * se
    truths = rng.uniform(-3.0, 5.0, n_rows)
    estimates = _builds(rng, truths, se, tau, n_builds)
    rows = []
    for b in range(n_builds):
        for r in range(n_rows):
            est = float(estimates[b, r])
            rows.append({"study": study, "finding": f"D9.{r} row", "kind": "Student t",
                         "paper": PAPER, "build": f"build {b}", "seeds": f"set {b}",
                         "ours": est, "ci_low": est - Q * se, "ci_high": est + Q * se,
                         "verdict": "", "stability": math.nan})
    return pd.DataFrame(rows, columns=list(BB.BUILD_COLUMNS))


def _printed(frame: pd.DataFrame, ratio: float) -> pd.DataFrame:
    """``frame`` with each build's verdict and stability as a build prints them with the
    between-build variance ``ratio`` (:func:`pruneaudit.audit.stability.stability` with the
    between-build spread)."""
    verdicts, steadies = [], []
    for row in frame.itertuples(index=False):
        spread = math.sqrt(ratio) * interval_se(row.ci_low, row.ci_high)
        steady, _ = S.stability(row.ours, row.ci_low, row.ci_high, rule, between_sd=spread)
        verdicts.append(rule(row.ci_low, row.ci_high))
        steadies.append(math.nan if steady is None else steady)
    return frame.assign(verdict=verdicts, stability=steadies)


@pytest.mark.slow
def test_keep_rates_over_all_pairs_of_four_simulated_builds_match_the_prediction():
    """The whole chain on simulated builds with a known between-build variance: the ratio is
    estimated from every pair of four independent builds, and the stabilities it gives predict
    how often firm rows keep their verdict in each other build."""
    rng = np.random.default_rng(6)
    n = 1000
    frame = _frame(rng, n, 4, 0.25, 1.0)
    pairs = BB.independent_pairs(frame)
    assert len(pairs) == n * 6  # every unordered pair of the four builds
    estimated = BB.variance_ratio(pairs.z2)
    assert estimated == pytest.approx(1.0, abs=0.25)
    table, inst = BB.keep_rates_as_printed(_printed(frame, estimated))
    assert len(inst) == n * 12  # ordered pairs
    everything = table.set_index("study").loc["all"]
    kept = everything.firm_kept / everything.firm_pairs
    assert everything.builds == 4 and everything.firm_pairs > 1000
    assert kept == pytest.approx(everything.predicted_keep, abs=0.03)
    assert inst.kept.mean() == pytest.approx(inst.predicted.mean(), abs=0.02)  # all rows
    _, naive = BB.keep_rates_as_printed(_printed(frame, 0.0))
    assert naive.predicted.mean() > inst.kept.mean() + 0.03


def test_builds_that_share_their_seeds_form_no_pair():
    rng = np.random.default_rng(7)
    frame = _frame(rng, 5, 3, 0.25, 0.0)
    frame.loc[frame.build == "build 2", "seeds"] = "set 0"
    pairs = BB.independent_pairs(frame)
    assert set(map(frozenset, zip(pairs.build_a, pairs.build_b, strict=True))) == {
        frozenset({"build 0", "build 1"}), frozenset({"build 1", "build 2"})}


def test_the_package_reads_its_between_build_ratios_by_study():
    table = S.between_builds()
    assert list(table.columns) == list(BB.RATIO_COLUMNS) and (table.ratio >= 0).all()
    assert "all" in set(table.study)
    ratios = table.set_index("study").ratio
    for study in table.study:
        widened = ratios[study] * S.WIDENED.get(study, 1.0)
        assert S.between_ratio_of_study(study) == pytest.approx(widened)
        if study != "all":  # a notebook's NN_ prefix names it too
            assert S.between_ratio_of_study(study[:3]) == pytest.approx(widened)
    assert S.between_ratio_of_study("99_no_such_study") == ratios["all"]
    se = interval_se(-1.0, 1.0)
    assert S.between_sd("05_robustness", -1.0, 1.0) == pytest.approx(
        math.sqrt(S.between_ratio_of_study("05_robustness")) * se)
    assert S.between_sd("05_robustness", math.nan, 1.0) == 0.0
    t_se = interval_se(-1.0, 1.0, df=4)
    assert S.between_sd("05_robustness", -1.0, 1.0, df=4) == pytest.approx(
        math.sqrt(S.between_ratio_of_study("05_robustness")) * t_se)


def test_the_between_build_table_is_a_copy():
    # Identity, not a mutation: a shared frame changed here would change every later caller's.
    assert S.between_builds() is not S.between_builds()
    assert S.between_builds().equals(S.between_builds())


def test_a_finding_takes_the_between_build_spread_of_its_claims_study(monkeypatch):
    # A table with a known spread for one study: its rows' stabilities use it, others' do not.
    table = pd.DataFrame({"study": ["05_robustness", "all"], "ratio": [0.64, 0.0],
                          "pairs": [32, 149], "builds": [4, 5]})
    monkeypatch.setattr(S, "_between_table", lambda: table)
    monkeypatch.setattr(S, "WIDENED", {"05_robustness": 1.0})
    fields = {"says": "the paper says so", "source": "test", "quantity": "a test quantity",
              "comparability": "same", "paper": PAPER, "paper_noise": "test", "margin": MARGIN,
              "margin_reason": "a test margin", **_settings("same")}
    est = audit.Estimate(0.9, 0.9 - Q * 0.2, 0.9 + Q * 0.2, "b")
    rows = {}
    for study in ("05_robustness", "99_test"):
        claim = audit.register(study, [Claim("X1", "X1 a test row", **fields)])["X1"]
        rows[study] = audit.judge(claim, est)
    assert rows["05_robustness"].between_sd == pytest.approx(0.8 * 0.2)
    assert rows["99_test"].between_sd == 0.0  # the pooled "all"
    steady, _ = audit.stability(est.ours, est.ci_low, est.ci_high, rule, between_sd=0.16)
    assert rows["05_robustness"].stability == pytest.approx(steady)
    assert rows["05_robustness"].stability < rows["99_test"].stability
    # an estimate's own between-build spread comes first
    own = audit.judge(claim, replace(est, between=0.16))
    assert own.between_sd == 0.16 and own.stability == pytest.approx(steady)


def test_a_widened_study_multiplies_its_ratio_and_no_other(monkeypatch):
    table = pd.DataFrame({"study": ["05_robustness", "all"], "ratio": [0.5, 0.1],
                          "pairs": [12, 149], "builds": [2, 5]})
    monkeypatch.setattr(S, "_between_table", lambda: table)
    monkeypatch.setattr(S, "WIDENED", {"05_robustness": 3.0})
    assert S.between_ratio_of_study("05_") == pytest.approx(1.5)
    assert S.between_ratio_of_study("01_population_ols") == pytest.approx(0.1)


def test_a_claim_of_no_study_takes_the_pooled_ratio(monkeypatch):
    table = pd.DataFrame({"study": ["01_population_ols", "all"], "ratio": [0.5, 0.1],
                          "pairs": [12, 149], "builds": [2, 5]})
    monkeypatch.setattr(S, "_between_table", lambda: table)
    assert S.between_ratio_of_study("") == 0.1


def test_between_from_groups_recovers_a_known_spread_between_builds():
    rng = np.random.default_rng(11)
    tau, sd, n, builds = 0.05, 0.1, 16, 400
    groups = [rng.normal(tau * rng.standard_normal(), sd, n) for _ in range(builds)]
    assert audit.between_from_groups(groups) == pytest.approx(tau, abs=0.01)
    same = [rng.normal(0.0, sd, n) for _ in range(builds)]
    assert audit.between_from_groups(same) < 0.015
    assert audit.between_from_groups([[1.0, 2.0]]) == 0.0  # one group: no spread between
    assert audit.between_from_groups([[1.0, 2.0], [np.nan, 3.0], [4.0, 5.0]]) == pytest.approx(
        math.sqrt(max(np.var([1.5, 4.5], ddof=1) - 0.25, 0)))


def test_with_between_adds_the_spread_in_quadrature():
    ours, low, high = 1.0, 1.0 - Q * 0.3, 1.0 + Q * 0.6  # asymmetric
    _, lo2, hi2 = audit.with_between(ours, low, high, 0.6)
    se = interval_se(low, high)
    factor = math.hypot(se, 0.6) / se
    assert (lo2, hi2) == pytest.approx((ours - Q * 0.3 * factor, ours + Q * 0.6 * factor))
    assert audit.with_between(ours, low, high, 0.0) == (ours, low, high)
    assert math.isnan(audit.with_between(ours, math.nan, high, 0.2)[1])  # none stays none


def test_keep_rates_as_printed_count_each_ordered_pair_by_the_printed_stability():
    """Three builds of one row, by hand: A firm (0.9) and B firm (0.85) agree, C is borderline
    (0.6) and differs; a fourth row without a stability is left out."""
    def row(build, verdict, stability, finding="D9.1 x"):
        return {"study": "09_x", "finding": finding, "kind": "Student t", "paper": 1.0,
                "build": build, "seeds": build, "ours": 1.0, "ci_low": 0.5, "ci_high": 1.5,
                "verdict": verdict, "stability": stability}

    frame = pd.DataFrame([
        row("A", audit.REPRODUCED, 0.9), row("B", audit.REPRODUCED, 0.85),
        row("C", audit.SIZE_UNCLEAR, 0.6), row("A", audit.OPPOSITE, math.nan, "D9.2 y"),
        row("B", audit.OPPOSITE, math.nan, "D9.2 y"),
    ], columns=list(BB.BUILD_COLUMNS))
    table, inst = BB.keep_rates_as_printed(frame)
    assert len(inst) == 6 and set(inst.finding) == {"D9.1 x"}  # 3 builds, ordered pairs
    firm = inst[inst.firm]
    assert sorted(zip(firm.build_a, firm.build_b, firm.kept, strict=True)) == [
        ("A", "B", True), ("A", "C", False), ("B", "A", True), ("B", "C", False)]
    every = table.set_index("study").loc["all"]
    assert (every.builds, every.firm_pairs, every.firm_kept) == (3, 4, 2)
    assert every.predicted_keep == pytest.approx((0.9 * 2 + 0.85 * 2) / 4, abs=1e-3)


def test_keep_by_band_counts_firm_pairs_per_band_with_an_exact_interval():
    """Two builds of three rows, by hand: a firm row at 0.9 kept both ways, one at 0.97 kept one
    way and lost the other (the other build prints it borderline), one of the ``fixed`` claims
    left out; the interval is Clopper-Pearson's (all kept: from (alpha/2)^(1/n) to 1)."""
    def row(build, claim, verdict, stability):
        return {"study": "09_x", "finding": f"{claim} x", "claim": claim, "kind": "Student t",
                "paper": 1.0, "build": build, "seeds": build, "ours": 1.0, "ci_low": 0.5,
                "ci_high": 1.5, "verdict": verdict, "stability": stability}

    frame = pd.DataFrame([
        row("A", "D9.1", audit.REPRODUCED, 0.9), row("B", "D9.1", audit.REPRODUCED, 0.9),
        row("A", "D9.2", audit.SMALLER, 0.97), row("B", "D9.2", audit.SIZE_UNCLEAR, 0.7),
        row("A", "D9.3", audit.LARGER, 0.99), row("B", "D9.3", audit.SMALLER, 0.99),
    ], columns=[*BB.BUILD_COLUMNS, "claim"])
    table = BB.keep_by_band(frame, fixed=["09_x D9.3"]).set_index(["study", "band"])
    middle, top = table.loc[("all", "0.80-0.95")], table.loc[("all", ">= 0.95")]
    assert (middle.rows, middle.firm_pairs, middle.firm_kept) == (1, 2, 2)
    assert (middle.keep_low, middle.keep_high) == (round(0.025 ** (1 / 2), 3), 1.0)
    assert middle.predicted_keep == pytest.approx(0.9)
    assert (top.firm_pairs, top.firm_kept, top.keep_rate) == (1, 0, 0.0)  # A -> B only
    assert (top.keep_low, top.keep_high) == (0.0, 0.975)
    assert BB.keep_interval(28, 28) == (round(0.025 ** (1 / 28), 3), 1.0)
    assert all(math.isnan(v) for v in BB.keep_interval(0, 0))


def test_keep_by_band_involving_counts_only_the_pairs_with_those_builds():
    """Three builds of one row firm at 0.9, by hand: A and B agree, C differs. Of the 6 ordered
    pairs 2 keep; the 4 with C keep none; the 4 with A keep 2 (A-B, B-A); a build not there
    leaves no pair."""
    def row(build, verdict):
        return {"study": "09_x", "finding": "D9.1 x", "claim": "D9.1", "kind": "Student t",
                "paper": 1.0, "build": build, "seeds": build, "ours": 1.0, "ci_low": 0.5,
                "ci_high": 1.5, "verdict": verdict, "stability": 0.9}

    frame = pd.DataFrame([row("A", audit.REPRODUCED), row("B", audit.REPRODUCED),
                          row("C", audit.SMALLER)], columns=[*BB.BUILD_COLUMNS, "claim"])

    def counts(involving):
        every = BB.keep_by_band(frame, involving=involving).set_index(["study", "band"])
        return tuple(every.loc[("all", "all"), ["firm_pairs", "firm_kept"]])

    assert counts(()) == (6, 2)
    assert counts(["C"]) == (4, 0)
    assert counts(["A"]) == (4, 2)
    assert counts(["Z"]) == (0, 0)


def test_fixed_rows_are_found_from_the_builds():
    """A row is fixed when its estimate and interval are equal in every build that holds it (two
    at least); a row that moves in one build, or that one build alone holds, is not."""
    def row(build, claim, ours, low, high):
        return {"study": "s", "claim": claim, "build": build, "ours": ours, "ci_low": low,
                "ci_high": high}

    frame = pd.DataFrame([
        row("a", "same", 0.5, 0.4, 0.6), row("b", "same", 0.5, 0.4, 0.6),
        row("c", "same", 0.5, 0.4, 0.6),
        row("a", "moves", 0.5, 0.4, 0.6), row("b", "moves", 0.5, 0.4, 0.61),
        row("a", "alone", 0.1, 0.0, 0.2),
        row("a", "untested", math.nan, math.nan, math.nan),
        row("b", "untested", math.nan, math.nan, math.nan),
    ])
    assert BB.fixed_rows(frame) == ["s same"]
