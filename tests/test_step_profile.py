"""The step profile's benchmark (``benchmarks/step_profile.py``): each operator lands in one
category by its own name, else its nearest ancestor's, and the categories and the time outside
operators add up to the profiled wall time."""

from __future__ import annotations

from types import SimpleNamespace

import benchmark_scripts
import pytest


@pytest.fixture(scope="module")
def step_profile():
    return benchmark_scripts.load("step_profile")


def _event(*names: str):
    """An event named ``names[0]`` whose parents are ``names[1:]``, nearest first."""
    parent = None
    for name in reversed(names):
        parent = SimpleNamespace(name=name, cpu_parent=parent)
    return parent


def test_an_operator_is_categorized_by_its_own_name_first(step_profile) -> None:
    cat = step_profile._category
    assert cat(_event("aten::mkldnn_convolution", "aten::convolution")).startswith("convolution")
    assert cat(_event("aten::bmm")).startswith("matrix")
    # zeroing inside max-pool's backward is pooling, not "other"
    assert cat(_event("aten::fill_", "aten::zero_", "aten::max_pool2d_with_indices_backward")
               ).startswith("pooling")
    # an add inside the optimizer's step is the optimizer's, whatever the op
    assert cat(_event("aten::add_", "Optimizer.step#SGD.step")).startswith("optimizer")
    assert cat(_event("aten::copy_", "aten::clone")) == step_profile.OTHER


def test_categories_and_the_rest_add_up_to_the_profiled_time(step_profile, data_root,
                                                              monkeypatch) -> None:
    monkeypatch.setenv("PRUNEAUDIT_DATA", str(data_root))
    table, facts = step_profile.profiled(k=3, threads=1, images=96)
    assert table["share"].sum() == pytest.approx(1.0)
    by = dict(zip(table["category"], table["share"], strict=True))
    assert by["convolution, forward and backward"] > 0
    assert facts["blocks"] == 1 and facts["steps"] == 3  # 3 members: one block at one thread
