"""Train LeNet on the real MNIST with the protocol's settings for a few epochs; print accuracy.

Protocol P except the number of epochs: the seeded 80/20 train/validation split of the training
set (:func:`pruneaudit.data.train_val_split`), SGD with learning rate 0.01, batch 32, random-crop
augmentation (no flips for digits). Prints validation and test accuracy (the check is >= 98%
test accuracy) and the time taken. Usage:
``python benchmarks/lenet_mnist.py [--epochs 15] [--seed 0] [--root DIR]``.
"""

from __future__ import annotations

import argparse
import time

from pruneaudit import config, data
from pruneaudit.models import build_model
from pruneaudit.training import TrainConfig, evaluate, train


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--root", default=None, help="data root (default: $PRUNEAUDIT_DATA)")
    args = parser.parse_args()
    root = config.data_root(args.root)

    full = data.load("mnist", "train", root=root)
    test = data.load("mnist", "test", root=root)
    train_idx, val_idx = data.train_val_split(len(full), seed=args.seed)
    train_set, val_set = full.subset(train_idx), full.subset(val_idx)

    cfg = TrainConfig(epochs=args.epochs, seed=args.seed)
    model = build_model("lenet", 10, 1, 28, seed=args.seed)
    start = time.perf_counter()
    train(model, train_set, cfg)
    seconds = time.perf_counter() - start

    val_acc = (evaluate(model, val_set) == val_set.labels.numpy()).mean()
    test_acc = (evaluate(model, test) == test.labels.numpy()).mean()
    print(
        f"LeNet / MNIST: {len(train_set)} train, {len(val_set)} validation, {len(test)} test; "
        f"lr {cfg.lr}, batch {cfg.batch_size}, {cfg.epochs} epochs, seed {cfg.seed}, "
        f"augment {cfg.augment}"
    )
    print(f"training time: {seconds:.1f} s ({seconds / cfg.epochs:.1f} s/epoch)")
    print(f"validation accuracy: {val_acc:.4f}")
    print(f"test accuracy: {test_acc:.4f} ({'meets' if test_acc >= 0.98 else 'BELOW'} 98%)")


if __name__ == "__main__":
    main()
