"""Datasets: a registry over torchvision, loaded once into in-memory uint8 tensors.

Every dataset is read through torchvision's own class and on-disk layout (so ``download=True``
works when online), except KMNIST, whose torchvision class refuses to load unless the training
images are present: its raw idx files are read directly by :func:`read_idx`. The images are
converted once from the dataset's ``.data`` arrays (no per-item PIL work), kept as
``uint8`` tensors of shape ``(N, C, H, W)``, and cached per (dataset, split, data root).

Layout under the data root (torchvision's): ``MNIST/raw``, ``FashionMNIST/raw``, ``QMNIST/raw``,
``KMNIST/raw``, ``EMNIST/raw``, ``cifar-10-batches-py``, ``cifar-100-python``, ``SVHN/`` (the
``.mat`` files; torchvision's SVHN keeps them at its root, so the project gives it ``SVHN/``), and
``celeba/``.

Choices written down here once:

- **Horizontal flips** (``DatasetSpec.flip_ok``): never for digits and characters (MNIST, QMNIST,
  KMNIST, EMNIST, SVHN): a mirrored digit or character is not that character (a mirrored "2" is
  no digit, mirrored "b"/"d" swap classes). Allowed for Fashion-MNIST (a mirrored shirt, bag,
  trouser or shoe is still one; mirroring only changes which way a shoe points), CIFAR-10/100 and
  CelebA (mirrored objects and faces keep their class).
- **Normalization** (``mean``/``std``, per channel, on the 0..1 scale): the standard training-set
  statistics used in the literature; MNIST, Fashion-MNIST and KMNIST are checked against the real
  data by the tests. QMNIST's pixels match MNIST's, so it shares MNIST's statistics.
- **QMNIST**: ``split="test"`` is ``what="test10k"``, the 10,000 QMNIST test digits that match
  MNIST's test set one-for-one; the 50,000 further QMNIST test digits are not used, so the test set
  is the same whether or not they were downloaded. ``meta`` holds the extended labels.
- **EMNIST**: split ``byclass`` (62 unbalanced classes: digits, upper case, lower case). The raw
  EMNIST files store each image transposed; :func:`load` transposes them back to upright.
- **KMNIST**: offline only the test images exist. ``load("kmnist", "train")`` then raises a
  :class:`DataMissingError` that points at :func:`kmnist_split`, a seeded split of the test set.
- **CelebA**: target ``Blond_Hair`` (classes ``not_blond``/``blond``), ``meta`` = the 40
  attributes; official partition ``train`` / ``test``. Each aligned 178x218 image is centre-cropped
  to 178x178 and resized to 32x32 (bilinear, antialiased), to match the project's 32x32 colour
  models. JPEGs are decoded with Pillow (torchvision's own decoders are deprecated since 0.29);
  decoding ~160,000 JPEGs takes minutes and ~500 MB of memory for the training split.
  :func:`celeba_attributes` reads the attributes alone (available offline without images).
"""

from __future__ import annotations

import functools
import os
import pickle
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch
import torchvision.datasets as tvd
from PIL import Image

from pruneaudit import config
from pruneaudit.data.idx import idx_size, read_idx
from pruneaudit.errors import (
    DataMissingError,
    PruneAuditError,
    check_choice,
    check_positive_int,
    check_range,
)

SPLITS = ("train", "test")


@dataclass(frozen=True)
class DatasetSpec:
    """What a model and the augmentation need to know about a dataset.

    ``size`` is the side of the (square) images, ``mean``/``std`` are per channel on the 0..1
    scale, ``flip_ok`` says whether a horizontal flip keeps an image's class.
    """

    name: str
    channels: int
    size: int
    num_classes: int
    mean: tuple[float, ...]
    std: tuple[float, ...]
    flip_ok: bool


