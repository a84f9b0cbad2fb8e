"""Study 1 (P, section 3): the population regression of per-class accuracy under pruning.

Pipeline, all through the results store (methods page, "Study 1: population regression"):

1. :func:`pruneaudit.runs.series.series_frame` runs (or reads) the iterative pruning series of
   every (dataset, imbalance factor, model, technique, treatment, seed); the imbalance factors
   (1, 10, 100) subsample the training pool to a seeded long tail
   (:mod:`pruneaudit.data.splits`), an extension beyond P so that r_c varies and E is identified.
2. :func:`pruneaudit.runs.series.class_stats` gives r_c and H_c (mean Shannon entropy, bits, of
   each image's 256-bin pixel histogram) of each class of the pool the models drew from.
3. :func:`fit_all` fits the design frame (:func:`pruneaudit.audit.design_frame`) by OLS and by the
   binomial GLM, with the linear terms and with P's cross terms (HAC, 3 lags, as P), plus the
   cross-term OLS with errors clustered by (dataset, class) for the findings.
4. :func:`findings` tests D1.1-D1.5 against P's printed numbers; :func:`coefficient_table` puts
   P's App. D coefficients beside ours; :func:`coefficient_explorer` is the page's explorer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import altair as alt
import numpy as np
import pandas as pd

from pruneaudit import audit, data, models
from pruneaudit.audit import findings as F
from pruneaudit.compress.prune import TECHNIQUES, TREATMENTS
from pruneaudit.errors import PruneAuditError, check_positive_int, check_range
from pruneaudit.runs import gpu_cost_text, series

STUDY = "S1_population_OLS"
SOURCE = "P App. D (OLS summary)"
FIT_NAMES = (
    "OLS, linear terms",
    "OLS, with cross terms",
    "GLM, linear terms",
    "GLM, with cross terms",
)
#: The published protocol of P (section 3) for the protocol table.
PAPER = {
    "models": ("lenet", "alexnet", "vgg11", "resnet18"),
    "iterations": 20,
    "epochs": 30,
    "lr": 0.01,
    "seeds": 6,
}
_PART = {
    "exp_sparsity": "np.exp(sparsity)",
    "sparsity": "sparsity",
    "a0": "accuracy0",
    "quartile": "accuracy0_quartile",
    "r": "imbalance",
    "H": "class_entropy",
}


# --------------------------------------------------------------------------- parameters


def validate(params: Mapping) -> None:
    """Check the page's parameters before any training; one :class:`PruneAuditError` each."""
    p = dict(params)
    series.distinct("datasets", p["datasets"], tuple(data.DATASETS))
    series.distinct("models", p["models"], tuple(models.MODELS))
    for m in p["models"]:
        if m not in series.SECONDS_PER_10K:
            raise PruneAuditError(f"no measured training rate for model {m!r}")
    series.distinct("techniques", p["techniques"], TECHNIQUES)
    series.distinct("treatments", p["treatments"], TREATMENTS)
    series.distinct("seeds", p["seeds"])
    for f in series.distinct("imbalance_factors", p.get("imbalance_factors", [1])):
        data.splits.check_factor(f)
    for name in ("iterations", "epochs"):
        check_positive_int(name, p[name])
    check_range("lr", p["lr"], 0, float("inf"), lo_open=True)
    check_range("alpha", p.get("alpha", 0.01), 0, 1, lo_open=True, hi_open=True)
    for name in ("train_size", "test_size"):
        if p.get(name) is not None:
            check_positive_int(name, p[name])
    for name, within in (
        ("appendix_dataset", "datasets"),
        ("appendix_technique", "techniques"),
        ("appendix_treatment", "treatments"),
    ):
        if name in p and p[name] not in p[within]:
            raise PruneAuditError(f"{name}={p[name]!r} is not one of {within} {p[within]}")


