"""Tests for pruneaudit.data: real data where ../shared/data has it, tiny files in torchvision's
on-disk layout (written here) for every dataset it lacks, and the error paths."""

from __future__ import annotations

import os
import pickle
import struct
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.io
import torch
import torchvision.datasets.celeba
import torchvision.datasets.cifar
import torchvision.datasets.svhn
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from pruneaudit import audit, data
from pruneaudit.errors import DataMissingError, PruneAuditError


def write_idx(path: Path, array: np.ndarray) -> None:
    """Write ``array`` as an idx file (big-endian, the MNIST family's format)."""
    codes = {np.dtype(np.uint8): 0x08, np.dtype(np.int32): 0x0C}
    path.parent.mkdir(parents=True, exist_ok=True)
    header = bytes([0, 0, codes[array.dtype], array.ndim]) + struct.pack(
        f">{array.ndim}I", *array.shape
    )
    path.write_bytes(header + array.astype(array.dtype.newbyteorder(">")).tobytes())


def existence_only(fpath, md5=None) -> bool:
    """Stand-in for torchvision's ``check_integrity``: the files written here cannot match the
    published md5 sums of the real archives, so the tests check the layout (exact paths) only."""
    return os.path.isfile(fpath)


# --------------------------------------------------------------------------- registry


def test_registry_covers_the_datasets_with_sane_specs():
    assert set(data.DATASETS) == {
        "mnist", "fashion_mnist", "qmnist", "kmnist", "emnist",
        "cifar10", "cifar100", "svhn", "celeba",
    }
    for name, spec in data.DATASETS.items():
        assert spec.name == name
        assert len(spec.mean) == len(spec.std) == spec.channels
        assert all(0 < m < 1 for m in spec.mean) and all(0 < s < 1 for s in spec.std)
    assert data.DATASETS["emnist"].num_classes == 62
    assert data.DATASETS["cifar100"].num_classes == 100
    for name in ("mnist", "qmnist", "kmnist", "emnist", "svhn"):
        assert not data.DATASETS[name].flip_ok, name
    for name in ("fashion_mnist", "cifar10", "cifar100", "celeba"):
        assert data.DATASETS[name].flip_ok, name


# --------------------------------------------------------------------------- real data


def test_mnist_real(data_root):
    train = data.load("mnist", "train", root=data_root)
    test = data.load("mnist", "test", root=data_root)
    assert train.images.shape == (60000, 1, 28, 28) and train.images.dtype == torch.uint8
    assert test.images.shape == (10000, 1, 28, 28)
    assert train.labels.dtype == torch.int64
    assert (train.num_classes, train.in_channels, train.image_size) == (10, 1, 28)
    assert len(train) == 60000 and train.meta is None
    counts = audit.class_counts(train.labels, 10)
    assert counts.tolist() == [5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949]
    assert data.load("mnist", "train", root=data_root) is train  # cached


@pytest.mark.parametrize(("name", "split", "tol"), [
    ("mnist", "train", 1e-3),
    ("fashion_mnist", "train", 1e-3),
    ("kmnist", "test", 1e-2),  # only KMNIST's test images are offline; spec is train statistics
])
def test_normalization_constants_match_the_data(data_root, name, split, tol):
    d = data.load(name, split, root=data_root)
    x = d.images.float() / 255
    assert x.mean().item() == pytest.approx(d.spec.mean[0], abs=tol)
    assert x.std().item() == pytest.approx(d.spec.std[0], abs=tol)


def test_fashion_mnist_real(data_root):
    test = data.load("fashion_mnist", "test", root=data_root)
    assert test.images.shape == (10000, 1, 28, 28)
    assert audit.class_counts(test.labels, 10).tolist() == [1000] * 10
    assert test.classes[0] == "T-shirt/top"


def test_qmnist_real_meta(data_root):
    train = data.load("qmnist", "train", root=data_root)
    test = data.load("qmnist", "test", root=data_root)
    assert train.images.shape == (60000, 1, 28, 28) and test.images.shape == (10000, 1, 28, 28)
    assert list(train.meta.columns) == list(data.QMNIST_META_COLUMNS)
    assert train.meta["series"].value_counts().to_dict() == {"hsf0": 30950, "hsf4": 29050}
    assert test.meta["series"].value_counts().to_dict() == {"hsf4": 5001, "hsf0": 4999}
    assert test.meta["writer"].nunique() == 297
    assert (train.meta["label"].to_numpy() == train.labels.numpy()).all()
    # QMNIST matches MNIST one-for-one and in order.
    mnist = data.load("mnist", "test", root=data_root)
    assert torch.equal(test.labels, mnist.labels)


