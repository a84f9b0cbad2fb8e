"""Study 5: a corruption suite for small images and the relative-robustness metric of H1.

In the spirit of CIFAR-10-C / ImageNet-C (Hendrycks & Dietterich 2019) and MNIST-C (Mu & Gilmer
2019), for uint8 tensors (N, C, H, W) with C = 1 (grey 28x28) or C = 3 (colour 32x32). Each
corruption has 5 severities; ``SEVERITY_TABLE`` lists its parameter per severity. The tables
are stronger than CIFAR-10-C's at the top end because small grey digits shrug off mild noise;
severity 5 is about the strength of MNIST-C.

Randomness: ``corrupt(images, name, severity, seed)`` draws everything from one
``torch.Generator`` seeded with ``seed``, with the same draws at every severity (the noise field,
the angles, the signs), so that for a given seed only the strength changes with severity.
Corruptions without randomness (blurs except motion, brightness, contrast, pixelate, jpeg)
ignore the seed. Work is done in float [0, 1] and rounded back to uint8.

Parameters per corruption (pixel values in [0, 1]):

- gaussian_noise: x + σ·z, z ~ N(0, 1) per pixel; σ.
- shot_noise: Poisson(λ·x)/λ per pixel; λ (photons at full white; smaller is noisier).
- impulse_noise: a fraction ``amount`` of the pixel values (each channel independently) set to
  0 or 1 with equal odds (salt and pepper).
- gaussian_blur: torchvision ``gaussian_blur`` with σ (pixels), kernel 2·⌈3σ⌉+1, reflect padding.
- motion_blur: mean along a centred line segment of ``length`` pixels at an angle drawn per
  image uniformly in [−45°, 45°] (bilinear splatting of points on the segment into the kernel),
  reflect padding; hand-written because torchvision has no motion blur.
- brightness: x + c (additive; a multiplicative factor, as torchvision's adjust_brightness,
  leaves black digit backgrounds black and saturated strokes white, hence no change on MNIST).
- contrast: torchvision ``adjust_contrast`` with factor f: f·x + (1 − f)·mean(grey(x)).
- fog: (x + t·p)·m/(m + t), m = max of the image, p a low-frequency noise map in [0, 1]
  (value noise: octaves of uniform grids 2x2, 4x4, … bilinearly upsampled, octave i weighted
  decay^(−i), min-max normalized per image; same map for all channels); (t, decay).
- pixelate: each block of ``block`` x ``block`` pixels (tiled from the top-left corner; edge
  blocks partial) replaced by its mean; block. (Integer blocks rather than CIFAR-10-C's
  fractional resize factors: fractional factors alias on 28 px images, and the distance from
  the clean image then does not grow with severity.)
- jpeg: torchvision ``encode_jpeg``/``decode_jpeg`` round trip at ``quality``.
- shear: torchvision ``affine`` with horizontal shear of ``degrees``, sign drawn per image,
  bilinear, fill 0.
- rotate: torchvision ``rotate`` by ``degrees``, sign drawn per image, bilinear, fill 0.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as nnf
import torchvision.transforms.v2.functional as tvf
from torchvision.io import decode_jpeg, encode_jpeg
from torchvision.transforms import InterpolationMode

from pruneaudit.errors import PruneAuditError, check_choice, check_frame

SEVERITY_TABLE: dict[str, tuple] = {
    "gaussian_noise": (0.08, 0.16, 0.24, 0.32, 0.40),
    "shot_noise": (60.0, 25.0, 12.0, 6.0, 3.0),
    "impulse_noise": (0.03, 0.06, 0.09, 0.17, 0.27),
    "gaussian_blur": (0.5, 0.75, 1.0, 1.25, 1.5),
    "motion_blur": (3, 5, 7, 9, 11),
    "brightness": (0.1, 0.2, 0.3, 0.4, 0.5),
    "contrast": (0.75, 0.5, 0.4, 0.3, 0.15),
    "fog": ((0.2, 3.0), (0.5, 3.0), (0.75, 2.5), (1.0, 2.0), (1.5, 1.75)),
    "pixelate": (2, 3, 4, 5, 6),
    "jpeg": (50, 30, 20, 12, 7),
    "shear": (8.0, 16.0, 24.0, 32.0, 40.0),
    "rotate": (8.0, 16.0, 24.0, 32.0, 40.0),
}
"""Parameter of each corruption at severities 1..5 (see the module docstring for its meaning)."""

CORRUPTIONS: tuple[str, ...] = tuple(SEVERITY_TABLE)
RANDOM_CORRUPTIONS = ("gaussian_noise", "shot_noise", "impulse_noise", "motion_blur", "fog",
                      "shear", "rotate")
"""Corruptions whose output depends on the seed."""


def _check_images(images: object) -> torch.Tensor:
    if isinstance(images, np.ndarray):
        images = torch.from_numpy(images)
    if not isinstance(images, torch.Tensor):
        raise PruneAuditError(f"images must be a uint8 tensor, got {type(images).__name__}")
    if images.dtype != torch.uint8:
        raise PruneAuditError(f"images must be uint8 (0..255), got {images.dtype}")
    if images.ndim != 4 or images.shape[1] not in (1, 3):
        raise PruneAuditError(
            f"images must have shape (N, 1 or 3, H, W), got {tuple(images.shape)}"
        )
    if min(images.shape[2:]) < 8:
        raise PruneAuditError(f"images must be at least 8x8 pixels, got {tuple(images.shape)}")
    return images


def _gaussian_noise(x, sigma, g):
    return x + sigma * torch.randn(x.shape, generator=g)


def _shot_noise(x, lam, g):
    return torch.poisson(x * lam, generator=g) / lam


def _impulse_noise(x, amount, g):
    hit = torch.rand(x.shape, generator=g) < amount
    salt = (torch.rand(x.shape, generator=g) < 0.5).to(x.dtype)
    return torch.where(hit, salt, x)


def _gaussian_blur(x, sigma, g):
    k = 2 * math.ceil(3 * sigma) + 1
    return tvf.gaussian_blur(x, kernel_size=[k, k], sigma=[sigma, sigma])


def motion_kernels(length: int, angles: torch.Tensor) -> torch.Tensor:
    """Normalized line kernels (N, k, k), k = 2·⌈length/2⌉ + 1, one per angle (radians).

    Points evenly spaced on the centred segment of ``length`` pixels are splatted bilinearly
    into the kernel grid (y downward, angle measured from the x axis).
    """
    half = math.ceil(length / 2)
    k = 2 * half + 1
    t = torch.linspace(-length / 2, length / 2, 8 * length + 1)
    dx = t[None, :] * torch.cos(angles)[:, None] + half
    dy = -t[None, :] * torch.sin(angles)[:, None] + half
    x0, y0 = dx.floor(), dy.floor()
    fx, fy = dx - x0, dy - y0
    ker = torch.zeros(len(angles), k * k)
    for ox, oy, w in ((0, 0, (1 - fx) * (1 - fy)), (1, 0, fx * (1 - fy)),
                      (0, 1, (1 - fx) * fy), (1, 1, fx * fy)):
        xi = (x0 + ox).clamp(0, k - 1).long()
        yi = (y0 + oy).clamp(0, k - 1).long()
        ker.scatter_add_(1, yi * k + xi, w)
    ker = ker / ker.sum(dim=1, keepdim=True)
    return ker.reshape(len(angles), k, k)


def _motion_blur(x, length, g):
    n, c, h, w = x.shape
    angles = (torch.rand(n, generator=g) * 90 - 45) * math.pi / 180
    ker = motion_kernels(int(length), angles)
    k = ker.shape[-1]
    pad = k // 2
    xp = nnf.pad(x.reshape(1, n * c, h, w), (pad, pad, pad, pad), mode="reflect")
    weight = ker.repeat_interleave(c, dim=0)[:, None]
    return nnf.conv2d(xp, weight, groups=n * c).reshape(n, c, h, w)


def _brightness(x, add, g):
    return x + add


def _contrast(x, factor, g):
    return tvf.adjust_contrast(x, factor)


def _plasma(n, h, w, decay, g):
    size = max(h, w)
    levels = max(1, math.ceil(math.log2(size)))
    field = torch.zeros(n, 1, h, w)
    for i in range(levels):
        grid = torch.rand(n, 1, 2 ** (i + 1), 2 ** (i + 1), generator=g)
        up = nnf.interpolate(grid, size=(h, w), mode="bilinear", align_corners=False)
        field += up * decay ** (-i)
    lo = field.amin(dim=(1, 2, 3), keepdim=True)
    hi = field.amax(dim=(1, 2, 3), keepdim=True)
    return (field - lo) / (hi - lo).clamp_min(1e-12)


def _fog(x, params, g):
    strength, decay = params
    n, _, h, w = x.shape
    p = _plasma(n, h, w, decay, g)
    peak = x.amax(dim=(1, 2, 3), keepdim=True)
    return (x + strength * p) * peak / (peak + strength)


def _pixelate(x, block, g):
    h, w = x.shape[-2:]
    means = nnf.avg_pool2d(x, int(block), ceil_mode=True)
    big = means.repeat_interleave(int(block), dim=-2).repeat_interleave(int(block), dim=-1)
    return big[..., :h, :w]


def _signs(n, g):
    return torch.rand(n, generator=g) < 0.5


def _shear(x, degrees, g):
    out = torch.empty_like(x)
    pos = _signs(len(x), g)
    for mask, sign in ((pos, 1.0), (~pos, -1.0)):
        if mask.any():
            out[mask] = tvf.affine(x[mask], angle=0.0, translate=[0.0, 0.0], scale=1.0,
                                   shear=[sign * degrees, 0.0],
                                   interpolation=InterpolationMode.BILINEAR, fill=0.0)
    return out


def _rotate(x, degrees, g):
    out = torch.empty_like(x)
    pos = _signs(len(x), g)
    for mask, sign in ((pos, 1.0), (~pos, -1.0)):
        if mask.any():
            out[mask] = tvf.rotate(x[mask], sign * degrees,
                                   interpolation=InterpolationMode.BILINEAR, fill=0.0)
    return out


_FLOAT_OPS = {
    "gaussian_noise": _gaussian_noise,
    "shot_noise": _shot_noise,
    "impulse_noise": _impulse_noise,
    "gaussian_blur": _gaussian_blur,
    "motion_blur": _motion_blur,
    "brightness": _brightness,
    "contrast": _contrast,
    "fog": _fog,
    "pixelate": _pixelate,
    "shear": _shear,
    "rotate": _rotate,
}


def _jpeg(images: torch.Tensor, quality: int) -> torch.Tensor:
    encoded = encode_jpeg(list(images), quality=quality)
    return torch.stack(decode_jpeg(encoded))


def corrupt(images: torch.Tensor, name: str, severity: int, seed: int = 0) -> torch.Tensor:
    """Corrupt a batch of uint8 images (N, 1|3, H, W); returns a new uint8 tensor, same shape.

    ``name`` in ``CORRUPTIONS``, ``severity`` in 1..5 (parameters in ``SEVERITY_TABLE``),
    ``seed`` an integer >= 0 seeding a private ``torch.Generator`` (global RNG untouched).
    """
    images = _check_images(images)
    check_choice("corruption", name, CORRUPTIONS)
    if isinstance(severity, bool) or not isinstance(severity, int | np.integer) or not (
        1 <= severity <= 5
    ):
        raise PruneAuditError(f"severity must be an integer in 1..5, got {severity!r}")
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise PruneAuditError(f"seed must be an integer >= 0, got {seed!r}")
    param = SEVERITY_TABLE[name][int(severity) - 1]
    if len(images) == 0:
        return images.clone()
    if name == "jpeg":
        return _jpeg(images.contiguous(), int(param))
    g = torch.Generator().manual_seed(int(seed))
    x = images.to(torch.float32) / 255.0
    y = _FLOAT_OPS[name](x, param, g)
    return (y.clamp(0.0, 1.0) * 255.0).round().to(torch.uint8)


def relative_robustness(frame: pd.DataFrame, by: Sequence[str] = ()) -> pd.DataFrame:
    """H1's robustness metric: pruned accuracy relative to dense, per corruption and sparsity.

    ``frame``: one row per ``(*by, sparsity, corruption, severity)`` with ``accuracy``; rows with
    sparsity 0 are the dense model. For each ``(*by, corruption, sparsity > 0)``:
    mean_ratio = mean over severities s of accuracy(sparsity, s) / accuracy(0, s) — the mean of
    the per-severity ratios, not the ratio of mean accuracies — and
    relative_change_pct = 100·(mean_ratio − 1). Each pruned sparsity must have exactly the
    dense model's severities for that corruption. Columns: ``*by``, corruption, sparsity,
    severities, mean_ratio, relative_change_pct. Average seeds beforehand, or name ``seed`` in
    ``by``.
    """
    by = list(by)
    need = [*by, "sparsity", "corruption", "severity", "accuracy"]
    check_frame("frame", frame, need)
    if frame[need].isna().any().any():
        raise PruneAuditError("frame has missing values in " + str(
            [c for c in need if frame[c].isna().any()]))
    acc = pd.to_numeric(frame["accuracy"], errors="coerce")
    if acc.isna().any() or ((acc < 0) | (acc > 1)).any():
        raise PruneAuditError("accuracy must be numbers in [0, 1]")
    keys = [*by, "sparsity", "corruption", "severity"]
    if frame.duplicated(keys).any():
        raise PruneAuditError(
            f"frame has several rows per {keys}; average over seeds first or add 'seed' to by"
        )
    data = frame[need].assign(accuracy=acc.astype(float))
    dense = data[data["sparsity"] == 0].drop(columns="sparsity")
    pruned = data[data["sparsity"] != 0]
    if dense.empty or pruned.empty:
        raise PruneAuditError("frame needs dense rows (sparsity 0) and pruned rows (sparsity > 0)")
    if (dense["accuracy"] == 0).any():
        raise PruneAuditError("a dense accuracy is 0: the ratio is undefined")
    group = [*by, "corruption"]
    merged = pruned.merge(dense, on=[*group, "severity"], how="left", suffixes=("", "_dense"))
    if merged["accuracy_dense"].isna().any():
        row = merged[merged["accuracy_dense"].isna()].iloc[0][[*group, "severity"]].to_dict()
        raise PruneAuditError(f"no dense accuracy for {row}")
    want = dense.groupby(group)["severity"].nunique().rename("want")
    merged["ratio"] = merged["accuracy"] / merged["accuracy_dense"]
    out = merged.groupby([*group, "sparsity"], sort=True).agg(
        severities=("severity", "nunique"), mean_ratio=("ratio", "mean")
    ).reset_index()
    out = out.merge(want.reset_index(), on=group)
    short = out[out["severities"] != out["want"]]
    if len(short):
        row = short.iloc[0][[*group, "sparsity"]].to_dict()
        raise PruneAuditError(f"{row} lacks some of the dense model's severities")
    out["relative_change_pct"] = 100.0 * (out["mean_ratio"] - 1.0)
    return out[[*group, "sparsity", "severities", "mean_ratio", "relative_change_pct"]]