DATASETS: dict[str, DatasetSpec] = {
    s.name: s
    for s in (
        DatasetSpec("mnist", 1, 28, 10, (0.1307,), (0.3081,), False),
        DatasetSpec("fashion_mnist", 1, 28, 10, (0.2860,), (0.3530,), True),
        DatasetSpec("qmnist", 1, 28, 10, (0.1307,), (0.3081,), False),
        DatasetSpec("kmnist", 1, 28, 10, (0.1918,), (0.3483,), False),
        DatasetSpec("emnist", 1, 28, 62, (0.1736,), (0.3317,), False),
        DatasetSpec(
            "cifar10", 3, 32, 10, (0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616), True
        ),
        DatasetSpec(
            "cifar100", 3, 32, 100, (0.5071, 0.4865, 0.4409), (0.2673, 0.2564, 0.2762), True
        ),
        DatasetSpec("svhn", 3, 32, 10, (0.4377, 0.4438, 0.4728), (0.1980, 0.2010, 0.1970), False),
        DatasetSpec("celeba", 3, 32, 2, (0.5063, 0.4258, 0.3832), (0.3107, 0.2904, 0.2897), True),
    )
}

#: Folder under the data root that each dataset's files live in (torchvision's layout).
FOLDERS: dict[str, str] = {
    "mnist": "MNIST/raw",
    "fashion_mnist": "FashionMNIST/raw",
    "qmnist": "QMNIST/raw",
    "kmnist": "KMNIST/raw",
    "emnist": "EMNIST/raw",
    "cifar10": "cifar-10-batches-py",
    "cifar100": "cifar-100-python",
    "svhn": "SVHN",
    "celeba": "celeba",
}

CELEBA_TARGET = "Blond_Hair"
QMNIST_SERIES = {0: "hsf0", 1: "hsf1", 4: "hsf4"}
QMNIST_META_COLUMNS = (
    "label",
    "series",
    "writer",
    "writer_digit",
    "nist_class",
    "nist_index",
    "duplicate",
)


@dataclass(frozen=True, eq=False)
class ImageData:
    """A labelled image set held in memory.

    ``images``: uint8 tensor (N, C, H, W); ``labels``: int64 tensor (N,) in 0..C-1; ``meta``: one
    row per example (RangeIndex) or None. Treat the tensors as read-only: loads are cached and
    shared.
    """

    name: str
    images: torch.Tensor
    labels: torch.Tensor
    classes: tuple[str, ...]
    spec: DatasetSpec
    meta: pd.DataFrame | None = None

    def __post_init__(self) -> None:
        if self.images.dtype != torch.uint8 or self.images.ndim != 4:
            raise PruneAuditError(
                f"images must be a uint8 tensor (N, C, H, W), got {self.images.dtype} "
                f"{tuple(self.images.shape)}"
            )
        if self.labels.dtype != torch.int64 or self.labels.ndim != 1:
            raise PruneAuditError(
                f"labels must be an int64 tensor (N,), got {self.labels.dtype} "
                f"{tuple(self.labels.shape)}"
            )
        n = self.images.shape[0]
        if self.labels.shape[0] != n:
            raise PruneAuditError(f"{n} images but {self.labels.shape[0]} labels")
        if len(self.classes) != self.spec.num_classes:
            raise PruneAuditError(
                f"{len(self.classes)} class names but {self.spec.name} has "
                f"{self.spec.num_classes} classes"
            )
        if n and (int(self.labels.min()) < 0 or int(self.labels.max()) >= self.spec.num_classes):
            raise PruneAuditError(
                f"labels must lie in 0..{self.spec.num_classes - 1}, got "
                f"{int(self.labels.min())}..{int(self.labels.max())}"
            )
        if self.meta is not None and len(self.meta) != n:
            raise PruneAuditError(f"meta has {len(self.meta)} rows for {n} examples")

    def __len__(self) -> int:
        return int(self.images.shape[0])

    @property
    def num_classes(self) -> int:
        return self.spec.num_classes

    @property
    def in_channels(self) -> int:
        return int(self.images.shape[1])

    @property
    def image_size(self) -> int:
        return int(self.images.shape[-1])

    def subset(self, idx: Sequence[int] | np.ndarray | torch.Tensor) -> ImageData:
        """The examples at positions ``idx`` (integers in the given order, or a boolean mask of
        length N), meta included with a fresh RangeIndex."""
        raw = idx.cpu().numpy() if isinstance(idx, torch.Tensor) else np.asarray(idx)
        if raw.dtype == bool:
            if raw.shape != (len(self),):
                raise PruneAuditError(
                    f"boolean mask has shape {raw.shape}, expected ({len(self)},)"
                )
            raw = np.flatnonzero(raw)
        elif raw.size and not np.issubdtype(raw.dtype, np.integer):
            raise PruneAuditError(f"subset indices must be integers, got dtype {raw.dtype}")
        index = torch.as_tensor(raw, dtype=torch.int64).reshape(-1)
        if index.numel() and (int(index.min()) < -len(self) or int(index.max()) >= len(self)):
            raise PruneAuditError(f"subset index out of range for {len(self)} examples")
        meta = None
        if self.meta is not None:
            meta = self.meta.iloc[index.numpy()].reset_index(drop=True)
        return ImageData(
            self.name, self.images[index], self.labels[index], self.classes, self.spec, meta
        )