def test_subset_slices_meta_and_resets_index(data_root):
    test = data.load("qmnist", "test", root=data_root)
    idx = np.array([5, 2, 9999])
    sub = test.subset(idx)
    assert len(sub) == 3 and list(sub.meta.index) == [0, 1, 2]
    assert torch.equal(sub.images, test.images[idx])
    assert torch.equal(sub.labels, test.labels[idx])
    pd.testing.assert_frame_equal(sub.meta, test.meta.iloc[idx].reset_index(drop=True))
    assert sub.spec is test.spec and sub.classes == test.classes
    mask = test.meta["series"].to_numpy() == "hsf0"
    by_mask = test.subset(torch.from_numpy(mask))
    assert len(by_mask) == 4999 and (by_mask.meta["series"] == "hsf0").all()
    assert len(test.subset([])) == 0
    with pytest.raises(PruneAuditError, match="out of range"):
        test.subset([10000])
    with pytest.raises(PruneAuditError, match="mask"):
        test.subset(mask[:10])
    with pytest.raises(PruneAuditError, match="integers"):
        test.subset([0.5])


def test_kmnist_real_via_idx(data_root):
    test = data.load("kmnist", "test", root=data_root)
    assert test.images.shape == (10000, 1, 28, 28)
    assert audit.class_counts(test.labels, 10).tolist() == [1000] * 10
    with pytest.raises(DataMissingError, match="kmnist_split") as err:
        data.load("kmnist", "train", root=data_root)
    assert str(data_root) in str(err.value)


def test_kmnist_split_is_seeded_disjoint_and_covering(data_root):
    full = data.load("kmnist", "test", root=data_root)
    train, test = data.kmnist_split(0, root=data_root)
    assert (len(train), len(test)) == (8000, 2000)
    again, _ = data.kmnist_split(0, root=data_root)
    assert torch.equal(train.images, again.images)
    other, _ = data.kmnist_split(1, root=data_root)
    assert not torch.equal(train.labels, other.labels)
    tr, va = data.train_val_split(len(full), 0, val_fraction=0.2)
    assert torch.equal(train.images, full.images[tr]) and torch.equal(test.images, full.images[va])
    both = audit.class_counts(train.labels, 10) + audit.class_counts(test.labels, 10)
    assert both.tolist() == [1000] * 10
    with pytest.raises(PruneAuditError, match="train_fraction"):
        data.kmnist_split(0, train_fraction=1.0, root=data_root)


def test_celeba_attributes_real(data_root):
    attrs = data.celeba_attributes(data_root)
    assert attrs.shape == (202599, 41)
    assert attrs.index.name == "image_id" and attrs.index[0] == "000001.jpg"
    assert all(dtype == np.dtype(bool) for dtype in attrs.drop(columns="partition").dtypes)
    assert attrs["partition"].value_counts().to_dict() == {
        "train": 162770, "valid": 19867, "test": 19962,
    }
    # 000001.jpg: Arched_Eyebrows 1, 5_o_Clock_Shadow -1 (first data row of the file).
    assert attrs.loc["000001.jpg", "Arched_Eyebrows"]
    assert not attrs.loc["000001.jpg", "5_o_Clock_Shadow"]
    assert len(data.celeba_attributes(data_root, split="valid")) == 19867
    with pytest.raises(DataMissingError, match="img_align_celeba"):
        data.load("celeba", root=data_root)


# --------------------------------------------------------------------------- tiny files


def test_emnist_layout_and_orientation(tmp_path):
    rng = np.random.default_rng(0)
    upright = {s: rng.integers(0, 256, (n, 28, 28), dtype=np.uint8) for s, n in
               (("train", 5), ("test", 3))}
    labels = {"train": np.array([0, 10, 36, 61, 5], np.uint8),
              "test": np.array([1, 2, 3], np.uint8)}
    raw = tmp_path / "EMNIST" / "raw"
    for split in ("train", "test"):
        # EMNIST's raw files store every image transposed.
        write_idx(raw / f"emnist-byclass-{split}-images-idx3-ubyte",
                  np.ascontiguousarray(upright[split].transpose(0, 2, 1)))
        write_idx(raw / f"emnist-byclass-{split}-labels-idx1-ubyte", labels[split])
    d = data.load("emnist", "train", root=tmp_path)
    assert d.images.shape == (5, 1, 28, 28)
    assert np.array_equal(d.images[:, 0].numpy(), upright["train"])
    assert d.labels.tolist() == [0, 10, 36, 61, 5]
    assert len(d.classes) == 62 and d.classes[10] == "A" and d.classes[36] == "a"
    assert len(data.load("emnist", "test", root=tmp_path)) == 3


