"""Study 1's findings (D1.1-D1.5), each built by its claim (:func:`~.claims.claims`) on our
estimate, and the numbers the page's prose cites."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from pruneaudit import audit
from pruneaudit.audit.claims import NOT_COMPARABLE, Claim
from pruneaudit.runs import gpu_cost_text

from .claims import claims
from .params import PAPER
from .run import Result

#: Our term of each coefficient claim.
TERMS = {
    "D1.1": "r",
    "D1.2": "H",
    "D1.4": "a0",
    "D1.4 e^sparsity": "exp_sparsity:a0",
    "D1.4 rewind": "a0:C(treatment)[T.rewind]",
    "D1.6": "C(treatment)[T.rewind]",
}


def coef_finding(fit: audit.ModelFit, claim: Claim, term: str, basis: str,
                 df: int) -> audit.Finding:
    """The finding of ``claim`` on one coefficient of ``fit`` (our ``term``); not testable
    when the fit has no such term."""
    table = fit.table.set_index("term")
    if term not in table.index:
        why = f"term {term} not in our fit: " + fit.dropped.get(term, "a level it needs is absent")
        return audit.untested(claim, why=why)
    row = table.loc[term]
    return audit.judge(claim, audit.Estimate(row.coef, row.ci_low, row.ci_high, basis, df=df))


def unmatched(claim: Claim, finetune: int, rewind: int) -> Claim:
    """The rewinding claim as this build can show it when a rewound round trains ``rewind``
    epochs and a finetuned one ``finetune``: not comparable, its coefficient mixing rewinding
    with the budget against P's equal budgets (decided by the parameters, not the data)."""
    return replace(
        claim, comparability=NOT_COMPARABLE,
        why=f"a rewound round trains {rewind} epochs and a finetuned one {finetune} here, so the "
        "coefficient mixes rewinding with a different training budget; P trained both 30 "
        "epochs per round (equal budgets)")


def regression_findings(
    fit: audit.ModelFit, *, budgets: tuple[int, int] | None = None
) -> list[audit.Finding]:
    """D1.1-D1.4 and D1.6 from the clustered cross-term OLS fit: E, F, the adjusted R² beside
    P's 0.753 against the null :data:`~.claims.R2_NULL`, the a0 main effect (P 1.1384,
    "dominates"), its two shrinking cross terms and rewinding's main effect (P +0.0670).
    ``budgets``: the epochs of a finetuned and of a rewound round; P trained both 30, so the
    rewinding rows are not comparable here when they differ."""
    table = claims()
    frame = fit.result.model.data.frame
    n = int(fit.result.nobs)
    groups = audit.cluster_groups(frame)
    clusters = len(np.unique(groups))
    df = clusters - 1
    basis = (
        f"95% interval of the OLS coefficient (pruned rows, errors clustered by (dataset, "
        f"class): CV3 jackknife, Student t on {df} df): {clusters} clusters, {n:,} rows"
    )
    rows = [coef_finding(fit, table[c], TERMS[c], basis, df) for c in ("D1.1", "D1.2")]
    model = fit.result.model
    r2, lo, hi = audit.bounded_interval(
        *audit.jackknife_adj_r2(model.exog, model.endog, groups), "share")
    rows.append(audit.judge(table["D1.3"], audit.Estimate(
        r2, lo, hi, f"cluster jackknife over the {clusters} (dataset, class) clusters, "
        f"Student t on {df} df (on the logit scale), {n:,} rows", df=df)))
    rewinds = [table["D1.4 rewind"], table["D1.6"]]
    if budgets is not None and budgets[0] != budgets[1]:
        rewinds = [unmatched(c, *budgets) if TERMS[c.id] in set(fit.table["term"]) else c
                   for c in rewinds]
    rows += [coef_finding(fit, claim, TERMS[claim.id], basis, df)
             for claim in (table["D1.4"], table["D1.4 e^sparsity"], *rewinds)]
    return rows


