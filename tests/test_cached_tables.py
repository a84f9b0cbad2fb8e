"""Cached tables are read-only: what a cached loader hands out cannot be changed by one caller
for the next, either because each call gets its own copy or because the value is immutable."""

from __future__ import annotations

import dataclasses
import importlib

import pytest
import torch

from pruneaudit import audit, data
from pruneaudit.audit.stability import between_builds

# (the packages export functions of their modules' names, so the modules are imported by name)
impact_tables = importlib.import_module("pruneaudit.studies.compression_impact.tables")
robustness_claims = importlib.import_module("pruneaudit.studies.robustness.claims")


@pytest.mark.parametrize("loader", [audit.published, between_builds],
                         ids=["published", "between_builds"])
def test_changing_a_returned_table_leaves_the_next_call_alone(loader) -> None:
    before = loader()
    mine = loader()
    mine.iloc[:, -1] = -1
    mine.iloc[0, 0] = mine.iloc[1, 0]
    mine["added"] = 1
    after = loader()
    assert after.equals(before) and after is not mine


def test_the_lookups_hand_out_frozen_rows() -> None:
    row = audit.published().iloc[0]
    found = audit.lookup(row.study, row.metric, id=str(row.id))
    with pytest.raises(dataclasses.FrozenInstanceError):
        found.number = 0.0
    for module in (impact_tables, robustness_claims):
        study = audit.published()
        first = study[study.study == module.STUDY].dropna(subset=["number"]).iloc[0]
        hit = module.lookup(first.metric, id=str(first.id))
        with pytest.raises(dataclasses.FrozenInstanceError):
            hit.value = "changed"
        assert module.lookup(first.metric, id=str(first.id)).number == first.number


def test_normalize_shares_no_tensor_between_calls() -> None:
    spec = data.DATASETS["mnist"]
    images = torch.full((2, 1, 28, 28), 255, dtype=torch.uint8)
    expected = (1.0 - spec.mean[0]) / spec.std[0]
    first = data.normalize(images, spec)
    first.mul_(0).add_(7)  # a caller changing its result in place
    again = data.normalize(images, spec)
    torch.testing.assert_close(again, torch.full_like(again, expected))
