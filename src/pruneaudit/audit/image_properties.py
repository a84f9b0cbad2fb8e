"""Study 2: per-image properties of digits, per-writer aggregation and per-group linear fits.

- **tilt**: binarize the image (a pixel is *on* iff its value > ``THRESHOLD`` × the image's
  maximum value), then fit the least-squares line column = α + slope·row through the on pixels,
  rows counted downward from the top. An upright stroke has slope 0; a digit whose top leans
  right has a negative slope (the column grows as the row index falls), one leaning left a
  positive slope. The slope is NaN when it is undefined: no on pixel (blank image) or all on
  pixels in one row (zero row variance).
- **mean activation**: the mean pixel value, in the images' own units (0..255 for uint8).
- **distance to the class mean**: Euclidean norm of (image − mean training image of its class),
  in the images' own units, all pixels of all channels.
- **entropy**: ``pruneaudit.classstats.image_entropy`` (bits of the pixel-value histogram).

Formulas: the book's ``book/methods_models.md``, section *Study 2 — image properties*.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import torch
from scipy import stats

from pruneaudit.data.class_properties import image_entropy
from pruneaudit.errors import PruneAuditError, check_frame

THRESHOLD = 0.5
"""A pixel is on iff its value > THRESHOLD × the maximum value of its image."""


def _array(images: object, name: str = "images") -> np.ndarray:
    if isinstance(images, torch.Tensor):
        images = images.detach().cpu().numpy()
    x = np.asarray(images)
    if x.dtype == bool or not (np.issubdtype(x.dtype, np.integer) or np.issubdtype(
        x.dtype, np.floating
    )):
        raise PruneAuditError(f"{name} must hold numeric pixel values, got dtype {x.dtype}")
    if x.ndim not in (3, 4):
        raise PruneAuditError(f"{name} must have shape (N, H, W) or (N, C, H, W), got {x.shape}")
    if x.size == 0:
        raise PruneAuditError(f"{name} is empty (shape {x.shape})")
    if np.issubdtype(x.dtype, np.floating) and not np.isfinite(x).all():
        raise PruneAuditError(f"{name} has NaN or infinite pixel values")
    return x


def _grey(images: object) -> np.ndarray:
    x = _array(images)
    if x.ndim == 4:
        if x.shape[1] != 1:
            raise PruneAuditError(f"tilt needs one-channel images (N, 1, H, W), got {x.shape}")
        x = x[:, 0]
    return x


def tilt(images: object) -> np.ndarray:
    """Least-squares slope of column on row index over each image's on pixels, shape (N,).

    ``images``: (N, H, W) or (N, 1, H, W), numpy or torch, any numeric dtype. Vectorized with
    closed-form moments: slope = (n·Σrc − Σr·Σc) / (n·Σr² − (Σr)²) over the on pixels (integer
    sums, exact). NaN for a blank image or one whose on pixels lie in a single row.
    """
    x = _grey(images).astype(np.float64)
    n_img, h, w = x.shape
    peak = x.reshape(n_img, -1).max(axis=1)
    on = (x > THRESHOLD * peak[:, None, None]) & (peak[:, None, None] > 0)
    on = on.astype(np.int64)
    r = np.arange(h, dtype=np.int64)
    c = np.arange(w, dtype=np.int64)
    row_count = on.sum(axis=2)  # (N, H) on pixels per row
    col_count = on.sum(axis=1)  # (N, W)
    n = row_count.sum(axis=1)
    sr = row_count @ r
    srr = row_count @ (r * r)
    sc = col_count @ c
    src = np.einsum("nhw,h,w->n", on, r, c)
    den = n * srr - sr * sr
    num = n * src - sr * sc
    out = np.full(n_img, np.nan)
    ok = den > 0
    out[ok] = num[ok] / den[ok]
    return out


def abs_tilt(images: object) -> np.ndarray:
    """Absolute tilt ``|tilt|`` per image (NaN where the tilt is undefined)."""
    return np.abs(tilt(images))


def mean_activation(images: object) -> np.ndarray:
    """Mean pixel value of each image (all channels), in the images' own units, shape (N,)."""
    x = _array(images)
    return x.reshape(len(x), -1).astype(np.float64).mean(axis=1)


def _labels(labels: object, n: int, name: str) -> np.ndarray:
    if isinstance(labels, torch.Tensor):
        labels = labels.detach().cpu().numpy()
    y = np.asarray(labels)
    if y.ndim != 1 or len(y) != n:
        raise PruneAuditError(f"{name} must have shape ({n},) to match the images, got {y.shape}")
    if not np.issubdtype(y.dtype, np.integer):
        raise PruneAuditError(f"{name} must be integers, got dtype {y.dtype}")
    return y.astype(np.int64)


def class_mean_images(train_images: object, train_labels: object) -> dict[int, np.ndarray]:
    """Mean training image of each class present in ``train_labels`` (float64, flattened)."""
    xt = _array(train_images, "train_images")
    yt = _labels(train_labels, len(xt), "train_labels")
    flat = xt.reshape(len(xt), -1).astype(np.float64)
    return {int(c): flat[yt == c].mean(axis=0) for c in np.unique(yt)}


