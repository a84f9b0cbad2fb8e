"""Pooling the builds' estimates (:mod:`pruneaudit.audit.pooled`): hand-computed inverse-variance
and DerSimonian-Laird cases, statsmodels' own result, and which builds a row's pool leaves out."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.meta_analysis import combine_effects

from pruneaudit.audit import pooled
from pruneaudit.audit.claims import Claim
from pruneaudit.errors import PruneAuditError

Z = stats.norm.ppf(0.975)


def test_fixed_effect_is_the_hand_computed_inverse_variance_mean() -> None:
    # w = 1 / se^2 = 1 and 0.25: (0 * 1 + 1 * 0.25) / 1.25 = 0.2, se = sqrt(1 / 1.25)
    out = pooled.combine(np.array([0.0, 1.0]), np.array([1.0, 2.0]))
    se = math.sqrt(1 / 1.25)
    assert out["model"] == pooled.FIXED
    assert out["pooled"] == pytest.approx(0.2)
    assert out["pooled_low"] == pytest.approx(0.2 - Z * se)
    assert out["pooled_high"] == pytest.approx(0.2 + Z * se)
    # Q = 1 * 0.2^2 + 0.25 * 0.8^2 = 0.2 on 1 df: the builds agree within their intervals
    assert out["q"] == pytest.approx(0.2)
    assert out["q_p"] == pytest.approx(stats.chi2.sf(0.2, 1))


def test_pools_agree_with_statsmodels_on_a_small_case() -> None:
    effects, variances = np.array([0.1, 0.3, 0.2, 0.5]), np.array([0.01, 0.02, 0.015, 0.03])
    out = pooled.combine(effects, np.sqrt(variances))
    frame = combine_effects(effects, variances, method_re="dl", use_t=False).summary_frame()
    for name, row in (("fixed", "fixed effect"), ("random", "random effect")):
        assert out[name] == pytest.approx(frame.loc[row, "eff"])
        assert out[f"{name}_low"] == pytest.approx(frame.loc[row, "ci_low"])
        assert out[f"{name}_high"] == pytest.approx(frame.loc[row, "ci_upp"])


def test_random_effects_are_chosen_when_the_builds_disagree_beyond_their_intervals() -> None:
    # w = 100 each, fixed 1.5, Q = 100 * (2.25 + 0.25 + 0.25 + 2.25) = 500 on 3 df,
    # c = 400 - 4 * 100^2 / 400 = 300, tau^2 = (500 - 3) / 300
    out = pooled.combine(np.array([0.0, 1.0, 2.0, 3.0]), np.full(4, 0.1))
    tau2 = 497 / 300
    assert out["model"] == pooled.RANDOM
    assert out["q"] == pytest.approx(500)
    assert out["tau2"] == pytest.approx(tau2)
    assert out["i2"] == pytest.approx(497 / 500)
    se = math.sqrt((0.01 + tau2) / 4)
    assert (out["pooled"], out["pooled_high"]) == pytest.approx((1.5, 1.5 + Z * se))
    assert out["fixed_high"] - out["fixed"] == pytest.approx(Z * 0.05)


def test_tau2_is_truncated_at_zero_where_the_builds_agree_closely() -> None:
    out = pooled.combine(np.array([1.0, 1.01, 0.99]), np.ones(3))
    assert out["tau2"] == 0 and out["i2"] == 0 and out["model"] == pooled.FIXED
    assert (out["random_low"], out["random_high"]) == (out["fixed_low"], out["fixed_high"])
    with pytest.raises(PruneAuditError, match="at least 2"):
        pooled.combine(np.array([1.0]), np.array([0.1]))


def test_standard_error_and_asymmetry_come_from_the_interval() -> None:
    assert pooled.standard_error(-1.0, 3.0) == pytest.approx(4 / (2 * Z))
    assert math.isnan(pooled.standard_error(0.5, 0.5))
    assert math.isnan(pooled.standard_error(math.nan, 1.0))
    assert not pooled.asymmetric(1.0, 0.0, 2.0)
    assert pooled.asymmetric(0.9, 0.5, 1.0)


def _row(study: str, claim: str, build: str, ours: float, low: float, high: float,
         kind: str = "same") -> dict:
    return {"study": study, "claim": claim, "finding": f"{claim} name", "kind": kind,
            "paper": 0.3, "build": build, "ours": ours, "ci_low": low, "ci_high": high}


def test_pool_leaves_out_zero_width_builds_and_rows_no_seed_changes() -> None:
    rows = [
        _row("02_a", "D2.1", "default", 0.0, -1.0, 1.0),
        _row("02_a", "D2.1", "other", 1.0, -3.0, 5.0),
        _row("02_a", "D2.1", "other2000", 0.4, 0.4, 0.4),  # zero width: left out
        _row("02_a", "D2.2", "default", 0.2, 0.1, 0.3),
        _row("02_a", "D2.2", "other", 0.2, 0.1, 0.3),  # the same in every build
        _row("02_a", "D2.3", "default", 0.2, 0.1, 0.3),
        _row("02_a", "D2.3", "other", 0.5, 0.5, 0.5),  # one build with an interval
        _row("02_a", "D2.9 excess", "default", 0.2, 0.1, 0.3, kind="beyond"),
        _row("02_a", "D2.9 excess", "other", 0.1, 0.0, 0.2, kind="beyond"),
    ]
    claim = Claim("D2.1", "n", says="s", source="P", quantity="q", comparability="same",
                  side=-1, unit="points", null=0.1)
    out = pooled.pool(pd.DataFrame(rows), {("02_a", "D2.1"): claim}).set_index("claim")
    assert list(out.index) == ["D2.1", "D2.2", "D2.3"]  # beyond rows are not the paper's
    first = out.loc["D2.1"]
    se = np.array([2.0, 8.0]) / (2 * Z)
    w = 1 / se**2
    assert first.builds == 2 and first.left_out == 1 and first.model == pooled.FIXED
    assert first.pooled == pytest.approx((w * [0.0, 1.0]).sum() / w.sum())
    assert (first.default, first.default_low, first.default_high) == (0.0, -1.0, 1.0)
    assert (first.unit, first.null, first.side) == ("points", 0.1, -1)
    assert out.loc["D2.2", "model"] == pooled.SAME_EVERYWHERE
    assert math.isnan(out.loc["D2.2", "pooled"])
    assert out.loc["D2.3", "model"] == pooled.TOO_FEW and out.loc["D2.3", "builds"] == 1
    assert math.isnan(out.loc["D2.3", "null"])  # no declared claim given: no null
    forest = pooled.forest_frame(pd.DataFrame(rows), out.reset_index())
    mine = forest[forest.claim == "D2.1"]
    assert list(mine.source) == ["default build", "other build", "other build", "pooled"]
    assert mine.build.iloc[-1] == f"pooled ({pooled.FIXED})"
