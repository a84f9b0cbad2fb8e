"""The device setting: resolution, data placement, precision, and the same results on a device.

CPU tests run everywhere; tests marked ``cuda`` run only where torch sees a GPU (skipped here)
and check that a run on CUDA matches the same run on the CPU, and a population on CUDA matches
its members trained one by one, within float32 tolerance.
"""

from __future__ import annotations

import gc

import numpy as np
import pytest
import torch
from pruning_procedures import prune_step

from pruneaudit import compress, config, data
from pruneaudit.errors import PruneAuditError
from pruneaudit.models import build_model
from pruneaudit.training import (
    TrainConfig,
    block_size,
    device,
    evaluate,
    evaluate_population,
    train,
    train_population,
)

CFG = TrainConfig(epochs=1, batch_size=32, seed=3)
CUDA_RTOL, CUDA_ATOL = 1e-4, 1e-5


@pytest.fixture(scope="module")
def mnist(data_root) -> data.ImageData:
    return data.load("mnist", "train", root=data_root).subset(range(100))


@pytest.fixture
def no_cuda(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 0)


@pytest.fixture
def two_gpus(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)


def test_auto_is_cpu_without_cuda(no_cuda, monkeypatch):
    monkeypatch.delenv(config.DEVICE_ENV, raising=False)
    assert device.resolve_device() == torch.device("cpu")
    assert device.resolve_device("auto") == torch.device("cpu")
    assert device.resolve_device("cpu") == torch.device("cpu")


def test_auto_is_cuda_with_cuda(two_gpus, monkeypatch):
    monkeypatch.setenv(config.DEVICE_ENV, "auto")
    assert device.resolve_device() == torch.device("cuda")
    assert device.resolve_device("cuda:1") == torch.device("cuda:1")
    monkeypatch.setenv(config.DEVICE_ENV, "cpu")
    assert device.resolve_device() == torch.device("cpu")  # the environment is read
    with pytest.raises(PruneAuditError, match=r"'cuda:2'.*2 CUDA device"):
        device.resolve_device("cuda:2")


def test_cuda_without_cuda_is_one_clear_error(no_cuda):
    for setting in ("cuda", "cuda:0"):
        with pytest.raises(PruneAuditError, match="0 CUDA device"):
            device.resolve_device(setting)
    with pytest.raises(PruneAuditError, match="device must be auto, cpu, cuda or cuda:N"):
        device.resolve_device("gpu")


def test_to_device_copies_once_and_forgets_with_the_tensor():
    meta = torch.device("meta")  # a second device on any machine
    t = torch.arange(6)
    a, b = device.to_device(t, meta), device.to_device(t, meta)
    assert a is b and a.device == meta and a.shape == t.shape
    assert device.to_device(t, torch.device("cpu")) is t
    key = id(t)
    assert key in device._COPIES
    del t, a, b
    gc.collect()
    assert key not in device._COPIES


def test_on_device_same_device_is_the_same_object(mnist):
    assert device.on_device(mnist, torch.device("cpu")) is mnist
    moved = device.on_device(mnist, torch.device("meta"))
    assert moved.images.device.type == "meta" and moved.labels.device.type == "meta"
    assert moved.spec == mnist.spec and mnist.images.device.type == "cpu"


def test_full_precision_turns_tf32_off_on_cuda_only():
    before = (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32)
    torch.backends.cudnn.allow_tf32 = True
    try:
        with device.full_precision(torch.device("cpu")):
            assert torch.backends.cudnn.allow_tf32 is True
        with device.full_precision(torch.device("cuda")):
            assert torch.backends.cuda.matmul.allow_tf32 is False
            assert torch.backends.cudnn.allow_tf32 is False
        assert torch.backends.cudnn.allow_tf32 is True
    finally:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = before


def test_block_size_by_device():
    assert block_size(torch.device("cpu")) == 8
    assert block_size(torch.device("cuda")) == 64


def test_environment_records_device_and_versions(no_cuda):
    env = device.environment("auto")
    assert env["device"] == "cpu" and env["torch"] == torch.__version__
    assert env["tf32"] is False and env["cuda"] is None
    assert set(env) >= {"device_name", "numpy", "python", "pruneaudit"}


