"""Threads decided where they are used: the runtime re-reads the free cores before each
population, from CPU-time counters between calls (an injected clock and counters here: no real
sleeping), and training leaves torch's thread count as it found it."""

from __future__ import annotations

import threading

import pytest
import torch

from pruneaudit import data, runtime
from pruneaudit.errors import PruneAuditError
from pruneaudit.models import LeNet, build_model
from pruneaudit.training import Part, TrainConfig, train, train_packed


class Machine:
    """A fake 2-core machine: a clock, the machine's busy CPU seconds and this tree's."""

    def __init__(self) -> None:
        self.now = self.system = self.own = 0.0

    def run(self, seconds: float, others: float, mine: float) -> None:
        """``seconds`` pass with other processes on ``others`` cores and this tree on ``mine``."""
        self.now += seconds
        self.system += seconds * (others + mine)
        self.own += seconds * mine

    def reader(self, cores: int = 2) -> runtime.FreeCores:
        return runtime.FreeCores(
            cores, clock=lambda: self.now, system=lambda: self.system, own=lambda: self.own
        )


@pytest.fixture
def following():
    """A runtime that follows a fake machine's free cores (steady count 2), with the machine;
    torch's thread count is restored after."""
    machine, before = Machine(), torch.get_num_threads()
    yield machine, runtime.Runtime(follow=True, steady=2, reader=machine.reader())
    torch.set_num_threads(before)


def test_a_burst_at_the_start_does_not_hold_a_long_build(following):
    machine, process = following
    machine.run(90, others=1.1, mine=0.9)  # the first population, during the burst
    assert process.population_threads() == 1
    machine.run(600, others=0.0, mine=1.0)  # the burst is over
    assert process.population_threads() == 2
    machine.run(300, others=1.0, mine=1.0)  # another process takes a core again
    assert process.population_threads() == 1


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
    assert runtime.free_threads(cores, load) == expected


def test_the_setting_fixes_the_count(monkeypatch):
    machine = Machine()
    fixed = runtime.Runtime(threads=3, follow=True, reader=machine.reader())
    machine.run(100, others=2.0, mine=0.0)
    assert fixed.population_threads() == 3 and fixed.steady_threads() == 3
    monkeypatch.setenv(runtime.THREADS_ENV, "3")
    assert runtime.fixed_threads() == 3
    monkeypatch.setenv(runtime.THREADS_ENV, "0")
    with pytest.raises(PruneAuditError, match="PRUNEAUDIT_THREADS must be a positive integer"):
        runtime.fixed_threads()


def test_not_following_keeps_torchs_setting():
    process = runtime.Runtime(threads=3)
    before = torch.get_num_threads()
    assert process.population_threads() is None and process.steady_threads() is None
    with runtime.threads_at(process.population_threads()), process.at_steady_threads():
        assert torch.get_num_threads() == before


def test_start_sets_the_count_and_threads_at_restores_it():
    before = torch.get_num_threads()
    process = runtime.Runtime(threads=before + 1)
    with runtime.threads_at(None):
        assert process.start() == (before + 1, f"set by {runtime.THREADS_ENV} or the build")
        assert torch.get_num_threads() == before + 1
    assert torch.get_num_threads() == before


def _threads_seen(seen: list[tuple[int, bool]]):
    """A step hook that records torch's thread count at each step, and whether the step ran
    in one of the trainer's block threads (blocks trained at once)."""

    def hook(model, step) -> None:
        seen.append((torch.get_num_threads(), threading.current_thread() is not main))

    main = threading.current_thread()
    return hook


def test_the_trainer_rereads_per_population_restores_the_count_and_results_do_not_change(
    following, data_root
):
    """The free cores set how many blocks train at once (busy: one block of 3 in this thread;
    idle: blocks of 1 + 2 in two block threads), each block at one torch thread, and the
    members' bits are the same either way."""
    machine, process = following
    mnist = data.load("mnist", "train", root=data_root).subset(range(64))
    cfgs = [TrainConfig(epochs=1, seed=s) for s in range(3)]
    torch.set_num_threads(1)
    trained, counts = [], []
    for others in (1.5, 0.0):  # busy: 1 free core; then idle: 2
        machine.run(10, others=others, mine=2.0 - others)
        seen: list[tuple[int, bool]] = []
        models = [build_model("lenet", 10, 1, 28, seed=s) for s in range(3)]
        hooks = [_threads_seen(seen), None, None]
        train_packed([Part(models, mnist, cfgs, step_hooks=hooks)], progress=False,
                     device="cpu", runtime=process)
        assert torch.get_num_threads() == 1  # as the trainer found it
        trained.append(models)
        counts.append(set(seen))
    assert counts == [{(1, False)}, {(1, True)}]
    for a, b in zip(*trained, strict=True):
        for x, y in zip(a.state_dict().values(), b.state_dict().values(), strict=True):
            assert torch.equal(x, y)