def _write_cifar(root: Path, folder: str, files: dict[str, int], label_key: str,
                 meta: tuple[str, str, list[str]], seed: int = 0) -> dict[str, tuple]:
    rng = np.random.default_rng(seed)
    base = root / folder
    base.mkdir(parents=True)
    written = {}
    num_classes = len(meta[2])
    for fname, n in files.items():
        images = rng.integers(0, 256, (n, 3, 32, 32), dtype=np.uint8)
        labels = rng.integers(0, num_classes, n).tolist()
        entry = {"data": images.reshape(n, 3072), label_key: labels}
        if label_key == "fine_labels":
            entry["coarse_labels"] = [0] * n
        with open(base / fname, "wb") as f:
            pickle.dump(entry, f)
        written[fname] = (images, labels)
    with open(base / meta[0], "wb") as f:
        pickle.dump({meta[1]: meta[2]}, f)
    return written


def test_cifar10_layout(tmp_path, monkeypatch):
    files = {f"data_batch_{i}": 2 for i in range(1, 6)} | {"test_batch": 3}
    names = ["airplane", "automobile", "bird", "cat", "deer",
             "dog", "frog", "horse", "ship", "truck"]
    written = _write_cifar(tmp_path, "cifar-10-batches-py", files, "labels",
                           ("batches.meta", "label_names", names))
    # Without the patch, torchvision's md5 check rejects the files: one clear error.
    with pytest.raises(DataMissingError, match="md5"):
        data.load("cifar10", "train", root=tmp_path)
    monkeypatch.setattr(torchvision.datasets.cifar, "check_integrity", existence_only)
    train = data.load("cifar10", "train", root=tmp_path)
    expect = np.concatenate([written[f"data_batch_{i}"][0] for i in range(1, 6)])
    assert train.images.shape == (10, 3, 32, 32)
    assert np.array_equal(train.images.numpy(), expect)
    assert train.labels.tolist() == sum((written[f"data_batch_{i}"][1] for i in range(1, 6)), [])
    assert train.classes == tuple(names)
    test = data.load("cifar10", "test", root=tmp_path)
    assert np.array_equal(test.images.numpy(), written["test_batch"][0])


def test_cifar100_layout(tmp_path, monkeypatch):
    names = [f"class{i:03d}" for i in range(100)]
    written = _write_cifar(tmp_path, "cifar-100-python", {"train": 4, "test": 2}, "fine_labels",
                           ("meta", "fine_label_names", names))
    monkeypatch.setattr(torchvision.datasets.cifar, "check_integrity", existence_only)
    train = data.load("cifar100", "train", root=tmp_path)
    assert np.array_equal(train.images.numpy(), written["train"][0])
    assert train.labels.tolist() == written["train"][1]
    assert train.num_classes == 100 and train.classes[7] == "class007"


def test_svhn_layout(tmp_path, monkeypatch):
    rng = np.random.default_rng(1)
    images = rng.integers(0, 256, (4, 3, 32, 32), dtype=np.uint8)
    (tmp_path / "SVHN").mkdir()
    # The .mat files hold X as (H, W, C, N) and label 10 for the digit 0.
    scipy.io.savemat(tmp_path / "SVHN" / "test_32x32.mat",
                     {"X": images.transpose(2, 3, 1, 0), "y": np.array([[10], [1], [9], [10]])})
    monkeypatch.setattr(torchvision.datasets.svhn, "check_integrity", existence_only)
    test = data.load("svhn", "test", root=tmp_path)
    assert np.array_equal(test.images.numpy(), images)
    assert test.labels.tolist() == [0, 1, 9, 0]
    with pytest.raises(DataMissingError, match="train_32x32.mat"):
        data.load("svhn", "train", root=tmp_path)


