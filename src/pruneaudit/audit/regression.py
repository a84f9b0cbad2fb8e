"""Study 1: the population regression of per-class accuracy on sparsity and class properties.

Formulas: the book's ``book/methods_models.md``, section *Study 1: population regression*.
The design (one row per pruned model and class, plus one row per dense model and class) is

    a_c = A·exp(s) + B·s + C·a0_c + D·quartile(a0_c) + E·r_c + F·H_c
          + G·I_dataset + H·I_treatment + J·I_technique + K·I_model [+ cross terms]

with quartile(a0_c) one numeric term 1..4 and, among the cross terms, a0:quartile (P, App. D),
fitted by ordinary least squares (statsmodels formula API) with HAC standard errors
(3 lags, small-sample correction) as P, or cluster-robust by (dataset, class) (r_c and H_c vary
only between classes, which HAC's 3 lags along a series do not allow for), and, as the
bounded-response alternative, by a binomial GLM with logit link on the same terms.

The cluster-robust covariance is the jackknife CV3 (MacKinnon, Nielsen & Webb 2023,
"Cluster-robust inference: a guide to empirical practice", J. Econometrics 232):
(G − 1)/G · Σ_g (β̂_(g) − β̂)(β̂_(g) − β̂)ᵀ, β̂_(g) the fit without cluster g, with Student t on
G − 1 degrees of freedom. statsmodels offers only CV1, which with about 30 clusters and 25
regressors gives intervals too narrow (tests/studies/test_population_ols.py measures both), and
wildboottest gives p-values but no intervals, so CV3 is computed here in closed form.
The hypotheses of the study are E > 0 and F < 0 (one-tailed).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import statsmodels.api as sm
import statsmodels.formula.api as smf
from scipy import stats

from pruneaudit.audit.jackknife import cluster_groups, jackknife_cov
from pruneaudit.errors import PruneAuditError, check_frame

SERIES = ("dataset", "imbalance_factor", "model", "technique", "treatment", "seed")
"""Columns that identify one run series (one trained model, pruned iteratively)."""

DENSE = ("dataset", "imbalance_factor", "model", "seed", "class")
"""Columns that identify one dense model's class: its row enters the design frame once."""

ORDER = (*SERIES, "iteration", "class")
"""Deterministic row order of the design frame; HAC lags run along it."""

RUN_COLUMNS = (*ORDER, "sparsity", "accuracy")
CLASS_STAT_COLUMNS = ("dataset", "imbalance_factor", "class", "r", "H")
CATEGORICALS = ("dataset", "treatment", "technique", "model")
HAC_KWDS = {"maxlags": 3, "use_correction": True}
HYPOTHESES = (("r", "E > 0", "greater"), ("H", "F < 0", "less"))

LINEAR_TERMS = (
    "exp_sparsity",
    "sparsity",
    "a0",
    "quartile",
    "r",
    "H",
    "C(dataset)",
    "C(treatment)",
    "C(technique)",
    "C(model)",
)
CROSS_TERMS = (
    "C(treatment):C(technique)",
    "exp_sparsity:C(dataset)",
    "exp_sparsity:C(technique)",
    "a0:C(treatment)",
    "a0:C(technique)",
    "exp_sparsity:a0",
    "a0:quartile",
)


def _require(frame: object, columns: tuple[str, ...], what: str) -> pd.DataFrame:
    check_frame(what, frame, columns)
    if frame[list(columns)].isna().any().any():
        bad = [c for c in columns if frame[c].isna().any()]
        raise PruneAuditError(f"{what} has missing values in column(s) {bad}")
    return frame


def _quartiles(a0: pd.Series) -> pd.Series:
    """Quartile 1..4 of each class's a0 among the C classes of one model (1 = lowest).

    q = 1 + floor(4·(rank − 1)/C) with rank the 'min' rank (1 = lowest a0): tied classes share
    the lower rank, hence the same quartile.
    """
    rank = a0.rank(method="min").to_numpy()
    return pd.Series(1 + np.floor(4 * (rank - 1) / len(a0)).astype(int), index=a0.index)