class Unstacked(LeNet):
    """A LeNet the population trainer does not stack (its type is not LeNet): trained alone."""


def test_a_model_trained_alone_gets_no_thread_count_from_the_load(following, data_root):
    """Following the free cores on a busy machine (a population would get 1 thread), a model
    the population trainer trains alone (VGG11, ResNet18) trains at the steady count (here 2,
    as if the process started with 2): bitwise what 2 threads give, although 1 thread
    differs; torch's count is left as found."""
    mnist = data.load("mnist", "train", root=data_root).subset(range(256))
    cfg = TrainConfig(epochs=1, seed=0)

    def fresh() -> Unstacked:
        net = Unstacked()
        net.load_state_dict(build_model("lenet", 10, 1, 28, seed=0).state_dict())
        return net

    at = {
        n: train(fresh(), mnist, cfg, progress=False, num_threads=n, device="cpu") for n in (1, 2)
    }
    torch.set_num_threads(1)
    machine, process = following
    machine.run(10, others=1.5, mine=0.5)  # busy: the population's count would be 1
    busy = fresh()
    train_packed([Part([busy], mnist, [cfg])], progress=False, device="cpu", runtime=process)
    assert torch.get_num_threads() == 1
    weights = [m.state_dict().values() for m in (busy, at[2], at[1])]
    assert all(torch.equal(x, y) for x, y in zip(weights[0], weights[1], strict=True))
    assert not all(torch.equal(x, y) for x, y in zip(weights[1], weights[2], strict=True))


def test_the_steady_count_is_the_start_or_the_setting_never_the_load(following):
    machine, process = following
    torch.set_num_threads(2)
    machine.run(10, others=1.5, mine=0.5)
    with runtime.threads_at(process.population_threads()):
        assert torch.get_num_threads() == 1
        with process.at_steady_threads():
            assert torch.get_num_threads() == 2
        assert torch.get_num_threads() == 1  # restored
    assert torch.get_num_threads() == 2
    assert runtime.Runtime(threads=3, follow=True).steady_threads() == 3
    assert runtime.Runtime(follow=True).steady == torch.get_num_threads()  # when created


def _blocks_at_once(recheck, threads: int, n: int, wait: float = 0.0) -> list[int]:
    """How many blocks were running as each of ``n`` blocks started (itself included), when
    ``_each_block`` runs them at ``threads`` torch threads and asks ``recheck`` as blocks end;
    every block but the first waits up to ``wait`` s for a companion to start."""
    from pruneaudit.training import stacked

    lock, companion = threading.Lock(), threading.Event()
    active, seen = [0], [0] * n

    def run(block: int) -> None:
        with lock:
            active[0] += 1
            seen[block] = active[0]
            if active[0] > 1:
                companion.set()
        if block:
            companion.wait(wait)
        with lock:
            active[0] -= 1

    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        stacked._each_block(run, list(range(n)), torch.device("cpu"), recheck)
    finally:
        torch.set_num_threads(before)
    return seen


def test_blocks_follow_the_free_cores_as_they_end():
    """A packed population re-reads the free cores each time a block ends: started at one
    thread, its next blocks run two at once when two cores are free; started at two, once one
    core is free each later block starts alone; too soon to tell (None), the count stays."""
    assert _blocks_at_once(lambda: 2, threads=1, n=3, wait=10)[1:] == [1, 2]
    assert _blocks_at_once(lambda: 1, threads=2, n=4)[2:] == [1, 1]
    assert _blocks_at_once(lambda: None, threads=1, n=3, wait=0.2) == [1, 1, 1]
