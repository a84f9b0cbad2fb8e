"""The population trainer's scheme keys the runs of the models it stacks: runs made before the
canonical blocks (scheme 1, never in a key) stay readable under their keys but no current spec
finds them; runs of models trained one by one keep their keys."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import torch

from pruneaudit.errors import PruneAuditError
from pruneaudit.models import MODELS, build_model
from pruneaudit.runs import ResultsStore, RunSpec
from pruneaudit.runs.spec import (
    LEGACY_TRAINER_SCHEME,
    STACKED_MODELS,
    TRAINER_SCHEME,
    canonical_key,
)
from pruneaudit.training import supports

BASE = RunSpec("mnist", "lenet", epochs=1, train_size=64, test_size=40)


def _result(prediction: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A made-up evaluation of 4 examples of class 0: per-class table and predictions."""
    correct = float(prediction == 0)
    classes = pd.DataFrame({"class": [0], "accuracy": [correct], "n": [4], "sparsity": [0.0]})
    predictions = pd.DataFrame(
        {"index": np.arange(4), "label": np.zeros(4, int), "prediction": np.full(4, prediction)}
    )
    return classes, predictions


def test_stacked_models_are_those_the_trainer_stacks():
    with torch.device("meta"):  # the layers alone, no weights drawn
        stacked = {m for m in MODELS if supports(build_model(m, 10, 1, 28, seed=0))}
    assert stacked == set(STACKED_MODELS)


@pytest.mark.parametrize("model", ["lenet", "alexnet"])
def test_a_stacked_model_gets_the_current_scheme(model):
    spec = BASE.replace(model=model)
    assert spec.trainer == TRAINER_SCHEME and spec.as_dict()["trainer"] == TRAINER_SCHEME
    assert RunSpec.from_dict(spec.as_dict()) == spec
    assert "trainer" not in spec.columns()  # the tables' columns are unchanged
    legacy = spec.replace(trainer=LEGACY_TRAINER_SCHEME)
    assert legacy.key != spec.key and "trainer" not in legacy.as_dict()
    fields = {k: v for k, v in spec.as_dict().items() if k != "trainer"}
    assert legacy.key == canonical_key(fields)  # the key it had before the scheme existed


@pytest.mark.parametrize("model", ["vgg11", "resnet18"])
def test_a_model_trained_one_by_one_keeps_its_key(model):
    spec = BASE.replace(model=model)
    assert spec.trainer is None and "trainer" not in spec.as_dict()
    assert spec.replace(trainer=TRAINER_SCHEME) == spec  # no scheme to set
    fields = spec.as_dict()
    assert spec.key == canonical_key(fields) and RunSpec.from_dict(fields) == spec


@pytest.mark.parametrize("bad", [0, -1, "2", True])
def test_the_scheme_is_a_positive_integer(bad):
    with pytest.raises(PruneAuditError, match="trainer"):
        BASE.replace(trainer=bad)


def test_a_run_of_the_legacy_scheme_is_kept_but_not_found(tmp_path):
    """A run stored before the scheme (its spec.json without ``trainer``) is read as the legacy
    spec it is, under its own key; today's spec of the same run finds nothing (to be trained
    anew), and once saved both are there, each under its own key."""
    store = ResultsStore(tmp_path)
    legacy = BASE.replace(trainer=LEGACY_TRAINER_SCHEME)
    store.save(legacy, *_result(1))
    written = json.loads((store.path(legacy) / "spec.json").read_text())
    assert "trainer" not in written  # what older code wrote
    assert store.has(legacy) and not store.has(BASE)
    assert store.keys() == [legacy.key]
    assert store.load(legacy.key).spec == legacy
    store.save(BASE, *_result(0))
    assert store.load(BASE).spec == BASE and store.load(BASE).spec.trainer == TRAINER_SCHEME
    assert store.keys() == sorted([legacy.key, BASE.key])
    assert set(store.runs()["trainer"].fillna(LEGACY_TRAINER_SCHEME)) == {1, 2}


def test_a_legacy_spec_is_never_trained(tmp_path, data_root):
    """This code trains with the current scheme only: a spec of the legacy one would be stored
    mislabelled, so making it is one clear error (reading it stays possible)."""
    from pruneaudit.runs import populations

    legacy = populations.member_specs(BASE.replace(trainer=LEGACY_TRAINER_SCHEME), [0])
    with pytest.raises(PruneAuditError, match="trains with scheme 2 only"):
        populations.run_population(legacy, ResultsStore(tmp_path), str(data_root), progress=False)
    assert ResultsStore(tmp_path).keys() == []