def _with_factor(frame: object) -> object:
    """A frame without ``imbalance_factor`` (runs on the pool as it is) gets factor 1."""
    if isinstance(frame, pd.DataFrame) and "imbalance_factor" not in frame:
        return frame.assign(imbalance_factor=1.0)
    return frame


def design_frame(runs: pd.DataFrame, class_stats: pd.DataFrame) -> pd.DataFrame:
    """Build the Study 1 design frame from per-class accuracies of stored run series.

    ``runs``: one row per (dataset, model, technique, treatment, seed, iteration, class) with
    ``sparsity`` and ``accuracy`` in [0, 1] (and ``imbalance_factor``, 1 when absent); an
    optional ``n``, the class's test size, is kept for the GLM weights.
    ``class_stats``: one row per (dataset, class) with ``r`` (imbalance r_c)
    and ``H`` (mean image entropy H_c, bits), per imbalance factor when it has that column.
    Every series needs its iteration-0 (unpruned) rows:
    ``a0`` is the accuracy on the class at iteration 0 of the same series, ``quartile`` its
    quartile among the classes of that model (see ``_quartiles``, a number 1..4),
    ``exp_sparsity`` = exp(sparsity). The dense model of a seed (iteration 0, shared by all its
    series) enters once per class: its rows are kept under the first (technique, treatment) in
    sorted order, not repeated for every series. Indicator columns become pandas
    categoricals with sorted levels (the first level is the reference). Rows are sorted by
    ``ORDER`` = (dataset, model, technique, treatment, seed, iteration, class).
    """
    runs, class_stats = _with_factor(runs), _with_factor(class_stats)
    cols = RUN_COLUMNS + (("n",) if isinstance(runs, pd.DataFrame) and "n" in runs else ())
    runs = _require(runs, cols, "runs")
    class_stats = _require(class_stats, CLASS_STAT_COLUMNS, "class_stats")
    acc = pd.to_numeric(runs["accuracy"], errors="coerce")
    if acc.isna().any() or ((acc < 0) | (acc > 1)).any():
        raise PruneAuditError("runs.accuracy must be numbers in [0, 1]")
    sp = pd.to_numeric(runs["sparsity"], errors="coerce")
    if sp.isna().any() or ((sp < 0) | (sp > 1)).any():
        raise PruneAuditError("runs.sparsity must be numbers in [0, 1]")
    if "n" in runs and (pd.to_numeric(runs["n"], errors="coerce").fillna(0) <= 0).any():
        raise PruneAuditError("runs.n (class test size) must be positive")
    dup = runs.duplicated(list(ORDER))
    if dup.any():
        raise PruneAuditError(
            f"runs has {int(dup.sum())} duplicate row(s) for the key {list(ORDER)}; "
            "one row per series, iteration and class"
        )
    if class_stats.duplicated(["dataset", "imbalance_factor", "class"]).any():
        raise PruneAuditError("class_stats has duplicate (dataset, imbalance_factor, class) rows")

    frame = runs[list(cols)].copy()
    frame["accuracy"] = acc.astype(float)
    frame["sparsity"] = sp.astype(float)
    base = frame[frame["iteration"] == 0]
    if base.empty:
        raise PruneAuditError(
            "runs has no iteration-0 rows: a0_c is the accuracy of the unpruned model, "
            "so every series needs its iteration 0"
        )
    series = frame[list(SERIES)].drop_duplicates()
    have = base[list(SERIES)].drop_duplicates()
    lacking = series.merge(have, how="left", indicator=True)
    lacking = lacking[lacking["_merge"] == "left_only"]
    if len(lacking):
        first = lacking.iloc[0][list(SERIES)].to_dict()
        raise PruneAuditError(
            f"{len(lacking)} run series have no iteration-0 rows (first: {first}); "
            "a0_c needs the unpruned model of each series"
        )
    a0 = base[[*SERIES, "class", "accuracy"]].rename(columns={"accuracy": "a0"})
    a0["quartile"] = a0.groupby(list(SERIES), sort=False)["a0"].transform(_quartiles)
    out = frame.merge(a0, on=[*SERIES, "class"], how="left")
    if out["a0"].isna().any():
        row = out[out["a0"].isna()].iloc[0][[*SERIES, "class"]].to_dict()
        raise PruneAuditError(f"no iteration-0 accuracy for class of {row}")
    keys = ["dataset", "imbalance_factor", "class"]
    out = out.merge(class_stats[list(CLASS_STAT_COLUMNS)], on=keys, how="left")
    if out["r"].isna().any() or out["H"].isna().any():
        row = out[out["r"].isna() | out["H"].isna()].iloc[0][["dataset", "class"]].to_dict()
        raise PruneAuditError(f"class_stats has no (r, H) for {row}")
    out["exp_sparsity"] = np.exp(out["sparsity"])
    out["quartile"] = out["quartile"].astype(int)
    out = out.sort_values(list(ORDER), kind="mergesort").reset_index(drop=True)
    out = out[~((out["iteration"] == 0) & out.duplicated(list(DENSE)))].reset_index(drop=True)
    for c in CATEGORICALS:
        out[c] = pd.Categorical(out[c].astype(str), categories=sorted(out[c].astype(str).unique()))
    return out


