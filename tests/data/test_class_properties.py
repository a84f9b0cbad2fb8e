"""Tests for pruneaudit.classstats against hand-computed cases, brute force and properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from pruneaudit.data import class_properties as cs
from pruneaudit.errors import PruneAuditError


def brute_entropy(image: np.ndarray) -> float:
    _, counts = np.unique(image.reshape(-1), return_counts=True)
    p = counts / counts.sum()
    return float(-sum(q * math.log2(q) for q in p))


def test_counts_fractions_imbalance_by_hand():
    labels = [0, 0, 0, 1, 2, 2]
    assert cs.class_counts(labels, 4).tolist() == [3, 1, 2, 0]
    assert cs.class_fractions(labels, 4).tolist() == pytest.approx([0.5, 1 / 6, 1 / 3, 0.0])
    # r_c = n_c - 1/C with C = 4.
    assert cs.imbalance(labels, 4).tolist() == pytest.approx(
        [0.25, 1 / 6 - 0.25, 1 / 3 - 0.25, -0.25]
    )
    assert cs.imbalance(torch.tensor([1, 0]), 2).tolist() == [0.0, 0.0]


def test_entropy_by_hand():
    two = np.zeros((1, 4, 4), np.uint8)
    two[0, :2] = 255  # two values, equally frequent: 1 bit
    constant = np.full((1, 4, 4), 7, np.uint8)  # one value: 0 bits
    four = np.array([[[0, 1], [2, 3]]], np.uint8)  # four equally frequent values: 2 bits
    skew = np.array([[[0, 0], [0, 9]]], np.uint8)  # 3/4, 1/4
    images = torch.from_numpy(np.concatenate([two, constant, np.pad(four, ((0, 0), (0, 2), (0, 2)),
                                                                    constant_values=0)]))
    h = cs.image_entropy(images)
    assert h[0] == pytest.approx(1.0) and h[1] == 0.0
    assert h[2] == pytest.approx(brute_entropy(images[2].numpy()))
    assert cs.image_entropy(four)[0] == pytest.approx(2.0)
    expect = -(0.75 * math.log2(0.75) + 0.25 * math.log2(0.25))
    assert cs.image_entropy(skew)[0] == pytest.approx(expect)


def test_entropy_pools_channels_and_matches_brute_force():
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, (9, 3, 5, 5), dtype=np.uint8)
    h = cs.image_entropy(torch.from_numpy(images), chunk=4)  # several chunks
    assert h == pytest.approx([brute_entropy(im) for im in images])
    # An image of 256 distinct values reaches the maximum of 8 bits.
    full = np.arange(256, dtype=np.uint8).reshape(1, 1, 16, 16)
    assert cs.image_entropy(full)[0] == pytest.approx(8.0)


def test_class_entropy_is_mean_per_class():
    images = np.zeros((4, 1, 2, 2), np.uint8)
    images[0, 0, 0] = 1  # 1 bit
    images[2] = np.array([[0, 1], [2, 3]])  # 2 bits
    labels = np.array([0, 0, 1, 1])
    h = cs.class_entropy(images, labels, 3)
    assert h[0] == pytest.approx(0.5) and h[1] == pytest.approx(1.0) and math.isnan(h[2])
    table = cs.class_table(images, labels, 3, classes=("a", "b", "c"))
    assert table["n"].tolist() == [2, 2, 0] and table["name"].tolist() == ["a", "b", "c"]
    assert table["entropy"].iloc[1] == pytest.approx(1.0)


def test_bad_inputs():
    with pytest.raises(PruneAuditError, match="0..2"):
        cs.class_counts([0, 3], 3)
    with pytest.raises(PruneAuditError, match="0..2"):
        cs.class_counts([-1], 3)
    with pytest.raises(PruneAuditError, match="integers"):
        cs.class_counts([0.5], 3)
    with pytest.raises(PruneAuditError, match="one-dimensional"):
        cs.class_counts([[0]], 3)
    with pytest.raises(PruneAuditError, match="num_classes"):
        cs.class_counts([0], 0)
    with pytest.raises(PruneAuditError, match="at least one"):
        cs.class_fractions([], 3)
    with pytest.raises(PruneAuditError, match="integer pixel"):
        cs.image_entropy(torch.rand(2, 1, 3, 3))
    with pytest.raises(PruneAuditError, match="0..255"):
        cs.image_entropy(np.array([[300, 1]]))
    with pytest.raises(PruneAuditError, match="shape"):
        cs.image_entropy(np.zeros(4, np.uint8))
    with pytest.raises(PruneAuditError, match="2 images but 3 labels"):
        cs.class_entropy(np.zeros((2, 1, 2, 2), np.uint8), [0, 1, 1], 2)


@settings(max_examples=60, deadline=None)
@given(images=arrays(np.uint8, st.tuples(st.integers(1, 6), st.integers(1, 3),
                                         st.integers(1, 6), st.integers(1, 6))))
def test_entropy_in_range_and_brute_force(images):
    h = cs.image_entropy(images)
    assert ((h >= 0) & (h <= 8)).all()
    npix = images[0].size
    assert (h <= math.log2(npix) + 1e-9).all()
    assert h == pytest.approx([brute_entropy(im) for im in images], abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(labels=st.lists(st.integers(0, 6), min_size=1, max_size=200), extra=st.integers(0, 3))
def test_imbalance_sums_to_zero(labels, extra):
    c = 7 + extra
    r = cs.imbalance(labels, c)
    assert abs(r.sum()) < 1e-12
    assert cs.class_counts(labels, c).sum() == len(labels)
    assert cs.class_fractions(labels, c).sum() == pytest.approx(1.0)
    assert r == pytest.approx(cs.class_fractions(labels, c) - 1 / c)
