"""Every Study 4 verdict can fail: under a simulated null of its own statistic it gives a failing
verdict (inconclusive, not reproduced or opposite) in at least 95% of 200 draws, and an effect of
the paper's size gives "reproduced".

Each row's null is the world in which its raw statistic has no effect: the class, group and trend
rows when every population is drawn from the dense members' distribution; the PIE and CIE
accuracy gaps when the compressed members' disagreement is unrelated to the examples'
difficulty (they vote at random); the PIE share when the two populations agree everywhere."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from pruneaudit import audit
from pruneaudit.studies import compression_impact as impact
from pruneaudit.studies.compression_impact.findings import CIE_SET_WIDEN

C = 10
DRAWS = 200


def _members(rng, k: int, p_right: np.ndarray, y: np.ndarray, wrong: np.ndarray) -> np.ndarray:
    """K members: each predicts y[x] with probability p_right[x], else wrong[x]."""
    return np.where(rng.random((k, y.size)) < p_right[None], y[None], wrong[None])


def _task(rng, n: int):
    y = rng.integers(0, C, n)
    return y, (y + rng.integers(1, C, n)) % C


def _key(row: audit.Finding) -> str:
    name = row.finding
    return name.split(" ")[0] + (" trend" if " trend" in name else "") + (
        " step" if "top 1%" in name else "")


def _passing(rows, counts: Counter, keys) -> None:
    for row in rows:
        if _key(row) in keys:
            counts[_key(row)] += row.verdict not in audit.FAILING


def test_class_group_and_trend_rows_fail_under_the_null():
    rng = np.random.default_rng(0)
    counts: Counter = Counter()
    keys = {"D4.1", "D4.2", "D4.4", "D4.9", "D4.11", "D4.1 trend", "D4.3 trend", "D4.6 trend"}
    for draw in range(DRAWS):
        y, wrong = _task(rng, 160)
        half = rng.beta(6, 1, 80)
        p = np.concatenate([half, half])  # both series equally hard, example by example
        groups = np.repeat(["hsf0", "hsf4"], 80)
        base, *others = (_members(rng, 6, p, y, wrong) for _ in range(5))
        rows = impact.exemplar_findings(y, base, others[2], C, groups, hard="hsf4", n_perm=19,
                                        n_boot=49, seed=draw)
        rows += impact.class_findings(y, base, others[2], {"dynamic_int8": others[3]}, C)
        levels = dict(zip((0.5, 0.7, 0.9), others[:3], strict=True))
        rows += impact.trend_findings(y, base, levels, C, n_boot=49, seed=draw)
        _passing(rows, counts, keys)
    assert set(counts) == keys
    assert max(counts.values()) <= DRAWS // 20, counts  # at least 95% of the draws fail


def test_pie_and_cie_gaps_fail_when_no_example_is_harder():
    """A disagreement set is hard by selection whenever some examples are harder than others
    (the excess column measures that part); the raw gaps are null when every example is as hard
    as any other for both populations: members voting at chance."""
    rng = np.random.default_rng(1)
    counts: Counter = Counter()
    keys = {"D4.5", "D4.6", "D4.10", "D4.10 step"}
    for draw in range(DRAWS):
        y, _ = _task(rng, 200)
        base, noise = rng.integers(0, C, (2, 6, y.size))
        _passing(impact.exemplar_findings(y, base, noise, C, None, n_perm=19, n_boot=49,
                                          seed=draw), counts, keys)
    assert set(counts) == keys
    assert max(counts.values()) <= DRAWS // 20, counts


def test_no_disagreement_gives_no_pie_share():
    rng = np.random.default_rng(2)
    y, wrong = _task(rng, 200)
    one = np.repeat(_members(rng, 1, np.full(y.size, 0.8), y, wrong), 6, axis=0)
    rows = {_key(r): r for r in impact.exemplar_findings(y, one, one.copy(), C, n_perm=19,
                                                         n_boot=49)}
    assert rows["D4.3"].ours == 0 and rows["D4.3"].verdict in audit.FAILING
    assert rows["D4.3"].excess[0] == 0  # two identical populations: no PIE in any re-split


def _verdicts(rows) -> dict[str, str]:
    return {_key(r): r.verdict for r in rows}


def test_pies_of_h1s_share_and_hardness_are_reproduced():
    """4% of the digits forgotten (dense right, pruned wrong), 6.5% learned (dense wrong,
    pruned right), 15% hard for both: H1's 10.27% PIEs, 39.81 - 76.75 and 81.20 - 76.75."""
    rng = np.random.default_rng(0)
    y, wrong = _task(rng, 3000)
    u = rng.random(y.size)
    pb, pc = np.full(y.size, 0.97), np.full(y.size, 0.97)
    forgot, learned = u < 0.04, (u >= 0.04) & (u < 0.105)
    hard = (u >= 0.105) & (u < 0.255)
    pb[forgot], pc[forgot] = 0.95, 0.02
    pb[learned], pc[learned] = 0.1, 0.8
    pb[hard], pc[hard] = 0.05, 0.05
    rows = impact.exemplar_findings(y, _members(rng, 8, pb, y, wrong),
                                    _members(rng, 8, pc, y, wrong), C, None, n_perm=19,
                                    n_boot=99)
    verdicts = _verdicts(rows)
    for key in ("D4.3", "D4.5", "D4.6"):
        assert verdicts[key] == audit.REPRODUCED, rows
    assert verdicts["D4.9"] == audit.NOT_TESTABLE  # no groups given