@dataclass
class ModelFit:
    """One fitted population model.

    ``table``: term, coef, se, stat (t for OLS-with-t, else z), p (two-tailed), ci_low, ci_high,
    from the covariance asked for (for ``cov="cluster"`` the CV3 jackknife; ``result`` then
    carries statsmodels' CV1). ``df``: degrees of freedom of the Student t of the table, None
    for the normal. ``hypotheses``: the one-tailed tests of E > 0 (term ``r``) and F < 0
    (term ``H``).
    ``residuals``: target, predicted, residual (target − predicted), in design-frame order.
    ``dropped``: terms left out, each with the reason.
    """

    kind: str
    formula: str
    result: object
    table: pd.DataFrame
    hypotheses: pd.DataFrame
    residuals: pd.DataFrame
    rsquared_adj: float | None
    df: float | None = None
    dropped: dict[str, str] = field(default_factory=dict)


def _formula(frame: pd.DataFrame, cross_terms: bool) -> tuple[str, dict[str, str]]:
    dropped: dict[str, str] = {}
    single = {c for c in CATEGORICALS if frame[c].nunique() < 2}
    numeric = ("exp_sparsity", "sparsity", "a0", "quartile", "r", "H")
    constant = {c for c in numeric if frame[c].nunique() < 2}
    if frame.groupby("technique", observed=True)["sparsity"].nunique().min() < 3:
        # two sparsities per technique: s and exp(s) are both affine in one indicator
        constant.add("sparsity")
    terms = []
    for term in LINEAR_TERMS + (CROSS_TERMS if cross_terms else ()):
        parts = [p.removeprefix("C(").removesuffix(")") for p in term.split(":")]
        why = [p for p in parts if p in single or p in constant]
        if why:
            dropped[term] = f"{why[0]} takes a single value in the frame"
        else:
            terms.append(term)
    return "accuracy ~ " + " + ".join(terms), dropped


def _check_frame(frame: object) -> pd.DataFrame:
    need = (*ORDER, "accuracy", "sparsity", "exp_sparsity", "a0", "quartile", "r", "H")
    frame = _require(frame, need, "design frame")
    if len(frame) < 2:
        raise PruneAuditError("design frame needs at least 2 rows")
    return frame


