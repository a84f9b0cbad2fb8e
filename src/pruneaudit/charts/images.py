"""Images as PNG data URLs, the cells of :func:`pruneaudit.charts.image_gallery`.

No Altair here: a study's ``run`` stores its gallery frames (:func:`image_data_url` of each
image) on a machine that computes without drawing (the ``compute`` command,
:mod:`pruneaudit.book.builder.compute`).
"""

from __future__ import annotations

import base64
import io

import numpy as np

from pruneaudit.errors import PruneAuditError


def image_data_url(image: np.ndarray, scale: int = 2) -> str:
    """A PNG data URL of a uint8 image, (H, W) grey or (C, H, W) with C in {1, 3}.

    ``scale`` enlarges it by pixel repetition so small digits stay sharp.
    """
    import PIL.Image

    arr = np.asarray(image)
    if arr.ndim == 3 and arr.shape[0] in (1, 3):
        arr = arr[0] if arr.shape[0] == 1 else np.moveaxis(arr, 0, -1)
    if arr.dtype != np.uint8 or arr.ndim not in (2, 3):
        raise PruneAuditError(
            f"image must be uint8 of shape (H, W), (1, H, W) or (3, H, W); got {arr.dtype} "
            f"{tuple(np.asarray(image).shape)}"
        )
    arr = arr.repeat(scale, axis=0).repeat(scale, axis=1)
    buffer = io.BytesIO()
    PIL.Image.fromarray(arr).save(buffer, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()