def test_explicit_cpu_equals_the_default(mnist, no_cuda, monkeypatch):
    monkeypatch.setenv(config.DEVICE_ENV, "auto")
    a, b = build_model("lenet", 10, 1, 28, seed=0), build_model("lenet", 10, 1, 28, seed=0)
    train(a, mnist, CFG, progress=False)
    train(b, mnist, CFG, progress=False, device="cpu")
    for (name, x), y in zip(a.state_dict().items(), b.state_dict().values(), strict=True):
        assert torch.equal(x, y), name
    assert np.array_equal(evaluate(a, mnist), evaluate(b, mnist, device="cpu"))


def test_int8_models_are_evaluated_on_the_cpu(mnist, no_cuda, monkeypatch):
    """A quantized model ignores a CUDA setting (its kernels are CPU kernels): no error here,
    although resolving ``cuda`` on this machine (no CUDA) would raise."""
    model = train(build_model("lenet", 10, 1, 28, seed=0), mnist, CFG, progress=False)
    expected = {}
    for scheme in ("dynamic_int8", "static_int8"):
        q = compress.quantize(model, scheme, calibration=mnist)
        assert device.is_quantized(q)
        expected[scheme] = evaluate(q, mnist)
    assert not device.is_quantized(model)
    monkeypatch.setenv(config.DEVICE_ENV, "cuda")
    for scheme, preds in expected.items():
        q = compress.quantize(model, scheme, calibration=mnist)
        assert np.array_equal(evaluate(q, mnist), preds)
    with pytest.raises(PruneAuditError, match="0 CUDA device"):
        evaluate(model, mnist)


def test_the_model_goes_back_to_its_own_device(mnist):
    model = build_model("lenet", 10, 1, 28, seed=0)
    prune_step(model, "l1_unstructured", 0.3)
    train(model, mnist, CFG, progress=False, device="cpu")
    assert {t.device.type for t in [*model.parameters(), *model.buffers()]} == {"cpu"}
    assert model.features[0].weight.is_contiguous()


# --------------------------------------------------------------------------- on a GPU


@pytest.mark.cuda
def test_cuda_train_matches_cpu_train(mnist):
    a = build_model("lenet", 10, 1, 28, seed=0)
    b = build_model("lenet", 10, 1, 28, seed=0)
    train(a, mnist, CFG, progress=False, device="cpu")
    train(b, mnist, CFG, progress=False, device="cuda")
    assert {t.device.type for t in b.parameters()} == {"cpu"}  # back home
    for (name, x), y in zip(a.state_dict().items(), b.state_dict().values(), strict=True):
        torch.testing.assert_close(y, x, rtol=CUDA_RTOL, atol=CUDA_ATOL, msg=name)
    assert (evaluate(a, mnist) == evaluate(b, mnist, device="cuda")).mean() > 0.99


@pytest.mark.cuda
@pytest.mark.parametrize("technique", [None, "l1_unstructured"])
def test_cuda_population_matches_members_alone(mnist, technique):
    seeds = [0, 1, 2]
    alone = [build_model("lenet", 10, 1, 28, seed=s) for s in seeds]
    stack = [build_model("lenet", 10, 1, 28, seed=s) for s in seeds]
    if technique:
        for m in (*alone, *stack):
            prune_step(m, technique, 0.5)
    cfgs = [TrainConfig(epochs=1, batch_size=32, seed=s) for s in seeds]
    for m, c in zip(alone, cfgs, strict=True):
        train(m, mnist, c, progress=False, device="cuda")
    train_population(stack, mnist, cfgs, progress=False, device="cuda")
    for a, b in zip(alone, stack, strict=True):
        for (name, x), y in zip(a.state_dict().items(), b.state_dict().values(), strict=True):
            if name.endswith("_mask"):
                assert torch.equal(x, y), name
            else:
                torch.testing.assert_close(y, x, rtol=CUDA_RTOL, atol=CUDA_ATOL, msg=name)
    preds = evaluate_population(stack, mnist, device="cuda")
    singles = np.stack([evaluate(m, mnist, device="cuda") for m in stack])
    assert (preds == singles).mean() > 0.99


@pytest.mark.cuda
def test_cuda_gradual_pruning_hook_in_a_population(mnist):
    seeds = [0, 1]
    cfgs = [TrainConfig(epochs=1, batch_size=32, seed=s) for s in seeds]
    nets = [build_model("lenet", 10, 1, 28, seed=s) for s in seeds]
    hooks = [compress.GradualPruner(0.5, 0, 3, 1), None]
    train_population(nets, mnist, cfgs, step_hooks=hooks, progress=False, device="cuda")
    assert compress.sparsity(nets[0]) == pytest.approx(0.5, abs=0.01)
    assert compress.sparsity(nets[1]) == 0.0
