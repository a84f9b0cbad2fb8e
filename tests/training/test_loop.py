"""Training and evaluation: configuration checks, the random-draw contract, determinism."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from pruneaudit import data
from pruneaudit.data import apply_augmentation, draw_augmentation, normalize
from pruneaudit.errors import PruneAuditError
from pruneaudit.models import build_model
from pruneaudit.training import (
    TrainConfig,
    epoch_order,
    evaluate,
    num_steps,
    steps_per_epoch,
    train,
)

PHOTOS = data.DatasetSpec("photos", 3, 32, 4, (0.5, 0.5, 0.5), (0.25, 0.25, 0.25), flip_ok=True)


def _synthetic(n: int = 96, seed: int = 0) -> data.ImageData:
    """Four classes of 32x32 colour images told apart by which channel/half is bright."""
    g = torch.Generator().manual_seed(seed)
    labels = torch.arange(n) % 4
    images = torch.randint(0, 60, (n, 3, 32, 32), generator=g, dtype=torch.uint8)
    for k in range(4):
        rows = labels == k
        channel, half = k % 3, k // 3
        images[rows, channel, half * 16 : half * 16 + 16] += 150
    return data.ImageData("synthetic", images, labels, ("a", "b", "c", "d"), PHOTOS)


@pytest.fixture(scope="module")
def mnist_small(data_root: Path) -> tuple[data.ImageData, data.ImageData]:
    train_set = data.load("mnist", "train", root=data_root).subset(range(320))
    test_set = data.load("mnist", "test", root=data_root).subset(range(200))
    return train_set, test_set


def _weights_equal(a: torch.nn.Module, b: torch.nn.Module) -> bool:
    sa, sb = a.state_dict(), b.state_dict()
    return sa.keys() == sb.keys() and all(torch.equal(sa[k], sb[k]) for k in sa)


def _per_class_accuracy(preds: np.ndarray, labels: torch.Tensor, c: int) -> np.ndarray:
    y = labels.numpy()
    return np.bincount(y, weights=preds == y, minlength=c) / np.bincount(y, minlength=c)


def _mean_loss(model: torch.nn.Module, d: data.ImageData) -> float:
    _, logits = evaluate(model, d, return_logits=True)
    return float(F.cross_entropy(torch.from_numpy(logits), d.labels))


def test_config_defaults_are_the_protocol() -> None:
    cfg = TrainConfig()
    assert (cfg.lr, cfg.batch_size, cfg.epochs, cfg.seed, cfg.augment) == (0.01, 32, 30, 0, True)
    assert (cfg.momentum, cfg.weight_decay) == (0.0, 0.0)
    with pytest.raises(AttributeError):
        cfg.lr = 0.1  # type: ignore[misc]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"lr": 0},
        {"lr": -0.1},
        {"batch_size": 0},
        {"batch_size": 2.0},
        {"epochs": 0},
        {"seed": -1},
        {"seed": True},
        {"augment": "yes"},
        {"momentum": 1.0},
        {"weight_decay": -1e-4},
    ],
)
def test_config_rejects_bad_values(kwargs: dict) -> None:
    name, value = next(iter(kwargs.items()))
    with pytest.raises(PruneAuditError, match=name):
        TrainConfig(**kwargs)


def test_step_counts() -> None:
    assert steps_per_epoch(64, 32) == 2
    assert steps_per_epoch(65, 32) == 3
    assert num_steps(65, TrainConfig(epochs=4)) == 12


def test_epoch_order_partitions_and_is_seeded() -> None:
    batches = epoch_order(70, 32, torch.Generator().manual_seed(1))
    assert [len(b) for b in batches] == [32, 32, 6]
    assert sorted(torch.cat(batches).tolist()) == list(range(70))
    again = epoch_order(70, 32, torch.Generator().manual_seed(1))
    assert all(torch.equal(a, b) for a, b in zip(batches, again, strict=True))
    perm = torch.randperm(70, generator=torch.Generator().manual_seed(1))
    assert torch.equal(torch.cat(batches), perm)


def test_same_seed_identical_weights_and_per_class_accuracy(mnist_small) -> None:
    train_set, test_set = mnist_small
    cfg = TrainConfig(epochs=1, seed=3)
    runs = [train(build_model("lenet", 10, 1, 28, seed=0), train_set, cfg, progress=False)
            for _ in range(2)]
    assert _weights_equal(*runs)
    acc = [_per_class_accuracy(evaluate(m, test_set), test_set.labels, 10) for m in runs]
    np.testing.assert_array_equal(acc[0], acc[1])


def test_different_seeds_differ(mnist_small) -> None:
    train_set, _ = mnist_small
    a, b = (
        train(build_model("lenet", 10, 1, 28, seed=0), train_set, TrainConfig(epochs=1, seed=s),
              progress=False)
        for s in (1, 2)
    )  # fmt: skip
    assert not _weights_equal(a, b)


@pytest.mark.parametrize("augment", [True, False])
def test_follows_the_documented_draw_contract(augment: bool) -> None:
    """A hand-written loop doing exactly the documented draws ends with identical weights."""
    d = _synthetic(70)
    cfg = TrainConfig(epochs=2, batch_size=16, seed=5, lr=0.05, augment=augment)
    ours = train(build_model("lenet", 4, 3, 32, seed=1), d, cfg, progress=False)

    model = build_model("lenet", 4, 3, 32, seed=1).to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=cfg.lr)
    g = torch.Generator().manual_seed(cfg.seed)
    for _ in range(cfg.epochs):
        for idx in torch.randperm(len(d), generator=g).split(cfg.batch_size):
            x = d.images[idx]
            if augment:
                offsets = torch.randint(0, 9, (len(idx), 2), generator=g)
                flips = torch.rand(len(idx), generator=g) < 0.5
                x = apply_augmentation(x, offsets, flips, 4)
            loss = F.cross_entropy(model(normalize(x, d.spec)), d.labels[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
    model.to(memory_format=torch.contiguous_format)
    assert _weights_equal(ours, model)


def test_draws_nothing_for_flips_when_flip_is_wrong() -> None:
    digits = data.DatasetSpec("digits", 3, 32, 4, (0.5,) * 3, (0.25,) * 3, flip_ok=False)
    g = torch.Generator().manual_seed(0)
    offsets, flips = draw_augmentation(8, digits, g)
    assert flips is None
    assert torch.equal(g.get_state(), _after_randint(8))


def _after_randint(n: int) -> torch.Tensor:
    h = torch.Generator().manual_seed(0)
    torch.randint(0, 9, (n, 2), generator=h)
    return h.get_state()


def test_step_hook_sees_every_step_in_order() -> None:
    d = _synthetic(40)
    seen: list[int] = []
    model = build_model("lenet", 4, 3, 32, seed=0)
    train(model, d, TrainConfig(epochs=3, batch_size=16), step_hook=lambda m, s: seen.append(s),
          progress=False)  # fmt: skip
    assert seen == list(range(num_steps(40, TrainConfig(epochs=3, batch_size=16))))
    assert len(seen) == 9


def test_leaves_global_state_as_it_was() -> None:
    d = _synthetic(32)
    model = build_model("lenet", 4, 3, 32, seed=0)
    rng, threads = torch.get_rng_state(), torch.get_num_threads()
    out = train(model, d, TrainConfig(epochs=1), progress=False, num_threads=1)
    assert out is model
    assert torch.equal(torch.get_rng_state(), rng)
    assert torch.get_num_threads() == threads
    assert all(p.is_contiguous() for p in model.parameters())
    assert model.training


def test_short_training_lowers_the_loss(mnist_small) -> None:
    train_set, _ = mnist_small
    model = build_model("lenet", 10, 1, 28, seed=0)
    before = _mean_loss(model, train_set)
    train(model, train_set, TrainConfig(epochs=5, lr=0.1), progress=False)
    after = _mean_loss(model, train_set)
    assert after < before - 0.3


def test_learns_the_synthetic_task_with_flips() -> None:
    d = _synthetic(128)
    model = build_model("lenet", 4, 3, 32, seed=0)
    train(model, d, TrainConfig(epochs=6, lr=0.05, batch_size=16), progress=False)
    assert (evaluate(model, d) == d.labels.numpy()).mean() > 0.9


def test_evaluate_labels_are_argmax_of_logits_and_batch_free(mnist_small) -> None:
    _, test_set = mnist_small
    model = build_model("lenet", 10, 1, 28, seed=0)
    preds, logits = evaluate(model, test_set, return_logits=True)
    assert preds.shape == (200,) and logits.shape == (200, 10)
    assert preds.dtype == np.int64 and logits.dtype == np.float32
    np.testing.assert_array_equal(preds, logits.argmax(1))
    np.testing.assert_array_equal(evaluate(model, test_set, batch_size=7), preds)
    assert model.training


def test_evaluate_restores_eval_mode() -> None:
    model = build_model("lenet", 4, 3, 32, seed=0).eval()
    evaluate(model, _synthetic(8))
    assert not model.training


def test_bad_inputs() -> None:
    model = build_model("lenet", 4, 3, 32, seed=0)
    with pytest.raises(PruneAuditError, match="batch_size"):
        evaluate(model, _synthetic(8), batch_size=0)
    with pytest.raises(PruneAuditError, match="empty"):
        train(model, _synthetic(8).subset([]), TrainConfig(epochs=1), progress=False)
    with pytest.raises(PruneAuditError, match="num_threads"):
        train(model, _synthetic(8), TrainConfig(epochs=1), progress=False, num_threads=0)


def test_step_hook_can_prune_with_torch_prune() -> None:
    """Hooks see contiguous weights, so torch.nn.utils.prune works inside them."""
    from torch.nn.utils import prune

    d = _synthetic(64)
    model = build_model("lenet", 4, 3, 32, seed=0)

    def hook(m: torch.nn.Module, step: int) -> None:
        assert all(p.is_contiguous() for p in m.parameters())
        if step == 1:
            prune.l1_unstructured(m.features[0], "weight", amount=0.5)

    train(model, d, TrainConfig(epochs=1, batch_size=16), step_hook=hook, progress=False)
    assert float((model.features[0].weight_mask == 0).float().mean()) == 0.5
    evaluate(model, d)  # the forward pass recomputes weight = weight_orig * weight_mask
    conv = model.features[0]
    assert torch.equal(conv.weight, conv.weight_orig * conv.weight_mask)


def test_step_hook_can_prune_globally_twice() -> None:
    """Global pruning flattens the effective weights: they must be contiguous at every hook."""
    from torch.nn.utils import prune

    from pruneaudit.models import prunable_parameters

    d = _synthetic(64)
    model = build_model("lenet", 4, 3, 32, seed=0)

    def hook(m: torch.nn.Module, step: int) -> None:
        if step in (1, 3):
            prune.global_unstructured(
                prunable_parameters(m), pruning_method=prune.L1Unstructured, amount=0.2
            )

    train(model, d, TrainConfig(epochs=1, batch_size=16), step_hook=hook, progress=False)
    masks = [m.weight_mask for m, _ in prunable_parameters(model)]
    zeros = sum(int((k == 0).sum()) for k in masks)
    total = sum(k.numel() for k in masks)
    assert zeros == round(0.2 * total) + round(0.2 * (total - round(0.2 * total)))