def _cov(cov: str, frame: pd.DataFrame, kind: str) -> dict:
    if cov == "HAC":
        return {"cov_type": "HAC", "cov_kwds": dict(HAC_KWDS)}
    if cov == "cluster":
        if kind != "ols":
            raise PruneAuditError("cov='cluster' (the CV3 jackknife) is for OLS; fit the GLM "
                                  "with cov='HAC' or 'nonrobust'")
        return {"cov_type": "cluster", "cov_kwds": {"groups": cluster_groups(frame)}}
    if cov == "nonrobust":
        return {"cov_type": "nonrobust"}
    raise PruneAuditError(f"unknown cov {cov!r}; accepted: 'HAC', 'cluster', 'nonrobust'")


def _inference(result, cov: str, frame: pd.DataFrame) -> tuple[np.ndarray, float | None]:
    """The covariance of the table and the degrees of freedom of its t (None: normal)."""
    if cov == "cluster":
        groups = cluster_groups(frame)
        v = jackknife_cov(result.model.exog, result.model.endog, groups)
        return v, float(len(np.unique(groups)) - 1)
    return np.asarray(result.cov_params()), (float(result.df_resid) if result.use_t else None)


def _reference(df: float | None):
    return stats.t(df) if df is not None else stats.norm()


def _tidy(result, v: np.ndarray, df: float | None) -> pd.DataFrame:
    coef = np.asarray(result.params, dtype=float)
    se = np.sqrt(np.diag(v))
    stat = coef / se
    dist = _reference(df)
    q = float(dist.ppf(0.975))
    return pd.DataFrame(
        {
            "term": list(result.params.index),
            "coef": coef,
            "se": se,
            "stat": stat,
            "p": 2 * dist.sf(np.abs(stat)),
            "ci_low": coef - q * se,
            "ci_high": coef + q * se,
        }
    )


def _one_tailed(table: pd.DataFrame, df: float | None, term: str, alternative: str) -> float:
    if alternative not in ("greater", "less"):
        raise PruneAuditError(f"alternative must be 'greater' or 'less', got {alternative!r}")
    if term not in table.index:
        raise PruneAuditError(f"term {term!r} is not in the fit; terms: {list(table.index)}")
    stat = float(table.loc[term, "stat"])
    stat = stat if alternative == "greater" else -stat
    return float(_reference(df).sf(stat))


def one_tailed_p(fit: ModelFit, term: str, alternative: str) -> float:
    """One-tailed p-value of ``term``'s coefficient: H1 coef > 0 ('greater') or < 0 ('less').

    Uses the reference distribution of the fit's table (Student t on ``fit.df`` degrees of
    freedom, else the standard normal), so that on the side of the alternative it equals half
    the table's two-tailed p-value.
    """
    return _one_tailed(fit.table.set_index("term"), fit.df, term, alternative)


def _hypotheses(table: pd.DataFrame, df: float | None) -> pd.DataFrame:
    rows = []
    table = table.set_index("term")
    for term, label, alt in HYPOTHESES:
        if term in table.index:
            coef, stat = float(table.loc[term, "coef"]), float(table.loc[term, "stat"])
            p = _one_tailed(table, df, term, alt)
        else:
            coef = stat = p = float("nan")
        rows.append({"term": term, "hypothesis": label, "coef": coef, "stat": stat, "p": p})
    return pd.DataFrame(rows)


def _successes(frame: pd.DataFrame, weights: str) -> pd.DataFrame:
    """Add the columns successes = a·n and failures = n − a·n (integers) for a binomial fit."""
    if weights not in frame.columns:
        raise PruneAuditError(f"weights column {weights!r} is not in the design frame")
    n = pd.to_numeric(frame[weights], errors="coerce").to_numpy(dtype=float)
    if np.isnan(n).any() or (n <= 0).any():
        raise PruneAuditError(f"weights column {weights!r} must be positive numbers")
    k = frame["accuracy"].to_numpy(dtype=float) * n
    if np.abs(k - np.round(k)).max() > 1e-6 or np.abs(n - np.round(n)).max() > 1e-6:
        raise PruneAuditError(
            f"accuracy × {weights} must be whole counts of correct examples; pass weights=None "
            "for accuracies that are averages (e.g. over seeds)"
        )
    out = frame.copy()
    out["successes"] = np.round(k)
    out["failures"] = np.round(n) - np.round(k)
    return out


