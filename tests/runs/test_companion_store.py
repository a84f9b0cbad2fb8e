"""What the store keeps under a key does not depend on what was computed before: a study's runs
computed alone into an empty store are those computed after another study that made some of
the same runs in other populations (:mod:`pruneaudit.training.stacked`'s canonical blocks)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import torch

from pruneaudit.book.profiles import Profile, study_of
from pruneaudit.runs.store import ResultsStore


def _compute(store: Path, names: list[str], data_root: Path) -> ResultsStore:
    """Run the studies of notebooks ``names`` on the smoke profile, in order, into ``store``."""
    profile = Profile.read("smoke", {"store": str(store), "data_root": str(data_root)})
    for name in names:
        params = profile.study_params(name)
        study_of(name).run(params, ResultsStore(params.store), progress=False)
    return ResultsStore(store)


@pytest.mark.slow
def test_study_3_alone_equals_study_3_after_study_1(tmp_path: Path, data_root: Path) -> None:
    alone = _compute(tmp_path / "alone", ["03_pareto_selection"], data_root)
    first = _compute(tmp_path / "after", ["01_population_ols"], data_root)
    made_by_study_1 = set(first.keys()) & set(alone.keys())
    after = _compute(tmp_path / "after", ["03_pareto_selection"], data_root)
    keys = alone.keys()  # a ResultsStore is not a mapping
    assert made_by_study_1  # else this test would compare nothing made elsewhere
    assert set(keys) <= set(after.keys())
    for key in keys:
        a, b = alone.load(key), after.load(key)
        pd.testing.assert_frame_equal(a.predictions, b.predictions)
        pd.testing.assert_frame_equal(a.classes, b.classes)
        if a.has_checkpoint:
            x, y = a.checkpoint(), b.checkpoint()
            assert list(x) == list(y) and all(torch.equal(x[n], y[n]) for n in x), key
