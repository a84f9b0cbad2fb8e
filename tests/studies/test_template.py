"""The template's study: its finding is reproduced on an effect and not on the null."""

from __future__ import annotations

import numpy as np
import pytest

from pruneaudit import audit
from pruneaudit.errors import PruneAuditError
from pruneaudit.studies import template


def test_curves_shape_and_hand_computed_drop() -> None:
    curves = template.synthetic_curves(3, 4, seed=0, noise=0.0)
    assert len(curves) == 3 * 5
    assert np.allclose(curves.groupby("class")["sparsity"].max(), 1 - 0.8**4)
    rng = np.random.default_rng(0)
    fragility = rng.uniform(0.05, 0.6, 3)
    assert np.allclose(template.accuracy_drops(curves), -fragility * (1 - 0.8**4) ** 3)


def test_finding_null_and_effect() -> None:
    null = [
        template.findings(template.synthetic_curves(6, 5, seed=s, effect=0.0))[0].verdict
        for s in range(200)
    ]
    assert sum(v in audit.FAILING for v in null) >= 190
    effect = template.findings(template.synthetic_curves(6, 5, seed=1))[0]
    assert effect.verdict == "reproduced" and effect.ours < 0


def test_params_rules() -> None:
    with pytest.raises(PruneAuditError, match="n_classes must be at least 2"):
        template.Params(n_classes=1, iterations=3, seed=0)
    assert template.Params(n_classes=2, iterations=3, seed=0).device == "auto"


def test_charts_have_an_explorer() -> None:
    curves = template.synthetic_curves(3, 3, seed=0)
    spec = template.class_view(curves).to_dict()
    assert spec["params"][0]["bind"]["input"] == "select"
    assert template.key_figure(curves).to_dict()["layer"]
