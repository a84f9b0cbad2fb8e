"""Sub-group error rate, FPR and FNR (H2), disaggregated with fairlearn's ``MetricFrame``.

Metrics, for a target that is binary or made binary one-vs-rest for ``positive_class``:

- ``error_rate = |{y != h(x)}| / n`` on the original labels (top-1 error of the classifier; for
  a binary target it is the binary error);
- ``fpr = FP / (FP + TN)`` and ``fnr = FN / (FN + TP)`` of the binary task "is
  ``positive_class``" (fairlearn's ``false_positive_rate`` / ``false_negative_rate``, computed
  from the group's counts). A group with no negative example has no FPR, one with no positive
  example no FNR: NaN (fairlearn would report 0).

Groupings: ``overall``; each group column alone (unitary groups); every combination of two or
more columns (intersections); intersections with no example are left out. A group is
labelled ``"col=value"`` joined by ``" & "``.

Populations ``(K, N)``: ``reduce="mean"`` computes each member's metrics and averages them over
the K members; ``reduce="members"`` returns every member's rows (column ``member``);
``reduce="modal"`` computes the metrics of the population's modal labels
(:func:`pruneaudit.audit.modal_labels`, the largest label wins ties, as in H1's code).

Normalized difference: ``(compressed - baseline) / baseline``, NaN where the baseline is 0.

Formulas: the book's ``book/methods_audit.md``, section *Sub-groups*.
"""

from __future__ import annotations

from itertools import combinations
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pruneaudit.audit.accuracy import (
    check_group_frame,
    check_labels,
    check_population,
    check_same_length,
)
from pruneaudit.audit.exemplars import modal_labels
from pruneaudit.errors import PruneAuditError, check_choice

if TYPE_CHECKING:
    from fairlearn.metrics import MetricFrame

METRICS = ("error_rate", "fpr", "fnr")
REDUCTIONS = ("mean", "members", "modal")


def _positive(y: np.ndarray, p: np.ndarray, positive_class: int | None) -> int:
    if positive_class is None:
        if max(int(y.max()), int(p.max())) > 1:
            raise PruneAuditError(
                "labels are not binary (0/1); FPR and FNR need a binary target: pass "
                "positive_class=c for one-vs-rest of class c"
            )
        return 1
    if isinstance(positive_class, bool) or not isinstance(positive_class, int | np.integer):
        raise PruneAuditError(f"positive_class must be an integer label, got {positive_class!r}")
    if not (y == positive_class).any():
        raise PruneAuditError(
            f"positive_class {positive_class} does not occur in y_true; labels present: "
            f"{sorted(int(v) for v in np.unique(y))}"
        )
    return int(positive_class)


def _groupings(groups: pd.DataFrame) -> list[tuple[str, ...]]:
    cols = [str(c) for c in groups.columns]
    return [c for r in range(1, len(cols) + 1) for c in combinations(cols, r)]


#: The counts each group's rates are made of, in the order :func:`_frame`'s metric returns them.
COUNTS = ("n", "n_pos", "errors", "fp", "fn")


def _frame(y: np.ndarray, p: np.ndarray, sf: pd.DataFrame | None, pos: int) -> MetricFrame:
    """fairlearn's disaggregation of one metric, the group's :data:`COUNTS`: fairlearn copies
    ``y_true`` and ``y_pred`` element by element for every metric of every group, so one metric
    instead of five (n, positives, error rate, ``false_positive_rate``,
    ``false_negative_rate``) is several times faster; the rates are the same ratios of counts."""
    # Imported here: importing pruneaudit.audit (as every study's run does) needs no fairlearn.
    from fairlearn.metrics import MetricFrame

    def counts(yt: np.ndarray, yp: np.ndarray) -> tuple[int, ...]:
        yt, yp = np.asarray(yt), np.asarray(yp)
        true, said = yt == pos, yp == pos
        return (len(yt), int(true.sum()), int(np.sum(yt != yp)), int(np.sum(said & ~true)),
                int(np.sum(~said & true)))

    if sf is None:  # overall only: one constant group
        sf = pd.DataFrame({"_all": np.zeros(len(y), dtype=int)})
    return MetricFrame(metrics={"counts": counts}, y_true=y, y_pred=p, sensitive_features=sf)


def _tidy(by_group: pd.DataFrame) -> pd.DataFrame:
    """The rates of the groups that hold examples (MetricFrame lists empty intersections too,
    as NaN): ``n, error_rate, fpr, fnr``, NaN where a rate has no denominator."""
    held = by_group["counts"][by_group["counts"].notna()]
    c = pd.DataFrame(held.tolist(), index=held.index, columns=list(COUNTS), dtype=np.int64)
    negatives = c["n"] - c["n_pos"]
    return pd.DataFrame({
        "n": c["n"],
        "error_rate": c["errors"] / c["n"],
        "fpr": (c["fp"] / negatives.where(negatives > 0)).astype(float),
        "fnr": (c["fn"] / c["n_pos"].where(c["n_pos"] > 0)).astype(float),
    })