def spread_changes(classes: pd.DataFrame) -> pd.DataFrame:
    """Per series (every column of ``classes`` but iteration, sparsity, class, accuracy, n): the
    max − min class-accuracy spread of the dense model and of the last iteration, and the change."""
    measured = ("iteration", "sparsity", "class", "accuracy", "n")
    keys = [c for c in classes.columns if c not in measured]
    g = classes.groupby([*keys, "iteration"], observed=True)["accuracy"]
    spread = (g.max() - g.min()).rename("spread").reset_index()
    g = spread.sort_values("iteration").groupby(keys, observed=True)["spread"]
    out = pd.DataFrame({"dense": g.first(), "last": g.last()})
    out["change"] = out["last"] - out["dense"]
    return out.reset_index()


def spread_finding(classes: pd.DataFrame, name: str | None = None) -> audit.Finding:
    """Claim D1.5 on ``classes``: change (dense → last iteration) of the max − min spread,
    averaged over the series that share a dense model (one per dataset, factor, model and seed:
    the independent units), Student-t interval over those units; direction only, with
    :data:`~.claims.SPREAD_SMALLEST` as the smallest effect. ``name``: the row's (its cell)."""
    changes = spread_changes(classes)
    units = [c for c in ("dataset", "imbalance_factor", "model", "seed") if c in changes]
    per_unit = changes.groupby(units, observed=True)["change"].mean()
    m, lo, hi = audit.mean_interval(per_unit)
    basis = (f"mean over {len(per_unit)} dense models (each averaged over its pruning series), "
             "Student-t 95% interval (none on fewer than 3)")
    return audit.judge(claims()["D1.5"], audit.Estimate(
        m, lo, hi, basis, df=len(per_unit) - 1 if len(per_unit) > 1 else None), name=name)


def spread_findings(classes: pd.DataFrame) -> list[audit.Finding]:
    """D1.5 by imbalance factor and treatment: one :func:`spread_finding` per cell (one claim,
    each row named by its cell), so that a long tail whose dense spread is already near its
    ceiling shows apart from balanced pools."""
    classes = classes.drop(columns="n", errors="ignore")
    if "imbalance_factor" not in classes:
        classes = classes.assign(imbalance_factor=1.0)
    name = claims()["D1.5"].name
    rows = []
    for factor in sorted(classes["imbalance_factor"].unique()):
        part = classes[classes["imbalance_factor"] == factor]
        for treatment in sorted(part["treatment"].unique()):
            rows.append(spread_finding(part[part["treatment"] == treatment],
                                       f"{name} (imbalance {factor:g}, {treatment})"))
    return rows


def findings(result: Result) -> list[audit.Finding]:
    """D1.1-D1.5 (methods page, *Study 1*) from the findings' fit and the tidy per-class frame,
    each row by its claim (the headline rows, D1.1 and D1.2, are the claims')."""
    p = result.params
    return [*regression_findings(result.fits.ols_cluster, budgets=(p.epochs, p.dense_budget)),
            *spread_findings(result.classes)]


def numbers(result: Result) -> dict[str, float | int | str]:
    """The numbers the page's prose cites (glued into its Markdown): the grid's series, the
    findings' fit's rows and (dataset, class) clusters; this run's model-epochs, CPU hours and
    rates (``rate``: model and rate text); P's protocol's model-epochs and CPU hours, in all and
    per model (``paper_hours_<model>``); and the measured GPU time of P's protocol (a phrase)."""
    p = result.params
    fit = result.fits.ols_cluster
    paper_hours = result.paper_cost.set_index("model")["cpu_hours"]
    return {
        "series": len(p.datasets) * len(p.imbalance_factors) * len(p.models)
        * len(p.techniques) * len(p.treatments) * len(p.seeds),
        "pruned_rows": int(fit.result.nobs),
        "clusters": int(len(np.unique(audit.cluster_groups(fit.result.model.data.frame)))),
        "model_epochs": int(result.cost["model_epochs"].sum()),
        "cpu_hours": float(result.cost["cpu_hours"].sum()),
        "rate": "; ".join(f"{r.model}: {r.rate}" for r in result.cost.itertuples()),
        "paper_model_epochs": int(result.paper_cost["model_epochs"].sum()),
        "paper_cpu_hours": float(paper_hours.sum()),
        **{f"paper_hours_{m}": float(paper_hours[m]) for m in PAPER["models"]},
        "gpu_cost": gpu_cost_text("Study 1"),
    }
