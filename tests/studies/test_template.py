"""The template's study: its finding is reproduced on an effect and not on the null."""

from __future__ import annotations

import numpy as np
import pytest

from pruneaudit import audit
from pruneaudit.errors import PruneAuditError
from pruneaudit.studies import template
from pruneaudit.studies.template.run import accuracy_drops, synthetic_curves


def _result(n_classes: int, iterations: int, seed: int, **kw: float) -> template.Result:
    params = template.Params(n_classes=n_classes, iterations=iterations, seed=seed)
    return template.Result(params, synthetic_curves(n_classes, iterations, seed, **kw))


def test_curves_shape_and_hand_computed_drop() -> None:
    curves = synthetic_curves(3, 4, seed=0, noise=0.0)
    assert len(curves) == 3 * 5
    assert np.allclose(curves.groupby("class")["sparsity"].max(), 1 - 0.8**4)
    rng = np.random.default_rng(0)
    fragility = rng.uniform(0.05, 0.6, 3)
    assert np.allclose(accuracy_drops(curves), -fragility * (1 - 0.8**4) ** 3)


def test_run_makes_the_curves_of_its_params() -> None:
    params = template.Params(n_classes=4, iterations=3, seed=2)
    result = template.run(params, None, progress=False)
    assert result.params is params
    assert result.curves.equals(synthetic_curves(4, 3, 2))
    assert template.numbers(result)["n_classes"] == 4


def test_finding_null_and_effect() -> None:
    null = [template.findings(_result(6, 5, s, effect=0.0))[0].verdict for s in range(200)]
    assert sum(v in audit.FAILING for v in null) >= 190
    effect = template.findings(_result(6, 5, 1))[0]
    # the template's own question (no paper): judged against its own null, never "reproduced"
    assert effect.verdict == audit.PRESENT and effect.ours < 0
    assert effect.claim == "T1" and effect.comparability == "beyond"


def test_params_rules() -> None:
    with pytest.raises(PruneAuditError, match="n_classes must be at least 2"):
        template.Params(n_classes=1, iterations=3, seed=0)
    assert template.Params(n_classes=2, iterations=3, seed=0).device == "auto"


def test_charts_have_an_explorer() -> None:
    result = _result(3, 3, 0)
    spec = template.views.class_view(result).to_dict()
    assert spec["params"][0]["bind"]["input"] == "select"
    assert template.key_figure(result).to_dict()["layer"]


def test_protocol_and_cost() -> None:
    table = template.protocol_table(_result(3, 2, 0)).set_index("setting")
    assert table.loc["pruning rounds of 20%", "this page"] == "2 (sparsity 36.0%)"
    assert template.cost(template.Params(n_classes=3, iterations=2, seed=0)) == []
