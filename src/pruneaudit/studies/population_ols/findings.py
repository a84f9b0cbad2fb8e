"""Study 1's findings (D1.1-D1.5) against P's printed numbers, and the numbers the page's prose
cites."""

from __future__ import annotations

import numpy as np
import pandas as pd

from pruneaudit import audit
from pruneaudit.runs import gpu_cost_text

from .params import PAPER, STUDY
from .run import Result

#: The smallest widening of the max − min class-accuracy gap (dense → last round, accuracy as a
#: fraction) the page cares about for D1.5 (P gives a figure only): 5 points, fixed in advance.
SPREAD_SMALLEST = 0.05
COEF_DEFINITION = (
    "coefficient of {term} in the OLS of per-class accuracy on P's Eq. 2 terms with P's cross "
    "terms (pruned rows; accuracies as fractions)"
)


def coef_finding(
    fit: audit.ModelFit, term: str, name: str, metric: str, basis: str, df: int
) -> audit.Finding:
    """The finding ``name`` on one coefficient of ``fit`` (our ``term``, P's ``metric``) beside
    P's App. D value; not testable when the fit has no such term."""
    paper = audit.lookup(STUDY, "OLS coef: " + metric)
    definition = COEF_DEFINITION.format(term=metric)
    table = fit.table.set_index("term")
    if term not in table.index:
        return audit.not_testable(
            name,
            paper,
            source=paper.source,
            why=f"term {term} not in our fit: "
            + fit.dropped.get(term, "a level it needs is absent"),
            definition=definition,
        )
    row = table.loc[term]
    return audit.finding(
        name, row.coef, row.ci_low, row.ci_high, paper, source=paper.source, basis=basis, df=df,
        definition=definition,
    )


#: D1.3's null: P's claim is that the fit explains *most* of the variance, more than half (an
#: adjusted R² above 0 says only that it explains some, which no fit of this size can fail).
R2_NULL = 0.5
REWIND = "D1.4 a0 effect shrinks under rewinding"


def regression_findings(
    fit: audit.ModelFit, *, budgets: tuple[int, int] | None = None
) -> list[audit.Finding]:
    """D1.1-D1.4 from the clustered cross-term OLS fit: E, F, the adjusted R² beside P's 0.753
    against the null :data:`R2_NULL`, the a0 main effect (P 1.1384, "dominates") and its two
    shrinking cross terms. ``budgets``: the epochs of a finetuned and of a rewound round; P
    trained both 30, so the rewinding row is not comparable here when they differ."""
    frame = fit.result.model.data.frame
    n = int(fit.result.nobs)
    groups = audit.cluster_groups(frame)
    clusters = len(np.unique(groups))
    df = clusters - 1
    basis = (
        f"95% interval of the OLS coefficient (pruned rows, errors clustered by (dataset, "
        f"class): CV3 jackknife, Student t on {df} df): {clusters} clusters, {n:,} rows"
    )
    rows = [
        coef_finding(fit, "r", "D1.1 imbalance coefficient E > 0", "imbalance", basis, df),
        coef_finding(fit, "H", "D1.2 entropy coefficient F < 0", "class_entropy", basis, df),
    ]
    model = fit.result.model
    r2, lo, hi = audit.bounded_interval(
        *audit.jackknife_adj_r2(model.exog, model.endog, groups), "share")
    paper = audit.lookup(STUDY, "OLS Adj. R-squared")
    rows.append(
        audit.finding(
            "D1.3 adjusted R² of the fit (P: 0.753)",
            r2,
            lo,
            hi,
            paper,
            source=paper.source,
            null=R2_NULL,
            df=df,
            definition="adjusted R² of the cross-term OLS of per-class accuracy (P: its whole "
            f"population; here the pruned rows of this grid); null {R2_NULL:g}: P's claim is "
            "that the fit explains most of the variance",
            basis=f"cluster jackknife over the {clusters} (dataset, class) clusters, Student t "
            f"on {df} df (on the logit scale), {n:,} rows",
        )
    )
    for term, name, metric in (
        ("a0", "D1.4 pre-pruning class accuracy a0 dominates (main effect)", "accuracy0"),
        ("exp_sparsity:a0", "D1.4 a0 effect shrinks with e^sparsity", "np.exp(sparsity):accuracy0"),
        ("a0:C(treatment)[T.rewind]", REWIND, "accuracy0:weight_treatment[T.rewind]"),
    ):
        rows.append(coef_finding(fit, term, name, metric, basis, df))
    if budgets is not None and budgets[0] != budgets[1] and rows[-1].ours is not None:
        rows[-1] = _unmatched(rows[-1], *budgets)
    return rows


