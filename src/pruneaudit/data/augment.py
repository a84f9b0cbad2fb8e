"""Batch-level image preprocessing on tensors: normalization and training-time augmentation.

Images stay uint8 ``(N, C, H, W)`` in memory; a batch is augmented in uint8 (zero padding is
black, as torchvision's ``RandomCrop(padding=p)`` pads the image before ``ToTensor``) and then
normalized to float32. Everything is a handful of whole-batch tensor ops, no loop per image.

Augmentation (protocol P): a random crop of the original size from the image zero-padded by
2 px (28 px images) or 4 px (32 px images), then, only where ``spec.flip_ok``, a horizontal flip
with probability 1/2. Digits and characters (the datasets whose spec has ``flip_ok=False``) are
never flipped: a mirrored "2", "7" or "Z" is not an example of its class and mirrored letters
can be another class ("b"/"d"), so a flip would teach wrong labels. The one exception is asked
for by name: a run whose ``extra`` has ``flip: True`` (``pruneaudit.runs.flip_extra``) trains
with ``flip_ok`` set, to run P's protocol as printed (crop + flip, Study 2's paper option).

Random draws are split from their use so that a population trainer can draw for each member
from its own generator and apply the augmentation to the members' stacked batches at once:
``augment_batch(x, spec, g) == apply_augmentation(x, *draw_augmentation(len(x), spec, g), p)``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Protocol

import torch
import torch.nn.functional as F

from pruneaudit.errors import check_choice

#: Zero padding of the random crop by image size (pixels on each side).
CROP_PADDING: dict[int, int] = {28: 2, 32: 4}


class _Spec(Protocol):
    """The fields of ``pruneaudit.data.DatasetSpec`` used here."""

    channels: int
    size: int
    mean: tuple[float, ...]
    std: tuple[float, ...]
    flip_ok: bool


def crop_padding(size: int) -> int:
    """The crop padding for square images of side ``size`` (2 for 28 px, 4 for 32 px)."""
    check_choice("image size", str(size), [str(s) for s in CROP_PADDING])
    return CROP_PADDING[size]


@lru_cache(maxsize=64)
def _affine(
    mean: tuple[float, ...], std: tuple[float, ...]
) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Per channel ``scale = 1 / (255 std)`` and ``shift = -mean / std``, computed in float32,
    as tuples: the cache hands every caller the same values, so none it could change."""
    std_t = torch.tensor(std, dtype=torch.float32)
    mean_t = torch.tensor(mean, dtype=torch.float32)
    return tuple((1.0 / (255.0 * std_t)).tolist()), tuple((-mean_t / std_t).tolist())


def normalize(images: torch.Tensor, spec: _Spec) -> torch.Tensor:
    """uint8 images ``(N, C, H, W)`` -> float32 ``(x / 255 - mean) / std`` per channel.

    Computed as one fused ``shift + x * scale`` (``scale = 1 / (255 std)``,
    ``shift = -mean / std``); it equals torchvision's ``ToTensor`` + ``Normalize`` up to
    float rounding.
    """
    scales, shifts = _affine(tuple(map(float, spec.mean)), tuple(map(float, spec.std)))
    scale, shift = (torch.tensor(v, dtype=torch.float32, device=images.device).view(-1, 1, 1)
                    for v in (scales, shifts))
    return torch.addcmul(shift, images.to(torch.float32), scale)


def draw_augmentation(
    batch_size: int, spec: _Spec, generator: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """The random draws for one batch, in this order, all from ``generator``.

    1. ``offsets = torch.randint(0, 2 * pad + 1, (batch_size, 2), generator=generator)``:
       row and column of each crop's top-left corner in the padded image;
    2. only if ``spec.flip_ok``: ``flips = torch.rand(batch_size, generator=generator) < 0.5``
       (else ``None`` and nothing is drawn).
    """
    pad = crop_padding(spec.size)
    offsets = torch.randint(0, 2 * pad + 1, (batch_size, 2), generator=generator)
    flips = torch.rand(batch_size, generator=generator) < 0.5 if spec.flip_ok else None
    return offsets, flips


def apply_augmentation(
    x: torch.Tensor, offsets: torch.Tensor, flips: torch.Tensor | None, pad: int
) -> torch.Tensor:
    """Crop (and flip) a batch ``(B, C, H, W)`` with given draws; one pad and one gather.

    Output pixel ``(i, j)`` of image ``b`` is ``padded[b, :, i + dy, j + dx]`` with
    ``(dy, dx) = offsets[b]``, where ``padded`` is ``x`` zero-padded by ``pad`` on each side;
    where ``flips[b]`` the columns are taken in reverse (crop, then mirror left-right).
    """
    b, c, h, w = x.shape
    padded = F.pad(x, (pad, pad, pad, pad))
    wp = w + 2 * pad
    rows = offsets[:, :1] + torch.arange(h, device=x.device)
    cols = offsets[:, 1:] + torch.arange(w, device=x.device)
    if flips is not None:
        cols = torch.where(flips[:, None], cols.flip(1), cols)
    index = (rows[:, :, None] * wp + cols[:, None, :]).view(b, 1, h * w).expand(b, c, h * w)
    return padded.reshape(b, c, -1).gather(2, index).view(b, c, h, w)


def augment_batch(x: torch.Tensor, spec: _Spec, generator: torch.Generator) -> torch.Tensor:
    """Random crop with zero padding (and flip where ``spec.flip_ok``) of a whole batch.

    Works on uint8 or float batches; draws exactly as :func:`draw_augmentation`.
    """
    offsets, flips = draw_augmentation(len(x), spec, generator)
    return apply_augmentation(x, offsets, flips, crop_padding(spec.size))