# --------------------------------------------------------------------------- errors


def _fix_hint(name: str) -> str:
    return (
        f"Fix: with internet, call load({name!r}, download=True); offline, put the files in "
        f"torchvision's layout into one of the folders searched (or point {config.DATA_ENV}, "
        f"load(..., root=...) or the notebooks' data_root parameter at a folder that holds them)."
    )


def _missing(
    name: str, folder: Path, what: str, extra: str = "", how: str = "not found"
) -> DataMissingError:
    return DataMissingError(f"dataset {name!r}: {what} {how} in {folder}. {_fix_hint(name)}{extra}")


def _construct(name: str, folder: Path, what: str, factory: Callable[[], Any]) -> Any:
    """Build a torchvision dataset, turning its errors into the project's."""
    try:
        return factory()
    except RuntimeError as err:
        text = str(err)
        if "not found" in text or "corrupted" in text:
            how = "not found (or failing torchvision's md5 check)" if "corrupted" in text else None
            raise _missing(name, folder, what, how=how or "not found") from None
        if "download" in text.lower():
            raise _missing(name, folder, what, f" Download failed: {text}") from None
        raise _corrupt(name, folder, err) from err
    except OSError as err:  # network errors while downloading, unreadable files
        raise _missing(name, folder, what, f" ({type(err).__name__}: {err})") from None
    except (AssertionError, ValueError, TypeError, EOFError, KeyError,
            pickle.UnpicklingError) as err:
        raise _corrupt(name, folder, err) from err


def _corrupt(name: str, folder: Path, err: Exception) -> PruneAuditError:
    return PruneAuditError(
        f"could not read dataset {name!r} from {folder}: the files look truncated or corrupt "
        f"({type(err).__name__}: {err}).{_bad_files(name, folder)} Fix: replace the bad file "
        f"with a good copy (offline: copy it from another machine or the project's offline "
        f"data folder into {folder}, same name and layout), or delete it and call load({name!r}, "
        f"download=True) when online."
    )


def _bad_files(name: str, folder: Path) -> str:
    """`` Bad file: <path> (<n> bytes, expected <m>).`` for each idx file under ``folder`` whose
    size disagrees with its header, or (header unreadable) with the same file in another of the
    data roots searched; else ``""``."""
    notes = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and "idx" in p.name):
        size = path.stat().st_size
        expected = idx_size(path)
        if expected is None:
            rel = path.relative_to(folder)
            others = [
                r / FOLDERS[name] / rel
                for r in config.data_roots()
                if (r / FOLDERS[name] / rel).is_file()
            ]
            expected = next((o.stat().st_size for o in others if o.resolve() != path.resolve()),
                            None)
        if expected is not None and expected != size:
            notes.append(f" Bad file: {path} ({size:,} bytes, expected {expected:,}).")
    return "".join(notes)


# --------------------------------------------------------------------------- loaders


def _mnist_like(cls: type, name: str) -> Callable[[Path, str, bool], ImageData]:
    def loader(root: Path, split: str, download: bool) -> ImageData:
        folder = root / FOLDERS[name]
        ds = _construct(
            name, folder, f"{split} files",
            lambda: cls(root, train=split == "train", download=download),
        )
        return _make(name, ds.data, ds.targets, ds.classes)

    return loader


