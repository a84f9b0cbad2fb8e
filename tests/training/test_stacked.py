"""Population training equals member-by-member training (tiny MNIST subsets, 1 epoch, small K).

Tolerance: a member trained inside a population must match the same seed trained alone by
``train`` with ``torch.testing.assert_close(rtol=1e-5, atol=1e-6)`` on every parameter and
buffer (the two paths use different convolution/matmul kernels, so the last bits differ);
masks must be equal exactly.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from pruning_procedures import prune_step
from torch import nn

from pruneaudit import compress, data, training
from pruneaudit.errors import PruneAuditError
from pruneaudit.models import build_model
from pruneaudit.training import (
    TrainConfig,
    evaluate,
    evaluate_population,
    predict,
    stacked,
    supports,
    train,
    train_population,
)

RTOL, ATOL = 1e-5, 1e-6
#: The large architectures' variants (5-11 s each) run in `make test-slow`; LeNet's check
#: the same path in `make test`.
SLOW_ALEXNET = pytest.param("alexnet", marks=pytest.mark.slow)


def _build(arch: str, seeds, image_size: int = 28) -> list[nn.Module]:
    return [build_model(arch, 10, 1, image_size, seed=s) for s in seeds]


def _assert_same(alone: nn.Module, member: nn.Module) -> None:
    a, b = alone.state_dict(), member.state_dict()
    assert list(a) == list(b)
    for key in a:
        if key.endswith("_mask"):
            assert torch.equal(a[key], b[key]), key
        else:
            torch.testing.assert_close(b[key], a[key], rtol=RTOL, atol=ATOL, msg=key)
    # the effective weight a pruned layer uses is up to date
    for name, module in member.named_modules():
        if hasattr(module, "weight_orig"):
            expected = module.weight_orig * module.weight_mask
            assert torch.equal(module.weight, expected), name


def _pair(models):
    return [compress.copy_model(m) for m in models], models


@pytest.mark.parametrize("arch", ["lenet", SLOW_ALEXNET])
def test_members_match_single_training(arch, mnist):
    alone, pop = _pair(_build(arch, [0, 1, 2]))
    cfgs = [TrainConfig(epochs=1, seed=s, augment=True) for s in (5, 6, 5)]
    for m, c in zip(alone, cfgs, strict=True):
        train(m, mnist, c, progress=False)
    out = train_population(pop, mnist, cfgs, progress=False)
    assert out is pop
    for a, b in zip(alone, pop, strict=True):
        _assert_same(a, b)
    # training changed the weights, and different seeds gave different members
    fresh = _build(arch, [0])[0]
    assert not torch.equal(fresh.state_dict()["features.0.weight"], pop[0].features[0].weight)
    assert not torch.allclose(pop[0].features[0].weight, pop[2].features[0].weight)


def test_flips_momentum_weight_decay_and_two_epochs(flippable):
    alone, pop = _pair(_build("lenet", [3, 4]))
    cfgs = [
        TrainConfig(epochs=2, seed=s, lr=0.05, momentum=0.9, weight_decay=1e-3) for s in (1, 2)
    ]
    for m, c in zip(alone, cfgs, strict=True):
        train(m, flippable, c, progress=False)
    train_population(pop, flippable, cfgs, progress=False)
    for a, b in zip(alone, pop, strict=True):
        _assert_same(a, b)


@pytest.mark.parametrize("arch", ["lenet", pytest.param("vgg11", marks=pytest.mark.slow)])
def test_members_on_their_own_splits_of_one_pool(arch, mnist):
    """With ``indices`` member k trains as it would alone on ``data.subset(indices[k])``."""
    alone, pop = _pair(_build(arch, [0, 1], image_size=28))
    splits = [data.train_val_split(len(mnist), s)[0] for s in (0, 1)]
    assert not np.array_equal(splits[0], splits[1])
    cfgs = [TrainConfig(epochs=1, seed=s) for s in (0, 1)]
    for m, c, idx in zip(alone, cfgs, splits, strict=True):
        train(m, mnist.subset(idx), c, progress=False)
    train_population(pop, mnist, cfgs, indices=splits, progress=False)
    for a, b in zip(alone, pop, strict=True):
        _assert_same(a, b)


def test_bad_member_indices_raise(mnist):
    pop = _build("lenet", [0, 1])
    cfgs = [TrainConfig(epochs=1, seed=s) for s in (0, 1)]
    with pytest.raises(PruneAuditError, match="one size"):
        train_population(pop, mnist, cfgs, indices=[np.arange(10), np.arange(11)])
    with pytest.raises(PruneAuditError, match=r"\[0, 100\)"):
        train_population(pop, mnist, cfgs, indices=[np.arange(10), np.arange(95, 105)])
    with pytest.raises(PruneAuditError, match="index arrays"):
        train_population(pop, mnist, cfgs, indices=[np.arange(10)])


def test_without_augmentation(mnist):
    alone, pop = _pair(_build("lenet", [0, 1]))
    cfgs = [TrainConfig(epochs=1, seed=s, augment=False) for s in (0, 1)]
    for m, c in zip(alone, cfgs, strict=True):
        train(m, mnist, c, progress=False)
    train_population(pop, mnist, cfgs, progress=False)
    for a, b in zip(alone, pop, strict=True):
        _assert_same(a, b)


@pytest.mark.parametrize("arch", ["lenet", SLOW_ALEXNET])
def test_pruned_members_with_own_masks_and_rewind(arch, mnist):
    models = _build(arch, [0, 1, 2, 3])
    init = compress.snapshot(models[3])
    prune_step(models[0], "l1_unstructured", 0.5)
    prune_step(models[1], "random_structured", 0.4, seed=7)
    prune_step(models[2], "global_unstructured", 0.6)
    # rewind-style state: trained a little, pruned, reset to the initial weights
    train(models[3], mnist, TrainConfig(epochs=1, seed=9), progress=False)
    compress.prune_to(models[3], "l2_structured", 0.3)
    compress.rewind(models[3], init)
    alone, pop = _pair(models)
    cfgs = [TrainConfig(epochs=1, seed=s, momentum=0.5, weight_decay=1e-2) for s in range(4)]
    for m, c in zip(alone, cfgs, strict=True):
        train(m, mnist, c, progress=False)
    train_population(pop, mnist, cfgs, progress=False)
    for a, b in zip(alone, pop, strict=True):
        _assert_same(a, b)
    # pruned weights stay exactly zero in the effective weights
    for m in pop[:3]:
        assert compress.sparsity(m) > 0.2


def test_mixed_pruned_and_dense_members(mnist):
    models = _build("lenet", [0, 1])
    prune_step(models[1], "l1_structured", 0.5)
    alone, pop = _pair(models)
    cfgs = [TrainConfig(epochs=1, seed=s) for s in (0, 1)]
    for m, c in zip(alone, cfgs, strict=True):
        train(m, mnist, c, progress=False)
    train_population(pop, mnist, cfgs, progress=False)
    for a, b in zip(alone, pop, strict=True):
        _assert_same(a, b)
    assert not hasattr(pop[0].features[0], "weight_orig")  # a dense member stays unpruned


def _hooks():
    return [
        compress.GradualPruner(0.5, begin_step=0, end_step=3, frequency=1),
        None,
        compress.GradualPruner(0.7, 1, 3, 2, technique="global_unstructured"),
        compress.GradualPruner(0.6, 0, 2, 1, regrow=False),
    ]


def test_gradual_pruning_hooks(mnist):
    models = _build("lenet", [0, 1, 2, 3])
    prune_step(models[2], "l1_unstructured", 0.2)  # already pruned before the hook acts
    alone, pop = _pair(models)
    cfgs = [TrainConfig(epochs=1, seed=s, momentum=0.9) for s in range(4)]
    for m, c, h in zip(alone, cfgs, _hooks(), strict=True):
        train(m, mnist, c, step_hook=h, progress=False)
    train_population(pop, mnist, cfgs, step_hooks=_hooks(), progress=False)
    for a, b in zip(alone, pop, strict=True):
        _assert_same(a, b)
    assert compress.sparsity(pop[0]) == pytest.approx(0.5, abs=0.01)
    assert not hasattr(pop[1].features[0], "weight_orig")


def test_plain_hooks_see_current_weights(mnist):
    def recorder(log):
        def hook(model, step):
            log.append((step, float(model.classifier[0].weight.detach().sum())))
            with torch.no_grad():  # a hook may change weights in place
                model.classifier[4].bias.zero_()

        return hook

    alone, pop = _pair(_build("lenet", [0, 1]))
    cfgs = [TrainConfig(epochs=1, seed=s) for s in (0, 1)]
    logs_alone, logs_pop = [[], []], [[], []]
    for m, c, log in zip(alone, cfgs, logs_alone, strict=True):
        train(m, mnist, c, step_hook=recorder(log), progress=False)
    train_population(
        pop, mnist, cfgs, step_hooks=[recorder(log) for log in logs_pop], progress=False
    )
    for la, lp in zip(logs_alone, logs_pop, strict=True):
        assert [s for s, _ in lp] == [0, 1, 2, 3]
        np.testing.assert_allclose([v for _, v in lp], [v for _, v in la], rtol=1e-5, atol=1e-5)
    for a, b in zip(alone, pop, strict=True):
        _assert_same(a, b)
        assert torch.equal(b.classifier[4].bias, torch.zeros(10))


@pytest.mark.parametrize("arch", ["lenet", SLOW_ALEXNET])
def test_evaluate_population_matches_evaluate(arch, mnist):
    models = _build(arch, [0, 1, 2])
    prune_step(models[1], "l1_unstructured", 0.7)
    train_population(models, mnist, [TrainConfig(epochs=1, seed=s) for s in range(3)],
                     progress=False)
    preds = evaluate_population(models, mnist, batch_size=30)
    assert preds.shape == (3, len(mnist)) and preds.dtype == np.int64
    expected = np.stack([evaluate(m, mnist, batch_size=30) for m in models])
    np.testing.assert_array_equal(preds, expected)


class _Tiny(nn.Module):
    def __init__(self, seed: int):
        super().__init__()
        torch.manual_seed(seed)
        self.fc = nn.Linear(784, 10)

    def forward(self, x):
        return self.fc(x.flatten(1))


def test_supports():
    assert supports(build_model("lenet", 10, 1, 28))
    assert supports(build_model("lenet", 10, 3, 32))
    with torch.device("meta"):  # the layers alone, no weights drawn
        assert supports(build_model("alexnet", 10, 3, 32))
        assert not supports(build_model("resnet18", 10, 1, 28))
    assert not supports(_Tiny(0))
    assert not supports(build_model("lenet", 10, 1, 28).double())


def test_unsupported_architecture_falls_back(mnist):
    alone, pop = [_Tiny(0), _Tiny(1)], [_Tiny(0), _Tiny(1)]
    cfgs = [TrainConfig(epochs=1, seed=s) for s in (3, 4)]
    for m, c in zip(alone, cfgs, strict=True):
        train(m, mnist, c, progress=False)
    train_population(pop, mnist, cfgs, progress=False)
    for a, b in zip(alone, pop, strict=True):
        for key, value in a.state_dict().items():
            assert torch.equal(value, b.state_dict()[key])
    expected = np.stack([evaluate(m, mnist) for m in alone])
    np.testing.assert_array_equal(evaluate_population(pop, mnist), expected)


def test_colour_images(mnist):
    spec = data.DATASETS["cifar10"]
    g = torch.Generator().manual_seed(0)
    images = torch.randint(0, 256, (40, 3, 32, 32), generator=g, dtype=torch.uint8)
    cifar = data.ImageData("c", images, mnist.labels[:40], tuple("abcdefghij"), spec)
    alone, pop = _pair([build_model("lenet", 10, 3, 32, seed=s) for s in (0, 1)])
    cfgs = [TrainConfig(epochs=1, seed=s, batch_size=16) for s in (0, 1)]
    for m, c in zip(alone, cfgs, strict=True):
        train(m, cifar, c, progress=False)
    train_population(pop, cifar, cfgs, progress=False)
    for a, b in zip(alone, pop, strict=True):
        _assert_same(a, b)


@pytest.mark.parametrize(
    ("field", "value"),
    [("lr", 0.1), ("batch_size", 16), ("epochs", 2), ("augment", False), ("momentum", 0.9),
     ("weight_decay", 0.1)],
)
def test_mismatched_configs_raise(field, value, mnist):
    models = _build("lenet", [0, 1])
    before = [m.state_dict()["features.0.weight"].clone() for m in models]
    cfgs = [TrainConfig(seed=0), TrainConfig(seed=1, **{field: value})]
    with pytest.raises(PruneAuditError, match=field):
        train_population(models, mnist, cfgs, progress=False)
    for m, w in zip(models, before, strict=True):
        assert torch.equal(m.state_dict()["features.0.weight"], w)  # nothing trained
    assert field in training.SHARED_FIELDS


def test_bad_populations_raise(mnist):
    cfg = TrainConfig(epochs=1)
    lenet = build_model("lenet", 10, 1, 28, seed=0)
    with pytest.raises(PruneAuditError, match="at least one"):
        train_population([], mnist, [], progress=False)
    with pytest.raises(PruneAuditError, match="2 models but 1 TrainConfigs"):
        train_population(_build("lenet", [0, 1]), mnist, [cfg], progress=False)
    with pytest.raises(PruneAuditError, match="step hooks"):
        train_population([lenet], mnist, [cfg], step_hooks=[None, None], progress=False)
    with pytest.raises(PruneAuditError, match="more than once"):
        train_population([lenet, lenet], mnist, [cfg, cfg], progress=False)
    with pytest.raises(PruneAuditError, match="one architecture"):
        train_population(
            [lenet, build_model("alexnet", 10, 1, 28)], mnist, [cfg, cfg], progress=False
        )
    with pytest.raises(PruneAuditError, match="one architecture"):
        train_population(
            [lenet, build_model("lenet", 10, 1, 32)], mnist, [cfg, cfg], progress=False
        )
    with pytest.raises(PruneAuditError, match="empty"):
        train_population([lenet], mnist.subset([]), [cfg], progress=False)
    with pytest.raises(PruneAuditError, match="batch_size"):
        evaluate_population([lenet], mnist, batch_size=0)


def test_several_blocks_and_chunks(mnist, monkeypatch):
    """Members split over blocks (the last one shorter) and evaluation in chunks change nothing."""
    monkeypatch.setattr(stacked, "BLOCK", 2)
    monkeypatch.setattr(predict, "EVAL_CHUNK", 7)
    models = _build("lenet", [0, 1, 2])
    prune_step(models[2], "l1_unstructured", 0.3)
    alone, pop = _pair(models)
    cfgs = [TrainConfig(epochs=1, seed=s) for s in range(3)]
    hooks = [None, compress.GradualPruner(0.5, 0, 3, 1), compress.GradualPruner(0.6, 1, 3, 1)]
    for m, c, h in zip(alone, cfgs, hooks, strict=True):
        train(m, mnist, c, step_hook=h, progress=False)
    hooks = [None, compress.GradualPruner(0.5, 0, 3, 1), compress.GradualPruner(0.6, 1, 3, 1)]
    # two blocks on two torch threads: trained at once, one block per thread
    train_population(pop, mnist, cfgs, step_hooks=hooks, progress=False, num_threads=2)
    for a, b in zip(alone, pop, strict=True):
        _assert_same(a, b)
    expected = np.stack([evaluate(m, mnist, batch_size=30) for m in alone])
    np.testing.assert_array_equal(evaluate_population(pop, mnist, batch_size=30), expected)


@given(st.integers(1, 200), st.sampled_from(["cpu", "cuda"]))
def test_blocks_split_members_evenly(k, device):
    groups = stacked.blocks(k, torch.device(device))
    size = stacked.block_size(torch.device(device))
    assert [i for g in groups for i in g] == list(range(k))
    assert len(groups) == -(-k // size)
    assert max(map(len, groups)) - min(map(len, groups)) <= 1


def test_blocks_examples():
    sizes = [[len(g) for g in stacked.blocks(k, torch.device("cpu"))] for k in (3, 8, 12, 20, 30)]
    assert sizes == [[3], [8], [6, 6], [6, 7, 7], [7, 8, 7, 8]]


def test_threads_are_restored(mnist):
    before = torch.get_num_threads()
    train_population(_build("lenet", [0]), mnist.subset(range(8)), [TrainConfig(epochs=1)],
                     progress=False, num_threads=2)
    assert torch.get_num_threads() == before
