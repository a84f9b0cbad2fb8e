"""Threads decided where they are used: the free cores re-read before each population, from
CPU-time counters between calls (an injected clock and counters here: no real sleeping)."""

from __future__ import annotations

import pytest
import torch

from pruneaudit import data
from pruneaudit.errors import PruneAuditError
from pruneaudit.models import LeNet, build_model
from pruneaudit.training import TrainConfig, threads, train, train_population


class Machine:
    """A fake 2-core machine: a clock, the machine's busy CPU seconds and this tree's."""

    def __init__(self) -> None:
        self.now = self.system = self.own = 0.0

    def run(self, seconds: float, others: float, mine: float) -> None:
        """``seconds`` pass with other processes on ``others`` cores and this tree on ``mine``."""
        self.now += seconds
        self.system += seconds * (others + mine)
        self.own += seconds * mine

    def reader(self, cores: int = 2) -> threads.FreeCores:
        return threads.FreeCores(
            cores, clock=lambda: self.now, system=lambda: self.system, own=lambda: self.own
        )


@pytest.fixture
def following(monkeypatch):
    """This process follows a fake machine's free cores; torch's thread count is restored."""
    monkeypatch.delenv(threads.THREADS_ENV, raising=False)
    machine, before = Machine(), torch.get_num_threads()
    threads.follow_free_cores(reader=machine.reader())
    yield machine
    threads.follow_free_cores(False)
    torch.set_num_threads(before)


def test_a_burst_at_the_start_does_not_hold_a_long_build(following):
    machine = following
    torch.set_num_threads(1)  # what the kernel chose while the other process was busy
    machine.run(90, others=1.1, mine=0.9)  # the first population, during the burst
    assert threads.adjust_threads() == 1
    machine.run(600, others=0.0, mine=1.0)  # the burst is over
    assert threads.adjust_threads() == 2
    machine.run(300, others=1.0, mine=1.0)  # another process takes a core again
    assert threads.adjust_threads() == 1


def test_too_short_a_window_keeps_the_count_and_the_reading_goes_on():
    machine = Machine()
    reader = machine.reader()
    machine.run(1.0, others=2.0, mine=0.0)
    assert reader.threads() is None  # 1 s < MIN_WINDOW: no judgement
    machine.run(3.0, others=0.0, mine=0.0)
    # the reading spans both: 2 core-seconds of others over 4 s = 0.5 cores -> round(1.5) = 2
    assert reader.load() == pytest.approx(0.5)
    machine.run(4.0, others=0.6, mine=1.4)
    assert reader.threads() == 1  # round(2 - 0.6) = 1


@pytest.mark.parametrize(
    ("cores", "load", "expected"),
    [(2, 0.0, 2), (2, 0.4, 2), (2, 0.6, 1), (2, 5.0, 1), (16, 3.0, 13), (4, -1.0, 4)],
)
def test_free_threads_rounds_within_one_and_the_cores(cores, load, expected):
    assert threads.free_threads(cores, load) == expected


def test_the_setting_fixes_the_count(following, monkeypatch):
    machine = following
    monkeypatch.setenv(threads.THREADS_ENV, "3")
    machine.run(100, others=2.0, mine=0.0)
    assert threads.population_threads() == 3
    monkeypatch.setenv(threads.THREADS_ENV, "0")
    with pytest.raises(PruneAuditError, match="PRUNEAUDIT_THREADS must be a positive integer"):
        threads.population_threads()


def test_not_following_keeps_torchs_setting(monkeypatch):
    threads.follow_free_cores(False)
    monkeypatch.setenv(threads.THREADS_ENV, "3")
    before = torch.get_num_threads()
    assert threads.population_threads() is None
    assert threads.adjust_threads() == before


def test_the_trainer_rereads_per_population_and_results_do_not_change(following, data_root):
    mnist = data.load("mnist", "train", root=data_root).subset(range(64))
    cfgs = [TrainConfig(epochs=1, seed=s) for s in range(3)]
    torch.set_num_threads(1)
    following.run(10, others=1.5, mine=0.5)
    busy = [build_model("lenet", 10, 1, 28, seed=s) for s in range(3)]
    train_population(busy, mnist, cfgs, progress=False, device="cpu")
    assert torch.get_num_threads() == 1
    following.run(10, others=0.0, mine=1.0)
    idle = [build_model("lenet", 10, 1, 28, seed=s) for s in range(3)]
    train_population(idle, mnist, cfgs, progress=False, device="cpu")
    assert torch.get_num_threads() == 2
    for a, b in zip(busy, idle, strict=True):
        for x, y in zip(a.parameters(), b.parameters(), strict=True):
            torch.testing.assert_close(x, y, rtol=1e-5, atol=1e-6)


class Unstacked(LeNet):
    """A LeNet the population trainer does not stack (its type is not LeNet): trained alone."""


def test_a_model_trained_alone_gets_no_thread_count_from_the_load(
    following, monkeypatch, data_root
):
    """Following the free cores on a busy machine (the trainer picks 1 thread), a model the
    population trainer trains alone (VGG11, ResNet18) trains at the steady count (here 2, as if
    the process started with 2): bitwise what 2 threads give, although 1 thread differs."""
    mnist = data.load("mnist", "train", root=data_root).subset(range(256))
    cfg = TrainConfig(epochs=1, seed=0)
    monkeypatch.setattr(threads, "START_THREADS", 2)

    def fresh() -> Unstacked:
        net = Unstacked()
        net.load_state_dict(build_model("lenet", 10, 1, 28, seed=0).state_dict())
        return net

    at = {
        n: train(fresh(), mnist, cfg, progress=False, num_threads=n, device="cpu") for n in (1, 2)
    }
    torch.set_num_threads(2)
    following.run(10, others=1.5, mine=0.5)  # busy: the population's count is 1
    busy = fresh()
    train_population([busy], mnist, [cfg], progress=False, device="cpu")
    assert torch.get_num_threads() == 1  # the load picked the population's count
    weights = [m.state_dict().values() for m in (busy, at[2], at[1])]
    assert all(torch.equal(x, y) for x, y in zip(weights[0], weights[1], strict=True))
    assert not all(torch.equal(x, y) for x, y in zip(weights[1], weights[2], strict=True))


def test_the_steady_count_is_the_start_or_the_setting_never_the_load(following, monkeypatch):
    machine = following
    monkeypatch.setattr(threads, "START_THREADS", 2)
    torch.set_num_threads(2)
    machine.run(10, others=1.5, mine=0.5)
    assert threads.adjust_threads() == 1
    with threads.at_steady_threads():
        assert torch.get_num_threads() == 2
    assert torch.get_num_threads() == 1  # restored
    monkeypatch.setenv(threads.THREADS_ENV, "3")
    assert threads.steady_threads() == 3
    threads.follow_free_cores(False)
    assert threads.steady_threads() is None  # not following: torch's setting is kept
    with threads.at_steady_threads():
        assert torch.get_num_threads() == 1
