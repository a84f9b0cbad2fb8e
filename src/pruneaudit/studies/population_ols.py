"""Study 1 (P, section 3): the population regression of per-class accuracy.

Pipeline, all through the results store:

1. :func:`series_frame` runs (or reads) the iterative pruning series of every (dataset, model,
   technique, treatment) over the given seeds (:func:`pruneaudit.experiments.run_series`, the
   seeds of one series trained together) and returns the tidy per-class frame.
2. :func:`class_stats` gives r_c (imbalance) and H_c (mean image entropy, bits) of every
   (dataset, class), from :func:`pruneaudit.classstats.class_table` on the dataset's training
   pool (the first ``train_size`` training examples, training and validation parts together:
   the class proportions and images the models were drawn from; for KMNIST offline, the 80%
   split of its test set, see :mod:`pruneaudit.experiments`).
3. :func:`fit_all` fits the design frame (:func:`pruneaudit.ols.design_frame`) by OLS with the
   linear terms, by OLS with the cross terms (both HAC, 3 lags) and by the binomial GLM (logit
   link) on both term sets; :func:`hypothesis_table` and :func:`comparison_table` tabulate them.

Chart-ready frames for the diagnostics and the appendix view: :func:`predicted_vs_target_bins`,
:func:`residual_bars`, :func:`residual_sample`, :func:`class_curves`, :func:`unfairness_curves`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pruneaudit import audit, runs
from pruneaudit.compress.prune import TECHNIQUES, TREATMENTS
from pruneaudit.errors import PruneAuditError, check_choice, check_positive_int, check_range
from pruneaudit.runs.store import ResultsStore, RunSpec

TIDY_COLUMNS = (
    "dataset",
    "model",
    "technique",
    "treatment",
    "seed",
    "iteration",
    "sparsity",
    "class",
    "accuracy",
    "n",
)
#: Seconds per 1,000 training images and epoch for one model trained alone with
#: :func:`pruneaudit.train.train` (batch 32), measured on the project's 2-core development CPU
#: while it was shared with other work: a rough rate for cost estimates, not a result.
SECONDS_PER_KIMAGE_EPOCH = {"lenet": 0.2, "alexnet": 2.4, "vgg11": 10.0, "resnet18": 29.0}
FIT_NAMES = (
    "OLS, linear terms",
    "OLS, with cross terms",
    "GLM, linear terms",
    "GLM, with cross terms",
)


def _distinct(name: str, values: Sequence, allowed: Sequence | None = None) -> list:
    values = list(values)
    if not values:
        raise PruneAuditError(f"{name} must name at least one value, got none")
    if len(set(values)) != len(values):
        raise PruneAuditError(f"{name} must be distinct, got {values}")
    if allowed is not None:
        for v in values:
            check_choice(name.rstrip("s"), v, allowed)
    return values


def capped_sizes(
    dataset: str, train_size: int | None, test_size: int | None, root: str | None = None
) -> tuple[int | None, int | None]:
    """``(train_size, test_size)`` for ``dataset``: each None (the whole pool / test set) when
    it is None or at least what the dataset has (KMNIST offline: 8,000 / 2,000), else kept."""
    whole = runs.splits(RunSpec(dataset, "lenet"), root)
    out = []
    for name, size, n in (
        ("train_size", train_size, len(whole.pool)),
        ("test_size", test_size, len(whole.test)),
    ):
        if size is not None:
            check_positive_int(name, size)
        out.append(None if size is None or size >= n else size)
    return out[0], out[1]


def pool_train_size(dataset: str, train_size: int | None, root: str | None = None) -> int | None:
    """The training-pool size of :func:`capped_sizes`."""
    return capped_sizes(dataset, train_size, None, root)[0]


def base_specs(
    dataset: str,
    model: str,
    seeds: Sequence[int],
    *,
    epochs: int = 30,
    lr: float = 0.01,
    batch_size: int = 32,
    augment: bool = True,
    train_size: int | None = None,
    test_size: int | None = None,
) -> list[RunSpec]:
    """The dense run of every seed for one (dataset, model): the bases of its pruning series."""
    base = RunSpec(
        dataset,
        model,
        epochs=epochs,
        lr=lr,
        batch_size=batch_size,
        augment=augment,
        train_size=train_size,
        test_size=test_size,
    )
    return runs.member_specs(base, seeds)


def series_frame(
    datasets: Sequence[str],
    models: Sequence[str],
    techniques: Sequence[str],
    treatments: Sequence[str],
    seeds: Sequence[int],
    iterations: int,
    store: ResultsStore,
    *,
    epochs: int = 30,
    lr: float = 0.01,
    batch_size: int = 32,
    augment: bool = True,
    train_size: int | None = None,
    test_size: int | None = None,
    root: str | None = None,
    progress: bool = True,
) -> pd.DataFrame:
    """Run (or read from ``store``) every pruning series of the grid; the tidy per-class frame.

    ``train_size`` and ``test_size`` are capped per dataset by :func:`capped_sizes`. One
    series per (dataset, model, technique, treatment, seed): iteration 0 is the seed's dense
    model (shared by all techniques and treatments), iterations 1..``iterations`` its pruned
    and retrained successors. Columns: :data:`TIDY_COLUMNS`, one row per run and class, sorted.
    """
    techniques = _distinct("techniques", techniques, TECHNIQUES)
    treatments = _distinct("treatments", treatments, TREATMENTS)
    check_positive_int("iterations", iterations)
    frames = []
    for dataset in _distinct("datasets", datasets):
        for model in _distinct("models", models):
            train_n, test_n = capped_sizes(dataset, train_size, test_size, root)
            bases = base_specs(
                dataset,
                model,
                seeds,
                epochs=epochs,
                lr=lr,
                batch_size=batch_size,
                augment=augment,
                train_size=train_n,
                test_size=test_n,
            )
            for technique in techniques:
                for treatment in treatments:
                    frames.append(
                        runs.run_series(
                            bases, technique, treatment, iterations, store, root, progress
                        )
                    )
    frame = pd.concat(frames, ignore_index=True)[list(TIDY_COLUMNS)]
    return frame.sort_values(list(audit.ORDER), kind="mergesort").reset_index(drop=True)


def grid_cost(
    datasets: Sequence[str],
    models: Sequence[str],
    techniques: Sequence[str],
    treatments: Sequence[str],
    seeds: Sequence[int],
    iterations: int,
    epochs: int,
    *,
    train_size: int | None = None,
    val_fraction: float = 0.2,
    root: str | None = None,
) -> pd.DataFrame:
    """Training cost of a grid of pruning series, one row per model: model-epochs, training
    images per epoch (summed over datasets) and estimated CPU hours at
    :data:`SECONDS_PER_KIMAGE_EPOCH` (one model at a time; population training is faster).

    Per (dataset, model, seed): ``epochs`` for the dense model plus ``epochs`` per round for
    each technique, treatment and iteration.
    """
    check_positive_int("iterations", iterations)
    check_positive_int("epochs", epochs)
    rounds = (
        1
        + len(_distinct("techniques", techniques))
        * len(_distinct("treatments", treatments))
        * iterations
    )
    n_seeds = len(_distinct("seeds", seeds))
    train = {
        d: round(
            len(
                runs.splits(
                    RunSpec(d, "lenet", train_size=pool_train_size(d, train_size, root)), root
                ).pool
            )
            * (1 - val_fraction)
        )
        for d in _distinct("datasets", datasets)
    }
    rows = []
    for model in _distinct("models", models):
        model_epochs = len(train) * n_seeds * rounds * epochs
        kimages = sum(n_seeds * rounds * epochs * n / 1000 for n in train.values())
        rows.append(
            {
                "model": model,
                "model_epochs": model_epochs,
                "train_images_per_epoch": int(sum(train.values())),
                "cpu_hours": kimages * SECONDS_PER_KIMAGE_EPOCH.get(model, np.nan) / 3600,
            }
        )
    return pd.DataFrame(rows)


def class_stats(
    datasets: Sequence[str], *, train_size: int | None = None, root: str | None = None
) -> pd.DataFrame:
    """r_c and H_c of every (dataset, class) from the dataset's training pool (the first
    ``train_size`` examples, capped by :func:`pool_train_size`).

    Columns: dataset, class, name, n (training-pool examples), fraction, r (imbalance r_c =
    n_c − 1/C with n_c the class fraction), H (mean image entropy H_c in bits).
    """
    rows = []
    for dataset in _distinct("datasets", datasets):
        size = pool_train_size(dataset, train_size, root)
        pool = runs.splits(RunSpec(dataset, "lenet", train_size=size), root).pool
        table = audit.class_table(pool.images, pool.labels, pool.num_classes, pool.classes)
        table = table.rename(columns={"imbalance": "r", "entropy": "H"})
        rows.append(table.assign(dataset=dataset))
    out = pd.concat(rows, ignore_index=True)
    return out[["dataset", "class", "name", "n", "fraction", "r", "H"]]


@dataclass
class Fits:
    """The four fits of the study on one design frame (keys of ``by_name``: :data:`FIT_NAMES`)."""

    frame: pd.DataFrame
    ols_linear: audit.ModelFit
    ols_cross: audit.ModelFit
    glm_linear: audit.ModelFit
    glm_cross: audit.ModelFit

    @property
    def by_name(self) -> dict[str, audit.ModelFit]:
        fits = (self.ols_linear, self.ols_cross, self.glm_linear, self.glm_cross)
        return dict(zip(FIT_NAMES, fits, strict=True))


def fit_all(frame: pd.DataFrame) -> Fits:
    """OLS and binomial GLM (counts a_c·n_c of n_c when the frame has ``n``), each with the
    linear terms and with the cross terms; HAC (3 lags, small-sample correction) throughout."""
    return Fits(
        frame=frame,
        ols_linear=audit.fit_ols(frame, cross_terms=False),
        ols_cross=audit.fit_ols(frame, cross_terms=True),
        glm_linear=audit.fit_glm(frame, cross_terms=False),
        glm_cross=audit.fit_glm(frame, cross_terms=True),
    )


def hypothesis_table(fits: Fits, alpha: float = 0.01) -> pd.DataFrame:
    """The one-tailed tests E > 0 (term ``r``) and F < 0 (term ``H``) of every fit.

    Columns: fit, term, hypothesis, coef, stat, p (one-tailed), supported (p < ``alpha``).
    GLM coefficients are on the logit scale: only their sign and test compare with OLS.
    """
    alpha = check_range("alpha", alpha, 0, 1, lo_open=True, hi_open=True)
    rows = []
    for name, fit in fits.by_name.items():
        hyp = fit.hypotheses.assign(fit=name)
        rows.append(hyp)
    out = pd.concat(rows, ignore_index=True)
    out["supported"] = out["p"] < alpha
    return out[["fit", "term", "hypothesis", "coef", "stat", "p", "supported"]]


def _fit_quality(fit: audit.ModelFit) -> dict[str, float]:
    res = fit.residuals
    pred = res["predicted"].to_numpy()
    return {
        "parameters": float(len(fit.table)),
        "rmse": float(np.sqrt(np.mean(res["residual"].to_numpy() ** 2))),
        "mae": float(np.mean(np.abs(res["residual"].to_numpy()))),
        "outside_01": float(np.mean((pred < 0) | (pred > 1))),
        "corr_target_pred": float(np.corrcoef(res["target"], pred)[0, 1]),
    }


def comparison_table(fits: Fits) -> pd.DataFrame:
    """OLS vs GLM on the same terms: number of parameters, RMSE and MAE of the fitted accuracy,
    share of predictions outside [0, 1], correlation of target and prediction, adjusted R² (OLS)
    and the signs of E and F. One row per fit, indexed by :data:`FIT_NAMES`."""
    rows = {}
    for name, fit in fits.by_name.items():
        hyp = fit.hypotheses.set_index("term")["coef"]
        rows[name] = {
            **_fit_quality(fit),
            "rsquared_adj": fit.rsquared_adj if fit.rsquared_adj is not None else np.nan,
            "sign_E": float(np.sign(hyp.get("r", np.nan))),
            "sign_F": float(np.sign(hyp.get("H", np.nan))),
        }
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "fit"
    return out


def predicted_vs_target_bins(fit: audit.ModelFit, bins: int = 20) -> pd.DataFrame:
    """:func:`pruneaudit.ols.predicted_vs_target` with bin centres (rounded) for a heatmap:
    columns target (bin centre), predicted (bin centre), count, share."""
    table = audit.predicted_vs_target(fit, bins)
    return pd.DataFrame(
        {
            "target": ((table["target_low"] + table["target_high"]) / 2).round(3),
            "predicted": ((table["pred_low"] + table["pred_high"]) / 2).round(3),
            "count": table["count"],
            "share": table["share"],
        }
    )


def residual_bars(fit: audit.ModelFit, bins: int = 30) -> pd.DataFrame:
    """:func:`pruneaudit.ols.residual_histogram` with the bin centre as ``residual`` (rounded)."""
    table = audit.residual_histogram(fit, bins)
    return pd.DataFrame(
        {"residual": ((table["low"] + table["high"]) / 2).round(3), "count": table["count"]}
    )


def residual_sample(fit: audit.ModelFit, frame: pd.DataFrame, n: int = 3000, seed: int = 0):
    """Up to ``n`` rows (drawn without replacement, seeded) of target, predicted, residual with
    the row's dataset, technique, treatment and iteration, for a residual-vs-target scatter."""
    check_positive_int("n", n)
    res = fit.residuals
    if len(res) != len(frame):
        raise PruneAuditError(
            f"the fit has {len(res)} rows but the design frame {len(frame)}: pass the fitted frame"
        )
    keys = frame[["dataset", "technique", "treatment", "iteration"]].astype(
        {"dataset": str, "technique": str, "treatment": str}
    )
    both = pd.concat([keys.reset_index(drop=True), res.reset_index(drop=True)], axis=1)
    if len(both) > n:
        rng = np.random.default_rng(seed)
        both = both.iloc[np.sort(rng.choice(len(both), size=n, replace=False))]
    return both.reset_index(drop=True)


