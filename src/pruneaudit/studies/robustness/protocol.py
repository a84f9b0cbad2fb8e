"""Study 5's protocol beside H1's (section 4): :func:`protocol_table`."""

from __future__ import annotations

import pandas as pd

from .frames import CLEAN
from .run import Result


def protocol_table(result: Result) -> pd.DataFrame:
    """H1 section 4's protocol beside this page's, one row per setting."""
    spec, independent = result.populations.spec, result.populations.independent
    runs_ = result.runs
    pops = runs_.populations
    k = len(pops[0.0].specs)
    names = sorted(set(runs_.accuracy["corruption"]) - {CLEAN})
    sev = sorted(set(runs_.accuracy["severity"]) - {0})
    n_models = sum(len(p.specs) for p in pops.values())
    ref = runs_.reference
    rows = [
        ("task", "ImageNet / ResNet-50", f"{spec.dataset} / {spec.model} (Study 4's "
         "populations)"),
        ("models", "dense and pruned ResNet-50 populations",
         f"K = {k} per level; levels " + ", ".join(f"{t:g}" for t in pops)),
        ("populations", "trained separately per level",
         "independent: each level its own seeds" if independent
         else "shared seeds (paired members)"),
        ("corruptions", "ImageNet-C (Hendrycks & Dietterich), 5 severities",
         f"{len(names)} of pruneaudit's digit corruptions (MNIST-C style), severities "
         + ", ".join(map(str, sev))),
        ("natural adversarial", "ImageNet-A",
         "none" if ref is None else f"test digits a dense reference population (K = "
         f"{len(ref.specs)}, other seeds) gets wrong (modal label)"),
        ("metric", "pruned top-1 / dense top-1 per corruption, mean over severities, in %",
         "the same, per member, with a Welch interval over the members"),
        ("evaluations", "-", f"{n_models} models x {len(names) * len(sev)} corrupted test "
         f"sets = {n_models * len(names) * len(sev):,}"),
    ]
    return pd.DataFrame(rows, columns=["setting", "published (H1 sec. 4)", "this page"]
                        ).set_index("setting")
