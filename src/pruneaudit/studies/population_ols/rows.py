"""Study 1's findings rows (D1.1-D1.5) against P's printed numbers."""

from __future__ import annotations

import numpy as np
import pandas as pd

from pruneaudit import audit
from pruneaudit.audit import findings as F

from .fits import Fits
from .params import SOURCE, STUDY

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


def spread_finding(classes: pd.DataFrame, name: str, source: str) -> F.Finding:
    """The spread of class accuracies widens with pruning: change (dense → last iteration) of the
    max − min spread, averaged over the series that share a dense model (one per dataset, factor,
    model and seed: the independent units), Student-t interval over those units."""
    changes = spread_changes(classes)
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


def findings(fits: Fits, classes: pd.DataFrame) -> list[F.Finding]:
    """D1.1-D1.5 (methods page, *Study 1*) from the fits and the tidy per-class frame, beside P."""
    return [
        *regression_findings(fits.ols_cluster),
        spread_finding(
            classes.drop(columns="n", errors="ignore"),
            "D1.5 max − min class gap widens with sparsity",
            "P Figs. 3, 5, 7 (fig)",
        ),
    ]
