"""Data the population trainer's tests share."""

from __future__ import annotations

import pytest

from pruneaudit import data


@pytest.fixture(scope="module")
def mnist(data_root) -> data.ImageData:
    """100 MNIST training digits: at batch 32, three full batches and a short one of 4."""
    return data.load("mnist", "train", root=data_root).subset(range(100))


@pytest.fixture(scope="module")
def flippable(mnist) -> data.ImageData:
    """MNIST pixels under a spec that allows horizontal flips (exercises the flip draws)."""
    spec = data.DATASETS["fashion_mnist"]
    return data.ImageData("flip", mnist.images, mnist.labels, mnist.classes, spec)
