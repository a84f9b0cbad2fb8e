"""Study 2 (P, section 4.1 and appendix C): who loses when LeNet is pruned, writer by writer.

LeNet is trained on QMNIST and pruned iteratively with ``global_unstructured`` pruning and
rewinding (:func:`pruneaudit.experiments.run_series`, one series per seed, trained together as one
population). On the QMNIST test digits, each digit carries its NIST writer id and series
(``hsf0``: NIST employees, ``hsf4``: high-school students).

Averaging over seeds: for each test digit, ``correct_unpruned`` / ``correct_pruned`` is the share
of the seeds' models that classify it correctly; a writer's accuracy is the mean of that over
their digits, which equals the mean over seeds of each seed's accuracy on the writer (every seed
is evaluated on the same digits).

Image properties (:mod:`pruneaudit.imageprops`) are per digit, then averaged per writer; the
class-mean images for the distance come from the training pool (the first ``train_size``
training examples, training and validation parts together: a property of the image, not of a
model).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from pruneaudit import audit, charts, data, runs
from pruneaudit.errors import PruneAuditError, check_positive_int, check_range
from pruneaudit.runs.store import ResultsStore, RunSpec

DATASET = "qmnist"
MODEL = "lenet"
TECHNIQUE = "global_unstructured"
TREATMENT = "rewind"
#: Per-digit properties averaged per writer (imageprops column names).
PROPERTIES: tuple[str, ...] = ("tilt", "abs_tilt", "mean_activation", "distance_to_class_mean")
STAGES: tuple[str, ...] = ("unpruned", "pruned")


def base_specs(
    seeds: Sequence[int],
    *,
    epochs: int = 30,
    lr: float = 0.01,
    batch_size: int = 32,
    augment: bool = True,
    train_size: int | None = None,
) -> list[RunSpec]:
    """The dense LeNet-on-QMNIST run of each seed (the bases of the pruning series).

    Every run is evaluated on the whole QMNIST test set available (``test_size`` None).
    """
    base = RunSpec(
        DATASET,
        MODEL,
        epochs=epochs,
        lr=lr,
        batch_size=batch_size,
        augment=augment,
        train_size=train_size,
    )
    return runs.member_specs(base, seeds)


def run(
    bases: Sequence[RunSpec],
    iterations: int,
    store: ResultsStore,
    root: str | None = None,
    progress: bool = True,
) -> pd.DataFrame:
    """Make (or read) the pruning series of every base; the tidy per-class frame of all runs."""
    return runs.run_series(bases, TECHNIQUE, TREATMENT, iterations, store, root, progress)


def predictions(
    bases: Sequence[RunSpec], iteration: int, iterations: int, store: ResultsStore
) -> runs.Population:
    """The stored models of all seeds at ``iteration`` (0 = unpruned) read as one population."""
    check_range("iteration", iteration, 0, iterations)
    specs = [
        runs.series_specs(b, TECHNIQUE, TREATMENT, iterations)[iteration] for b in bases
    ]
    return runs.population(specs, store)


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
    series and for all writers (:func:`pruneaudit.imageprops.property_effects`)."""
    return audit.property_effects(
        writers, PROPERTIES, "accuracy_unpruned", "accuracy_pruned", group="series"
    )


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


def tilt_fits(writers: pd.DataFrame) -> pd.DataFrame:
    """accuracy = intercept + slope · abs_tilt per stage, per series and for all writers."""
    long = tilt_long(writers)
    parts = [
        audit.group_linear_fits(long[long["stage"] == s], "abs_tilt", "accuracy", "series")
        .assign(stage=s)
        for s in STAGES
    ]
    out = pd.concat(parts, ignore_index=True).rename(columns={"group": "series"})
    return out[["stage", "series", *audit.FIT_COLUMNS]]


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


