"""What a protocol costs to train: model-epochs, images seen and hours at a measured rate.

One formula for every study: ``hours = model_epochs * images_per_epoch / 10_000 *
seconds_per_10k / 3600``, where ``seconds_per_10k`` is a measured rate (seconds per 10,000
training images per model) on the machine in question.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from pruneaudit import config
from pruneaudit.errors import PruneAuditError, check_positive_int

#: Written by ``benchmarks/gpu_training.py --device cuda``: the hours of each published protocol
#: (rows ``protocol`` "Study N (...)", ``configuration``, ``hours``) at the GPU rates it measured.
GPU_COSTS = config.REPO / "benchmarks" / "out" / "gpu_training_cuda_costs.csv"


@dataclass(frozen=True)
class Cost:
    """Training cost of a protocol."""

    model_epochs: int
    images_per_epoch: int
    hours: float

    @property
    def images(self) -> int:
        """Training images seen in total (over all models and epochs)."""
        return self.model_epochs * self.images_per_epoch


def training_cost(model_epochs: int, images_per_epoch: int, seconds_per_10k: float) -> Cost:
    """The :class:`Cost` of ``model_epochs`` epochs over ``images_per_epoch`` images each, at
    ``seconds_per_10k`` seconds per 10,000 images per model."""
    check_positive_int("model_epochs", model_epochs)
    check_positive_int("images_per_epoch", images_per_epoch)
    if not seconds_per_10k > 0:
        raise PruneAuditError(
            f"seconds_per_10k must be a measured rate > 0 seconds, got {seconds_per_10k!r}"
        )
    hours = model_epochs * images_per_epoch / 10_000 * seconds_per_10k / 3600
    return Cost(model_epochs, images_per_epoch, hours)


def gpu_hours(study: str, path: str | Path = GPU_COSTS) -> float | None:
    """Hours of ``study``'s published protocol (``"Study 2"``...) at the fastest configuration
    that ``benchmarks/gpu_training.py`` measured on a GPU, or None where none was measured."""
    path = Path(path)
    if not path.is_file():
        return None
    costs = pd.read_csv(path)
    rows = costs[costs["protocol"].str.startswith(study + " (")]
    return float(rows["hours"].min()) if len(rows) else None


def gpu_cost_text(study: str, path: str | Path = GPU_COSTS) -> str:
    """The published protocol's GPU training time as measured, or a plain 'not measured'."""
    hours = gpu_hours(study, path)
    if hours is None:
        return (
            "not measured: no GPU was available where this book was built (the book's GPU "
            "benchmark measures it on one; the Reproducing page says how)"
        )
    return f"about {hours:,.1f} h (fastest configuration of the book's GPU benchmark)"
