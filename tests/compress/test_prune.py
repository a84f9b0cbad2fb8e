"""Tests of pruneaudit.compress.prune: schedules, techniques, rewind, save/load, gradual pruning."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from pruning_procedures import iterative_prune, prune_step
from torch import nn

from pruneaudit import compress as P
from pruneaudit.data import DATASETS, ImageData
from pruneaudit.errors import PruneAuditError
from pruneaudit.models import build_model, prunable_parameters
from pruneaudit.training import TrainConfig, num_steps, train


class Wide(nn.Module):
    """Small net whose layers all have many input slices (40 channels, 160 features)."""

    def __init__(self, seed: int = 0):
        super().__init__()
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.conv = nn.Conv2d(40, 10, 3, padding=1)
            self.fc = nn.Linear(160, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(torch.flatten(F.relu(self.conv(x)), 1))


class Digits(nn.Module):
    """Tiny net for 1x28x28 images, fast enough to train in tests."""

    def __init__(self, seed: int = 0):
        super().__init__()
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.conv = nn.Conv2d(1, 8, 4, stride=4)
            self.fc = nn.Linear(8 * 7 * 7, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(torch.flatten(F.relu(self.conv(x)), 1))


def wide_input(n: int = 4) -> torch.Tensor:
    return torch.randn(n, 40, 4, 4, generator=torch.Generator().manual_seed(1))


def synthetic_digits(n: int = 96, seed: int = 0) -> ImageData:
    g = torch.Generator().manual_seed(seed)
    labels = torch.randint(0, 10, (n,), generator=g)
    images = torch.randint(0, 60, (n, 1, 28, 28), generator=g, dtype=torch.uint8)
    for i, c in enumerate(labels.tolist()):  # a bright bar whose row encodes the label
        images[i, 0, 2 + 2 * c : 4 + 2 * c, 4:24] = 255
    spec = DATASETS["mnist"]
    return ImageData("synthetic", images, labels, tuple(str(c) for c in range(10)), spec)


def rounding_tolerance(model: nn.Module, structured: bool) -> float:
    """Largest deviation from the target that rounding to whole units can cause."""
    tol = 0.0
    for module, name in prunable_parameters(model):
        w = getattr(module, name)
        units = w.shape[P.STRUCTURED_DIM] if structured else w.numel()
        tol = max(tol, 0.5 / units)
    return tol + 1e-12


# ----------------------------------------------------------------- schedule


def test_iteration_sparsity_values():
    assert P.iteration_sparsity(0) == 0.0
    assert P.iteration_sparsity(1) == pytest.approx(0.2)
    assert P.iteration_sparsity(2) == pytest.approx(0.36)
    assert P.iteration_sparsity(20) == pytest.approx(1 - 0.8**20)
    assert P.iteration_sparsity(2, rate=0.5) == pytest.approx(0.75)


@given(k=st.integers(1, 20), rate=st.floats(0.01, 0.5))
@settings(max_examples=50, deadline=None)
def test_each_iteration_prunes_rate_of_the_remaining_weights(k, rate):
    """Iteration j prunes ``rate`` of what iteration j - 1 left (remaining >= 0.5**20, so the
    float differences below keep six digits)."""
    step = [
        1 - (1 - P.iteration_sparsity(j, rate)) / (1 - P.iteration_sparsity(j - 1, rate))
        for j in range(1, k + 1)
    ]
    assert step == pytest.approx([rate] * k, rel=1e-6)
    assert 1 - math.prod(1 - a for a in step) == pytest.approx(P.iteration_sparsity(k, rate))


def test_bad_arguments_raise_naming_the_value():
    model = Wide()
    with pytest.raises(PruneAuditError, match="l1_unstructured"):
        P.prune_to(model, "l1_unstructurd", 0.2)
    with pytest.raises(PruneAuditError, match="target"):
        P.prune_to(model, "l1_unstructured", 1.0)
    with pytest.raises(PruneAuditError, match="weight treatment"):
        P.prune_round(model, "l1_unstructured", "finetun", 1, P.snapshot(model))
    with pytest.raises(PruneAuditError, match="-1"):
        P.iteration_sparsity(-1)
    assert P.sparsity(model) == 0.0  # nothing half-done


# ----------------------------------------------------------------- techniques


@pytest.mark.parametrize("technique", P.TECHNIQUES)
def test_sparsity_after_k_iterations_is_one_minus_0_8_to_the_k(technique):
    model = Wide()
    structured = technique not in ("l1_unstructured", "random_unstructured", "global_unstructured")
    tol = rounding_tolerance(model, structured)
    for k in (1, 2, 3):
        P.prune_to(model, technique, P.iteration_sparsity(k), seed=k)
        assert abs(P.sparsity(model) - (1 - 0.8**k)) <= tol, (technique, k)
        if technique != "global_unstructured":
            for layer, s in P.layer_sparsity(model).items():
                assert abs(s - (1 - 0.8**k)) <= tol, (technique, k, layer)


def test_torch_applies_amounts_to_the_remaining_weights():
    layer = nn.Linear(10, 10)
    model = nn.Sequential(layer)
    zeros = []
    for _ in range(3):
        prune_step(model, "l1_unstructured", 0.2)
        zeros.append(int((layer.weight == 0).sum()))
    # 20% of 100, then of the 80 left (16), then of the 64 left (round(12.8) = 13)
    assert zeros == [20, 36, 49]


def test_prune_step_stalls_on_few_slices_but_prune_to_does_not():
    stepped, targeted = nn.Sequential(nn.Linear(2, 3)), nn.Sequential(nn.Linear(2, 3))
    for k in range(1, 6):
        prune_step(stepped, "l1_structured", 0.2)  # round(0.2 * 2) = 0 every time
        P.prune_to(targeted, "l1_structured", P.iteration_sparsity(k))
    assert P.sparsity(stepped) == 0.0
    assert P.sparsity(targeted) == 0.5  # round(2 * 0.67) = 1 slice; the last one is kept


def test_few_input_slices_first_conv_is_kept_and_others_round():
    model = build_model("lenet", 10, 1, 28, seed=0)
    for k in range(1, 21):
        P.prune_to(model, "l2_structured", P.iteration_sparsity(k))
        layers = P.layer_sparsity(model)
        assert layers["features.0.weight"] == 0.0  # one input channel: never removed
        expected = min(round(6 * P.iteration_sparsity(k)), 5) / 6
        assert layers["features.3.weight"] == pytest.approx(expected)
        expected_fc = min(round(400 * P.iteration_sparsity(k)), 399) / 400
        assert layers["classifier.0.weight"] == pytest.approx(expected_fc)
    assert P.sparsity(model) == pytest.approx(1 - 0.8**20, abs=0.01)


def test_l1_unstructured_removes_the_smallest_magnitudes_per_layer():
    model = Wide()
    before = {k: v.clone() for k, v in P.snapshot(model).items()}
    prune_step(model, "l1_unstructured", 0.3)
    for key, mask in P.masks(model).items():
        w = before[key].abs().flatten()
        n_pruned = round(0.3 * w.numel())
        assert int((~mask).sum()) == n_pruned
        assert w[~mask.flatten()].max() <= w[mask.flatten()].min()


@pytest.mark.parametrize(
    ("technique", "order"),
    [("l1_structured", 1), ("l2_structured", 2), ("linfty_structured", math.inf)],
)
def test_structured_removes_input_slices_with_smallest_norm(technique, order):
    model = Wide()
    before = P.snapshot(model)
    prune_step(model, technique, 0.25)
    for key, mask in P.masks(model).items():
        other = [d for d in range(mask.dim()) if d != 1]
        kept = mask.all(dim=other)
        assert torch.equal(kept, mask.any(dim=other))  # whole input slices
        norms = torch.linalg.vector_norm(before[key], ord=order, dim=other)
        assert int((~kept).sum()) == round(0.25 * kept.numel())
        assert norms[~kept].max() <= norms[kept].min()


def test_global_ranks_across_layers_layerwise_does_not():
    glob, layer = Wide(), Wide()
    for m in (glob, layer):
        with torch.no_grad():
            m.fc.weight.mul_(100.0)  # fc weights dwarf the conv weights
    all_w = torch.cat([p.detach().abs().flatten() for p in (glob.conv.weight, glob.fc.weight)])
    prune_step(glob, "global_unstructured", 0.2)
    prune_step(layer, "l1_unstructured", 0.2)
    n_pruned = round(0.2 * all_w.numel())
    threshold = all_w.sort().values[n_pruned - 1]
    mask = torch.cat([m.flatten() for m in P.masks(glob).values()])
    assert int((~mask).sum()) == n_pruned
    assert all_w[~mask].max() == threshold and all_w[mask].min() >= threshold
    gl, ll = P.layer_sparsity(glob), P.layer_sparsity(layer)
    # almost all pruned weights come from the conv layer, exactly those below the global threshold
    n_conv = int((glob.conv.weight_orig.abs() <= threshold).sum())
    assert gl["conv.weight"] == n_conv / 3600 and n_conv > 0.99 * n_pruned
    assert gl["fc.weight"] == (n_pruned - n_conv) / 1600
    assert ll["conv.weight"] == pytest.approx(0.2, abs=1e-3)
    assert ll["fc.weight"] == pytest.approx(0.2, abs=1e-3)


@pytest.mark.parametrize("technique", ["random_unstructured", "random_structured"])
def test_random_is_seeded_and_leaves_global_rng_alone(technique):
    masks = []
    for seed in (3, 3, 4):
        torch.manual_seed(123)
        model = Wide()
        prune_step(model, technique, 0.4, seed=seed)
        after = torch.rand(3)
        torch.manual_seed(123)
        assert torch.equal(after, torch.rand(3))
        masks.append(P.masks(model))
    assert all(torch.equal(masks[0][k], masks[1][k]) for k in masks[0])
    assert not all(torch.equal(masks[0][k], masks[2][k]) for k in masks[0])


@given(
    rows=st.integers(1, 12),
    cols=st.integers(1, 12),
    amount=st.floats(0.01, 0.99),
    seed=st.integers(0, 1000),
)
@settings(max_examples=40, deadline=None)
def test_property_sparsity_of_pruning_a_random_tensor(rows, cols, amount, seed):
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        layer = nn.Linear(cols, rows)
    model = nn.Sequential(layer)
    n = rows * cols
    prune_step(model, "l1_unstructured", amount)
    assert P.sparsity(model) == round(amount * n) / n
    P.prune_to(model, "l1_unstructured", min(amount + 0.3, 0.99))
    goal = max(round(amount * n), min(round(min(amount + 0.3, 0.99) * n), n - 1))
    assert P.sparsity(model) == goal / n


# ----------------------------------------------------------------- rewind


def test_rewind_restores_surviving_weights_exactly():
    model = Wide()
    init = P.snapshot(model)
    with torch.no_grad():  # stand-in for training
        for p in model.parameters():
            p.add_(torch.randn_like(p))
    P.prune_to(model, "l1_unstructured", 0.5)
    mask_before = P.masks(model)
    P.rewind(model, init)
    mask_after = P.masks(model)
    for key in ("conv.weight", "fc.weight"):
        assert torch.equal(mask_before[key], mask_after[key])
        module = model.get_submodule(key.split(".")[0])
        w, keep = module.weight, mask_after[key]
        assert torch.equal(w[keep], init[key][keep])
        assert torch.all(w[~keep] == 0)
    assert torch.equal(model.conv.bias, init["conv.bias"])
    assert torch.equal(model.fc.bias, init["fc.bias"])
    out = model(wide_input())  # forward still uses the rewound weights
    assert torch.equal(
        model.fc.weight[mask_after["fc.weight"]], init["fc.weight"][mask_after["fc.weight"]]
    )
    assert out.shape == (4, 10)


def test_rewind_restores_buffers_and_rejects_mismatches():
    model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4))
    init = P.snapshot(model)
    model(torch.randn(2, 3, 5, 5))  # changes the running statistics
    prune_step(model, "l1_unstructured", 0.2)
    P.rewind(model, init)
    assert torch.equal(model[1].running_mean, init["1.running_mean"])
    bad = dict(init)
    del bad["1.bias"]
    with pytest.raises(PruneAuditError, match="1.bias"):
        P.rewind(model, bad)


# ----------------------------------------------------------------- save / load


def test_pruned_state_dict_round_trips_through_weights_only_load(tmp_path):
    model = Wide(seed=0)
    P.prune_to(model, "l1_structured", 0.36)
    P.prune_to(model, "l1_structured", 0.488)
    path = tmp_path / "model.pt"
    torch.save(P.pruned_state_dict(model), path)
    state = torch.load(path, weights_only=True)
    assert "conv.weight_mask" in state and "conv.weight_orig" not in state
    assert state["conv.weight_mask"].dtype == torch.bool
    fresh = Wide(seed=9)
    P.load_pruned_state_dict(fresh, state)
    x = wide_input()
    assert torch.equal(fresh(x), model(x))
    assert P.sparsity(fresh) == P.sparsity(model)
    for key, mask in P.masks(model).items():
        assert torch.equal(P.masks(fresh)[key], mask)
    # pruning continues from the loaded masks exactly as from the original
    P.prune_to(model, "l1_structured", 0.6)
    P.prune_to(fresh, "l1_structured", 0.6)
    assert torch.equal(fresh(x), model(x))


def test_load_replaces_existing_masks_and_rejects_mismatch_without_change():
    src, dst = Wide(seed=0), Wide(seed=1)
    prune_step(src, "random_unstructured", 0.5, seed=1)
    prune_step(dst, "l1_unstructured", 0.3)
    P.load_pruned_state_dict(dst, P.pruned_state_dict(src))
    assert P.sparsity(dst) == P.sparsity(src)
    x = wide_input()
    assert torch.equal(dst(x), src(x))
    bad = P.pruned_state_dict(src)
    bad["conv.weight_mask"] = bad["conv.weight_mask"][:5]
    before = dst(x)
    with pytest.raises(PruneAuditError, match="conv.weight"):
        P.load_pruned_state_dict(dst, bad)
    assert torch.equal(dst(x), before)


def test_masks_transfer_and_remove_reparametrization():
    src, dst = Wide(seed=0), Wide(seed=1)
    prune_step(src, "l2_structured", 0.5)
    P.apply_masks(dst, P.masks(src))
    for key, mask in P.masks(src).items():
        assert torch.equal(P.masks(dst)[key], mask)
    s = P.sparsity(dst)
    P.remove_reparametrization(dst)
    assert "conv.weight_orig" not in dict(dst.named_parameters())
    assert set(dst.state_dict()) == set(Wide().state_dict())
    assert P.sparsity(dst) == s


# ----------------------------------------------------------------- procedures


@pytest.mark.parametrize("treatment", P.TREATMENTS)
def test_iterative_prune_reaches_each_iterations_sparsity(treatment):
    data = synthetic_digits()
    model = Digits(seed=0)
    init = P.snapshot(model)
    seen = []

    def record(k, m):
        seen.append((k, P.sparsity(m)))

    cfg = TrainConfig(epochs=1, batch_size=32, augment=False)
    iterative_prune(model, data, "l1_unstructured", treatment, 3, cfg, callback=record)
    assert [k for k, _ in seen] == [0, 1, 2, 3]
    for k, s in seen:
        assert s == pytest.approx(1 - 0.8**k, abs=rounding_tolerance(model, False))
    # after retraining, surviving weights have moved away from their initial values
    keep = P.masks(model)["fc.weight"]
    assert not torch.equal(model.fc.weight[keep], init["fc.weight"][keep])


def test_iterative_prune_rewind_equals_manual_lottery_ticket():
    data = synthetic_digits()
    cfg = TrainConfig(epochs=1, batch_size=32, augment=False)
    auto = Digits(seed=0)
    iterative_prune(auto, data, "global_unstructured", "rewind", 1, cfg)
    manual = Digits(seed=0)
    init = P.snapshot(manual)
    train(manual, data, cfg, progress=False)
    P.prune_to(manual, "global_unstructured", 0.2)
    P.rewind(manual, init)
    train(manual, data, cfg, progress=False)
    for key, value in P.pruned_state_dict(auto).items():
        assert torch.equal(value, P.pruned_state_dict(manual)[key])


def test_gradual_schedule_by_hand():
    g = P.GradualPruner(0.9, begin_step=2, end_step=10, frequency=3)
    assert g.schedule(0) == 0.0 and g.schedule(1) == 0.0
    assert g.schedule(2) == 0.0  # s_i
    assert g.schedule(6) == pytest.approx(0.9 - 0.9 * 0.5**3)  # half way: 0.7875
    assert g.schedule(4) == pytest.approx(0.9 - 0.9 * 0.75**3)
    assert g.schedule(10) == 0.9 and g.schedule(50) == 0.9
    assert [t for t in range(15) if g.acts_at(t)] == [2, 5, 8, 10]
    g2 = P.GradualPruner(0.5, 0, 4, 1, initial_sparsity=0.1)
    assert g2.schedule(0) == pytest.approx(0.1)
    assert g2.schedule(2) == pytest.approx(0.5 - 0.4 / 8)
    with pytest.raises(PruneAuditError, match="end_step"):
        P.GradualPruner(0.5, 5, 5, 1)
    with pytest.raises(PruneAuditError, match="l1_structured"):
        P.GradualPruner(0.5, 0, 5, 1, technique="l1_structured")


@pytest.mark.parametrize("technique", ["l1_unstructured", "global_unstructured"])
@pytest.mark.parametrize("regrow", [True, False])
def test_gradual_pruning_during_training_ends_at_target(technique, regrow):
    data = synthetic_digits()
    cfg = TrainConfig(epochs=2, batch_size=16, augment=False)
    steps = num_steps(len(data), cfg)
    pruner = P.GradualPruner(0.7, 1, steps - 3, 2, technique=technique, regrow=regrow)
    model = Digits(seed=0)
    seen = {}

    def hook(m, step):
        pruner(m, step)
        seen[step] = P.sparsity(m)

    train(model, data, cfg, step_hook=hook, progress=False)
    assert seen[0] == 0.0
    tol = rounding_tolerance(model, False)
    assert P.sparsity(model) == pytest.approx(0.7, abs=tol)
    for step in range(1, steps - 3):
        if pruner.acts_at(step):
            assert seen[step] == pytest.approx(pruner.schedule(step), abs=tol)
    values = [seen[t] for t in sorted(seen)]
    assert all(a <= b + tol for a, b in zip(values, values[1:], strict=False))


def test_copy_model_works_after_a_forward_pass_with_gradients():
    model = Wide()
    prune_step(model, "l1_unstructured", 0.5)
    model(wide_input()).sum().backward()  # leaves a non-leaf effective weight behind
    clone = P.copy_model(model)
    x = wide_input()
    assert torch.equal(clone(x), model(x))
    assert clone.conv.weight_orig is not model.conv.weight_orig