def series_change_test(writers: pd.DataFrame, worse: str = "hsf4", better: str = "hsf0") -> dict:
    """Welch t-test that writers of ``worse`` lose more accuracy than writers of ``better``.

    Returns the two mean changes, their difference (worse − better), t, and the one-tailed p
    (alternative: the mean change of ``worse`` is below that of ``better``).
    """
    groups = {s: writers.loc[writers["series"] == s, "accuracy_change"] for s in (worse, better)}
    for s, g in groups.items():
        if len(g) < 2:
            raise PruneAuditError(f"series {s!r} has {len(g)} writers; the test needs 2 or more")
    test = stats.ttest_ind(groups[worse], groups[better], equal_var=False, alternative="less")
    return {
        f"mean_change_{worse}": float(groups[worse].mean()),
        f"mean_change_{better}": float(groups[better].mean()),
        "difference": float(groups[worse].mean() - groups[better].mean()),
        "t": float(test.statistic),
        "p_one_tailed": float(test.pvalue),
    }


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


@dataclass(frozen=True)
class WriterStudy:
    """Everything the notebook shows: ``classes`` (tidy run-series frame), ``digits``
    (:func:`digit_frame`), ``writers`` (:func:`writer_frame`), ``sparsity`` of the pruned
    models (one per seed), the ``pruned_iteration``, the ``test`` data and the ``pool``."""

    classes: pd.DataFrame
    digits: pd.DataFrame
    writers: pd.DataFrame
    sparsity: np.ndarray
    pruned_iteration: int
    test: data.ImageData
    pool: data.ImageData
    train_idx: np.ndarray


def study(
    bases: Sequence[RunSpec],
    iterations: int,
    store: ResultsStore,
    root: str | None = None,
    pruned_iteration: int | None = None,
    progress: bool = True,
) -> WriterStudy:
    """Run (or read) the series and assemble the study's frames; the pruned model is the one
    after ``pruned_iteration`` rounds (default: the last, ``iterations``)."""
    check_positive_int("iterations", iterations)
    k = iterations if pruned_iteration is None else pruned_iteration
    check_range("pruned_iteration", k, 1, iterations)
    classes = run(bases, iterations, store, root, progress)
    dense = predictions(bases, 0, iterations, store)
    pruned = predictions(bases, k, iterations, store)
    split = runs.splits(bases[0], root)
    digits = digit_frame(split.test, split.pool, dense.preds, pruned.preds)
    return WriterStudy(
        classes=classes,
        digits=digits,
        writers=writer_frame(digits),
        sparsity=pruned.sparsity,
        pruned_iteration=k,
        test=split.test,
        pool=split.pool,
        train_idx=split.train_idx,
    )


#: Abstract of P (arXiv:2009.09936), checked against the arXiv/ar5iv page.
P_ABSTRACT_CLAIM = (
    "accuracy-efficiency trade-offs disproportionately affect underrepresented or outlier groups"
)


def comparison(writers: pd.DataFrame, effects: pd.DataFrame) -> pd.DataFrame:
    """Our results beside P's findings for the same questions, with agreement in direction.

    Rows: hsf4 harder than hsf0 before pruning (P section 4.1: hsf4 was written by high-school
    students); hsf4 writers lose more (P abstract: outlier groups lose more); writers far from
    their class means lose more (same claim, per writer); some writer falls from 100% to under
    50% (P section 4.1). Columns: finding, source, ours (text), agrees (bool).
    """
    by = writers.groupby("series")
    for s in ("hsf0", "hsf4"):
        if s not in by.groups:
            raise PruneAuditError(f"the comparison needs writers of series {s!r}")
    acc = by["accuracy_unpruned"].mean()
    change = by["accuracy_change"].mean()
    test = series_change_test(writers)
    dist = effects[(effects["property"] == "distance_to_class_mean") & (effects["group"] == "all")]
    slope, p = float(dist["slope"].iloc[0]), float(dist["pvalue"].iloc[0])
    n_collapse = len(collapses(writers))
    rows = [
        {
            "finding": "hsf4 (high-school students) is harder than hsf0 before pruning",
            "source": "P section 4.1 (QMNIST series)",
            "ours": f"mean writer accuracy hsf4 {acc['hsf4']:.2%} vs hsf0 {acc['hsf0']:.2%}",
            "agrees": bool(acc["hsf4"] < acc["hsf0"]),
        },
        {
            "finding": "the harder group (hsf4) loses more accuracy when pruned",
            "source": "P abstract: " + P_ABSTRACT_CLAIM,
            "ours": (
                f"mean change hsf4 {change['hsf4']:+.2%} vs hsf0 {change['hsf0']:+.2%} "
                f"(Welch one-tailed p = {test['p_one_tailed']:.3g})"
            ),
            "agrees": bool(change["hsf4"] < change["hsf0"]),
        },
        {
            "finding": "writers far from the class means (outliers) lose more accuracy",
            "source": "P abstract: " + P_ABSTRACT_CLAIM + "; appendix C properties",
            "ours": (
                f"slope of change on distance to class mean {slope:+.2e} per unit "
                f"(two-sided p = {p:.3g})"
            ),
            "agrees": bool(slope < 0),
        },
        {
            "finding": "some writer falls from 100% to under 50% accuracy",
            "source": "P section 4.1 (individuals most hurt)",
            "ours": f"{n_collapse} writer(s) fall from 100% to under 50%",
            "agrees": n_collapse > 0,
        },
    ]
    return pd.DataFrame(rows)


