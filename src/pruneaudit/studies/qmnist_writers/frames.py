"""Study 2's frames: the per-digit and per-writer frames, their summaries and curves."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats

from pruneaudit import audit, charts, data
from pruneaudit.errors import PruneAuditError, check_frame, check_positive_int

#: Per-digit properties averaged per writer (:mod:`pruneaudit.audit.image_properties` names).
PROPERTIES: tuple[str, ...] = ("tilt", "abs_tilt", "mean_activation", "distance_to_class_mean")
STAGES: tuple[str, ...] = ("unpruned", "pruned")


def digit_frame(
    test: data.ImageData,
    pool: data.ImageData,
    preds_unpruned: np.ndarray,
    preds_pruned: np.ndarray,
) -> pd.DataFrame:
    """One row per test digit: index, writer, series, label, correct_unpruned, correct_pruned
    (share of seeds right), the modal predictions, and the image properties.

    ``preds_*``: (K, N) predictions of the K seeds on ``test``; ``pool``: the training images
    whose class means the distance uses.
    """
    if test.meta is None or not {"writer", "series"} <= set(test.meta.columns):
        raise PruneAuditError(f"{test.name!r} test data carry no writer/series meta (need QMNIST)")
    labels = test.labels.numpy()
    correct = {}
    modal = {}
    for stage, preds in zip(STAGES, (preds_unpruned, preds_pruned), strict=True):
        p = audit.check_population(f"preds_{stage}", preds, test.num_classes)
        audit.check_same_length(f"preds_{stage}", p.shape[1], "test", len(labels))
        correct[f"correct_{stage}"] = (p == labels[None, :]).mean(axis=0)
        modal[f"prediction_{stage}"] = stats.mode(p, axis=0, keepdims=False).mode
    frame = pd.DataFrame(
        {
            "index": np.arange(len(labels)),
            "writer": test.meta["writer"].to_numpy(),
            "series": test.meta["series"].to_numpy(),
            "label": labels,
            **correct,
            **modal,
        }
    )
    props = audit.image_properties(test.images, labels, pool.images, pool.labels.numpy())
    return pd.concat([frame, props[list(PROPERTIES)]], axis=1)


def writer_frame(digits: pd.DataFrame) -> pd.DataFrame:
    """One row per writer: writer, series, n digits, accuracy_unpruned, accuracy_pruned,
    accuracy_change (pruned − unpruned) and the mean of each property over the writer's digits."""
    out = audit.per_writer(
        digits, ["correct_unpruned", "correct_pruned", *PROPERTIES], writer="writer"
    )
    out = out.rename(
        columns={"correct_unpruned": "accuracy_unpruned", "correct_pruned": "accuracy_pruned"}
    )
    out.insert(
        out.columns.get_loc("accuracy_pruned") + 1,
        "accuracy_change",
        out["accuracy_pruned"] - out["accuracy_unpruned"],
    )
    return out


def property_effects(writers: pd.DataFrame) -> pd.DataFrame:
    """Least-squares effect (slope) of each writer-mean property on the accuracy change, per
    series and for all writers (:func:`pruneaudit.audit.image_properties.property_effects`),
    each property standardized over all writers first: the slope is the change per standard
    deviation of the property, and the intercept the change of a writer at its mean."""
    z = writers.assign(**{p: (writers[p] - writers[p].mean()) / writers[p].std()
                          for p in PROPERTIES})
    return audit.property_effects(z, PROPERTIES, "accuracy_unpruned", "accuracy_pruned",
                                  group="series")


def tilt_long(writers: pd.DataFrame) -> pd.DataFrame:
    """Writers' accuracy before and after pruning in long form: writer, series, abs_tilt,
    stage (unpruned / pruned), accuracy."""
    long = writers.melt(
        id_vars=["writer", "series", "abs_tilt"],
        value_vars=[f"accuracy_{s}" for s in STAGES],
        var_name="stage",
        value_name="accuracy",
    )
    long["stage"] = long["stage"].str.removeprefix("accuracy_")
    return long


def series_summary(writers: pd.DataFrame) -> pd.DataFrame:
    """Per series and for all writers: writers, digits, mean writer accuracy before and after
    pruning, mean change, and the share of writers who lose accuracy."""

    def summary(part: pd.DataFrame) -> dict:
        return {
            "writers": len(part),
            "digits": int(part["n"].sum()),
            "accuracy_unpruned": part["accuracy_unpruned"].mean(),
            "accuracy_pruned": part["accuracy_pruned"].mean(),
            "mean_change": part["accuracy_change"].mean(),
            "worst_change": part["accuracy_change"].min(),
            "share_losing": (part["accuracy_change"] < 0).mean(),
        }

    rows = [{"series": s, **summary(p)} for s, p in writers.groupby("series", sort=True)]
    rows.append({"series": "all", **summary(writers)})
    return pd.DataFrame(rows)


def most_hurt(writers: pd.DataFrame, n: int = 5) -> pd.DataFrame:
    """The ``n`` writers with the largest accuracy drop (equal drops, to 1e-9: higher unpruned
    accuracy first),
    with a flag ``collapse``: from 100% before pruning to under 50% after."""
    check_positive_int("n", n)
    order = writers.assign(_change=writers["accuracy_change"].round(9))  # float-noise ties
    out = order.sort_values(
        ["_change", "accuracy_unpruned", "writer"], ascending=[True, False, True]
    ).head(n).drop(columns="_change")
    out = out.assign(
        collapse=(out["accuracy_unpruned"] == 1.0) & (out["accuracy_pruned"] < 0.5)
    )
    return out.reset_index(drop=True)


