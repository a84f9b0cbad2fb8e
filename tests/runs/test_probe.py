"""The speed probe: one fixed population trained on the CPU, once per process."""

from __future__ import annotations

import torch

from pruneaudit.runs import probe


def test_the_probe_is_a_rate_measured_once_and_leaves_the_random_state() -> None:
    probe.speed_probe.cache_clear()
    state = torch.random.get_rng_state()
    first = probe.speed_probe()
    assert torch.equal(torch.random.get_rng_state(), state)
    # seconds per 10k images per model: a LeNet step of a 2-core CPU is far from either bound
    assert 0.001 < first < 100.0
    assert probe.speed_probe() == first  # cached: a build's plan and its records share it
