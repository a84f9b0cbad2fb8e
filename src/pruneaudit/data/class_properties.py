"""Class statistics used by the studies: counts, imbalance r_c and mean image entropy H_c.

- ``r_c = n_c - (1/C) * sum_i n_i`` with ``n_i`` the *fraction* of examples in class ``i``
  (so ``r_c = n_c - 1/C`` and the r_c sum to zero).
- The entropy of an image is the Shannon entropy, in bits, of the histogram of its pixel values
  0..255 (all channels pooled); ``H_c`` is its mean over the images of class ``c``.

Formulas: the book's ``book/methods_models.md``, section *Study 1: population regression*
(design frame: r_c, H_c).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import torch

from pruneaudit.errors import PruneAuditError, check_positive_int

ArrayLike = np.ndarray | torch.Tensor | Sequence[int]


def _as_numpy(x: ArrayLike) -> np.ndarray:
    if isinstance(x, torch.Tensor):
        return x.detach().cpu().numpy()
    return np.asarray(x)


def _labels(labels: ArrayLike, num_classes: int) -> np.ndarray:
    check_positive_int("num_classes", num_classes)
    y = _as_numpy(labels)
    if y.ndim != 1:
        raise PruneAuditError(f"labels must be one-dimensional, got shape {y.shape}")
    if y.size and not np.issubdtype(y.dtype, np.integer):
        raise PruneAuditError(f"labels must be integers, got dtype {y.dtype}")
    y = y.astype(np.int64)
    if y.size and (y.min() < 0 or y.max() >= num_classes):
        raise PruneAuditError(
            f"labels must lie in 0..{num_classes - 1}, got values {y.min()}..{y.max()}"
        )
    return y


def class_counts(labels: ArrayLike, num_classes: int) -> np.ndarray:
    """Number of examples per class, shape (C,), int64."""
    return np.bincount(_labels(labels, num_classes), minlength=num_classes).astype(np.int64)


def class_fractions(labels: ArrayLike, num_classes: int) -> np.ndarray:
    """Fraction of examples per class, shape (C,), summing to 1."""
    counts = class_counts(labels, num_classes)
    if counts.sum() == 0:
        raise PruneAuditError("class fractions need at least one label")
    return counts / counts.sum()


def imbalance(labels: ArrayLike, num_classes: int) -> np.ndarray:
    """Imbalance r_c = n_c - mean_i n_i of the class fractions n_i, shape (C,)."""
    n = class_fractions(labels, num_classes)
    return n - n.mean()


def image_entropy(images: ArrayLike, chunk: int = 4096) -> np.ndarray:
    """Shannon entropy in bits of each image's pixel-value histogram, shape (N,).

    ``images`` has shape (N, ...) with integer pixel values in 0..255 (uint8 tensors as loaded);
    all channels of an image are pooled into one 256-bin histogram. Computed in chunks of
    ``chunk`` images with one scatter-add per chunk.
    """
    x = images if isinstance(images, torch.Tensor) else torch.as_tensor(np.asarray(images))
    if x.ndim < 2:
        raise PruneAuditError(f"images must have shape (N, ...), got {tuple(x.shape)}")
    if x.dtype.is_floating_point or x.dtype.is_complex or x.dtype == torch.bool:
        raise PruneAuditError(f"images must hold integer pixel values 0..255, got {x.dtype}")
    check_positive_int("chunk", chunk)
    n = x.shape[0]
    flat = x.reshape(n, -1)
    if flat.shape[1] == 0:
        raise PruneAuditError("images must have at least one pixel")
    if n and x.dtype != torch.uint8 and (int(flat.min()) < 0 or int(flat.max()) > 255):
        raise PruneAuditError(
            f"pixel values must lie in 0..255, got {int(flat.min())}..{int(flat.max())}"
        )
    out = np.empty(n, dtype=np.float64)
    for start in range(0, n, chunk):
        part = flat[start : start + chunk].to(torch.int64)
        hist = torch.zeros((part.shape[0], 256), dtype=torch.float64)
        hist.scatter_add_(1, part, torch.ones_like(part, dtype=torch.float64))
        p = hist / part.shape[1]
        logp = torch.where(p > 0, torch.log2(p), torch.zeros_like(p))
        out[start : start + part.shape[0]] = (-(p * logp).sum(dim=1)).clamp_min(0).numpy()
    return out


def class_entropy(images: ArrayLike, labels: ArrayLike, num_classes: int) -> np.ndarray:
    """Mean image entropy (bits) per class, H_c, shape (C,); NaN for a class with no images."""
    y = _labels(labels, num_classes)
    h = image_entropy(images)
    if len(h) != len(y):
        raise PruneAuditError(f"{len(h)} images but {len(y)} labels")
    counts = np.bincount(y, minlength=num_classes)
    sums = np.bincount(y, weights=h, minlength=num_classes)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)


def class_table(
    images: ArrayLike,
    labels: ArrayLike,
    num_classes: int,
    classes: Sequence[str] | None = None,
) -> pd.DataFrame:
    """One row per class: ``class``, ``name``, ``n``, ``fraction``, ``imbalance`` (r_c),
    ``entropy`` (H_c)."""
    counts = class_counts(labels, num_classes)
    if classes is not None and len(classes) != num_classes:
        raise PruneAuditError(f"{len(classes)} class names for {num_classes} classes")
    return pd.DataFrame(
        {
            "class": np.arange(num_classes),
            "name": list(classes) if classes is not None else [str(c) for c in range(num_classes)],
            "n": counts,
            "fraction": class_fractions(labels, num_classes),
            "imbalance": imbalance(labels, num_classes),
            "entropy": class_entropy(images, labels, num_classes),
        }
    )
