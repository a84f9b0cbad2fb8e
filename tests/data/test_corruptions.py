"""Tests of the corruption suite and the relative-robustness metric."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import torch

from pruneaudit import data
from pruneaudit.data import corruptions as co
from pruneaudit.errors import PruneAuditError


@pytest.fixture(scope="module")
def digits(data_root) -> torch.Tensor:
    """24 real MNIST test digits, uint8 (24, 1, 28, 28)."""
    return data.load("mnist", "test", root=data_root).images[:24].clone()


def colour_shapes(n: int = 12, seed: int = 0) -> torch.Tensor:
    """Synthetic colour 32x32 images: a filled disc on a vertical gradient, uint8 (n, 3, 32, 32)."""
    g = torch.Generator().manual_seed(seed)
    yy, xx = torch.meshgrid(torch.arange(32.0), torch.arange(32.0), indexing="ij")
    out = torch.empty(n, 3, 32, 32)
    for i in range(n):
        cy, cx = torch.randint(8, 24, (2,), generator=g).tolist()
        r = 4 + int(torch.randint(0, 8, (1,), generator=g))
        disc = (((yy - cy) ** 2 + (xx - cx) ** 2) < r * r).float()
        colour = torch.rand(3, 1, 1, generator=g)
        back = 0.5 * torch.rand(3, 1, 1, generator=g) + 0.5 * yy / 31
        out[i] = disc * colour + (1 - disc) * back
    return (out * 255).round().to(torch.uint8)


def distances(images: torch.Tensor, name: str, seed: int = 0) -> list[float]:
    return [
        (co.corrupt(images, name, s, seed).float() - images.float()).abs().mean().item()
        for s in range(1, 6)
    ]


@pytest.mark.parametrize("name", co.CORRUPTIONS)
def test_distance_grows_strictly_with_severity_on_real_digits(digits, name):
    d = distances(digits, name)
    assert d[0] > 0
    assert all(b > a for a, b in zip(d, d[1:], strict=False)), d


@pytest.mark.parametrize("name", co.CORRUPTIONS)
def test_distance_grows_strictly_with_severity_on_colour_shapes(name):
    d = distances(colour_shapes(), name)
    assert d[0] > 0
    assert all(b > a for a, b in zip(d, d[1:], strict=False)), d


@pytest.mark.parametrize("name", co.CORRUPTIONS)
@pytest.mark.parametrize("channels", [1, 3])
def test_output_is_uint8_same_shape_and_seeded(name, channels):
    images = colour_shapes(6)
    if channels == 1:
        images = images[:, :1, 2:30, 2:30].contiguous()
    before = images.clone()
    a = co.corrupt(images, name, 3, seed=7)
    b = co.corrupt(images, name, 3, seed=7)
    assert a.dtype == torch.uint8 and a.shape == images.shape
    assert torch.equal(a, b)
    assert torch.equal(images, before)  # input untouched
    other = co.corrupt(images, name, 3, seed=8)
    if name in co.RANDOM_CORRUPTIONS:
        assert not torch.equal(a, other)
    else:
        assert torch.equal(a, other)


def test_global_rng_untouched_and_batch_independent_of_order():
    images = colour_shapes(4)
    torch.manual_seed(0)
    expected = torch.rand(3)
    torch.manual_seed(0)
    co.corrupt(images, "gaussian_noise", 2, seed=1)
    assert torch.equal(torch.rand(3), expected)
    # a deterministic corruption acts on each image alone
    whole = co.corrupt(images, "gaussian_blur", 4)
    assert torch.equal(whole[1:2], co.corrupt(images[1:2], "gaussian_blur", 4))


def test_hand_checked_parameters():
    img = torch.full((1, 1, 8, 8), 100, dtype=torch.uint8)
    assert int(co.corrupt(img, "brightness", 1)[0, 0, 0, 0]) == round(100 + 0.1 * 255)
    assert torch.equal(co.corrupt(img, "contrast", 5), img)  # flat image: nothing to reduce
    assert torch.equal(co.corrupt(img, "pixelate", 5), img)
    assert torch.equal(co.corrupt(img, "gaussian_blur", 5), img)
    step = torch.zeros(1, 1, 8, 8, dtype=torch.uint8)
    step[..., :4] = 255
    pix = co.corrupt(step, "pixelate", 5)  # blocks of 6: first block covers columns 0..5
    assert int(pix[0, 0, 0, 0]) == round(255 * 4 / 6) and int(pix[0, 0, 0, 7]) == 0
    salt = co.corrupt(torch.zeros(2, 3, 28, 28, dtype=torch.uint8), "impulse_noise", 5, 0)
    hit = (salt > 0).float().mean().item()
    assert hit == pytest.approx(0.27 / 2, abs=0.02)
    assert set(torch.unique(salt).tolist()) == {0, 255}


def test_motion_kernels_are_normalized_lines():
    angles = torch.tensor([0.0, math.pi / 2, math.pi / 4])
    ker = co.motion_kernels(5, angles)
    assert ker.shape == (3, 7, 7)
    assert torch.allclose(ker.sum(dim=(1, 2)), torch.ones(3))
    assert torch.allclose(ker[0].sum(dim=1)[3], torch.tensor(1.0))  # horizontal: middle row
    assert torch.allclose(ker[1].sum(dim=0)[3], torch.tensor(1.0))  # vertical: middle column
    assert torch.allclose(ker[2], ker[2].flip(0).flip(1), atol=1e-6)  # centred


def test_input_validation():
    img = torch.zeros(2, 1, 28, 28, dtype=torch.uint8)
    with pytest.raises(PruneAuditError, match="uint8"):
        co.corrupt(img.float(), "fog", 1)
    with pytest.raises(PruneAuditError, match="shape"):
        co.corrupt(img[0], "fog", 1)
    with pytest.raises(PruneAuditError, match="shape"):
        co.corrupt(torch.zeros(2, 2, 28, 28, dtype=torch.uint8), "fog", 1)
    with pytest.raises(PruneAuditError, match="gaussian_noise"):
        co.corrupt(img, "gausian_noise", 1)
    with pytest.raises(PruneAuditError, match="severity"):
        co.corrupt(img, "fog", 6)
    with pytest.raises(PruneAuditError, match="severity"):
        co.corrupt(img, "fog", 0)
    with pytest.raises(PruneAuditError, match="seed"):
        co.corrupt(img, "fog", 1, seed=-1)
    assert co.corrupt(img[:0], "jpeg", 1).shape == (0, 1, 28, 28)
    assert co.corrupt(img.numpy(), "rotate", 1).dtype == torch.uint8


def robustness_frame() -> pd.DataFrame:
    rows = []
    acc = {  # (sparsity, corruption) -> accuracies at severities 1, 2
        (0.0, "fog"): (0.8, 0.5),
        (0.5, "fog"): (0.4, 0.5),
        (0.9, "fog"): (0.2, 0.25),
        (0.0, "jpeg"): (0.9, 0.6),
        (0.5, "jpeg"): (0.9, 0.3),
        (0.9, "jpeg"): (0.9, 0.6),
    }
    for (sp, name), values in acc.items():
        for sev, a in enumerate(values, start=1):
            rows.append({"sparsity": sp, "corruption": name, "severity": sev, "accuracy": a})
    return pd.DataFrame(rows)


def test_relative_robustness_hand_computed():
    out = co.relative_robustness(robustness_frame()).set_index(["corruption", "sparsity"])
    # fog 0.5: ratios 0.5, 1.0 -> mean 0.75 -> -25 %; the ratio of means would be 0.9/1.3
    assert out.loc[("fog", 0.5), "mean_ratio"] == pytest.approx(0.75)
    assert out.loc[("fog", 0.5), "relative_change_pct"] == pytest.approx(-25.0)
    assert out.loc[("fog", 0.9), "relative_change_pct"] == pytest.approx(-62.5)  # 0.25, 0.5
    assert out.loc[("jpeg", 0.5), "relative_change_pct"] == pytest.approx(-25.0)
    assert out.loc[("jpeg", 0.9), "relative_change_pct"] == pytest.approx(0.0)
    assert (out["severities"] == 2).all() and len(out) == 4


def test_relative_robustness_by_and_errors():
    f = robustness_frame()
    two = pd.concat([f.assign(model="lenet"), f.assign(model="alexnet")], ignore_index=True)
    out = co.relative_robustness(two, by=["model"])
    assert len(out) == 8 and list(out.columns[:2]) == ["model", "corruption"]
    with pytest.raises(PruneAuditError, match="seed"):
        co.relative_robustness(two)
    with pytest.raises(PruneAuditError, match="lacks"):
        co.relative_robustness(f.drop(columns="severity"))
    with pytest.raises(PruneAuditError, match="severities"):
        co.relative_robustness(f.drop(index=3))
    with pytest.raises(PruneAuditError, match="no dense"):
        co.relative_robustness(f.drop(index=0))
    zero = f.copy()
    zero.loc[0, "accuracy"] = 0.0
    with pytest.raises(PruneAuditError, match="undefined"):
        co.relative_robustness(zero)
    with pytest.raises(PruneAuditError, match="dense rows"):
        co.relative_robustness(f[f["sparsity"] > 0])
    bad = f.copy()
    bad.loc[1, "accuracy"] = 1.2
    with pytest.raises(PruneAuditError, match=r"\[0, 1\]"):
        co.relative_robustness(bad)
    assert np.isfinite(co.relative_robustness(f)["mean_ratio"]).all()