def protocol_table(params: Mapping) -> pd.DataFrame:
    """This run's protocol beside P's (section 3), one row per setting; ``same``: yes / NO."""
    p = dict(params)
    its = p["iterations"]
    rows = [
        (
            "datasets",
            "MNIST, Fashion-MNIST, QMNIST, KMNIST, EMNIST, CIFAR-10/100, SVHN",
            ", ".join(p["datasets"]),
            False,
        ),
        (
            "imbalance factors (long tail)",
            "none (datasets as they are)",
            ", ".join(f"{f:g}" for f in p.get("imbalance_factors", [1])),
            list(p.get("imbalance_factors", [1])) == [1],
        ),
        (
            "models",
            "LeNet, AlexNet, VGG11, ResNet18",
            ", ".join(p["models"]),
            set(p["models"]) == set(PAPER["models"]),
        ),
        (
            "techniques",
            "all 7",
            f"{len(p['techniques'])}: " + ", ".join(p["techniques"]),
            len(p["techniques"]) == len(TECHNIQUES),
        ),
        (
            "treatments",
            "finetune, rewind",
            ", ".join(p["treatments"]),
            set(p["treatments"]) == set(TREATMENTS),
        ),
        ("seeds", "6", str(len(p["seeds"])), len(p["seeds"]) == PAPER["seeds"]),
        (
            "iterations",
            "20 (sparsity 98.8%)",
            f"{its} (sparsity {1 - 0.8**its:.1%})",
            its == PAPER["iterations"],
        ),
        ("epochs per round", "30", str(p["epochs"]), p["epochs"] == PAPER["epochs"]),
        (
            "learning rate",
            "0.01 (SGD, batch 32)",
            f"{p['lr']:g} (SGD, batch 32)",
            p["lr"] == PAPER["lr"],
        ),
        (
            "training pool",
            "full training set",
            "full" if p.get("train_size") is None else f"first {p['train_size']:,} examples",
            p.get("train_size") is None,
        ),
        (
            "test set",
            "full test set",
            "full" if p.get("test_size") is None else f"first {p['test_size']:,}",
            p.get("test_size") is None,
        ),
    ]
    out = pd.DataFrame(rows, columns=["setting", "published (P)", "this run", "same"])
    out["same"] = out["same"].map({True: "yes", False: "NO"})
    return out


def cost_text(params: Mapping, root: str | None = None) -> str:
    """One paragraph: this run's training cost and the paper profile's, one model at a time."""
    p = dict(params)
    mine = series.grid_cost(
        p["datasets"],
        p["models"],
        p["techniques"],
        p["treatments"],
        p["seeds"],
        p["iterations"],
        p["epochs"],
        imbalance_factors=p.get("imbalance_factors", [1]),
        train_size=p.get("train_size"),
        root=root,
    )
    paper = series.grid_cost(
        ["mnist", "fashion_mnist", "kmnist", "qmnist"],
        list(PAPER["models"]),
        TECHNIQUES,
        TREATMENTS,
        range(PAPER["seeds"]),
        PAPER["iterations"],
        PAPER["epochs"],
        root=root,
    )
    per_model = ", ".join(f"{r.model} {r.cpu_hours:,.0f} h" for r in paper.itertuples())
    return (
        f"This run trains **{mine['model_epochs'].sum():,} model-epochs** (about "
        f"{mine['cpu_hours'].sum():.2f} CPU hours one model at a time; the seeds of a series "
        f"train together, which is faster). P's protocol on the four offline datasets, four "
        f"models and six seeds (the paper profile) is **{paper['model_epochs'].sum():,} "
        f"model-epochs**, about {paper['cpu_hours'].sum():,.0f} CPU hours on this machine "
        f"({per_model}): a cluster job. On a GPU, at the LeNet rate (a lower bound): "
        f"{gpu_cost_text('Study 1')}."
    )


# --------------------------------------------------------------------------- fits


@dataclass
class Fits:
    """The fits of the study on one design frame (``by_name`` keys: :data:`FIT_NAMES`);
    ``ols_cluster``: the cross-term OLS on the pruned rows only, errors clustered by (dataset,
    class), for the findings (see :func:`fit_all`)."""

    frame: pd.DataFrame
    ols_linear: audit.ModelFit
    ols_cross: audit.ModelFit
    glm_linear: audit.ModelFit
    glm_cross: audit.ModelFit
    ols_cluster: audit.ModelFit

    @property
    def by_name(self) -> dict[str, audit.ModelFit]:
        fits = (self.ols_linear, self.ols_cross, self.glm_linear, self.glm_cross)
        return dict(zip(FIT_NAMES, fits, strict=True))


