"""Study 1's fits: OLS and GLM, the hypothesis, fit-quality and coefficient tables."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from pruneaudit import audit
from pruneaudit.errors import check_range

from .params import FIT_NAMES, STUDY

#: Our design-frame terms by P's App. D names.
_PART = {
    "exp_sparsity": "np.exp(sparsity)",
    "sparsity": "sparsity",
    "a0": "accuracy0",
    "quartile": "accuracy0_quartile",
    "r": "imbalance",
    "H": "class_entropy",
}

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

