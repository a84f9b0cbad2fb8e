"""Models: registry, output shapes, LeNet's exact structure, seeded initialization."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from pruneaudit.errors import PruneAuditError
from pruneaudit.models import MODELS, LeNet, build_model, prunable_parameters

SHAPES = [(1, 28, 10), (3, 32, 100)]


@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize(("channels", "size", "classes"), SHAPES)
def test_output_shape(name: str, channels: int, size: int, classes: int) -> None:
    model = build_model(name, classes, channels, size, seed=0)
    model.eval()
    with torch.no_grad():
        out = model(torch.randn(2, channels, size, size))
    assert out.shape == (2, classes)
    assert torch.isfinite(out).all()


def test_lenet_layers_in_order() -> None:
    model = build_model("lenet", 10, 1, 28, seed=0)
    assert isinstance(model, LeNet)
    layers = [m for m in model.modules() if not isinstance(m, (nn.Sequential, LeNet))]
    kinds = [type(m).__name__ for m in layers]
    assert kinds == [
        "Conv2d", "ReLU", "MaxPool2d", "Conv2d", "ReLU", "MaxPool2d",
        "Linear", "ReLU", "Linear", "ReLU", "Linear",
    ]  # fmt: skip
    conv1, conv2 = layers[0], layers[3]
    assert (conv1.in_channels, conv1.out_channels, conv1.kernel_size) == (1, 6, (3, 3))
    assert (conv2.in_channels, conv2.out_channels, conv2.kernel_size) == (6, 16, (3, 3))
    assert conv1.padding == conv2.padding == (0, 0)
    assert layers[2].kernel_size == layers[5].kernel_size == 2
    # 28 -> conv 26 -> pool 13 -> conv 11 -> pool 5: 16 * 5 * 5 inputs to the first FC layer
    fcs = [(m.in_features, m.out_features) for m in layers if isinstance(m, nn.Linear)]
    assert fcs == [(400, 120), (120, 84), (84, 10)]


@pytest.mark.parametrize(
    ("channels", "size", "classes", "expected"),
    [
        # conv1 6*1*9+6, conv2 16*6*9+16, fc 400*120+120, 120*84+84, 84*10+10
        (1, 28, 10, 60 + 880 + 48120 + 10164 + 850),
        # conv1 6*3*9+6, conv2 880, fc 16*6*6=576 inputs: 576*120+120, 10164, 84*100+100
        (3, 32, 100, 168 + 880 + 69240 + 10164 + 8500),
    ],
)
def test_lenet_parameter_count(channels: int, size: int, classes: int, expected: int) -> None:
    model = build_model("lenet", classes, channels, size)
    assert sum(p.numel() for p in model.parameters()) == expected


def test_lenet_has_no_relu_after_last_layer() -> None:
    model = build_model("lenet", 10, 1, 28, seed=0)
    with torch.no_grad():
        out = model(torch.randn(64, 1, 28, 28))
    assert (out < 0).any()


@pytest.mark.parametrize("name", MODELS)
def test_same_seed_same_weights(name: str) -> None:
    a = build_model(name, 10, 1, 28, seed=7).state_dict()
    b = build_model(name, 10, 1, 28, seed=7).state_dict()
    assert a.keys() == b.keys()
    assert all(torch.equal(a[k], b[k]) for k in a)


@pytest.mark.parametrize("name", MODELS)
def test_different_seeds_differ(name: str) -> None:
    a = build_model(name, 10, 1, 28, seed=1)
    b = build_model(name, 10, 1, 28, seed=2)
    for (ma, _), (mb, _) in zip(prunable_parameters(a), prunable_parameters(b), strict=True):
        assert not torch.equal(ma.weight, mb.weight)


def test_seeded_build_leaves_global_rng_alone() -> None:
    torch.manual_seed(123)
    expected = torch.rand(5)
    torch.manual_seed(123)
    state = torch.get_rng_state()
    build_model("lenet", 10, 1, 28, seed=5)
    assert torch.equal(torch.get_rng_state(), state)
    assert torch.equal(torch.rand(5), expected)


def test_unseeded_build_uses_global_rng() -> None:
    torch.manual_seed(3)
    a = build_model("lenet", 10, 1, 28)
    torch.manual_seed(3)
    b = build_model("lenet", 10, 1, 28)
    c = build_model("lenet", 10, 1, 28)
    assert torch.equal(a.features[0].weight, b.features[0].weight)
    assert not torch.equal(b.features[0].weight, c.features[0].weight)


def test_seed_matches_manual_seed() -> None:
    torch.manual_seed(11)
    unseeded = build_model("lenet", 10, 1, 28)
    seeded = build_model("lenet", 10, 1, 28, seed=11)
    assert all(
        torch.equal(x, y) for x, y in zip(unseeded.parameters(), seeded.parameters(), strict=True)
    )


@pytest.mark.parametrize(
    ("name", "count"), [("lenet", 5), ("alexnet", 8), ("vgg11", 10), ("resnet18", 21)]
)
def test_prunable_parameters(name: str, count: int) -> None:
    with torch.device("meta"):  # the layers alone, no weights drawn
        model = build_model(name, 10, 3, 32, seed=0)
    pairs = prunable_parameters(model)
    assert len(pairs) == count
    assert all(isinstance(m, (nn.Conv2d, nn.Linear)) and attr == "weight" for m, attr in pairs)
    in_order = [m for m in model.modules() if isinstance(m, (nn.Conv2d, nn.Linear))]
    assert [m for m, _ in pairs] == in_order
    assert isinstance(pairs[0][0], nn.Conv2d) and isinstance(pairs[-1][0], nn.Linear)


def test_no_dropout_anywhere() -> None:
    for name in MODELS:
        with torch.device("meta"):  # the layers alone, no weights drawn
            model = build_model(name, 10, 3, 32, seed=0)
        assert not any(isinstance(m, nn.Dropout) for m in model.modules()), name


def test_unknown_model_names_the_closest() -> None:
    with pytest.raises(PruneAuditError, match="'lenet'"):
        build_model("lenett", 10, 1, 28)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"num_classes": 0},
        {"in_channels": 0},
        {"image_size": 30},
        {"seed": -1},
        {"seed": 1.5},
    ],
)
def test_bad_arguments(kwargs: dict) -> None:
    args = {"name": "lenet", "num_classes": 10, "in_channels": 1, "image_size": 28} | kwargs
    with pytest.raises(PruneAuditError):
        build_model(**args)