def group_metrics(
    y_true: object, y_pred: object, groups: object, *, positive_class: int | None = None
) -> pd.DataFrame:
    """Error rate, FPR and FNR overall, per unitary group and per intersection of groups.

    ``groups``: a DataFrame (or Series) with one row per example and one column per group
    attribute (e.g. QMNIST ``series``; CelebA ``Male``, ``Young``). Columns of the result:
    ``grouping, group, n, error_rate, fpr, fnr``; the first row is ``overall``/``all``.
    """
    y = check_labels("y_true", y_true)
    p = check_labels("y_pred", y_pred)
    check_same_length("y_true", y.size, "y_pred", p.size)
    sf = check_group_frame("groups", groups, n=y.size)
    sf.columns = [str(c) for c in sf.columns]
    pos = _positive(y, p, positive_class)
    overall = _tidy(_frame(y, p, None, pos).by_group).reset_index(drop=True)
    overall.insert(0, "group", "all")
    overall.insert(0, "grouping", "overall")
    parts = [overall]
    for cols in _groupings(sf):
        table = _tidy(_frame(y, p, sf[list(cols)], pos).by_group)
        labels = [
            " & ".join(
                f"{c}={v}" for c, v in zip(cols, key if len(cols) > 1 else (key,), strict=True)
            )
            for key in table.index
        ]
        table = table.reset_index(drop=True)
        table.insert(0, "group", labels)
        table.insert(0, "grouping", " & ".join(cols))
        parts.append(table)
    return pd.concat(parts, ignore_index=True)[["grouping", "group", "n", *METRICS]]


def population_group_metrics(
    y_true: object,
    preds: object,
    groups: object,
    *,
    positive_class: int | None = None,
    reduce: str = "mean",
) -> pd.DataFrame:
    """:func:`group_metrics` of a population ``(K, N)``, reduced as the module states."""
    check_choice("reduce", reduce, REDUCTIONS)
    y = check_labels("y_true", y_true)
    p = check_population("preds", preds)
    check_same_length("y_true", y.size, "preds", p.shape[1])
    if reduce == "modal":
        num_classes = int(max(y.max(), p.max())) + 1
        return group_metrics(y, modal_labels(p, num_classes), groups, positive_class=positive_class)
    members = [
        group_metrics(y, p[k], groups, positive_class=positive_class).assign(member=k)
        for k in range(p.shape[0])
    ]
    table = pd.concat(members, ignore_index=True)
    if reduce == "members":
        return table
    keys = ["grouping", "group", "n"]
    return table.groupby(keys, sort=False)[list(METRICS)].mean().reset_index()


def normalized_difference(baseline: object, compressed: object) -> np.ndarray:
    """``(compressed - baseline) / baseline`` elementwise; NaN where the baseline is 0 or NaN."""
    b = np.asarray(baseline, dtype=float)
    c = np.asarray(compressed, dtype=float)
    if b.shape != c.shape:
        raise PruneAuditError(f"baseline has shape {b.shape} but compressed has {c.shape}")
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(b != 0, (c - b) / b, np.nan)


def compare_group_metrics(baseline: pd.DataFrame, compressed: pd.DataFrame) -> pd.DataFrame:
    """Baseline vs compressed sub-group metrics, long format, from two tables of
    :func:`population_group_metrics` (``reduce="mean"`` or ``"modal"``) on the same labels and
    groups.

    Columns: ``grouping, group, n, metric, baseline, compressed, normalized_difference``.
    """
    keys = ["grouping", "group", "n"]
    tables = (baseline, compressed)
    for name, table in zip(("baseline", "compressed"), tables, strict=True):
        if not isinstance(table, pd.DataFrame) or not {*keys, *METRICS} <= set(table.columns):
            raise PruneAuditError(
                f"{name} must be a table of population_group_metrics (columns {keys} and "
                f"{list(METRICS)})"
            )
        if "member" in table.columns:
            raise PruneAuditError(
                f"{name} holds every member's rows: compare tables made with reduce='mean' or "
                "'modal'"
            )
    if not baseline[keys].reset_index(drop=True).equals(compressed[keys].reset_index(drop=True)):
        raise PruneAuditError(
            "baseline and compressed group tables do not line up: compute both on the same "
            "labels and groups"
        )
    out = baseline[keys].reset_index(drop=True)
    out["metric"] = [list(METRICS)] * len(out)
    out = out.explode("metric", ignore_index=True)
    for name, table in zip(("baseline", "compressed"), tables, strict=True):
        out[name] = table[list(METRICS)].to_numpy(dtype=float).ravel()
    out["normalized_difference"] = normalized_difference(out["baseline"], out["compressed"])
    return out[[*keys, "metric", "baseline", "compressed", "normalized_difference"]]