def collapses(writers: pd.DataFrame) -> pd.DataFrame:
    """Writers at 100% before pruning and under 50% after."""
    mask = (writers["accuracy_unpruned"] == 1.0) & (writers["accuracy_pruned"] < 0.5)
    return writers[mask].reset_index(drop=True)


def gallery_frame(
    test: data.ImageData, digits: pd.DataFrame, writer_ids: Sequence[int], scale: int = 2
) -> pd.DataFrame:
    """The test digits of ``writer_ids`` for :func:`pruneaudit.charts.image_gallery`: image (data
    URL), caption (true label, modal prediction of the unpruned and of the pruned seeds),
    writer, series, and the shares of seeds right before and after."""
    ids = list(writer_ids)
    unknown = sorted(set(ids) - set(digits["writer"]))
    if unknown:
        raise PruneAuditError(f"writer(s) {unknown} have no test digits")
    rows = digits[digits["writer"].isin(ids)]
    images = test.images.numpy()
    return pd.DataFrame(
        {
            "image": [charts.image_data_url(images[i], scale=scale) for i in rows["index"]],
            "caption": [
                f"true {r.label}\nunpruned {r.prediction_unpruned}\npruned {r.prediction_pruned}"
                for r in rows.itertuples()
            ],
            "writer": rows["writer"].to_numpy(),
            "series": rows["series"].to_numpy(),
            "correct_unpruned": rows["correct_unpruned"].round(3).to_numpy(),
            "correct_pruned": rows["correct_pruned"].round(3).to_numpy(),
        }
    )


def class_curves(classes: pd.DataFrame) -> pd.DataFrame:
    """Per-class accuracy (mean over seeds) per iteration, with the mean sparsity and the
    unpruned accuracy of the class (``unpruned_accuracy``), from the run-series frame."""
    table = audit.accuracy_vs_sparsity(classes).per_class
    long = table.stack().rename("accuracy").reset_index()
    dense = long[long["iteration"] == 0].set_index("class")["accuracy"]
    long["unpruned_accuracy"] = long["class"].map(dense)
    long["class"] = long["class"].astype(str)
    return long[["iteration", "sparsity", "class", "accuracy", "unpruned_accuracy"]]


def overall_curve(classes: pd.DataFrame) -> pd.DataFrame:
    """Test accuracy and unfairness (max − min class accuracy) per iteration, mean over seeds."""
    out = audit.unfairness_vs_sparsity(classes)
    return out[["iteration", "sparsity", "accuracy", "accuracy_std", "unfairness_max_min"]]


def train_class_histogram(pool: data.ImageData, train_idx: np.ndarray) -> pd.DataFrame:
    """Training examples per class and series (the training part of one seed's split)."""
    part = pool.subset(train_idx)
    if part.meta is None or "series" not in part.meta.columns:
        raise PruneAuditError(f"{pool.name!r} training data carry no series meta (need QMNIST)")
    frame = pd.DataFrame({"class": part.labels.numpy(), "series": part.meta["series"].to_numpy()})
    out = frame.groupby(["class", "series"]).size().rename("n").reset_index()
    total = audit.class_counts(part.labels.numpy(), part.num_classes)
    out["share_of_class"] = out["n"] / out["class"].map(dict(enumerate(total)))
    out["class"] = out["class"].astype(str)
    return out


def writer_trajectory(
    digits: pd.DataFrame, correct: Sequence[np.ndarray], sparsity: Sequence[float]
) -> pd.DataFrame:
    """Writer accuracy (mean over seeds) at each iteration, plus ``who = "all digits"`` rows.

    ``correct[i]``: (K, N) correctness of the K seeds at iteration i; ``sparsity[i]`` their mean
    sparsity. Columns: who (writer id as text, or "all digits"), series, iteration, sparsity,
    accuracy.
    """
    digits = check_frame("digits", digits, ["writer", "series"])
    parts = []
    for i, (c, sp) in enumerate(zip(correct, sparsity, strict=True)):
        share = np.asarray(c, dtype=float).mean(axis=0)
        w = (
            pd.DataFrame({"writer": digits["writer"], "series": digits["series"], "a": share})
            .groupby(["writer", "series"], sort=True)["a"]
            .mean()
            .reset_index()
        )
        parts.append(
            pd.DataFrame(
                {
                    "who": [*w["writer"].astype(str), "all digits"],
                    "series": [*w["series"], "all"],
                    "iteration": i,
                    "sparsity": float(sp),
                    "accuracy": [*w["a"], float(share.mean())],
                }
            )
        )
    return pd.concat(parts, ignore_index=True)


def seed_writer_accuracy(correct: np.ndarray, writer: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each seed's accuracy on each writer: (writer ids sorted, (K, W) accuracies) from (K, N)
    correctness and the (N,) writer of each digit."""
    c = np.atleast_2d(np.asarray(correct, dtype=float))
    ids, codes = np.unique(np.asarray(writer), return_inverse=True)
    audit.check_same_length("correct", c.shape[1], "writer", len(codes))
    n = np.bincount(codes, minlength=len(ids))
    acc = np.stack([np.bincount(codes, weights=row, minlength=len(ids)) / n for row in c])
    return ids, acc


def seed_class_accuracy(correct: np.ndarray, labels: np.ndarray, num_classes: int) -> np.ndarray:
    """Each seed's per-class accuracy, (K, C), from (K, N) correctness and the (N,) labels."""
    c = np.atleast_2d(np.asarray(correct, dtype=float))
    y = np.asarray(labels)
    audit.check_same_length("correct", c.shape[1], "labels", len(y))
    n = np.bincount(y, minlength=num_classes)
    if (n == 0).any():
        raise PruneAuditError(f"classes {np.flatnonzero(n == 0).tolist()} have no test digits")
    return np.stack([np.bincount(y, weights=row, minlength=num_classes) / n for row in c])


# --------------------------------------------------------------------------- findings