def fit_all(frame: pd.DataFrame) -> Fits:
    """OLS and binomial GLM (counts a_c·n_c of n_c when the frame has ``n``), each with the
    linear terms and with the cross terms, HAC (3 lags) as P; and, for the findings, the
    cross-term OLS on the pruned rows only with errors clustered by (dataset, class).

    Why the findings' fit leaves the dense rows out: there a_c = a0_c exactly (slope 1), while in
    pruned rows the slope on a noisy a0_c is attenuated, so with the dense rows in, e^s:a0 and
    a0:rewind come out negative even when pruning changes nothing (a regression-to-the-mean
    artefact; ``tests/studies/test_population_ols.py`` simulates it)."""
    return Fits(
        frame=frame,
        ols_linear=audit.fit_ols(frame, cross_terms=False),
        ols_cross=audit.fit_ols(frame, cross_terms=True),
        glm_linear=audit.fit_glm(frame, cross_terms=False),
        glm_cross=audit.fit_glm(frame, cross_terms=True),
        ols_cluster=findings_fit(frame),
    )


def findings_fit(frame: pd.DataFrame) -> audit.ModelFit:
    """The cross-term OLS of the findings: pruned rows (iteration >= 1), clustered errors."""
    pruned = frame[frame["iteration"] > 0].reset_index(drop=True)
    return audit.fit_ols(pruned, cross_terms=True, cov="cluster")


def hypothesis_table(fits: Fits, alpha: float = 0.01) -> pd.DataFrame:
    """The one-tailed tests E > 0 (term ``r``) and F < 0 (term ``H``) of every fit.

    Columns: fit, term, hypothesis, coef, stat, p (one-tailed), supported (p < ``alpha``).
    GLM coefficients are on the logit scale: only their sign and test compare with OLS.
    """
    alpha = check_range("alpha", alpha, 0, 1, lo_open=True, hi_open=True)
    named = {**fits.by_name, "OLS, cross terms, clustered": fits.ols_cluster}
    out = pd.concat([f.hypotheses.assign(fit=n) for n, f in named.items()], ignore_index=True)
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


def paper_term(term: str, reference_technique: str) -> str | None:
    """P's App. D name of one of our terms, or None where P's fit has no such term (dataset and
    model indicators have other reference levels; technique ones need P's reference,
    global_unstructured)."""
    parts = []
    for part in term.split(":"):
        if part in _PART:
            parts.append(_PART[part])
        elif part.startswith("C(treatment)[T."):
            parts.append("weight_treatment" + part.removeprefix("C(treatment)"))
        elif part.startswith("C(technique)[T.") and reference_technique == "global_unstructured":
            parts.append("pruning_technique" + part.removeprefix("C(technique)"))
        else:
            return None
    return ":".join(parts)


def _published_coefs() -> dict[str, float]:
    table = audit.published()
    rows = table[(table.study == STUDY) & table.metric.str.startswith("OLS coef: ")]
    pairs = zip(rows.metric, rows.number, strict=True)
    return {m.removeprefix("OLS coef: "): float(v) for m, v in pairs}


def coefficient_table(fit: audit.ModelFit) -> pd.DataFrame:
    """Every term both fits have: P's App. D coefficient beside ours with its 95% interval.

    Columns: term (ours), paper_term, paper, ours, ci_low, ci_high, same_sign."""
    frame_ref = sorted(fit.result.model.data.frame["technique"].astype(str).unique())[0]
    published = _published_coefs()
    rows = []
    for r in fit.table.itertuples():
        name = paper_term(r.term, frame_ref)
        if name is None or name not in published:
            continue
        rows.append(
            {
                "term": r.term,
                "paper_term": name,
                "paper": published[name],
                "ours": r.coef,
                "ci_low": r.ci_low,
                "ci_high": r.ci_high,
                "same_sign": bool(np.sign(r.coef) == np.sign(published[name])),
            }
        )
    return pd.DataFrame(
        rows, columns=["term", "paper_term", "paper", "ours", "ci_low", "ci_high", "same_sign"]
    )


