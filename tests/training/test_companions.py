"""A member's result never depends on its companions: the same bits, weights and predictions,
trained alone or beside 1, 2, 4 or 7 companions (other seeds, own examples, a pruning hook), at
any position, on 1, 2 or 3 torch threads (the canonical blocks of
:mod:`pruneaudit.training.stacked`: one torch thread per block, a lone member padded).

What the bits depended on before (the previous trainer: blocks of the population's size, at
the threads of the time; LeNet, 256 MNIST digits, one epoch): at one torch thread, a member
alone got other bits than in a block of 2 to 8 (a block of one runs the ungrouped convolution;
AlexNet too in this test's setting, not in that one); at two torch threads, alone got other
bits again, and so did blocks of an odd size (the convolutions' bias and weight gradients of
an odd number of members are split otherwise across the threads; not so for AlexNet);
block size otherwise, position in the block and the companions' seeds, examples and hooks
changed nothing. The companion test below fails on the previous trainer (every case).
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
import torch
from torch import nn

from pruneaudit import compress, data
from pruneaudit.models import build_model
from pruneaudit.training import (
    TrainConfig,
    evaluate_population,
    predict,
    stacked,
    train_population,
)

#: Companions beside the member, and the member's position among them.
COMPANIONS = (1, 2, 4, 7)
#: Examples each member trains on (its own split of the pool): a full batch and a short one.
OWN = 40


@pytest.fixture(scope="module")
def pool(data_root) -> data.ImageData:
    return data.load("mnist", "train", root=data_root).subset(range(160))


@functools.cache
def _fresh(arch: str, seed: int) -> nn.Module:
    """An untrained model, built once per test process (an AlexNet takes half a second)."""
    return build_model(arch, 10, 1, 28, seed=seed)


def _member(
    arch: str, pool: data.ImageData, companions: int, threads: int, size: int = OWN
) -> nn.Module:
    """The member (seed 0, the pool's first ``size`` examples, pruned after its first step)
    trained beside ``companions`` others (their own seeds and examples, one of them gradually
    pruned from the start), at ``threads``."""
    k = companions + 1
    at = (3 * companions) % k  # a position that varies with the size: last, first, middle...
    seeds = [100 + i for i in range(k)]
    seeds[at] = 0
    rng = np.random.default_rng(companions)
    own = [rng.choice(len(pool), size, replace=False) for _ in range(k)]
    own[at] = np.arange(size)
    hooks: list = [None] * k
    hooks[at] = compress.GradualPruner(0.3, 1, 2, 1)  # the member is pruned at its second step
    if companions:
        hooks[(at + 1) % k] = compress.GradualPruner(0.5, 0, 2, 1)
    models = [compress.copy_model(_fresh(arch, s)) for s in seeds]
    cfgs = [TrainConfig(epochs=1, seed=s, lr=0.05) for s in seeds]
    train_population(
        models, pool, cfgs, indices=own, step_hooks=hooks, progress=False, num_threads=threads,
        device="cpu",
    )
    return models[at]


#: AlexNet's variants (4-9 s each) run in `make test-slow`; LeNet's check the same path in
#: `make test`.
ALEXNET = [pytest.param("alexnet", t, marks=pytest.mark.slow) for t in (1, 2)]


def _same_bits(a: nn.Module, b: nn.Module) -> bool:
    x, y = a.state_dict(), b.state_dict()
    return list(x) == list(y) and all(torch.equal(x[n], y[n]) for n in x)


@pytest.mark.parametrize(
    ("arch", "threads"), [("lenet", 1), ("lenet", 2), ("lenet", 3), *ALEXNET]
)
def test_a_member_never_depends_on_its_companions(arch, threads, pool):
    """Alone at one thread (the reference) or beside 1, 2, 4 and 7 companions at ``threads``:
    the same weights and predictions, bit for bit (AlexNet: one step, to stay fast, which ends
    before its member's pruning)."""
    test = pool.subset(range(100, 160))
    own = OWN if arch == "lenet" else 32
    alone = _member(arch, pool, 0, 1, own)
    expected = evaluate_population([alone], test)[0]
    assert not _same_bits(alone, _fresh(arch, 0))  # it trained
    for companions in (0, *COMPANIONS):
        member = _member(arch, pool, companions, threads, own)
        assert _same_bits(member, alone), companions
        np.testing.assert_array_equal(evaluate_population([member], test)[0], expected)


def test_predictions_do_not_depend_on_the_evaluation_block(pool):
    """A member's predictions are the same evaluated alone or in a block of 5 or 8 members, on
    1 or 2 torch threads (the forward pass measured so)."""
    test = pool.subset(range(100, 160))
    models = [build_model("lenet", 10, 1, 28, seed=s) for s in range(8)]
    alone = evaluate_population(models[3:4], test)[0]
    for n in (1, 2):
        torch_threads = torch.get_num_threads()
        torch.set_num_threads(n)
        try:
            np.testing.assert_array_equal(evaluate_population(models[:5], test)[3], alone)
            np.testing.assert_array_equal(evaluate_population(models, test)[3], alone)
        finally:
            torch.set_num_threads(torch_threads)


def test_a_lone_member_gets_its_logits_from_any_evaluation_block(pool):
    """A lone member's evaluation stack gives it the logits, bit for bit, that it gets in
    blocks of 2, 5 and 8 (other positions), on 1 or 2 torch threads. A bare stack of one (the
    ungrouped convolution) gave other bits (AVX2 EPYC, 29 Nov), which a near-tie could turn
    into another label."""
    x = data.normalize(pool.images[100:160], pool.spec)
    models = [build_model("lenet", 10, 1, 28, seed=s) for s in range(8)]

    def logits(members: list[nn.Module], at: int) -> torch.Tensor:
        stack = predict.evaluation_stack(members)
        with torch.inference_mode():
            return stack.forward(x.repeat(1, stack.k, 1, 1))[at]

    alone = logits(models[3:4], 0)
    torch_threads = torch.get_num_threads()
    try:
        for n in (1, 2):
            torch.set_num_threads(n)
            for members, at in ((models[2:4], 1), (models[:5], 3), (models, 3)):
                assert torch.equal(logits(members, at), alone), (n, len(members))
    finally:
        torch.set_num_threads(torch_threads)


@pytest.mark.parametrize(
    ("k", "workers", "sizes"),
    [(1, 2, [1]), (2, 2, [2]), (3, 2, [1, 2]), (4, 2, [2, 2]), (9, 2, [4, 5]), (3, 1, [3]),
     (7, 3, [2, 2, 3]), (20, 2, [6, 7, 7]), (20, 16, [2] * 10)],
)
def test_blocks_fill_the_threads(k, workers, sizes):
    groups = stacked.blocks(k, torch.device("cpu"), workers)
    assert [len(g) for g in groups] == sizes
    assert [i for g in groups for i in g] == list(range(k))