def class_curves(
    frame: pd.DataFrame, dataset: str, model: str, technique: str, treatment: str
) -> pd.DataFrame:
    """Per-class accuracy vs sparsity of one (dataset, model, technique, treatment), averaged
    over seeds, with the unpruned class accuracy ``a0`` (seed mean) for the colour.

    ``frame``: the design frame of :func:`pruneaudit.ols.design_frame`. Columns: class,
    iteration, sparsity, accuracy, a0.
    """
    keep = (
        (frame["dataset"].astype(str) == dataset)
        & (frame["model"].astype(str) == model)
        & (frame["technique"].astype(str) == technique)
        & (frame["treatment"].astype(str) == treatment)
    )
    part = frame[keep]
    if part.empty:
        raise PruneAuditError(
            f"no series for dataset={dataset!r}, model={model!r}, technique={technique!r}, "
            f"treatment={treatment!r} in the frame"
        )
    out = (
        part.groupby(["class", "iteration"], observed=True)[["sparsity", "accuracy", "a0"]]
        .mean()
        .reset_index()
    )
    out["class"] = out["class"].astype(str)
    return out


def unfairness_curves(runs: pd.DataFrame) -> pd.DataFrame:
    """Unfairness (max − min and mean − min class accuracy) vs sparsity per technique, averaged
    over seeds (:func:`pruneaudit.metrics.unfairness_vs_sparsity`), with ``series`` =
    "technique / treatment" for one line each."""
    table = audit.unfairness_vs_sparsity(runs)
    table["series"] = table["technique"] + " / " + table["treatment"]
    return table


def unfairness_change(runs: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, model, technique, treatment): seed-mean unfairness (max − min) of the dense
    model and at the last iteration, the change, and the total-accuracy change."""
    table = audit.unfairness_vs_sparsity(runs)
    keys = ["dataset", "model", "technique", "treatment"]
    first = table[table["iteration"] == 0].set_index(keys)
    last = table.loc[table.groupby(keys)["iteration"].idxmax()].set_index(keys)
    return pd.DataFrame(
        {
            "sparsity": last["sparsity"],
            "unfairness_dense": first["unfairness_max_min"],
            "unfairness_pruned": last["unfairness_max_min"],
            "unfairness_change": last["unfairness_max_min"] - first["unfairness_max_min"],
            "accuracy_change": last["accuracy"] - first["accuracy"],
        }
    ).reset_index()