def _load_qmnist(root: Path, split: str, download: bool) -> ImageData:
    what = "train" if split == "train" else "test10k"
    folder = root / FOLDERS["qmnist"]
    ds = _construct(
        "qmnist", folder, f"{what} files",
        lambda: tvd.QMNIST(root, what=what, compat=False, download=download),
    )
    targets = ds.targets.numpy()
    if targets.ndim != 2 or targets.shape[1] < 7:
        raise PruneAuditError(f"QMNIST labels in {folder} must have 8 columns, got {targets.shape}")
    unknown = sorted(set(np.unique(targets[:, 1]).tolist()) - set(QMNIST_SERIES))
    if unknown:
        raise PruneAuditError(f"QMNIST labels in {folder} hold unknown series codes {unknown}")
    meta = pd.DataFrame(
        {
            "label": targets[:, 0].astype(np.int64),
            "series": pd.Series(targets[:, 1]).map(QMNIST_SERIES).astype(str),
            "writer": targets[:, 2].astype(np.int64),
            "writer_digit": targets[:, 3].astype(np.int64),
            "nist_class": targets[:, 4].astype(np.int64),
            "nist_index": targets[:, 5].astype(np.int64),
            "duplicate": targets[:, 6].astype(bool),
        }
    )
    return _make("qmnist", ds.data, ds.targets[:, 0], tvd.QMNIST.classes, meta)


_KMNIST_FILES = {
    "train": ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
    "test": ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"),
}


def _load_kmnist(root: Path, split: str, download: bool) -> ImageData:
    folder = root / FOLDERS["kmnist"]
    files = [folder / f for f in _KMNIST_FILES[split]]
    if download and not all(f.is_file() for f in files):
        _construct(
            "kmnist", folder, f"{split} files",
            lambda: tvd.KMNIST(root, train=split == "train", download=True),
        )
    missing = [f.name for f in files if not f.is_file()]
    if missing:
        extra = ""
        if split == "train":
            extra = (
                " Offline only KMNIST's test images may exist: use "
                "pruneaudit.data.kmnist_split(seed) for a seeded train/test split of them."
            )
        raise _missing("kmnist", folder, f"{split} files {missing}", extra)
    images, labels = (read_idx(f) for f in files)
    if images.ndim != 3 or images.dtype != np.uint8 or labels.ndim != 1:
        raise PruneAuditError(
            f"KMNIST files in {folder} have shapes {images.shape} / {labels.shape}, expected "
            f"(N, 28, 28) uint8 images and (N,) labels"
        )
    if len(images) != len(labels):
        raise PruneAuditError(f"KMNIST {split}: {len(images)} images but {len(labels)} labels")
    return _make("kmnist", torch.from_numpy(images), torch.from_numpy(labels), tvd.KMNIST.classes)


def _load_emnist(root: Path, split: str, download: bool) -> ImageData:
    folder = root / FOLDERS["emnist"]
    ds = _construct(
        "emnist", folder, f"emnist-byclass-{split} files",
        lambda: tvd.EMNIST(root, split="byclass", train=split == "train", download=download),
    )
    # EMNIST's raw files hold every image transposed; undo it so characters stand upright.
    images = ds.data.transpose(1, 2).contiguous()
    return _make("emnist", images, ds.targets, ds.classes)


_CIFAR_FILES = {
    "cifar10": "files data_batch_1..5, test_batch, batches.meta",
    "cifar100": "files train, test, meta",
}


def _load_cifar(cls: type, name: str) -> Callable[[Path, str, bool], ImageData]:
    def loader(root: Path, split: str, download: bool) -> ImageData:
        folder = root / FOLDERS[name]
        ds = _construct(
            name, folder, _CIFAR_FILES[name],
            lambda: cls(root, train=split == "train", download=download),
        )
        images = torch.from_numpy(np.ascontiguousarray(ds.data.transpose(0, 3, 1, 2)))
        return _make(name, images, torch.as_tensor(ds.targets), ds.classes)

    return loader


def _load_svhn(root: Path, split: str, download: bool) -> ImageData:
    folder = root / FOLDERS["svhn"]
    ds = _construct(
        "svhn", folder, f"{split}_32x32.mat",
        lambda: tvd.SVHN(folder, split=split, download=download),
    )
    images = torch.from_numpy(np.ascontiguousarray(ds.data))
    return _make("svhn", images, torch.from_numpy(ds.labels), [str(d) for d in range(10)])