def distance_to_class_mean(
    images: object, labels: object, train_images: object, train_labels: object
) -> np.ndarray:
    """Euclidean distance of each image to the mean training image of its class, shape (N,).

    Images and training images must have the same per-image shape; every label of ``labels``
    must occur in ``train_labels``.
    """
    x = _array(images)
    y = _labels(labels, len(x), "labels")
    xt = _array(train_images, "train_images")
    if xt.shape[1:] != x.shape[1:]:
        raise PruneAuditError(
            f"images {x.shape[1:]} and train_images {xt.shape[1:]} differ in image shape"
        )
    means = class_mean_images(xt, train_labels)
    missing = sorted(set(np.unique(y).tolist()) - set(means))
    if missing:
        raise PruneAuditError(f"classes {missing} of labels have no training images")
    classes = np.array(sorted(means))
    table = np.stack([means[c] for c in classes])
    idx = np.searchsorted(classes, y)
    diff = x.reshape(len(x), -1).astype(np.float64) - table[idx]
    return np.sqrt((diff * diff).sum(axis=1))


def image_properties(
    images: object, labels: object, train_images: object, train_labels: object
) -> pd.DataFrame:
    """All per-image properties of Study 2, one row per image.

    Columns: tilt, abs_tilt, mean_activation, distance_to_class_mean, entropy (bits).
    """
    t = tilt(images)
    return pd.DataFrame(
        {
            "tilt": t,
            "abs_tilt": np.abs(t),
            "mean_activation": mean_activation(images),
            "distance_to_class_mean": distance_to_class_mean(
                images, labels, train_images, train_labels
            ),
            "entropy": image_entropy(images),
        }
    )


def per_writer(
    frame: pd.DataFrame,
    columns: Sequence[str],
    writer: str = "writer",
    group: str | None = "series",
) -> pd.DataFrame:
    """Mean of ``columns`` over each writer's rows (one row per digit), sorted by writer.

    Output columns: writer, group (when given: it must be constant within a writer), n (rows
    of the writer), then the means of ``columns`` (NaN values, e.g. undefined tilts, are skipped;
    a column of 0/1 correctness flags becomes the writer's accuracy).
    """
    columns = list(columns)
    if not columns:
        raise PruneAuditError("per_writer needs at least one column to aggregate")
    keys = [writer] + ([group] if group is not None else [])
    frame = check_frame("frame", frame, keys + columns)
    bad = [c for c in columns if not pd.api.types.is_numeric_dtype(frame[c])]
    if bad:
        raise PruneAuditError(f"columns {bad} are not numeric")
    if group is not None:
        mixed = frame.groupby(writer)[group].nunique()
        if (mixed > 1).any():
            raise PruneAuditError(
                f"writer(s) {mixed[mixed > 1].index[:5].tolist()} have more than one {group!r}"
            )
    grouped = frame.groupby(keys, sort=True)
    out = grouped[columns].mean()
    out.insert(0, "n", grouped.size())
    return out.reset_index()


FIT_COLUMNS = ["n", "intercept", "slope", "intercept_se", "slope_se", "rvalue", "pvalue"]


def _linfit(x: np.ndarray, y: np.ndarray, label: object) -> dict:
    keep = ~(np.isnan(x) | np.isnan(y))
    x, y = x[keep], y[keep]
    if len(x) < 3:
        raise PruneAuditError(f"group {label!r} has {len(x)} usable rows; a fit needs 3")
    if np.ptp(x) == 0:
        raise PruneAuditError(f"group {label!r}: x is constant, the slope is undefined")
    fit = stats.linregress(x, y)
    return {
        "n": len(x),
        "intercept": fit.intercept,
        "slope": fit.slope,
        "intercept_se": fit.intercept_stderr,
        "slope_se": fit.stderr,
        "rvalue": fit.rvalue,
        "pvalue": fit.pvalue,
    }


def group_linear_fits(
    frame: pd.DataFrame, x: str, y: str, group: str | None = None
) -> pd.DataFrame:
    """Least-squares line y = intercept + slope·x per value of ``group`` and for all rows.

    scipy.stats.linregress; rows with NaN in x or y are left out (``n`` counts the rows used).
    Columns: group (its values, then ``"all"``), n, intercept, slope, intercept_se, slope_se,
    rvalue, pvalue (two-sided test of slope 0).
    """
    frame = check_frame("frame", frame, [x, y, group])
    for c in (x, y):
        if not pd.api.types.is_numeric_dtype(frame[c]):
            raise PruneAuditError(f"column {c!r} is not numeric")
    rows = []
    if group:
        for value, part in frame.groupby(group, sort=True):
            xs, ys = part[x].to_numpy(float), part[y].to_numpy(float)
            rows.append({"group": value, **_linfit(xs, ys, value)})
    rows.append({"group": "all", **_linfit(frame[x].to_numpy(float), frame[y].to_numpy(float),
                                           "all")})
    return pd.DataFrame(rows, columns=["group", *FIT_COLUMNS])


def property_effects(
    frame: pd.DataFrame,
    properties: Sequence[str],
    before: str,
    after: str,
    group: str | None = "series",
) -> pd.DataFrame:
    """Effect of each property on the accuracy change (after − before), per group and for all.

    For each property p: ``group_linear_fits`` of change = after − before on p. Typically one
    row per writer (``per_writer`` output) with ``before`` the unpruned and ``after`` the pruned
    accuracy. Columns: property, group, n, intercept, slope (the effect), and the rest of
    ``group_linear_fits``.
    """
    properties = list(properties)
    if not properties:
        raise PruneAuditError("property_effects needs at least one property column")
    frame = check_frame("frame", frame, [before, after, *properties])
    change = "accuracy_change"
    data = frame.assign(**{change: frame[after] - frame[before]})
    parts = [
        group_linear_fits(data, p, change, group).assign(property=p) for p in properties
    ]
    out = pd.concat(parts, ignore_index=True)
    return out[["property", "group", *FIT_COLUMNS]]
