"""The step-hook protocol: which hooks act on which steps, and the stacked trainer's copies."""

from __future__ import annotations

from torch import nn

from pruneaudit import compress
from pruneaudit.training import ScheduledHook, hook_acts


class EveryThird:
    """A scheduled hook of the test's own (not a pruner): acts on steps 0, 3, 6..."""

    def __init__(self) -> None:
        self.calls: list[int] = []

    def acts_at(self, step: int) -> bool:
        return step % 3 == 0

    def __call__(self, model: nn.Module, step: int) -> None:
        self.calls.append(step)


def test_gradual_pruner_is_a_scheduled_hook() -> None:
    pruner = compress.GradualPruner(0.9, begin_step=2, end_step=10, frequency=3)
    assert isinstance(pruner, ScheduledHook)
    assert [t for t in range(15) if hook_acts(pruner, t)] == [2, 5, 8, 10]


def test_plain_hooks_act_every_step_and_none_never() -> None:
    def plain(model: nn.Module, step: int) -> None:
        return None

    assert not isinstance(plain, ScheduledHook)
    assert all(hook_acts(plain, t) for t in range(5))
    assert not any(hook_acts(None, t) for t in range(5))
    assert [t for t in range(8) if hook_acts(EveryThird(), t)] == [0, 3, 6]


def test_training_does_not_import_the_pruner() -> None:
    """The trainer knows hooks by the protocol only: no name of compress.prune in training."""
    import pathlib

    import pruneaudit.training as training

    folder = pathlib.Path(training.__file__).parent
    text = "\n".join(p.read_text() for p in folder.glob("*.py"))
    assert "compress.prune" not in text and "isinstance(hook, GradualPruner)" not in text


def test_stacked_trainer_calls_a_scheduled_hook_only_on_its_steps(data_root) -> None:
    from pruneaudit import data
    from pruneaudit.models import build_model
    from pruneaudit.training import TrainConfig, train_population

    digits = data.load("mnist", "train", root=data_root).subset(range(100))  # 4 steps at 32
    models = [build_model("lenet", 10, 1, 28, seed=s) for s in (0, 1)]
    hooks = [EveryThird(), EveryThird()]
    cfgs = [TrainConfig(epochs=2, seed=s) for s in (0, 1)]
    train_population(models, digits, cfgs, step_hooks=list(hooks), progress=False)
    assert [h.calls for h in hooks] == [[0, 3, 6], [0, 3, 6]]