def protocol_cost(
    seeds: int, iterations: int, epochs: int, train_examples: int, seconds_per_10k: float
) -> dict:
    """Model-epochs and CPU hours of a series protocol at a measured training rate
    (``seconds_per_10k``: seconds per 10,000 training images per model)."""
    model_epochs = seeds * (iterations + 1) * epochs
    hours = model_epochs * train_examples / 10_000 * seconds_per_10k / 3600
    return {"model_epochs": model_epochs, "hours": hours}


def prunable_weights() -> int:
    """Number of prunable weights (conv and linear) of the study's LeNet on 28x28 digits."""
    from pruneaudit import models

    net = models.build_model(MODEL, 10, 1, 28, seed=0)
    return sum(getattr(m, name).numel() for m, name in models.prunable_parameters(net))


#: The published protocol of P section 4.1 (seeds, iterations, epochs, training digits per model).
PAPER = {"seeds": 6, "iterations": 20, "epochs": 30, "train_examples": 48_000}


def protocol_table(bases: Sequence[RunSpec], iterations: int, result: WriterStudy) -> pd.DataFrame:
    """The protocol run beside P's, one row per setting (index ``setting``)."""
    b = bases[0]
    seeds = [s.seed for s in bases]
    paper = protocol_cost(**{**PAPER, "train_examples": 1}, seconds_per_10k=1.0)
    ours = protocol_cost(len(bases), iterations, b.epochs, 1, 1.0)
    series = ", ".join(sorted(result.writers["series"].unique()))
    rows = [
        ("model", "LeNet (3x3 conv 6, 16; FC 120, 84, 10)", "LeNet (same)"),
        ("pruning (20% of the rest per round)", "global_unstructured + rewind",
         f"{TECHNIQUE} + {TREATMENT}"),
        ("iterations", str(PAPER["iterations"]), str(iterations)),
        ("seeds (replicates)", "6 (0-5)", f"{len(seeds)} {seeds}"),
        ("training digits per model", f"{PAPER['train_examples']:,} (80% of 60,000)",
         f"{len(result.train_idx):,}"),
        ("epochs per round", str(PAPER["epochs"]), str(b.epochs)),
        ("optimizer", "SGD, lr 0.01, batch 32", f"SGD, lr {b.lr}, batch {b.batch_size}"),
        ("augmentation", "random crop and flip",
         "random crop (pad 2), no flip" if b.augment else "none"),
        ("test digits / writers / series", "60,000 / all / hsf0, hsf1, hsf4",
         f"{len(result.test):,} / {result.writers['writer'].nunique()} / {series}"),
        ("model-epochs", f"{paper['model_epochs']:,}", f"{ours['model_epochs']:,}"),
    ]
    return pd.DataFrame(rows, columns=["setting", "published (P)", "this page"]).set_index(
        "setting"
    )
