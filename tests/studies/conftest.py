"""Fixtures shared by the study tests."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from pruneaudit.studies import compression_impact as impact


@pytest.fixture()
def impact_params() -> Callable[..., impact.Params]:
    """A factory of Study 4's parameters: a tiny qmnist / LeNet protocol, ``**changes`` over it."""

    def make(**changes: object) -> impact.Params:
        values = {
            "dataset": "qmnist", "model": "lenet", "seeds": (0, 1, 2), "levels": (0.9,),
            "schemes": ("float16",), "independent_seeds": True, "epochs": 1, "lr": 0.01,
            "batch_size": 32, "augment": True, "train_size": 100, "test_size": 6,
            "group": "series", "hard_group": "hsf4", "subgroup_reduce": "modal", "alpha": 0.05,
            "percentiles": (90,), "tie_seed": 0, "n_perm": 19, "n_boot": 19, "gallery_size": 6,
        }
        return impact.Params(**{**values, **changes})

    return make
