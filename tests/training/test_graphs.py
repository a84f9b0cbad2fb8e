"""The graph path of the population trainer (:mod:`pruneaudit.training.graphed`).

On the CPU its static-buffer step runs without capture, so its arithmetic (the gather inside
the step, device-side normalization, SGD as foreach operations with a device learning rate,
momentum buffers from zero, masks everywhere, the short last batch eagerly, hooks between
steps) is checked against the eager step here. The tests marked ``cuda`` check the captured
graph against the eager step on a GPU (skipped without one), in float32 and bf16.
"""

from __future__ import annotations

import pytest
import torch
from torch import nn

from pruneaudit import compress, data
from pruneaudit.errors import PruneAuditError
from pruneaudit.models import build_model
from pruneaudit.training import TrainConfig, graphed, train_population

RTOL, ATOL = 1e-5, 1e-6
CUDA_RTOL, CUDA_ATOL = 1e-4, 1e-5


def _models(arch: str, seeds) -> list[nn.Module]:
    return [build_model(arch, 10, 1, 28, seed=s) for s in seeds]


def _pruned_hooks(models: list[nn.Module], k: int):
    """A gradual pruner on member 1 (its first act prunes so far unpruned layers), none else."""
    hooks = [None] * k
    hooks[1] = compress.GradualPruner(0.5, 0, 4, 2, "l1_unstructured")
    return hooks


def _assert_close(a: nn.Module, b: nn.Module, rtol: float, atol: float) -> None:
    sa, sb = a.state_dict(), b.state_dict()
    assert list(sa) == list(sb)
    for key in sa:
        if key.endswith("_mask"):
            assert torch.equal(sa[key], sb[key]), key
        else:
            torch.testing.assert_close(sb[key], sa[key], rtol=rtol, atol=atol, msg=key)


def _both(arch, data_, cfgs, device, hooks=False, indices=None, precision=None):
    k = len(cfgs)
    eager = _models(arch, range(k))
    graph = [compress.copy_model(m) for m in eager]
    for models, graphs in ((eager, False), (graph, True)):
        train_population(
            models, data_, cfgs, progress=False, device=device, graphs=graphs,
            step_hooks=_pruned_hooks(models, k) if hooks else None, indices=indices,
            precision=precision,
        )
    return eager, graph


# AlexNet's variant (10 s) runs in `make test-slow`; LeNet's checks the same path in `make test`.
@pytest.mark.parametrize("arch", ["lenet", pytest.param("alexnet", marks=pytest.mark.slow)])
def test_static_step_equals_the_eager_step_on_the_cpu(arch, mnist):
    cfgs = [TrainConfig(epochs=2, seed=s) for s in (4, 5, 4)]
    eager, graph = _both(arch, mnist, cfgs, "cpu")
    for a, b in zip(eager, graph, strict=True):
        _assert_close(a, b, RTOL, ATOL)


def test_static_step_with_momentum_decay_flips_hooks_and_own_splits(flippable):
    cfgs = [TrainConfig(epochs=2, seed=s, momentum=0.9, weight_decay=5e-4) for s in range(3)]
    rng = torch.Generator().manual_seed(0)
    indices = [torch.randperm(100, generator=rng)[:70] for _ in range(3)]
    eager, graph = _both("lenet", flippable, cfgs, "cpu", hooks=True, indices=indices)
    for a, b in zip(eager, graph, strict=True):
        _assert_close(a, b, RTOL, ATOL)
    assert any(hasattr(m, "weight_mask") for m in graph[1].modules())  # the hook pruned


def test_graphs_setting_is_checked(mnist):
    with pytest.raises(PruneAuditError, match="graphs must be True, False or 'auto'"):
        train_population(_models("lenet", [0]), mnist, [TrainConfig(epochs=1)], graphs="yes",
                         progress=False, device="cpu")


def test_normalizer_matches_normalize(mnist):
    scale, shift = graphed.normalizer(mnist.spec.mean, mnist.spec.std, torch.device("cpu"))
    x = mnist.images[:8]
    assert torch.equal(torch.addcmul(shift, x.float(), scale), data.normalize(x, mnist.spec))


@pytest.mark.cuda
@pytest.mark.parametrize("arch", ["lenet", "alexnet"])
def test_graph_equals_eager_on_cuda(arch, mnist):
    cfgs = [TrainConfig(epochs=2, seed=s) for s in (4, 5, 4)]
    eager, graph = _both(arch, mnist, cfgs, "cuda")
    for a, b in zip(eager, graph, strict=True):
        _assert_close(a, b, CUDA_RTOL, CUDA_ATOL)


@pytest.mark.cuda
def test_graph_with_momentum_hooks_and_splits_equals_eager_on_cuda(flippable):
    cfgs = [TrainConfig(epochs=2, seed=s, momentum=0.9, weight_decay=5e-4) for s in range(3)]
    rng = torch.Generator().manual_seed(0)
    indices = [torch.randperm(100, generator=rng)[:70] for _ in range(3)]
    eager, graph = _both("lenet", flippable, cfgs, "cuda", hooks=True, indices=indices)
    for a, b in zip(eager, graph, strict=True):
        _assert_close(a, b, CUDA_RTOL, CUDA_ATOL)


@pytest.mark.cuda
def test_graph_is_the_default_on_cuda_and_captures(mnist, monkeypatch):
    captured = []
    real = graphed.StaticStep._capture

    def spy(self):
        real(self)
        captured.append(self.graph)

    monkeypatch.setattr(graphed.StaticStep, "_capture", spy)
    train_population(_models("lenet", [0, 1]), mnist, [TrainConfig(epochs=1, seed=s)
                     for s in (0, 1)], progress=False, device="cuda")
    assert len(captured) == 1 and captured[0] is not None


@pytest.mark.cuda
def test_bf16_graph_equals_bf16_eager_on_cuda(mnist):
    cfgs = [TrainConfig(epochs=1, seed=s) for s in (4, 5)]
    eager, graph = _both("lenet", mnist, cfgs, "cuda", precision="bf16")
    for a, b in zip(eager, graph, strict=True):
        _assert_close(a, b, 2e-2, 2e-3)  # bfloat16 products: 8-bit mantissa
    fp32 = _models("lenet", range(2))
    train_population(fp32, mnist, cfgs, progress=False, device="cuda", precision="fp32")
    # the bf16 run is a different arithmetic, near the float32 one
    w = [next(m.parameters()).detach() for m in (fp32[0], graph[0])]  # the first conv's
    assert not torch.equal(*w) and torch.allclose(*w, atol=5e-2)
