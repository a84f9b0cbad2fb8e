"""Study 4's rows that papers print but this page cannot test: H1's other datasets and the
claims that need CelebA images or H1's human study, each with its reason."""

from __future__ import annotations

from pruneaudit import audit
from pruneaudit.studies.compression_impact.tables import lookup


def other_datasets() -> list[audit.Finding]:
    """H1's D4.5 values on CIFAR-10 and CelebA at t = 90%: comparators, not tests here."""
    out = []
    for dataset in ("CIFAR-10", "CelebA"):
        pie = lookup("top-1 PIEs (%)", dataset=dataset, setting="t=90.0%")
        everything = lookup("top-1 All (%)", dataset=dataset, setting="t=90.0%")
        out.append(audit.not_testable(
            f"D4.5 on {dataset} (H1, another dataset)", (pie.number - everything.number) / 100,
            source=pie.source, unit="points",
            why=f"H1's raw {dataset} gap, beside ImageNet's in the D4.5 row above; no "
            f"{dataset} images offline",
            definition=f"dense top-1 on PIEs minus on all: {pie.value} - {everything.value}"))
    return out


def not_testable_here() -> list[audit.Finding]:
    """D4.7 (no number, too few classes), D4.8 (H1's human study) and D4.9 on CelebA."""
    human = lookup("share with attribute: ground truth label incorrect or inadequate",
                   dataset="ImageNet (1230 images)", setting="PIE")
    return [
        audit.not_testable("D4.7 significant decreases fewer but larger than increases", None,
                           source="H1; Sec. 3 (qualitative)",
                           why="H1 states it without a number, and 10 digit classes give too "
                           "few significant ones to compare counts and sizes; the class table "
                           "below shows ours",
                           definition="among significant classes, the count and mean size of "
                           "recall decreases vs increases"),
        audit.not_testable("D4.8 PIEs over-index on incorrect labels (human study)",
                           human.number, source=human.source, unit="percent",
                           why="needs H1's human annotation of ImageNet PIEs (85 raters)",
                           definition="share of PIEs raters judged wrongly labelled; H1: "
                           "20.05% vs 8.90% of non-PIEs"),
        audit.not_testable("D4.9 CelebA sub-group error and FPR rise (Male, Old)", None,
                           source="H2; Table 3",
                           why="CelebA images are absent offline (attributes only); the writer "
                           "series analogue follows",
                           definition="(95%-pruned - dense FPR) / dense FPR per CelebA group; "
                           "H2: Male +49.54% vs not Male +6.32%"),
    ]


def celeba_over_index() -> audit.Finding:
    """D4.11 on CelebA (H2's Blond Male share): no CelebA images offline."""
    blond = lookup("share of training set: Blond Male")
    return audit.not_testable(
        "D4.11 under-represented CelebA attributes over-index in CIEs", blond.number,
        source=f"{blond.source} (Blond Male share)", unit="percent",
        why="CelebA images are absent offline; the writer series analogue follows",
        definition="a group's share of the Taxicab CIEs vs of the training set; H2: Blond Male "
        "is 0.85% of the training set")