def _unmatched(row: audit.Finding, finetune: int, rewind: int) -> audit.Finding:
    """The rewinding row when a rewound round trains ``rewind`` epochs and a finetuned one
    ``finetune``: its coefficient mixes rewinding with the budget, against P's equal budgets."""
    return audit.not_comparable(
        row.finding, row.ours, row.ci_low, row.ci_high, row.paper, source=row.source,
        definition=row.definition,
        why=f"a rewound round trains {rewind} epochs and a finetuned one {finetune} here, so the "
        "coefficient mixes rewinding with a different training budget; P trained both 30 "
        "epochs per round (equal budgets)")


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


SPREAD_DEFINITION = (
    "change of the max − min class accuracy (fraction) from the dense model to the last "
    "round, averaged over techniques per dense model"
)


def spread_finding(classes: pd.DataFrame, name: str, source: str) -> audit.Finding:
    """The spread of class accuracies widens with pruning: change (dense → last iteration) of the
    max − min spread, averaged over the series that share a dense model (one per dataset, factor,
    model and seed: the independent units), Student-t interval over those units; direction only
    (P: figures), with :data:`SPREAD_SMALLEST` as the smallest effect for the power."""
    changes = spread_changes(classes)
    units = [c for c in ("dataset", "imbalance_factor", "model", "seed") if c in changes]
    per_unit = changes.groupby(units, observed=True)["change"].mean()
    m, lo, hi = audit.mean_interval(per_unit)
    return audit.finding(
        name,
        m,
        lo,
        hi,
        None,
        source=source,
        direction=1,
        smallest=SPREAD_SMALLEST,
        df=len(per_unit) - 1 if len(per_unit) > 1 else None,
        unit="points",
        definition=SPREAD_DEFINITION,
        basis=f"mean over {len(per_unit)} dense models (each averaged over its "
        "pruning series), Student-t 95% interval (none on fewer than 3)",
    )


def spread_findings(classes: pd.DataFrame, source: str = "P; Figs. 3, 5, 7") -> list[audit.Finding]:
    """D1.5 by imbalance factor and treatment: one :func:`spread_finding` per cell, so that a
    long tail whose dense spread is already near its ceiling shows apart from balanced pools."""
    classes = classes.drop(columns="n", errors="ignore")
    if "imbalance_factor" not in classes:
        classes = classes.assign(imbalance_factor=1.0)
    rows = []
    for factor in sorted(classes["imbalance_factor"].unique()):
        part = classes[classes["imbalance_factor"] == factor]
        for treatment in sorted(part["treatment"].unique()):
            rows.append(
                spread_finding(
                    part[part["treatment"] == treatment],
                    f"D1.5 max − min class gap widens with sparsity (imbalance {factor:g}, "
                    f"{treatment})",
                    source,
                )
            )
    return rows


#: The rows the page states first: P's claims that a class's imbalance (D1.1) and entropy
#: (D1.2) predict how much pruning costs it.
HEADLINE = ("D1.1", "D1.2")


def findings(result: Result) -> list[audit.Finding]:
    """D1.1-D1.5 (methods page, *Study 1*) from the findings' fit and the tidy per-class frame,
    beside P; the headline rows (:data:`HEADLINE`) marked."""
    p = result.params
    rows = [*regression_findings(result.fits.ols_cluster, budgets=(p.epochs, p.dense_budget)),
            *spread_findings(result.classes)]
    return audit.mark_headlines(rows, HEADLINE)


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
