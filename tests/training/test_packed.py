"""A packed population (:func:`pruneaudit.training.train_packed`): parts of other pools and
other schedules train in one queue of blocks, and every member ends with the bits it gets in a
population of its own part alone."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from pruneaudit import compress, data
from pruneaudit.errors import PruneAuditError
from pruneaudit.models import build_model
from pruneaudit.training import Part, TrainConfig, train_packed, train_population


def _same_bits(a: torch.nn.Module, b: torch.nn.Module) -> bool:
    x, y = a.state_dict(), b.state_dict()
    return list(x) == list(y) and all(torch.equal(x[n], y[n]) for n in x)


def _parts(root) -> list[Part]:
    """Three parts: MNIST at one epoch (3 members, one gradually pruned), Fashion-MNIST at two
    epochs (2 members, own examples of one size) and MNIST again at two epochs (1 member)."""
    mnist = data.load("mnist", "train", root=root).subset(range(96))
    fashion = data.load("fashion_mnist", "train", root=root).subset(range(80))
    rng = np.random.default_rng(0)

    def nets(seeds):
        return [build_model("lenet", 10, 1, 28, seed=s) for s in seeds]

    return [
        Part(nets([0, 1, 2]), mnist, [TrainConfig(epochs=1, seed=s, lr=0.05) for s in (0, 1, 2)],
             step_hooks=[None, compress.GradualPruner(0.5, 0, 2, 1), None]),
        Part(nets([3, 4]), fashion, [TrainConfig(epochs=2, seed=s, lr=0.05) for s in (3, 4)],
             indices=[rng.choice(80, 40, replace=False) for _ in range(2)]),
        Part(nets([5]), mnist, [TrainConfig(epochs=2, seed=5, lr=0.05)]),
    ]


@pytest.mark.parametrize("threads", [1, 2])
def test_packed_members_equal_each_part_trained_alone(data_root, threads):
    packed, alone = _parts(data_root), _parts(data_root)
    before = [compress.copy_model(m) for p in packed for m in p.models]
    train_packed(packed, progress=False, num_threads=threads, device="cpu")
    for part in alone:
        train_population(part.models, part.data, part.cfgs, indices=part.indices,
                         step_hooks=part.step_hooks, progress=False, num_threads=1, device="cpu")
    members = [(a, b) for p, q in zip(packed, alone, strict=True)
               for a, b in zip(p.models, q.models, strict=True)]
    assert all(not _same_bits(a, b) for (a, _), b in zip(members, before, strict=True))  # trained
    for i, (a, b) in enumerate(members):
        assert _same_bits(a, b), i


def test_bad_packed_populations_name_the_problem(data_root):
    mnist = data.load("mnist", "train", root=data_root).subset(range(32))
    lenet = build_model("lenet", 10, 1, 28, seed=0)
    cfg = TrainConfig(epochs=1)
    with pytest.raises(PruneAuditError, match="at least one part"):
        train_packed([], progress=False)
    with pytest.raises(PruneAuditError, match="more than one part"):
        train_packed([Part([lenet], mnist, [cfg]), Part([lenet], mnist, [cfg])], progress=False)
    other = Part([build_model("alexnet", 10, 1, 28, seed=0)], mnist, [cfg])
    with pytest.raises(PruneAuditError, match="one architecture"):
        train_packed([Part([lenet], mnist, [cfg]), other], progress=False)
    with pytest.raises(PruneAuditError, match="share 'epochs'"):
        train_packed([Part([lenet, build_model("lenet", 10, 1, 28, seed=1)], mnist,
                           [cfg, TrainConfig(epochs=2)])], progress=False)