def test_cie_accuracy_of_h2s_size_is_reproduced():
    """The top 1% split between forgotten and learned digits, the next 9% half forgotten: H2's
    62.35 - 94.07 and 50.10 - 62.35."""
    rng = np.random.default_rng(2)
    y, wrong = _task(rng, 6000)
    u = rng.random(y.size)
    pb, pc = np.full(y.size, 0.97), np.full(y.size, 0.97)
    learned, forgot, next9 = u < 0.005, (u >= 0.005) & (u < 0.01), (u >= 0.01) & (u < 0.1)
    pb[learned], pc[learned] = 0.05, 0.95
    pb[forgot], pc[forgot] = 0.95, 0.05
    pc[next9] = 0.6
    rows = impact.exemplar_findings(y, _members(rng, 8, pb, y, wrong),
                                    _members(rng, 8, pc, y, wrong), C, None, n_perm=19,
                                    n_boot=99)
    verdicts = _verdicts(rows)
    assert verdicts["D4.10"] == verdicts["D4.10 step"] == audit.REPRODUCED, rows


def test_forgetting_the_harder_series_reproduces_the_group_rows():
    rng = np.random.default_rng(1)
    y, wrong = _task(rng, 3000)
    groups = np.repeat(["hsf0", "hsf4"], 1500)
    pb = np.where(groups == "hsf4", 0.90, 0.95)
    pc = np.where(groups == "hsf4", 0.865, 0.94)  # error rises 35% and 20%: H2's 35.84 - 20.64
    rows = impact.exemplar_findings(y, _members(rng, 8, pb, y, wrong),
                                    _members(rng, 8, pc, y, wrong), C, groups, n_perm=19,
                                    n_boot=99)
    verdicts = _verdicts(rows)
    assert verdicts["D4.9"] == verdicts["D4.11"] == audit.REPRODUCED, rows