_CELEBA_NEEDS = (
    "img_align_celeba/, list_attr_celeba.txt, list_eval_partition.txt, identity_CelebA.txt, "
    "list_bbox_celeba.txt, list_landmarks_align_celeba.txt"
)


def _load_celeba(root: Path, split: str, download: bool) -> ImageData:
    folder = root / FOLDERS["celeba"]
    ds = _construct(
        "celeba", folder, f"images and annotations ({_CELEBA_NEEDS})",
        lambda: tvd.CelebA(root, split=split, target_type=[], download=download),
    )
    filenames = list(ds.filename)
    image_dir = folder / "img_align_celeba"
    size = DATASETS["celeba"].size
    out = torch.empty((len(filenames), 3, size, size), dtype=torch.uint8)
    for i, fname in enumerate(filenames):
        path = image_dir / fname
        if not path.is_file():
            raise _missing("celeba", image_dir, f"image {fname}")
        with Image.open(path) as pil:
            img = _center_square(torch.from_numpy(np.array(pil.convert("RGB"))).permute(2, 0, 1))
        small = torch.nn.functional.interpolate(
            img[None].float(), size=(size, size), mode="bilinear", antialias=True
        )
        out[i] = small[0].round().clamp(0, 255).to(torch.uint8)
    attrs = celeba_attributes(root).loc[filenames]
    labels = torch.from_numpy(attrs[CELEBA_TARGET].to_numpy().astype(np.int64))
    meta = attrs.reset_index()
    return _make("celeba", out, labels, ("not_blond", "blond"), meta)


def _center_square(img: torch.Tensor) -> torch.Tensor:
    h, w = img.shape[-2:]
    side = min(h, w)
    top, left = (h - side) // 2, (w - side) // 2
    return img[..., top : top + side, left : left + side]


def _make(
    name: str,
    images: torch.Tensor,
    labels: torch.Tensor,
    classes: Sequence[str],
    meta: pd.DataFrame | None = None,
) -> ImageData:
    spec = DATASETS[name]
    images = torch.as_tensor(images)
    if images.ndim == 3:
        images = images[:, None]
    images = images.to(torch.uint8).contiguous()
    if tuple(images.shape[1:]) != (spec.channels, spec.size, spec.size):
        raise PruneAuditError(
            f"dataset {name!r}: images have shape {tuple(images.shape[1:])}, expected "
            f"{(spec.channels, spec.size, spec.size)}"
        )
    labels = torch.as_tensor(labels).to(torch.int64).reshape(-1).contiguous()
    return ImageData(name, images, labels, tuple(str(c) for c in classes), spec, meta)


_LOADERS: dict[str, Callable[[Path, str, bool], ImageData]] = {
    "mnist": _mnist_like(tvd.MNIST, "mnist"),
    "fashion_mnist": _mnist_like(tvd.FashionMNIST, "fashion_mnist"),
    "qmnist": _load_qmnist,
    "kmnist": _load_kmnist,
    "emnist": _load_emnist,
    "cifar10": _load_cifar(tvd.CIFAR10, "cifar10"),
    "cifar100": _load_cifar(tvd.CIFAR100, "cifar100"),
    "svhn": _load_svhn,
    "celeba": _load_celeba,
}

_CACHE: dict[tuple[str, str, str], ImageData] = {}


def load(
    name: str,
    split: str = "train",
    root: str | os.PathLike | None = None,
    download: bool = False,
) -> ImageData:
    """Load a dataset split into memory (cached per dataset, split and resolved data root).

    ``root`` defaults to the first of :func:`pruneaudit.config.data_roots` that holds the
    dataset's folder. Offline with files missing, raises one
    :class:`~pruneaudit.errors.DataMissingError` naming the dataset, the folders searched and the
    fix.
    """
    name = check_choice("dataset", name, DATASETS)
    split = check_choice("split", split, SPLITS)
    base = config.dataset_root(FOLDERS[name], root).resolve()
    key = (name, split, str(base))
    if key not in _CACHE:
        try:
            _CACHE[key] = _LOADERS[name](base, split, bool(download))
        except DataMissingError as err:
            searched = ", ".join(str(r) for r in config.data_roots(root))
            raise DataMissingError(
                f"{err} Folders searched for {FOLDERS[name]}/ (in order): {searched}."
            ) from None
    return _CACHE[key]