def _write_celeba(root: Path, colours: list[tuple[tuple[int, ...], tuple[int, ...]]],
                  blond: list[int], partition: list[int]) -> list[str]:
    base = root / "celeba"
    (base / "img_align_celeba").mkdir(parents=True)
    names = [f"{i + 1:06d}.jpg" for i in range(len(colours))]
    attr_names = [f"Attr{i}" for i in range(40)]
    attr_names[9] = "Blond_Hair"
    attr_names[20] = "Male"
    rows_attr, rows_part, rows_id, rows_bbox, rows_lm = [], [], [], [], []
    for i, (name, (top, bottom)) in enumerate(zip(names, colours, strict=True)):
        img = np.zeros((218, 178, 3), np.uint8)
        img[:109], img[109:] = top, bottom
        Image.fromarray(img).save(base / "img_align_celeba" / name, quality=95)
        values = [-1] * 40
        values[9] = 1 if blond[i] else -1
        values[20] = 1 if i % 2 else -1
        rows_attr.append(name + " " + " ".join(f"{v:2d}" for v in values))
        rows_part.append(f"{name} {partition[i]}")
        rows_id.append(f"{name} {100 + i}")
        rows_bbox.append(f"{name} 95 71 226 313")
        rows_lm.append(f"{name} " + " ".join(["69"] * 10))
    n = len(names)
    (base / "list_attr_celeba.txt").write_text(
        f"{n}\n" + " ".join(attr_names) + " \n" + "\n".join(rows_attr) + "\n")
    (base / "list_eval_partition.txt").write_text("\n".join(rows_part) + "\n")
    (base / "identity_CelebA.txt").write_text("\n".join(rows_id) + "\n")
    (base / "list_bbox_celeba.txt").write_text(
        f"{n}\nimage_id x_1 y_1 width height\n" + "\n".join(rows_bbox) + "\n")
    (base / "list_landmarks_align_celeba.txt").write_text(
        f"{n}\n" + " ".join(f"p{i}" for i in range(10)) + "\n" + "\n".join(rows_lm) + "\n")
    return names


def test_celeba_layout_with_images(tmp_path, monkeypatch):
    colours = [((200, 30, 30), (10, 10, 240)), ((0, 0, 0), (255, 255, 255)),
               ((30, 200, 30), (30, 200, 30)), ((90, 90, 90), (10, 10, 10)),
               ((250, 250, 0), (0, 250, 250)), ((120, 0, 200), (0, 120, 0))]
    # torchvision's CelebA cannot select a split of one image, so the test split has two.
    names = _write_celeba(tmp_path, colours, blond=[1, 0, 1, 0, 1, 0],
                          partition=[0, 0, 2, 1, 0, 2])
    monkeypatch.setattr(torchvision.datasets.celeba, "check_integrity", existence_only)
    train = data.load("celeba", "train", root=tmp_path)
    assert train.images.shape == (3, 3, 32, 32)
    assert train.labels.tolist() == [1, 0, 1]
    assert train.classes == ("not_blond", "blond")
    assert train.meta["image_id"].tolist() == [names[0], names[1], names[4]]
    assert train.meta["Male"].tolist() == [False, True, False]
    assert (train.meta["partition"] == "train").all()
    for row, k in enumerate((0, 1, 4)):
        top, bottom = colours[k]  # orientation kept: top colour at the top after crop + resize
        assert np.abs(train.images[row, :, 0, 0].numpy() - np.array(top)).max() <= 6
        assert np.abs(train.images[row, :, -1, -1].numpy() - np.array(bottom)).max() <= 6
    test = data.load("celeba", "test", root=tmp_path)
    assert test.meta["image_id"].tolist() == [names[2], names[5]]
    assert test.labels.tolist() == [1, 0]
    attrs = data.celeba_attributes(tmp_path)
    assert attrs["partition"].tolist() == ["train", "train", "test", "valid", "train", "test"]
    assert attrs["Blond_Hair"].tolist() == [True, False, True, False, True, False]


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize("name", sorted(data.DATASETS))
def test_missing_dataset_names_dataset_folder_and_fix(tmp_path, name):
    with pytest.raises(DataMissingError) as err:
        data.load(name, "test", root=tmp_path)
    message = str(err.value)
    assert repr(name) in message
    assert str(tmp_path) in message
    assert "PRUNEAUDIT_DATA" in message and "root=" in message and "download=True" in message
    assert not any(tmp_path.iterdir())  # nothing written


def test_data_root_from_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("PRUNEAUDIT_DATA", str(tmp_path))
    with pytest.raises(DataMissingError, match=str(tmp_path / "MNIST" / "raw")):
        data.load("mnist")


def test_unknown_dataset_and_split():
    with pytest.raises(PruneAuditError, match="Did you mean 'mnist'"):
        data.load("mnsit")
    with pytest.raises(PruneAuditError, match="split"):
        data.load("mnist", "valid")
    with pytest.raises(PruneAuditError, match="partition"):
        data.celeba_attributes(split="validation")


