"""Datasets as in-memory tensors, seeded splits, training-time augmentation and corruptions."""

from __future__ import annotations

from pruneaudit.data.augment import (
    apply_augmentation,
    augment_batch,
    crop_padding,
    draw_augmentation,
    normalize,
)
from pruneaudit.data.corruptions import (
    CORRUPTIONS,
    RANDOM_CORRUPTIONS,
    SEVERITY_TABLE,
    corrupt,
    motion_kernels,
    relative_robustness,
)
from pruneaudit.data.datasets import (
    CELEBA_TARGET,
    DATASETS,
    FOLDERS,
    QMNIST_META_COLUMNS,
    DatasetSpec,
    ImageData,
    celeba_attributes,
    clear_cache,
    kmnist_split,
    load,
    train_val_split,
)
from pruneaudit.data.idx import read_idx
from pruneaudit.data.splits import (
    long_tail_counts,
    long_tail_indices,
)

__all__ = [
    "long_tail_counts",
    "long_tail_indices",
    "DatasetSpec",
    "DATASETS",
    "FOLDERS",
    "CELEBA_TARGET",
    "QMNIST_META_COLUMNS",
    "ImageData",
    "read_idx",
    "load",
    "clear_cache",
    "train_val_split",
    "kmnist_split",
    "celeba_attributes",
    "crop_padding",
    "normalize",
    "draw_augmentation",
    "apply_augmentation",
    "augment_batch",
    "SEVERITY_TABLE",
    "CORRUPTIONS",
    "RANDOM_CORRUPTIONS",
    "motion_kernels",
    "corrupt",
    "relative_robustness",
]