def coefficient_explorer(table: pd.DataFrame) -> alt.Chart:
    """Explorer: pick a term in the drop-down ('all' shows every term); ours (dot, 95% interval)
    beside P's printed coefficient (red diamond). Works in the static page (a Vega parameter)."""
    long = pd.concat(
        [
            table.assign(source="ours", coef=table["ours"]),
            table.assign(source="P (App. D)", coef=table["paper"], ci_low=np.nan, ci_high=np.nan),
        ],
        ignore_index=True,
    )[["paper_term", "source", "coef", "ci_low", "ci_high"]]
    options = ["all", *table["paper_term"]]
    pick = alt.param(
        name="term", value="all", bind=alt.binding_select(options=options, name="term ")
    )
    base = alt.Chart(long).transform_filter("term == 'all' || datum.paper_term == term")
    y = alt.Y("paper_term:N", title=None, sort=list(table["paper_term"]))
    dots = base.mark_point(filled=True, size=70).encode(
        x=alt.X("coef:Q", title="coefficient"),
        y=y,
        color=alt.Color("source:N", scale=alt.Scale(range=["#1f77b4", "#d62728"])),
        shape=alt.Shape("source:N", scale=alt.Scale(range=["circle", "diamond"])),
        tooltip=[
            "paper_term",
            "source",
            alt.Tooltip("coef:Q", format=".4f"),
            alt.Tooltip("ci_low:Q", format=".4f"),
            alt.Tooltip("ci_high:Q", format=".4f"),
        ],
    )
    bars = (
        base.transform_filter("datum.source == 'ours'")
        .mark_rule()
        .encode(x="ci_low:Q", x2="ci_high:Q", y=y)
    )
    zero = alt.Chart(pd.DataFrame({"x": [0.0]})).mark_rule(strokeDash=[3, 3]).encode(x="x:Q")
    return (
        (zero + bars + dots)
        .add_params(pick)
        .properties(
            width=520, title="OLS coefficients: ours (95% interval, clustered) beside P's App. D"
        )
    )


# --------------------------------------------------------------------------- findings


def _coef_finding(fit: audit.ModelFit, term: str, name: str, metric: str, basis: str):
    paper = audit.lookup(STUDY, "OLS coef: " + metric)
    table = fit.table.set_index("term")
    if term not in table.index:
        return F.not_testable(
            name,
            paper,
            source=SOURCE,
            why=f"term {term} not in our fit: "
            + fit.dropped.get(term, "a level it needs is absent"),
        )
    row = table.loc[term]
    return F.finding(name, row.coef, row.ci_low, row.ci_high, paper, source=SOURCE, basis=basis)


def regression_findings(fit: audit.ModelFit) -> list[F.Finding]:
    """D1.1-D1.4 from the clustered cross-term OLS fit."""
    frame = fit.result.model.data.frame
    n = int(fit.result.nobs)
    groups = audit.cluster_groups(frame)
    clusters = len(np.unique(groups))
    basis = (
        f"95% interval of the OLS coefficient (pruned rows, errors clustered by (dataset, "
        f"class): CV3 jackknife, Student t on {clusters - 1} df): {clusters} clusters, {n:,} rows"
    )
    rows = [
        _coef_finding(fit, "r", "D1.1 imbalance coefficient E > 0", "imbalance", basis),
        _coef_finding(fit, "H", "D1.2 entropy coefficient F < 0", "class_entropy", basis),
    ]
    model = fit.result.model
    r2, lo, hi = audit.jackknife_adj_r2(model.exog, model.endog, groups)
    rows.append(
        F.finding(
            "D1.3 adjusted R² above 0.5",
            r2,
            lo,
            hi,
            audit.lookup(STUDY, "OLS Adj. R-squared"),
            source=SOURCE,
            null=0.5,
            basis=f"cluster jackknife over the {clusters} (dataset, class) clusters, Student t "
            f"on {clusters - 1} df, {n:,} rows",
        )
    )
    rows.append(
        _coef_finding(
            fit,
            "exp_sparsity:a0",
            "D1.4 a0 effect shrinks with e^sparsity",
            "np.exp(sparsity):accuracy0",
            basis,
        )
    )
    rows.append(
        _coef_finding(
            fit,
            "a0:C(treatment)[T.rewind]",
            "D1.4 a0 effect shrinks under rewinding",
            "accuracy0:weight_treatment[T.rewind]",
            basis,
        )
    )
    return rows


def spread_changes(runs: pd.DataFrame) -> pd.DataFrame:
    """Per series (every column of ``runs`` but iteration, sparsity, class, accuracy, n): the
    max − min class-accuracy spread of the dense model and of the last iteration, and the change."""
    keys = [c for c in runs.columns if c not in ("iteration", "sparsity", "class", "accuracy", "n")]
    g = runs.groupby([*keys, "iteration"], observed=True)["accuracy"]
    spread = (g.max() - g.min()).rename("spread").reset_index()
    g = spread.sort_values("iteration").groupby(keys, observed=True)["spread"]
    out = pd.DataFrame({"dense": g.first(), "last": g.last()})
    out["change"] = out["last"] - out["dense"]
    return out.reset_index()