def test_read_idx_round_trip_and_bad_files(tmp_path):
    arr = np.arange(-6, 6, dtype=np.int32).reshape(3, 4)
    write_idx(tmp_path / "ok", arr)
    got = data.read_idx(tmp_path / "ok")
    assert np.array_equal(got, arr) and got.dtype.isnative
    good = (tmp_path / "ok").read_bytes()
    (tmp_path / "short").write_bytes(good[:-3])
    with pytest.raises(PruneAuditError, match="truncated"):
        data.read_idx(tmp_path / "short")
    (tmp_path / "header").write_bytes(good[:6])
    with pytest.raises(PruneAuditError, match="truncated"):
        data.read_idx(tmp_path / "header")
    (tmp_path / "magic").write_bytes(b"\x1f\x8b" + good[2:])  # a gzip file, not unpacked
    with pytest.raises(PruneAuditError, match="magic"):
        data.read_idx(tmp_path / "magic")


def test_kmnist_truncated_or_wrong_magic(tmp_path):
    raw = tmp_path / "KMNIST" / "raw"
    write_idx(raw / "t10k-images-idx3-ubyte", np.zeros((4, 28, 28), np.uint8))
    write_idx(raw / "t10k-labels-idx1-ubyte", np.array([0, 1, 2, 3], np.uint8))
    assert len(data.load("kmnist", "test", root=tmp_path)) == 4
    data.clear_cache()
    images = raw / "t10k-images-idx3-ubyte"
    images.write_bytes(images.read_bytes()[:-100])
    with pytest.raises(PruneAuditError, match="truncated"):
        data.load("kmnist", "test", root=tmp_path)
    labels = raw / "t10k-labels-idx1-ubyte"
    write_idx(images, np.zeros((4, 28, 28), np.uint8))
    labels.write_bytes(b"\x00\x00\x07\x01" + labels.read_bytes()[4:])
    with pytest.raises(PruneAuditError, match="magic"):
        data.load("kmnist", "test", root=tmp_path)


def test_truncated_mnist_file_is_one_clear_error(tmp_path):
    raw = tmp_path / "MNIST" / "raw"
    write_idx(raw / "t10k-images-idx3-ubyte", np.zeros((4, 28, 28), np.uint8))
    write_idx(raw / "t10k-labels-idx1-ubyte", np.array([0, 1, 2, 3], np.uint8))
    for fname in ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"):
        (raw / fname).write_bytes(b"")
    images = raw / "t10k-images-idx3-ubyte"
    images.write_bytes(images.read_bytes()[:-50])
    with pytest.raises(PruneAuditError, match="truncated or corrupt"):
        data.load("mnist", "test", root=tmp_path)


def test_image_data_validates():
    spec = data.DATASETS["mnist"]
    classes = tuple(str(i) for i in range(10))
    images = torch.zeros((2, 1, 28, 28), dtype=torch.uint8)
    ok = data.ImageData("mnist", images, torch.tensor([0, 9]), classes, spec)
    assert len(ok) == 2 and ok.image_size == 28
    with pytest.raises(PruneAuditError, match="uint8"):
        data.ImageData("mnist", images.float(), torch.tensor([0, 9]), classes, spec)
    with pytest.raises(PruneAuditError, match="labels"):
        data.ImageData("mnist", images, torch.tensor([0, 10]), classes, spec)
    with pytest.raises(PruneAuditError, match="meta"):
        data.ImageData("mnist", images, torch.tensor([0, 1]), classes, spec,
                       pd.DataFrame({"a": [1]}))


# --------------------------------------------------------------------------- train/val split


@settings(max_examples=50, deadline=None)
@given(n=st.integers(1, 3000), seed=st.integers(0, 2**32 - 1), frac=st.floats(0.0, 0.99))
def test_train_val_split_properties(n, seed, frac):
    tr, va = data.train_val_split(n, seed, frac)
    assert tr.dtype == va.dtype == np.int64
    assert len(va) == round(n * frac)
    assert np.array_equal(np.sort(np.concatenate([tr, va])), np.arange(n))
    again = data.train_val_split(n, seed, frac)
    assert np.array_equal(tr, again[0]) and np.array_equal(va, again[1])


def test_train_val_split_depends_on_seed_and_validates():
    a = data.train_val_split(1000, 0)
    b = data.train_val_split(1000, 1)
    assert len(a[1]) == 200 and not np.array_equal(a[1], b[1])
    for bad in [(0, 0, 0.2), (10, -1, 0.2), (10, 0, 1.0), (10, 0, -0.1), (10, 1.5, 0.2)]:
        with pytest.raises(PruneAuditError):
            data.train_val_split(*bad)
