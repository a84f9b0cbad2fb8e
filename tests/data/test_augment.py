"""Batch augmentation and normalization, checked against brute force and torchvision."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from torchvision import transforms

from pruneaudit.data import (
    DatasetSpec,
    apply_augmentation,
    augment_batch,
    crop_padding,
    draw_augmentation,
    normalize,
)
from pruneaudit.errors import PruneAuditError

DIGITS = DatasetSpec("digits", 1, 28, 10, (0.1307,), (0.3081,), flip_ok=False)
PHOTOS = DatasetSpec("photos", 3, 32, 10, (0.49, 0.48, 0.45), (0.25, 0.24, 0.26), flip_ok=True)


def _distinct_images(n: int, c: int, size: int) -> torch.Tensor:
    """uint8 images whose pixels are 1..255 and (almost) all distinct within an image, so that a
    crop or a mirrored crop can be told apart."""
    g = torch.Generator().manual_seed(0)
    return torch.randint(1, 256, (n, c, size, size), generator=g, dtype=torch.uint8)


def _crops(image: torch.Tensor, pad: int) -> dict[tuple[int, int, bool], torch.Tensor]:
    """Every crop (and mirrored crop) of one zero-padded image, by (dy, dx, flipped)."""
    _, h, w = image.shape
    padded = F.pad(image, (pad, pad, pad, pad))
    out = {}
    for dy in range(2 * pad + 1):
        for dx in range(2 * pad + 1):
            crop = padded[:, dy : dy + h, dx : dx + w]
            out[(dy, dx, False)] = crop
            out[(dy, dx, True)] = crop.flip(-1)
    return out


def _which(out: torch.Tensor, image: torch.Tensor, pad: int) -> list[tuple[int, int, bool]]:
    return [k for k, crop in _crops(image, pad).items() if torch.equal(crop, out)]


def test_crop_padding_by_size() -> None:
    assert crop_padding(28) == 2
    assert crop_padding(32) == 4
    with pytest.raises(PruneAuditError, match="'28'"):
        crop_padding(30)


@pytest.mark.parametrize("spec", [DIGITS, PHOTOS])
def test_keeps_shape_dtype_and_values(spec: DatasetSpec) -> None:
    x = _distinct_images(64, spec.channels, spec.size)
    out = augment_batch(x, spec, torch.Generator().manual_seed(1))
    assert out.shape == x.shape and out.dtype == torch.uint8
    for b in range(len(x)):
        allowed = set(x[b].unique().tolist()) | {0}
        assert set(out[b].unique().tolist()) <= allowed


def test_float_batches_work_too() -> None:
    x = _distinct_images(8, 3, 32).float() / 255
    out = augment_batch(x, PHOTOS, torch.Generator().manual_seed(1))
    assert out.dtype == torch.float32 and out.shape == x.shape
    assert out.min() >= 0 and out.max() <= 1


def test_never_flips_digits_every_output_is_a_plain_crop() -> None:
    x = _distinct_images(100, 1, 28)
    out = augment_batch(x, DIGITS, torch.Generator().manual_seed(2))
    for b in range(len(x)):
        found = _which(out[b], x[b], 2)
        assert len(found) == 1 and found[0][2] is False


def test_flips_about_half_when_allowed() -> None:
    x = _distinct_images(200, 3, 32)
    out = augment_batch(x, PHOTOS, torch.Generator().manual_seed(3))
    flipped = []
    for b in range(len(x)):
        found = _which(out[b], x[b], 4)
        assert len(found) == 1
        dy, dx, f = found[0]
        assert 0 <= dy <= 8 and 0 <= dx <= 8
        flipped.append(f)
    assert 70 < sum(flipped) < 130


def test_offsets_cover_the_padding_range_and_stay_within_it() -> None:
    offsets, flips = draw_augmentation(5000, DIGITS, torch.Generator().manual_seed(4))
    assert flips is None
    assert offsets.shape == (5000, 2)
    assert set(offsets.unique().tolist()) == {0, 1, 2, 3, 4}


def test_draw_order_is_the_documented_one() -> None:
    g = torch.Generator().manual_seed(5)
    offsets, flips = draw_augmentation(16, PHOTOS, g)
    h = torch.Generator().manual_seed(5)
    assert torch.equal(offsets, torch.randint(0, 9, (16, 2), generator=h))
    assert torch.equal(flips, torch.rand(16, generator=h) < 0.5)
    assert torch.equal(g.get_state(), h.get_state())


def test_augment_batch_equals_draw_then_apply() -> None:
    x = _distinct_images(16, 3, 32)
    a = augment_batch(x, PHOTOS, torch.Generator().manual_seed(6))
    offsets, flips = draw_augmentation(16, PHOTOS, torch.Generator().manual_seed(6))
    assert torch.equal(a, apply_augmentation(x, offsets, flips, 4))


def test_hand_computed_shifts() -> None:
    x = torch.arange(1, 17, dtype=torch.uint8).view(1, 1, 4, 4)
    centre = apply_augmentation(x, torch.tensor([[1, 1]]), None, 1)
    assert torch.equal(centre, x)
    down_right = apply_augmentation(x, torch.tensor([[0, 0]]), None, 1)  # content moves +1, +1
    expected = torch.zeros_like(x)
    expected[..., 1:, 1:] = x[..., :3, :3]
    assert torch.equal(down_right, expected)
    mirrored = apply_augmentation(x, torch.tensor([[1, 1]]), torch.tensor([True]), 1)
    assert torch.equal(mirrored, x.flip(-1))


@settings(max_examples=40, deadline=None)
@given(
    b=st.integers(1, 5),
    c=st.integers(1, 3),
    h=st.integers(1, 7),
    w=st.integers(1, 7),
    pad=st.integers(0, 3),
    seed=st.integers(0, 2**31 - 1),
    flip=st.booleans(),
)
def test_apply_matches_a_loop_over_images(b, c, h, w, pad, seed, flip) -> None:
    g = torch.Generator().manual_seed(seed)
    x = torch.randint(0, 256, (b, c, h, w), generator=g, dtype=torch.uint8)
    offsets = torch.randint(0, 2 * pad + 1, (b, 2), generator=g)
    flips = torch.rand(b, generator=g) < 0.5 if flip else None
    out = apply_augmentation(x, offsets, flips, pad)
    padded = F.pad(x, (pad, pad, pad, pad))
    for i in range(b):
        dy, dx = offsets[i].tolist()
        crop = padded[i, :, dy : dy + h, dx : dx + w]
        if flips is not None and flips[i]:
            crop = crop.flip(-1)
        assert torch.equal(out[i], crop)


def test_same_generator_state_same_result() -> None:
    x = _distinct_images(32, 3, 32)
    a = augment_batch(x, PHOTOS, torch.Generator().manual_seed(9))
    b = augment_batch(x, PHOTOS, torch.Generator().manual_seed(9))
    c = augment_batch(x, PHOTOS, torch.Generator().manual_seed(10))
    assert torch.equal(a, b) and not torch.equal(a, c)


def test_global_rng_untouched() -> None:
    state = torch.get_rng_state()
    augment_batch(_distinct_images(4, 3, 32), PHOTOS, torch.Generator().manual_seed(0))
    assert torch.equal(torch.get_rng_state(), state)


@pytest.mark.parametrize("spec", [DIGITS, PHOTOS])
def test_normalize_matches_torchvision(spec: DatasetSpec) -> None:
    x = _distinct_images(4, spec.channels, spec.size)
    x[0, :, 0, 0] = 0
    x[0, :, 0, 1] = 255
    ours = normalize(x, spec)
    tv = transforms.Normalize(spec.mean, spec.std)
    ref = torch.stack([tv(img.float() / 255) for img in x])
    assert ours.dtype == torch.float32 and ours.shape == x.shape
    torch.testing.assert_close(ours, ref, rtol=0, atol=1e-5)