def spread_finding(runs: pd.DataFrame, name: str, source: str) -> F.Finding:
    """The spread of class accuracies widens with pruning: change (dense → last iteration) of the
    max − min spread, averaged over the series that share a dense model (one per dataset, factor,
    model and seed: the independent units), Student-t interval over those units."""
    changes = spread_changes(runs)
    units = [c for c in ("dataset", "imbalance_factor", "model", "seed") if c in changes]
    per_unit = changes.groupby(units, observed=True)["change"].mean()
    m, lo, hi = F.mean_interval(per_unit)
    if not np.isfinite(lo):
        return F.not_testable(name, None, source=source, why="fewer than two dense models")
    return F.finding(
        name,
        m,
        lo,
        hi,
        None,
        source=source,
        direction=1,
        basis=f"mean over {len(per_unit)} dense models (each averaged over its "
        "pruning series), Student-t 95% interval",
    )


def findings(fits: Fits, runs: pd.DataFrame) -> list[F.Finding]:
    """D1.1-D1.5 (PUBLISHED.md) from the fits and the tidy runs, each beside P's number."""
    return [
        *regression_findings(fits.ols_cluster),
        spread_finding(
            runs.drop(columns="n", errors="ignore"),
            "D1.5 max − min class gap widens with sparsity",
            "P Figs. 3, 5, 7 (fig)",
        ),
    ]


# --------------------------------------------------------------------------- charts' frames


def predicted_vs_target_bins(fit: audit.ModelFit, bins: int = 20) -> pd.DataFrame:
    """:func:`pruneaudit.audit.predicted_vs_target` with bin centres (rounded) for a heatmap."""
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
    """:func:`pruneaudit.audit.residual_histogram` with the bin centre as ``residual``."""
    table = audit.residual_histogram(fit, bins)
    return pd.DataFrame(
        {"residual": ((table["low"] + table["high"]) / 2).round(3), "count": table["count"]}
    )


def class_curves(
    runs: pd.DataFrame,
    dataset: str,
    model: str,
    technique: str,
    treatment: str,
    imbalance_factor: float | None = None,
) -> pd.DataFrame:
    """Per-class accuracy vs sparsity of one series configuration (the largest imbalance factor
    when None), averaged over seeds, with the dense class accuracy ``a0`` for the colour."""
    factor = runs["imbalance_factor"].max() if imbalance_factor is None else imbalance_factor
    keep = (
        (runs["dataset"] == dataset)
        & (runs["model"] == model)
        & (runs["technique"] == technique)
        & (runs["treatment"] == treatment)
        & (runs["imbalance_factor"] == factor)
    )
    part = runs[keep]
    if part.empty:
        raise PruneAuditError(
            f"no series for dataset={dataset!r}, model={model!r}, technique={technique!r}, "
            f"treatment={treatment!r}, imbalance factor {factor:g} in the frame"
        )
    out = part.groupby(["class", "iteration"])[["sparsity", "accuracy"]].mean().reset_index()
    a0 = out[out["iteration"] == 0].set_index("class")["accuracy"]
    out["a0"] = out["class"].map(a0)
    out["class"] = out["class"].astype(str)
    return out


def spread_curves(runs: pd.DataFrame, dataset: str, model: str) -> pd.DataFrame:
    """Seed-mean max − min spread of class accuracies vs sparsity, one ``series`` (technique /
    treatment / imbalance factor) per line, for one (dataset, model)."""
    part = runs[(runs["dataset"] == dataset) & (runs["model"] == model)]
    per_seed = (
        part.groupby(["technique", "treatment", "imbalance_factor", "seed", "iteration"])
        .agg(
            sparsity=("sparsity", "mean"),
            accuracy=("accuracy", "mean"),
            spread=("accuracy", lambda a: a.max() - a.min()),
        )
        .reset_index()
    )
    out = (
        per_seed.groupby(["technique", "treatment", "imbalance_factor", "iteration"])[
            ["sparsity", "accuracy", "spread"]
        ]
        .mean()
        .reset_index()
    )
    out["series"] = (
        out["technique"]
        + " / "
        + out["treatment"]
        + " / x"
        + out["imbalance_factor"].map("{:g}".format)
    )
    return out
