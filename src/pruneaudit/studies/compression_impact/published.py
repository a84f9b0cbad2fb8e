"""Study 4's tables in the published layouts, ours beside the papers' numbers: H1's Table 2
(:func:`h1_class_table`) and Table 6 (:func:`h1_pie_table`), and H2's CIE accuracy
(:func:`cie_table`); NaN where the paper prints no number for a setting."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from pruneaudit import audit
from pruneaudit.errors import PruneAuditError
from pruneaudit.studies.compression_impact.run import PRUNING, QUANTIZATION, Compressed, ImpactRuns
from pruneaudit.studies.compression_impact.tables import (
    H1_SCHEMES,
    IMAGENET,
    cie_accuracy,
    lookup,
    pie_accuracy,
    summary,
)


def paper_number(metric: str, **columns: str) -> float:
    """A published number of this study's sources, NaN where the paper prints none."""
    try:
        return lookup(metric, **columns).number
    except PruneAuditError:
        return float("nan")


def h1_setting(c: Compressed, table: int) -> str:
    """H1's name of the setting of variant ``c`` in its Table ``table`` (2 or 6)."""
    if c.kind == QUANTIZATION:
        return H1_SCHEMES.get(c.scheme, c.scheme)
    return f"t={100 * c.level:g}%" if table == 2 else f"t={100 * c.level:.1f}%"


def h1_class_table(runs: ImpactRuns, alpha: float = 0.05) -> pd.DataFrame:
    """H1 Table 2's layout on our data: per variant, top-1, the count of classes with a
    significant change and the count of PIEs, beside H1's ImageNet (and CIFAR-10) values at
    the same level or scheme (NaN where H1 prints none)."""
    table = summary(runs, alpha)
    sig = "count significant classes (Welch p<=0.05)"
    rows = []
    for c, r in zip(runs.compressed, table.itertuples(), strict=True):
        setting = h1_setting(c, 2)
        rows.append({
            "variant": c.name,
            "top-1 (ours)": r.compressed_top1,
            "significant classes (ours)": f"{r.significant_classes} of {runs.num_classes}",
            "PIEs (ours)": f"{r.pie:,} of {len(runs.test):,}",
            "H1 ImageNet top-1": paper_number("top-1 (%)", dataset=IMAGENET,
                                               setting=setting) / 100,
            "H1 ImageNet significant classes (of 1,000)": paper_number(
                sig, dataset=IMAGENET, setting=setting),
            "H1 ImageNet PIEs (of 50,000)": paper_number("count PIEs", dataset=IMAGENET,
                                                          setting=setting),
            "H1 CIFAR-10 significant classes (of 10)": paper_number(
                sig, dataset="CIFAR-10 test", setting=setting),
        })
    return pd.DataFrame(rows)


def h1_pie_table(runs: ImpactRuns) -> pd.DataFrame:
    """H1 Table 6's layout on our data: per pruned level, the mean-member top-1 of the dense and
    the compressed population on the PIEs, the non-PIEs and all examples (H1's values are means
    over its models), beside H1's ImageNet values (NaN where H1 prints none)."""
    acc = pie_accuracy(runs)
    rows = []
    for c in runs.compressed:
        if c.kind != PRUNING:
            continue
        mine = acc[acc["variant"] == c.name]
        a = mine.set_index(["subset", "population"])["mean_member_accuracy"]
        setting = h1_setting(c, 6)
        row = {"variant": c.name, "PIEs": int(mine[mine["subset"] == "pie"]["n"].iloc[0])}
        for subset, label in (("pie", "PIEs"), ("non_pie", "non-PIEs"), ("all", "All")):
            row[f"dense on {label}"] = a[(subset, "baseline")]
            row[f"compressed on {label}"] = a[(subset, "compressed")]
            row[f"H1 ImageNet on {label}"] = paper_number(
                f"top-1 {label} (%)", dataset="ImageNet", setting=setting) / 100
        rows.append(row)
    return pd.DataFrame(rows)


def cie_table(
    runs: ImpactRuns, percentiles: Sequence[int] = audit.PERCENTILES, seed: int = 0
) -> pd.DataFrame:
    """H2's CIE accuracy layout: per variant and Taxicab top share, the mean-member top-1 of
    both populations on the CIEs (:func:`cie_accuracy`), beside H2's CelebA values at the same
    pruning level (NaN where H2 prints none)."""
    cies = cie_accuracy(runs, percentiles, seed)
    taxi = cies[cies["score"] == "taxicab"]
    wide = taxi.pivot_table(index=["variant", "level", "percentile", "n"], columns="population",
                            values="mean_member_accuracy", sort=False).reset_index()
    wide["H2 CelebA compressed"] = [
        paper_number(f"top-1 on Taxicab CIEs, {q}th pct (%)", dataset="CelebA test",
                      setting=f"t={100 * t:.1f}%") / 100 if t == t else float("nan")
        for t, q in zip(wide["level"], wide["percentile"], strict=True)
    ]
    wide["top share"] = [f"top {100 - q}%" for q in wide["percentile"]]
    return wide[["variant", "top share", "n", "baseline", "compressed", "H2 CelebA compressed"]]
