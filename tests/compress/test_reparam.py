"""Tests of pruneaudit.compress.reparam: the one reader of torch's pruning internals."""

from __future__ import annotations

import torch
import torch.nn.utils.prune as prune
from torch import nn

from pruneaudit.compress import reparam


def test_unpruned_module_has_no_hooks():
    layer = nn.Linear(4, 3)
    assert reparam.pruning_hooks(layer) == {}
    assert not reparam.is_pruned(layer, "weight")
    assert reparam.pruned_tensors(layer, "weight") is None
    before = layer.weight
    reparam.refresh_effective_weight(layer, "weight")  # nothing to do
    assert layer.weight is before


def test_hooks_tensors_and_refresh_after_pruning_twice():
    layer = nn.Linear(4, 3)
    prune.l1_unstructured(layer, "weight", amount=3)
    prune.random_unstructured(layer, "bias", amount=1)
    prune.l1_unstructured(layer, "weight", amount=2)  # a PruningContainer now
    hooks = reparam.pruning_hooks(layer)
    assert set(hooks) == {"weight", "bias"}
    assert isinstance(hooks["weight"], prune.PruningContainer)
    orig, mask = reparam.pruned_tensors(layer, "weight")
    assert orig is layer.weight_orig and mask is layer.weight_mask
    assert int((mask == 0).sum()) == 5
    with torch.no_grad():
        orig.fill_(2.0)
    reparam.refresh_effective_weight(layer, "weight")
    assert torch.equal(layer.weight, 2.0 * mask)


def test_hooks_of_a_module_are_its_own_not_its_childrens():
    net = nn.Sequential(nn.Linear(2, 2))
    prune.identity(net[0], "weight")
    assert reparam.pruning_hooks(net) == {}
    assert set(reparam.pruning_hooks(net[0])) == {"weight"}
