"""Study 2 (P, section 4.1 and appendix C): who loses when LeNet is pruned, writer by writer.

LeNet is trained on QMNIST and pruned iteratively with ``global_unstructured`` pruning and
rewinding (:func:`pruneaudit.runs.run_series`, one series per seed, trained together as one
population). P's masks are cumulative: a weight pruned in one round stays zero in every later
round (it cannot regrow); each round rewinds the survivors to their initial values and retrains.
On the QMNIST test digits, each digit carries its NIST writer id and series
(``hsf0``: NIST employees, ``hsf4``: high-school students).

Averaging over seeds: for each test digit, ``correct_unpruned`` / ``correct_pruned`` is the share
of the seeds' models that classify it correctly; a writer's accuracy is the mean of that over
their digits, which equals the mean over seeds of each seed's accuracy on the writer (every seed
is evaluated on the same digits).

Image properties (:mod:`pruneaudit.audit.image_properties`) are per digit, then averaged per
writer; the class-mean images for the distance come from the training pool (the first ``train_size``
training examples, training and validation parts together: a property of the image, not of a
model).

Findings (D2.1-D2.6 of the project's list of P's claims) are computed by :func:`findings` with
intervals over seeds (Student t, :func:`pruneaudit.audit.mean_interval`) or over writers
(percentile bootstrap, :func:`pruneaudit.audit.bootstrap_interval`); formulas: the book's methods
page, sections *Study 2* and *Findings and verdicts*.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from pruneaudit import audit, charts, data, runs
from pruneaudit.audit.findings import Finding
from pruneaudit.errors import PruneAuditError, check_frame, check_positive_int, check_range
from pruneaudit.runs import ResultsStore, RunSpec

DATASET = "qmnist"
MODEL = "lenet"
TECHNIQUE = "global_unstructured"
TREATMENT = "rewind"
#: Per-digit properties averaged per writer (imageprops column names).
PROPERTIES: tuple[str, ...] = ("tilt", "abs_tilt", "mean_activation", "distance_to_class_mean")
STAGES: tuple[str, ...] = ("unpruned", "pruned")


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


# --------------------------------------------------------------------------- parameters


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
    if not isinstance(seeds, list) or len(seeds) < 2:
        problems.append(
            f"seeds must list at least 2 seeds (the intervals are over seeds), got {seeds!r}"
        )
    elif len(set(seeds)) != len(seeds) or any(
        isinstance(x, bool) or not isinstance(x, int) or x < 0 for x in seeds
    ):
        problems.append(f"seeds must be distinct integers >= 0, got {seeds!r}")
    for name in ("epochs", "batch_size", "iterations", "n_hurt", "n_gallery"):
        if name in params:
            check(check_positive_int, name, params[name])
    for name in ("lr", "seconds_per_10k"):
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


@dataclass(frozen=True)
class WriterStudy:
    """Everything the page shows: ``classes`` (tidy run-series frame), ``digits``
    (:func:`digit_frame`), ``writers`` (:func:`writer_frame`), ``sparsity`` of the pruned
    models (one per seed), the ``pruned_iteration``, the ``test`` data, the ``pool`` and the
    first seed's ``train_idx``; ``correct_dense`` / ``correct_pruned`` (K, N) per-seed
    correctness on the test digits; ``trajectory`` (:func:`writer_trajectory`)."""

    classes: pd.DataFrame
    digits: pd.DataFrame
    writers: pd.DataFrame
    sparsity: np.ndarray
    pruned_iteration: int
    test: data.ImageData
    pool: data.ImageData
    train_idx: np.ndarray
    correct_dense: np.ndarray
    correct_pruned: np.ndarray
    trajectory: pd.DataFrame

    @property
    def seeds(self) -> int:
        return int(self.correct_dense.shape[0])


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
    pops = [predictions(bases, i, iterations, store) for i in range(iterations + 1)]
    dense, pruned = pops[0], pops[k]
    split = runs.splits(bases[0], root)
    digits = digit_frame(split.test, split.pool, dense.preds, pruned.preds)
    correct = [p.preds == p.labels[None, :] for p in pops]
    return WriterStudy(
        classes=classes,
        digits=digits,
        writers=writer_frame(digits),
        sparsity=pruned.sparsity,
        pruned_iteration=k,
        test=split.test,
        pool=split.pool,
        train_idx=split.train_idx,
        correct_dense=correct[0],
        correct_pruned=correct[k],
        trajectory=writer_trajectory(digits, correct, [p.sparsity.mean() for p in pops]),
    )


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

STUDY = "S2_QMNIST_writers"
TILT_METRIC = "linear fit of per-writer accuracy vs average absolute tilt: "
#: P's Table 1 groups; hsf1 is not in the offline test digits.
TABLE1_GROUPS: tuple[str, ...] = ("hsf0", "hsf1", "hsf4", "all")
OFFLINE_GROUPS: tuple[str, ...] = ("hsf0", "hsf4", "all")
#: Equivalence margin of "group-level drops are similar" (D2.2), fixed before any run: the two
#: series' mean drops differ by less than half of the mean drop over all writers.
SIMILAR_MARGIN = 0.5
HSF1_MISSING = (
    "series hsf1 occurs only in the 50,000 QMNIST test digits that are not available offline "
    "(the offline test10k has hsf0 and hsf4 only)"
)
BY_SEEDS = "95% Student-t interval over seeds (one value per seed)"
BY_WRITERS = "95% percentile bootstrap over writers (writer accuracy = mean over seeds)"


def _paper_tilt(coefficient: str, stage: str, group: str) -> audit.Published:
    """P Table 1: ``coefficient`` (intercept/slope) before/after pruning for ``group``."""
    return audit.lookup(
        STUDY,
        TILT_METRIC + coefficient,
        setting="before pruning" if stage == "unpruned" else "after pruning",
        dataset=f"QMNIST test, writer group {'full' if group == 'all' else group}",
    )


def _derived(x: float) -> float:
    """A difference of two printed values, without float noise (-0.18999999999999995: -0.19)."""
    return round(x, 6)


def _fit(x, y, m, axis=-1):
    """Least-squares (intercept, slope) of y on x over the rows where ``m`` is 1, along ``axis``
    (vectorized over resamples)."""
    n = m.sum(axis)
    mx = (m * x).sum(axis) / n
    my = (m * y).sum(axis) / n
    dx = x - np.expand_dims(mx, axis)
    slope = (m * dx * (y - np.expand_dims(my, axis))).sum(axis) / (m * dx**2).sum(axis)
    return my - slope * mx, slope


def _boot(arrays, statistic, seed: int, n_resamples: int) -> tuple[float, float, float]:
    with np.errstate(divide="ignore", invalid="ignore"):
        return audit.bootstrap_interval(
            [np.asarray(a, dtype=float) for a in arrays],
            statistic,
            seed=seed,
            n_resamples=n_resamples,
            vectorized=True,
        )


def _masks(series: np.ndarray) -> dict[str, np.ndarray]:
    s = np.asarray(series)
    return {"hsf0": (s == "hsf0") * 1.0, "hsf4": (s == "hsf4") * 1.0, "all": np.ones(len(s))}


def topline_finding(dense_accuracy: Sequence[float], pruned_accuracy: Sequence[float]) -> Finding:
    """D2.1: change of test accuracy, pruned − dense, per seed (P: ~97% → ~78%)."""
    dense = audit.lookup(STUDY, "test accuracy (mean of 6 replicates)", setting="0% sparsity")
    pruned = audit.lookup(STUDY, "test accuracy (mean of 6 replicates)", setting="~98.6% sparsity")
    change = np.asarray(pruned_accuracy, float) - np.asarray(dense_accuracy, float)
    m, lo, hi = audit.mean_interval(change)
    return audit.finding(
        "D2.1 test accuracy falls at ~98.6% sparsity (pruned − dense)",
        m, lo, hi, _derived(pruned.number - dense.number),
        source=f"P Sec. 4.1: ~97% → ~78% (published rows {dense.id}, {pruned.id})",
        basis=BY_SEEDS,
    )


def group_drops_finding(
    change: np.ndarray, series: np.ndarray, *, seed: int = 0, n_resamples: int = 999
) -> Finding:
    """D2.2 (groups): hsf4 and hsf0 lose about the same: (mean change hsf4 − mean change hsf0)
    / mean change of all writers lies within ±:data:`SIMILAR_MARGIN` (an equivalence claim)."""
    masks = _masks(series)

    def rel(c, m4, m0, axis=-1):
        mean4 = (c * m4).sum(axis) / m4.sum(axis)
        mean0 = (c * m0).sum(axis) / m0.sum(axis)
        return (mean4 - mean0) / c.mean(axis)

    est, lo, hi = _boot([change, masks["hsf4"], masks["hsf0"]], rel, seed, n_resamples)
    return audit.similar(
        "D2.2 group-level drops are similar: (drop hsf4 − drop hsf0) / overall drop",
        est, lo, hi, SIMILAR_MARGIN,
        source="P Sec. 4.1: group-level drops comparable across hsf0/1/4 (no number printed)",
        basis=f"{BY_WRITERS}; reproduced when the interval lies within ±{SIMILAR_MARGIN}",
    )


def worst_writer_drops(acc_dense: np.ndarray, acc_other: np.ndarray) -> np.ndarray:
    """Per seed: the largest drop (most negative ``other − dense``) among the writers that seed's
    dense model gets 100% right (NaN when it gets none right); inputs (K, W)."""
    d, o = np.atleast_2d(acc_dense), np.atleast_2d(acc_other)
    perfect = d == 1.0
    drops = np.where(perfect, o - d, np.inf).min(axis=1)
    return np.where(perfect.any(axis=1), drops, np.nan)


def collapse_finding(acc_dense: np.ndarray, acc_pruned: np.ndarray) -> Finding:
    """D2.2 (individuals): the worst drop of a writer at 100% (P, seed 0: writer 469 100% →
    47.7%), per seed, against chance: the same statistic with another seed's dense model in
    place of the pruned one (seed k vs seed k+1 mod K). The interval is that of the mean paired
    difference, shifted by the chance level, which is the null."""
    before = audit.lookup(STUDY, "writer accuracy", setting="seed 0")
    after = audit.lookup(STUDY, "writer accuracy", setting="seed 0, ~98.6%")
    d = np.atleast_2d(np.asarray(acc_dense, float))
    worst = worst_writer_drops(d, acc_pruned)
    chance = worst_writer_drops(d, np.roll(d, -1, axis=0))
    keep = np.isfinite(worst) & np.isfinite(chance)
    _, lo, hi = audit.mean_interval(worst[keep] - chance[keep])
    null = float(chance[keep].mean()) if keep.any() else 0.0
    return audit.finding(
        "D2.2 a writer at 100% collapses: worst drop per seed (null: a second dense model)",
        float(worst[keep].mean()) if keep.any() else np.nan, lo + null, hi + null,
        _derived(after.number - before.number),
        source=f"P Sec. 4.1, Fig. 1: writer 469 100% → 47.7%, seed 0 (rows {before.id}, "
        f"{after.id})",
        basis=f"{BY_SEEDS}, of each seed's worst drop minus its chance level ({null:+.3f})",
        null=null,
    )


def tilt_table(
    abs_tilt: np.ndarray,
    acc_dense: np.ndarray,
    acc_pruned: np.ndarray,
    series: np.ndarray,
    *,
    seed: int = 0,
    n_resamples: int = 999,
) -> pd.DataFrame:
    """P's Table 1 on our data: intercept and slope of writer accuracy on mean |tilt| per group
    and stage, with bootstrap intervals over writers, beside P's values (hsf1: not offline).
    Columns: group, stage, coefficient, ours, ci_low, ci_high, paper."""
    masks = _masks(series)
    rows = []
    for group in TABLE1_GROUPS:
        for stage, y in (("unpruned", acc_dense), ("pruned", acc_pruned)):
            for j, coefficient in enumerate(("intercept", "slope")):
                paper = _paper_tilt(coefficient, stage, group).number
                if group not in masks:
                    rows.append((group, stage, coefficient, np.nan, np.nan, np.nan, paper))
                    continue

                def stat(x, yy, m, axis=-1, j=j):
                    return _fit(x, yy, m, axis)[j]

                est, lo, hi = _boot([abs_tilt, y, masks[group]], stat, seed, n_resamples)
                rows.append((group, stage, coefficient, est, lo, hi, paper))
    return pd.DataFrame(
        rows, columns=["group", "stage", "coefficient", "ours", "ci_low", "ci_high", "paper"]
    )


def slope_change_finding(
    abs_tilt: np.ndarray,
    acc_dense: np.ndarray,
    acc_pruned: np.ndarray,
    series: np.ndarray,
    group: str,
    *,
    seed: int = 0,
    n_resamples: int = 999,
) -> Finding:
    """D2.3 for one group: the accuracy-vs-|tilt| slope turns more negative after pruning (slope
    pruned − slope dense, beside P's difference; hsf1: not testable here)."""
    paper = _derived(
        _paper_tilt("slope", "pruned", group).number
        - _paper_tilt("slope", "unpruned", group).number
    )
    name = f"D2.3 tilt slope turns more negative ({group}: slope pruned − slope dense)"
    source = "P Table 1 (Figs. 13a/13b)"
    masks = _masks(series)
    if group not in masks:
        return audit.not_testable(name, paper, source=source, why=HSF1_MISSING)

    def change(x, yd, yp, m, axis=-1):
        return _fit(x, yp, m, axis)[1] - _fit(x, yd, m, axis)[1]

    est, lo, hi = _boot([abs_tilt, acc_dense, acc_pruned, masks[group]], change, seed,
                        n_resamples)
    return audit.finding(name, est, lo, hi, paper, source=source, basis=BY_WRITERS)


def intercept_gap_finding(
    abs_tilt: np.ndarray,
    accuracy: np.ndarray,
    series: np.ndarray,
    stage: str,
    *,
    seed: int = 0,
    n_resamples: int = 999,
) -> Finding:
    """D2.4 for one stage (unpruned / pruned): hsf4's fitted intercept minus hsf0's, < 0."""
    paper = _derived(
        _paper_tilt("intercept", stage, "hsf4").number
        - _paper_tilt("intercept", stage, "hsf0").number
    )
    masks = _masks(series)

    def gap(x, yy, m4, m0, axis=-1):
        return _fit(x, yy, m4, axis)[0] - _fit(x, yy, m0, axis)[0]

    est, lo, hi = _boot([abs_tilt, accuracy, masks["hsf4"], masks["hsf0"]], gap, seed,
                        n_resamples)
    return audit.finding(
        f"D2.4 hsf4 has the lowest fitted intercept, {stage} (hsf4 − hsf0)",
        est, lo, hi, paper,
        source="P Table 1: hsf4 lowest of three groups (0.974 → 0.771)",
        basis=BY_WRITERS + "; hsf1 not offline, so hsf4 vs hsf0 only",
    )


def tilt_findings(
    abs_tilt: np.ndarray,
    acc_dense: np.ndarray,
    acc_pruned: np.ndarray,
    series: np.ndarray,
    *,
    seed: int = 0,
    n_resamples: int = 999,
) -> list[Finding]:
    """D2.3 for hsf0, hsf1 (not testable), hsf4 and all writers, then D2.4 before and after."""
    kw = {"seed": seed, "n_resamples": n_resamples}
    return [
        *(
            slope_change_finding(abs_tilt, acc_dense, acc_pruned, series, g, **kw)
            for g in TABLE1_GROUPS
        ),
        *(
            intercept_gap_finding(abs_tilt, y, series, stage, **kw)
            for stage, y in (("unpruned", acc_dense), ("pruned", acc_pruned))
        ),
    ]


def property_findings(
    abs_tilt: np.ndarray,
    activation: np.ndarray,
    change: np.ndarray,
    series: np.ndarray,
    *,
    seed: int = 0,
    n_resamples: int = 999,
) -> list[Finding]:
    """D2.5: hsf4 writers draw more vertical digits (mean |tilt| hsf4 − hsf0 < 0); writers with
    atypical mean activation (either direction) lose more (slope of the accuracy change on
    |activation − mean over writers| < 0); the distance effect by group: not testable."""
    masks = _masks(series)

    x = np.asarray(abs_tilt, float)
    x4, x0 = x[masks["hsf4"] == 1], x[masks["hsf0"] == 1]
    ci = stats.ttest_ind(x4, x0, equal_var=False).confidence_interval(0.95)
    out = [
        audit.finding(
            "D2.5 hsf4 writers draw more vertical digits (mean |tilt| hsf4 − hsf0)",
            float(x4.mean() - x0.mean()), float(ci.low), float(ci.high), None, direction=-1,
            source="P App. C, Fig. 11 (figure only: direction, no number)",
            basis="95% Welch t interval over writers (difference of two series' means)",
        )
    ]

    def atypical(a, c, axis=-1):
        dev = np.abs(a - np.expand_dims(a.mean(axis), axis))
        return _fit(dev, c, np.ones_like(dev), axis)[1]

    est, lo, hi = _boot([activation, change], atypical, seed, n_resamples)
    out.append(
        audit.finding(
            "D2.5 writers with atypical activation lose more (slope of change on |activation − "
            "mean|, per 0-255 unit)",
            est, lo, hi, None, direction=-1,
            source="P App. C (figure only: direction, no number)",
            basis=BY_WRITERS,
        )
    )
    out.append(
        audit.not_testable(
            "D2.5 the effect of distance to the class mean differs by group",
            None,
            source="P Fig. 2 (figure only)",
            why="P states neither a direction nor a size for the difference, so no verdict can "
            "be computed; our per-series slopes are in the property-effects table below",
        )
    )
    return out


def class_findings(class_dense: np.ndarray, class_pruned: np.ndarray) -> list[Finding]:
    """D2.6 per seed: digit 1 stays the best class after pruning (its pruned accuracy minus the
    best other class's, > 0), and digit 5 drops most (its change minus the largest other
    class's drop, < 0); inputs (K, 10) per-seed class accuracies."""
    d, p = np.atleast_2d(class_dense), np.atleast_2d(class_pruned)
    others1 = np.delete(p, 1, axis=1).max(axis=1)
    margin1 = p[:, 1] - others1
    change = p - d
    margin5 = change[:, 5] - np.delete(change, 5, axis=1).min(axis=1)
    source = "P Sec. 4.1 (figure only: digit 1 most frequent stays best, 5 least frequent worst)"
    out = []
    for name, values, direction in (
        ("D2.6 digit 1 stays the best class after pruning (acc 1 − best other)", margin1, 1),
        ("D2.6 digit 5 drops most (change of 5 − largest other drop)", margin5, -1),
    ):
        m, lo, hi = audit.mean_interval(values)
        out.append(
            audit.finding(name, m, lo, hi, None, direction=direction, source=source,
                          basis=BY_SEEDS)
        )
    return out


def findings(result: WriterStudy, *, seed: int = 0, n_resamples: int = 999) -> list[Finding]:
    """The study's findings D2.1-D2.6 beside P's values, with intervals and verdicts."""
    w = result.writers
    labels = result.test.labels.numpy()
    _, acc_dense = seed_writer_accuracy(result.correct_dense, result.digits["writer"])
    _, acc_pruned = seed_writer_accuracy(result.correct_pruned, result.digits["writer"])
    series = w["series"].to_numpy()
    kw = {"seed": seed, "n_resamples": n_resamples}
    return [
        topline_finding(result.correct_dense.mean(axis=1), result.correct_pruned.mean(axis=1)),
        group_drops_finding(w["accuracy_change"].to_numpy(), series, **kw),
        collapse_finding(acc_dense, acc_pruned),
        *tilt_findings(
            w["abs_tilt"].to_numpy(), w["accuracy_unpruned"].to_numpy(),
            w["accuracy_pruned"].to_numpy(), series, **kw,
        ),
        *property_findings(
            w["abs_tilt"].to_numpy(), w["mean_activation"].to_numpy(),
            w["accuracy_change"].to_numpy(), series, **kw,
        ),
        *class_findings(
            seed_class_accuracy(result.correct_dense, labels, result.test.num_classes),
            seed_class_accuracy(result.correct_pruned, labels, result.test.num_classes),
        ),
    ]


def table1(result: WriterStudy, *, seed: int = 0, n_resamples: int = 999) -> pd.DataFrame:
    """P's Table 1 on this page's writers (:func:`tilt_table`)."""
    w = result.writers
    return tilt_table(
        w["abs_tilt"].to_numpy(), w["accuracy_unpruned"].to_numpy(),
        w["accuracy_pruned"].to_numpy(), w["series"].to_numpy(), seed=seed,
        n_resamples=n_resamples,
    )


# --------------------------------------------------------------------------- protocol and cost

#: The published protocol of P Sec. 4.1 (seeds, iterations, epochs per round, training digits).
PAPER = {"seeds": 6, "iterations": 20, "epochs": 30, "train_examples": 48_000}


def series_cost(
    seeds: int, iterations: int, epochs: int, train_examples: int, seconds_per_10k: float
) -> runs.Cost:
    """Training cost of ``seeds`` series of ``iterations`` rounds after the dense run, ``epochs``
    per round (:func:`pruneaudit.runs.training_cost`)."""
    return runs.training_cost(seeds * (iterations + 1) * epochs, train_examples, seconds_per_10k)


def paper_cost(seconds_per_10k: float) -> runs.Cost:
    """The cost of P's protocol at a measured rate."""
    return series_cost(**PAPER, seconds_per_10k=seconds_per_10k)


def _augmentation(spec: RunSpec) -> str:
    if not spec.augment:
        return "none"
    if dict(spec.extra).get(runs.FLIP_KEY):
        return "random crop (pad 2) + horizontal flip (P as printed; wrong for digits)"
    return "random crop (pad 2), no flip"


def protocol_table(
    bases: Sequence[RunSpec], iterations: int, result: WriterStudy, seconds_per_10k: float
) -> pd.DataFrame:
    """The protocol run beside P's, one row per setting (index ``setting``), with the training
    cost of each at ``seconds_per_10k`` (seconds per 10,000 images per model, measured)."""
    b = bases[0]
    seeds = [s.seed for s in bases]
    paper = paper_cost(seconds_per_10k)
    ours = series_cost(len(bases), iterations, b.epochs, len(result.train_idx), seconds_per_10k)
    series = ", ".join(sorted(result.writers["series"].unique()))
    rows = [
        ("model", "LeNet (3x3 conv 6, 16; FC 120, 84, 10)", "LeNet (same)"),
        ("pruning (20% of the rest per round)", "global_unstructured + rewind",
         f"{TECHNIQUE} + {TREATMENT}"),
        ("pruned weights regrow?", "no (cumulative masks)", "no (cumulative masks)"),
        ("iterations", str(PAPER["iterations"]), str(iterations)),
        ("seeds (replicates)", "6 (0-5)", f"{len(seeds)} {seeds}"),
        ("training digits per model", f"{PAPER['train_examples']:,} (80% of 60,000)",
         f"{len(result.train_idx):,}"),
        ("epochs per round", str(PAPER["epochs"]), str(b.epochs)),
        ("optimizer", "SGD, lr 0.01, batch 32", f"SGD, lr {b.lr}, batch {b.batch_size}"),
        ("augmentation", "random crop and horizontal flip", _augmentation(b)),
        ("test digits / writers / series", "60,000 / all / hsf0, hsf1, hsf4",
         f"{len(result.test):,} / {result.writers['writer'].nunique()} / {series}"),
        ("model-epochs", f"{paper.model_epochs:,}", f"{ours.model_epochs:,}"),
        (f"training time on this CPU ({seconds_per_10k} s per 10k images)",
         f"{paper.hours:.1f} h", f"{ours.hours * 60:.1f} min"),
        ("training time on a GPU", runs.gpu_cost_text("Study 2"), ""),
    ]
    return pd.DataFrame(rows, columns=["setting", "published (P)", "this page"]).set_index(
        "setting"
    )


def prunable_weights() -> int:
    """Number of prunable weights (conv and linear) of the study's LeNet on 28x28 digits."""
    from pruneaudit import models

    net = models.build_model(MODEL, 10, 1, 28, seed=0)
    return sum(getattr(m, name).numel() for m, name in models.prunable_parameters(net))


# --------------------------------------------------------------------------- what the page says


def _pct(x: float, digits: int = 1) -> str:
    return f"{100 * x:.{digits}f}%"


def _signed_points(x: float) -> str:
    return f"{100 * x:+.1f} points"


def topline_text(result: WriterStudy) -> str:
    """Markdown: dense and pruned top-line accuracy, sparsity and weights left."""
    dense = result.correct_dense.mean()
    pruned = result.correct_pruned.mean()
    n_weights = prunable_weights()
    left = (1 - result.sparsity.mean()) * n_weights
    return (
        f"The unpruned LeNet classifies **{_pct(dense)}** of the {len(result.test):,} test digits "
        f"correctly (mean over {result.seeds} seeds). The pruned model compared below is "
        f"iteration {result.pruned_iteration}: sparsity **{_pct(result.sparsity.mean())}** "
        f"(about {left:,.0f} of the {n_weights:,} prunable weights left; pruned weights cannot "
        f"regrow), test accuracy **{_pct(pruned)}**, a change of {_signed_points(pruned - dense)}."
    )


def writers_text(result: WriterStudy, n_hurt: int) -> str:
    """Markdown: the writer most hurt, the writers who collapse, and the spread of changes."""
    w = result.writers
    top = most_hurt(w, n_hurt).iloc[0]
    fallen = collapses(w)
    names = ", ".join(f"{r.writer} ({r.series})" for r in fallen.itertuples()) or "none"
    c = w["accuracy_change"]
    return (
        f"The writer most hurt is **{top.writer}** ({top.series}): {_pct(top.accuracy_unpruned)} "
        f"of their {top.n} digits right before pruning, {_pct(top.accuracy_pruned)} after "
        f"({_signed_points(top.accuracy_change)}). Writers who fall from 100% to under 50% "
        f"(mean over seeds): **{len(fallen)}** ({names}). Writer-level changes range from "
        f"{_signed_points(c.min())} to {_signed_points(c.max())} (median "
        f"{_signed_points(c.median())}); {_pct((c < 0).mean(), 0)} of writers lose accuracy. "
        f"P's writer 469 (100% → 47.7%) is one seed-0 model; the collapse finding above compares "
        "each of our seeds' own worst writer with it."
    )


def limits_text(result: WriterStudy) -> str:
    """Markdown: what limits the writer-level results on this page."""
    w = result.writers
    per_writer = w["n"].mean()
    return (
        f"Limits: {per_writer:.0f} digits per writer on average (from {w['n'].min()} to "
        f"{w['n'].max()}), so one digit moves a typical writer's accuracy by about "
        f"{_pct(1 / per_writer, 0)} and writer-level fits are noisy; two series instead of three "
        f"and {len(result.test):,} test digits instead of QMNIST's 60,000; MNIST's pixels stand in "
        f"for QMNIST's reconstructions; {result.seeds} seeds, so intervals over seeds are wide. "
        "The property effects are associations over writers, not causes."
    )


def styled(frame: pd.DataFrame, caption: str, percent: Sequence[str] = (),
           points: Sequence[str] = (), pvalues: Sequence[str] = (),
           decimals: Mapping[str, int] | None = None, other: Mapping[str, str] | None = None):
    """``frame`` as a captioned table: ``percent`` columns as 97.1%, ``points`` as signed
    percentage points, ``pvalues`` in scientific notation, ``decimals`` fixed, ``other``: format
    strings by column (one ``Styler.format`` call: a second call would reset the others)."""
    fmt: dict[str, object] = {c: "{:.1%}" for c in percent}
    fmt.update({c: (lambda v: f"{100 * v:+.1f} pts") for c in points})
    fmt.update({c: "{:.1e}" for c in pvalues})
    fmt.update({c: f"{{:.{d}f}}" for c, d in (decimals or {}).items()})
    fmt.update(other or {})
    style = frame.style.format(fmt, na_rep="n/a").set_caption(caption)
    return style if isinstance(frame.index, pd.MultiIndex) or frame.index.name else style.hide(
        axis="index"
    )


def table1_view(table: pd.DataFrame):
    """P's Table 1 on our data, formatted."""
    return styled(
        table,
        "P Table 1 on our writers: accuracy = intercept + slope · mean |tilt| (95% bootstrap "
        "interval over writers); hsf1 is not in the offline data",
        decimals={"ours": 3, "ci_low": 3, "ci_high": 3, "paper": 3},
    )


def hurt_view(result: WriterStudy, n: int):
    """The ``n`` writers most hurt, formatted."""
    cols = ["writer", "series", "n", "accuracy_unpruned", "accuracy_pruned", "accuracy_change",
            "abs_tilt", "distance_to_class_mean", "collapse"]
    return styled(
        most_hurt(result.writers, n)[cols],
        f"The {n} writers who lose most (writer accuracy = mean over seeds)",
        percent=["accuracy_unpruned", "accuracy_pruned"], points=["accuracy_change"],
        decimals={"abs_tilt": 3, "distance_to_class_mean": 0},
    )


def summary_view(result: WriterStudy):
    """Per-series summary, formatted."""
    return styled(
        series_summary(result.writers),
        "Writers per series: mean writer accuracy before and after pruning",
        percent=["accuracy_unpruned", "accuracy_pruned", "share_losing"],
        points=["mean_change", "worst_change"],
    )


def effects_view(effects: pd.DataFrame):
    """Property effects on the accuracy change, formatted."""
    return styled(
        effects,
        "Least-squares effect of each writer-mean property on the accuracy change (pruned − "
        "unpruned), per series and for all writers; p: two-sided test of slope 0",
        pvalues=["pvalue"],
        decimals={"intercept": 4, "intercept_se": 4, "rvalue": 3},
        other={"slope": "{:+.2e}", "slope_se": "{:.2e}"},
    )


def curve_view(result: WriterStudy):
    """Top-line accuracy and class gap per iteration, formatted."""
    return styled(
        overall_curve(result.classes),
        "Test accuracy and the gap between the best and worst class along the pruning series "
        "(mean over seeds)",
        percent=["sparsity", "accuracy", "accuracy_std", "unfairness_max_min"],
    )


# --------------------------------------------------------------------------- figures


def key_figure(result: WriterStudy):
    """Per-writer accuracy after pruning vs before (one point per writer)."""
    return charts.group_scatter(
        result.writers, x="accuracy_unpruned", y="accuracy_pruned", group="series",
        tooltip=["writer", "n", "accuracy_change"], diagonal=True,
        title=f"Writer accuracy: iteration {result.pruned_iteration} "
        f"({_pct(result.sparsity.mean())} sparse) vs unpruned",
    )


def explorer_writers(result: WriterStudy, n: int) -> list[int]:
    """The writers offered by the explorer: the ``n`` most hurt."""
    return most_hurt(result.writers, n)["writer"].tolist()


def writer_explorer(result: WriterStudy, writer_ids: Sequence[int], columns: int = 10):
    """A writer picker that works in the static page: a drop-down of writers; below it the
    writer's digits (true label, modal prediction before and after pruning) and the writer's
    accuracy along the pruning series beside the top-line accuracy."""
    import altair as alt

    ids = list(writer_ids)
    gallery = charts.image_gallery(
        gallery_frame(result.test, result.digits, ids), category="writer",
        tooltip=["series", "correct_unpruned", "correct_pruned"], columns=columns,
        title="The writer's digits (true / unpruned / pruned prediction)",
    )
    param = f"{'writer'}_shown"
    traj = result.trajectory[result.trajectory["who"].isin([*map(str, ids), "all digits"])]
    curve = (
        alt.Chart(traj)
        .transform_filter(f"datum.who == {param} || datum.who == 'all digits'")
        .mark_line(point=True)
        .encode(
            x=alt.X("sparsity:Q", title="sparsity", axis=alt.Axis(format="%")),
            y=alt.Y("accuracy:Q", title="accuracy (mean over seeds)", axis=alt.Axis(format="%")),
            color=alt.Color("series:N", title="writer / all digits"),
            detail="who:N",
            tooltip=["who", "iteration", alt.Tooltip("sparsity:Q", format=".1%"),
                     alt.Tooltip("accuracy:Q", format=".1%")],
        )
        .properties(width=420, height=220,
                    title="The writer's accuracy along the pruning series")
    )
    return alt.vconcat(gallery, curve)
