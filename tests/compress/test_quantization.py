"""Tests of pruneaudit.quantize on a LeNet trained briefly on real MNIST (and on small models)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from pruning_procedures import prune_step
from torch import nn

from pruneaudit import compress as P
from pruneaudit.compress import quantization as Q
from pruneaudit.data import DATASETS, ImageData, load
from pruneaudit.errors import PruneAuditError
from pruneaudit.models import build_model
from pruneaudit.training import TrainConfig, evaluate, train

N_TRAIN, N_TEST = 8000, 2000
LAYERS = ("features.0", "features.3", "classifier.0", "classifier.2", "classifier.4")
CONVS, LINEARS = LAYERS[:2], LAYERS[2:]


@pytest.fixture(scope="module")
def mnist(data_root):
    train_set = load("mnist", "train", root=data_root)
    test_set = load("mnist", "test", root=data_root)
    return train_set.subset(np.arange(N_TRAIN)), test_set.subset(np.arange(N_TEST))


@pytest.fixture(scope="module")
def lenet(mnist):
    """LeNet trained for one epoch on 8,000 real MNIST images, and its float test accuracy."""
    train_set, test_set = mnist
    model = build_model("lenet", 10, 1, 28, seed=0)
    train(model, train_set, TrainConfig(epochs=1, momentum=0.9, augment=False), progress=False)
    accuracy = float((evaluate(model, test_set) == test_set.labels.numpy()).mean())
    return model, accuracy


@pytest.fixture(scope="module")
def quantized(lenet, mnist):
    model, _ = lenet
    return {scheme: Q.quantize(model, scheme, calibration=mnist[0]) for scheme in Q.SCHEMES}


def synthetic(n: int = 100) -> ImageData:
    g = torch.Generator().manual_seed(0)
    images = torch.randint(0, 256, (n, 1, 28, 28), generator=g, dtype=torch.uint8)
    labels = torch.randint(0, 10, (n,), generator=g)
    return ImageData("synthetic", images, labels, tuple(map(str, range(10))), DATASETS["mnist"])


def test_float_lenet_is_trained(lenet):
    assert lenet[1] > 0.9


@pytest.mark.parametrize("scheme", Q.SCHEMES)
def test_accuracy_within_two_points_of_float(lenet, quantized, mnist, scheme):
    _, float_accuracy = lenet
    test_set = mnist[1]
    preds = evaluate(quantized[scheme], test_set)
    accuracy = float((preds == test_set.labels.numpy()).mean())
    print(f"{scheme}: {accuracy:.4f} vs float {float_accuracy:.4f}")
    assert abs(accuracy - float_accuracy) <= 0.02


def test_float16_stores_every_weight_in_float16(quantized):
    layers = Q.quantized_layers(quantized["float16"])
    assert {layers[n] for n in CONVS} == {"Conv2d:float16"}
    assert {layers[n] for n in LINEARS} == {"Linear:float16"}
    assert all(p.dtype == torch.float16 for p in quantized["float16"].parameters())


def test_dynamic_int8_leaves_no_float_weight(quantized):
    model = quantized["dynamic_int8"]
    layers = Q.quantized_layers(model)
    assert {layers[n] for n in CONVS} == {"Int8WeightConv2d:int8"}
    assert {layers[n] for n in LINEARS} == {"DynamicQuantizedLinear:qint8"}
    assert not any(isinstance(m, (nn.Conv2d, nn.Linear)) for m in model.modules())
    assert list(model.parameters()) == []  # nothing float and trainable left


def test_static_int8_quantizes_weights_and_activations(quantized):
    model = quantized["static_int8"]
    layers = Q.quantized_layers(model)
    assert {layers[n] for n in CONVS} == {"QuantizedConvReLU2d:qint8"}
    assert [layers[n] for n in LINEARS] == [
        "QuantizedLinearReLU:qint8",
        "QuantizedLinearReLU:qint8",
        "QuantizedLinear:qint8",
    ]
    # the input is quantized once to quint8 and only the logits are dequantized
    calls = [n.target for n in model.graph.nodes if n.op in ("call_function", "call_method")]
    assert calls.count(torch.quantize_per_tensor) >= 1
    quantize_nodes = [n for n in model.graph.nodes if n.target is torch.quantize_per_tensor]
    assert all(n.args[-1] == torch.quint8 for n in quantize_nodes)
    assert "dequantize" in calls


def test_quantize_leaves_the_input_model_unchanged(lenet, quantized):
    model, _ = lenet
    fresh = build_model("lenet", 10, 1, 28, seed=0)
    prune_step(fresh, "global_unstructured", 0.5)
    x = torch.randn(4, 1, 28, 28)
    before = P.pruned_state_dict(fresh)
    out = fresh(x)
    for scheme in Q.SCHEMES:
        Q.quantize(fresh, scheme, calibration=synthetic())
    after = P.pruned_state_dict(fresh)
    assert before.keys() == after.keys()
    assert all(torch.equal(before[k], after[k]) for k in before)
    assert "features.0.weight_orig" in dict(fresh.named_parameters())  # still pruned
    assert torch.equal(fresh(x), out)
    assert set(Q.quantized_layers(model).values()) == {"Conv2d:float32", "Linear:float32"}


@pytest.mark.parametrize("scheme", Q.SCHEMES)
def test_pruned_weights_stay_exactly_zero(scheme):
    model = build_model("lenet", 10, 1, 28, seed=0)
    P.prune_to(model, "l1_unstructured", 0.6)
    zeros = {k: int((w == 0).sum()) for k, w in P.masks(model).items()}
    q = Q.quantize(model, scheme, calibration=synthetic())
    for name, module in q.named_modules():
        if name + ".weight" not in zeros:
            continue
        if isinstance(module, Q.Int8WeightConv2d):
            w = module.weight_int8
        elif callable(getattr(module, "weight", None)):
            w = module.weight().int_repr() - module.weight().q_per_channel_zero_points().view(
                -1, *[1] * (module.weight().dim() - 1)
            )
        else:
            w = module.weight
        assert int((w == 0).sum()) == zeros[name + ".weight"], (scheme, name)


def test_int8_weight_conv_matches_per_channel_rounding():
    conv = nn.Conv2d(2, 3, 3)
    with torch.no_grad():
        conv.weight.copy_(torch.linspace(-1, 1, 54).view(3, 2, 3, 3))
        conv.weight[2].zero_()  # an all-zero channel must not divide by zero
    q = Q.Int8WeightConv2d(conv)
    w = conv.weight.detach()
    scale = w.abs().amax(dim=(1, 2, 3)) / 127
    assert torch.equal(
        q.weight_int8[:2], torch.round(w[:2] / scale[:2].view(-1, 1, 1, 1)).to(torch.int8)
    )
    assert torch.all(q.weight_int8[2] == 0)
    assert int(q.weight_int8.abs().max()) == 127
    x = torch.randn(2, 2, 5, 5)
    assert torch.allclose(q(x), F.conv2d(x, q.dequantized_weight(), conv.bias))
    assert (q.dequantized_weight() - w).abs().max() <= scale.max() / 2 + 1e-7


def test_static_int8_needs_100_calibration_examples():
    model = build_model("lenet", 10, 1, 28, seed=0)
    with pytest.raises(PruneAuditError, match="calibration"):
        Q.quantize(model, "static_int8")
    with pytest.raises(PruneAuditError, match="first 100"):
        Q.quantize(model, "static_int8", calibration=synthetic(50))
    with pytest.raises(PruneAuditError, match="dynamic_int8"):
        Q.quantize(model, "dynamic-int8")