def clear_cache() -> None:
    """Forget every dataset loaded so far (frees their memory)."""
    _CACHE.clear()
    _celeba_frame.cache_clear()


def train_val_split(
    n: int, seed: int, val_fraction: float = 0.2
) -> tuple[np.ndarray, np.ndarray]:
    """Seeded split of ``range(n)`` into sorted, disjoint, covering train and validation indices.

    The validation part has ``round(n * val_fraction)`` indices, drawn by a permutation from
    ``numpy.random.default_rng(seed)``.
    """
    check_positive_int("n", n)
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise PruneAuditError(f"seed must be a non-negative integer, got {seed!r}")
    frac = check_range("val_fraction", val_fraction, 0.0, 1.0, hi_open=True)
    perm = np.random.default_rng(int(seed)).permutation(n)
    n_val = int(round(n * frac))
    return np.sort(perm[n_val:]).astype(np.int64), np.sort(perm[:n_val]).astype(np.int64)


def kmnist_split(
    seed: int, train_fraction: float = 0.8, root: str | os.PathLike | None = None
) -> tuple[ImageData, ImageData]:
    """A seeded (train, test) split of KMNIST's test set, for when its training images are absent.

    Uses :func:`train_val_split` on the 10,000 test images, so the same seed gives the same split.
    """
    frac = check_range("train_fraction", train_fraction, 0.0, 1.0, lo_open=True, hi_open=True)
    data = load("kmnist", "test", root=root)
    train_idx, test_idx = train_val_split(len(data), seed, val_fraction=1.0 - frac)
    return data.subset(train_idx), data.subset(test_idx)


# --------------------------------------------------------------------------- CelebA attributes

CELEBA_PARTITIONS = ("train", "valid", "test")


def celeba_attributes(
    root: str | os.PathLike | None = None, split: str | None = None
) -> pd.DataFrame:
    """CelebA's 40 attributes as a frame of bools, indexed by ``image_id``, plus ``partition``.

    Reads ``celeba/list_attr_celeba.txt`` (-1/1 → False/True) and ``list_eval_partition.txt``
    (0/1/2 → train/valid/test). Needs no images. ``split`` keeps one partition.
    """
    if split is not None:
        split = check_choice("CelebA partition", split, CELEBA_PARTITIONS)
    folder = config.dataset_root(FOLDERS["celeba"], root).resolve() / FOLDERS["celeba"]
    frame = _celeba_frame(str(folder)).copy()
    if split is not None:
        frame = frame[frame["partition"] == split]
    return frame


def _read_table(path: Path, **kwargs: Any) -> pd.DataFrame:
    try:
        return pd.read_csv(path, sep=r"\s+", **kwargs)
    except (ValueError, pd.errors.ParserError) as err:
        raise PruneAuditError(f"could not parse {path}: {err}") from err


@functools.lru_cache(maxsize=4)
def _celeba_frame(folder: str) -> pd.DataFrame:
    base = Path(folder)
    attr_path = base / "list_attr_celeba.txt"
    part_path = base / "list_eval_partition.txt"
    missing = [p.name for p in (attr_path, part_path) if not p.is_file()]
    if missing:
        raise _missing("celeba", base, f"attribute files {missing}")
    attrs = _read_table(attr_path, skiprows=1)
    if attrs.shape[1] != 40:
        raise PruneAuditError(f"{attr_path} has {attrs.shape[1]} attribute columns, expected 40")
    values = attrs.to_numpy()
    if not np.isin(values, (-1, 1)).all():
        raise PruneAuditError(f"{attr_path} must hold only -1 and 1 attribute values")
    frame = pd.DataFrame(values == 1, index=attrs.index.astype(str), columns=attrs.columns)
    frame.index.name = "image_id"
    part = _read_table(part_path, header=None, names=["image_id", "code"], index_col=0)
    if not part.index.equals(frame.index) or not part["code"].isin((0, 1, 2)).all():
        raise PruneAuditError(
            f"{part_path} must list the images of {attr_path.name} in order, with codes 0/1/2"
        )
    frame["partition"] = pd.Categorical.from_codes(part["code"].to_numpy(), CELEBA_PARTITIONS)
    return frame
