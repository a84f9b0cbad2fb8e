"""Study 2's notebook parameters, checked once before any training."""

from __future__ import annotations

from collections.abc import Mapping

from pruneaudit.errors import PruneAuditError, check_positive_int, check_range
from pruneaudit.runs.spec import check_lr

#: Training digits offline (QMNIST train) and the largest test set here (test10k).
TRAIN_DIGITS = 60_000


def validate(params: Mapping[str, object]) -> None:
    """Check the notebook's parameters before any training (the book runner calls this before a
    kernel starts); one :class:`PruneAuditError` names every bad value and its fix."""
    problems: list[str] = []

    def check(fn, *args) -> None:
        try:
            fn(*args)
        except PruneAuditError as e:
            problems.append(str(e))

    seeds = params.get("seeds")
    if not isinstance(seeds, list) or len(seeds) < 3:
        problems.append(
            f"seeds must list at least 3 seeds (intervals over seeds: a t on 2 df or more), "
            f"got {seeds!r}"
        )
    elif len(set(seeds)) != len(seeds) or any(
        isinstance(x, bool) or not isinstance(x, int) or x < 0 for x in seeds
    ):
        problems.append(f"seeds must be distinct integers >= 0, got {seeds!r}")
    for name in ("epochs", "batch_size", "iterations", "n_hurt", "n_gallery"):
        if name in params:
            check(check_positive_int, name, params[name])
    if "lr" in params:
        check(check_lr, params["lr"])
    for name in ("seconds_per_10k",):
        value = params.get(name)
        if name in params and (
            isinstance(value, bool) or not isinstance(value, int | float) or not value > 0
        ):
            problems.append(f"{name} must be a number > 0, got {value!r}")
    train_size = params.get("train_size")
    if train_size is not None:
        check(check_range, "train_size", train_size, 1, TRAIN_DIGITS)
        check(check_positive_int, "train_size", train_size)
    iterations = params.get("iterations")
    k = params.get("pruned_iteration")
    if (
        k is not None
        and isinstance(iterations, int)
        and (isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= iterations)
    ):
        problems.append(f"pruned_iteration must be None or 1..iterations={iterations}, got {k!r}")
    n_gallery, n_hurt = params.get("n_gallery"), params.get("n_hurt")
    if isinstance(n_gallery, int) and isinstance(n_hurt, int) and n_gallery > n_hurt:
        problems.append(
            f"n_gallery={n_gallery} exceeds n_hurt={n_hurt}: the gallery shows some of the "
            "writers most hurt; lower n_gallery or raise n_hurt"
        )
    if params.get("flip") and not params.get("augment", True):
        problems.append("flip=True needs augment=True (the flip is part of the augmentation)")
    if problems:
        raise PruneAuditError("bad Study 2 parameters: " + "; ".join(problems))


# --------------------------------------------------------------------------- the study