def test_growing_harm_reproduces_the_trends():
    """The hardest digits forgotten, more of them at each level (1%, 4%, 8%, 15%): K = 16 members
    (with 8 the bootstrap spread of the non-PIE lift's trend covers 0)."""
    rng = np.random.default_rng(3)
    y, wrong = _task(rng, 2000)
    pb = rng.beta(8, 1, y.size)
    base = _members(rng, 16, pb, y, wrong)
    levels = {}
    for t, share in ((0.5, 0.01), (0.7, 0.04), (0.9, 0.08), (0.95, 0.15)):
        pc = pb.copy()
        pc[np.argsort(pb)[: int(share * y.size)]] = 0.02
        levels[t] = _members(rng, 16, pc, y, wrong)
    rows = impact.trend_findings(y, base, levels, C, n_boot=99)
    assert set(_verdicts(rows).values()) == {audit.REPRODUCED}, rows


def test_class_specific_harm_reproduces_d41_and_d42():
    """Three classes lose 10 points and three gain 10 (top-1 unchanged): 6 of 10 significant,
    against H1's 637 of 1,000 and (637 - 144) / 1,000 for dynamic int8."""
    rng = np.random.default_rng(3)
    y, wrong = _task(rng, 2000)
    p = np.full(y.size, 0.85)
    base = _members(rng, 8, p, y, wrong)
    quant = _members(rng, 8, p, y, wrong)
    comp = _members(rng, 8, np.select([y < 3, y < 6], [0.75, 0.95], 0.85), y, wrong)
    rows = impact.class_findings(y, base, comp, {"dynamic_int8": quant}, C)
    assert _verdicts(rows)["D4.1"] == _verdicts(rows)["D4.2"] == audit.REPRODUCED
    assert 0.5 <= rows[0].ours <= 0.8 and rows[1].power > 0.5
    assert "dynamic_int8" in rows[1].finding and rows[1].paper == (637 - 144) / 1000


def test_no_quantization_makes_d42_not_testable():
    rng = np.random.default_rng(4)
    y, wrong = _task(rng, 100)
    p = np.full(y.size, 0.9)
    rows = impact.class_findings(y, _members(rng, 3, p, y, wrong), _members(rng, 3, p, y, wrong),
                                 {}, C)
    assert rows[1].verdict == audit.NOT_TESTABLE


def test_vectorized_welch_and_spearman_match_scipy():
    import importlib

    from scipy import stats

    module = importlib.import_module("pruneaudit.studies.compression_impact.trends")

    rng = np.random.default_rng(5)
    a, b = rng.normal(0, 1, (6, 40)), rng.normal(0.5, 2, (5, 40))
    b[:, 0] = a[:, 0] = 1.0  # a constant class: not significant
    p = stats.ttest_ind(b, a, equal_var=False, axis=0).pvalue
    assert module._welch_share(a, b, 0.05) == np.mean(np.nan_to_num(p, nan=1) <= 0.05)
    x, v = np.array([0.5, 0.7, 0.9, 0.95]), np.array([3.0, 1.0, 3.0, 7.0])
    assert module._spearman(x, v) == pytest.approx(stats.spearmanr(x, v).statistic)


def test_d411_interval_is_the_member_bootstrap_widened(monkeypatch):
    rng = np.random.default_rng(2)
    y, wrong = _task(rng, 2000)
    groups = np.repeat(["hsf0", "hsf4"], 1000)
    pb = np.where(groups == "hsf4", 0.90, 0.95)
    base, comp = _members(rng, 8, pb, y, wrong), _members(rng, 8, pb - 0.03, y, wrong)

    def d411():
        rows = impact.exemplar_findings(y, base, comp, C, groups, n_perm=9, n_boot=49)
        return next(r for r in rows if r.finding.startswith("D4.11"))

    wide = d411()
    monkeypatch.setattr(audit, "widened", lambda ours, lo, hi, factor: (ours, lo, hi))
    plain = d411()
    assert wide.ours == plain.ours and "widened 1.5x" in wide.basis
    assert wide.ci_high - wide.ours == pytest.approx(
        CIE_SET_WIDEN * (plain.ci_high - plain.ours))
    assert wide.ours - wide.ci_low == pytest.approx(
        CIE_SET_WIDEN * (plain.ours - plain.ci_low))