def _fit(frame, cross_terms, cov, kind, weights):
    frame = _check_frame(frame)
    formula, dropped = _formula(frame, cross_terms)
    cov_args = _cov(cov, frame, kind)
    if kind == "ols":
        model = smf.ols(formula, data=frame)
    elif weights is None:
        model = smf.glm(formula, data=frame, family=sm.families.Binomial())
    else:
        frame = _successes(frame, weights)
        formula = "successes + failures ~ " + formula.split(" ~ ", 1)[1]
        model = smf.glm(formula, data=frame, family=sm.families.Binomial())
    rank = np.linalg.matrix_rank(model.exog)
    if rank < model.exog.shape[1]:
        raise PruneAuditError(
            f"the design matrix of {formula!r} is rank deficient ({rank} < "
            f"{model.exog.shape[1]} columns): some indicator combinations are missing or "
            "collinear, so the coefficients are not identified"
        )
    result = model.fit(**cov_args)
    predicted = np.asarray(result.fittedvalues if kind == "ols" else result.mu)
    target = frame["accuracy"].to_numpy(dtype=float)
    residuals = pd.DataFrame(
        {"target": target, "predicted": predicted, "residual": target - predicted}
    )
    v, df = _inference(result, cov, frame)
    table = _tidy(result, v, df)
    return ModelFit(
        kind=kind,
        formula=formula,
        result=result,
        table=table,
        hypotheses=_hypotheses(table, df),
        residuals=residuals,
        rsquared_adj=float(result.rsquared_adj) if kind == "ols" else None,
        df=df,
        dropped=dropped,
    )


def fit_ols(frame: pd.DataFrame, cross_terms: bool = False, cov: str = "HAC") -> ModelFit:
    """Ordinary least squares on the design frame (linear terms, or with the cross terms).

    Categorical indicators with a single level in the frame (and numeric terms that are
    constant) are dropped, with every term that involves them, and listed in ``dropped``.
    ``cov="HAC"``: Newey–West covariance with ``maxlags=3`` and the small-sample correction,
    lags running along the frame's row order (``design_frame`` sorts it); ``"nonrobust"``:
    the classical covariance; ``"cluster"``: cluster-robust by (dataset, class), the CV3
    jackknife with Student t on G − 1 degrees of freedom. A rank-deficient design raises.
    """
    return _fit(frame, cross_terms, cov, "ols", None)


def fit_glm(
    frame: pd.DataFrame, cross_terms: bool = False, cov: str = "HAC", weights: str | None = "n"
) -> ModelFit:
    """Binomial GLM with logit link on the same terms as ``fit_ols``.

    ``weights`` names the column of class test sizes n_c. With it, each row is the binomial
    count of a_c·n_c correct out of n_c (two-column response ``successes + failures``, the
    exact binomial likelihood, equivalent to weighting the proportion by n_c as ``var_weights``
    but with full support for robust covariances in statsmodels); a_c·n_c must then be whole.
    ``None``, or the default ``"n"`` on a frame without that column, fits the proportion a_c
    with weight 1 per row (quasi-binomial likelihood, e.g. for accuracies averaged over seeds).
    Predictions are the fitted means, in [0, 1]. Covariance ``"HAC"`` or ``"nonrobust"`` as
    in ``fit_ols`` (the cluster jackknife is for OLS).
    """
    if weights is not None and isinstance(frame, pd.DataFrame) and weights not in frame:
        if weights == "n":
            weights = None
        else:
            raise PruneAuditError(f"weights column {weights!r} is not in the design frame")
    return _fit(frame, cross_terms, cov, "glm", weights)
