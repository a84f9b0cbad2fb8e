"""What the front page says first, saved by Study 4's page: its numbers and a strip of real
example digits from the build (the digits the pruned models forget, beside ordinary ones).

:func:`front_facts` reads them off Study 4's result at the pruned level nearest H1's 90%
(:func:`pruneaudit.studies.compression_impact.tables.headline_variant`) with Study 4's own
functions; :func:`save` writes them as ``<page_dir>/<notebook>.front.json``, which
:mod:`pruneaudit.book.report.front` reads (:func:`read_facts`). Nothing here is written by hand.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

import numpy as np

#: The examples of each kind in the strip.
STRIP = 6
#: The file :func:`save` writes beside the executed notebook.
SUFFIX = ".front.json"
#: The plain words of each quantization scheme (the front page's sentence).
SCHEME_SAID = {"float16": "16-bit numbers", "dynamic_int8": "8-bit integers",
               "static_int8": "8-bit integers"}


def _mean_member(acc, subset: str, population: str) -> float:
    rows = acc[(acc["subset"] == subset) & (acc["population"] == population)]
    return float(rows["mean_member_accuracy"].iloc[0])


def _name(classes, label) -> str:
    """A class's short name: ``7 - seven`` -> ``7``."""
    return str(classes[int(label)]).split(" - ")[0]


def _strip(result, name: str, count: int) -> tuple[list[dict], list[dict]]:
    """Up to ``count`` forgotten digits (the dense population right, the pruned one wrong;
    highest disagreement first) and, for each, an ordinary test digit that both populations
    get right: of the same class where there is one (the first by test index), else of any."""
    from pruneaudit import charts
    from pruneaudit.audit import exemplars
    from pruneaudit.studies.compression_impact.tables import PIE_CATEGORIES, pie_examples

    runs = result.runs
    frame = pie_examples(runs, name, per_category=count, scale=2)
    forgot = frame[frame["category"] == PIE_CATEGORIES[0]].head(count)
    classes = runs.test.classes
    images = runs.test.images.numpy()
    labels = runs.baseline.labels
    k = runs.num_classes
    both = ((exemplars.modal_labels(runs.baseline.preds, k) == labels)
            & (exemplars.modal_labels(runs.get(name).population.preds, k) == labels))
    forgotten, ordinary, used = [], [], set()
    for _, row in forgot.iterrows():
        true, said = _name(classes, row["label"]), _name(classes, row["compressed_label"])
        forgotten.append({"image": row["image"], "caption": f"a {true}, read as {said}"})
        same = [i for i in np.flatnonzero(both & (labels == row["label"])) if i not in used]
        pool = same or [i for i in np.flatnonzero(both) if i not in used]
        if pool:
            used.add(int(pool[0]))
            kept = _name(classes, labels[pool[0]])
            ordinary.append({"image": charts.image_data_url(images[pool[0]], scale=2),
                             "caption": f"a {kept}, kept"})
    return forgotten, ordinary


def front_facts(result, count: int = STRIP) -> dict:
    """The front page's numbers and strip from Study 4's ``result``: the pruned level's
    sparsity, the change of the members' mean top-1 (points), the PIEs' count and share, the
    dense and pruned members' mean top-1 on the PIEs, each quantization scheme's top-1 change
    and PIE share, and the strip (:func:`_strip`)."""
    from pruneaudit.studies.compression_impact.run import QUANTIZATION
    from pruneaudit.studies.compression_impact.tables import (
        headline_variant,
        pie_accuracy,
        summary,
    )

    runs = result.runs
    top = headline_variant(runs)
    table = summary(runs, result.params.alpha).set_index("variant")
    acc = pie_accuracy(runs)
    mine = acc[acc["variant"] == top.name]
    forgotten, ordinary = _strip(result, top.name, count)
    quantized = [
        {"scheme": c.scheme, "said": SCHEME_SAID.get(str(c.scheme), str(c.scheme)),
         "top1_change_points": 100 * float(table.loc[c.name, "top1_change"]),
         "pie_share": float(table.loc[c.name, "pie_share"])}
        for c in runs.compressed if c.kind == QUANTIZATION
    ]
    return {
        "sparsity": float(table.loc[top.name, "sparsity"]),
        "top1_change_points": 100 * float(table.loc[top.name, "top1_change"]),
        "dense_top1": float(table.loc[top.name, "baseline_top1"]),
        "pies": int(table.loc[top.name, "pie"]),
        "pie_share": float(table.loc[top.name, "pie_share"]),
        "test_digits": int(runs.baseline.labels.size),
        "dense_on_pies": _mean_member(mine, "pie", "baseline"),
        "pruned_on_pies": _mean_member(mine, "pie", "compressed"),
        "quantized": quantized,
        "forgotten": forgotten,
        "ordinary": ordinary,
    }


def save(page, result, count: int = STRIP) -> Path | None:
    """Write :func:`front_facts` of ``result`` as ``<page_dir>/<notebook>.front.json`` when the
    page is built (``page.page_dir`` set); return its path, else None."""
    if page.page_dir is None or page.notebook is None:
        return None
    path = Path(page.page_dir) / f"{page.notebook}{SUFFIX}"
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(front_facts(result, count), indent=1) + "\n")
    os.replace(tmp, path)
    return path


def read_facts(studies_dir: str | os.PathLike) -> Mapping[str, object] | None:
    """The first ``*.front.json`` of ``studies_dir`` (None without one)."""
    found = sorted(Path(studies_dir).glob(f"*{SUFFIX}"))
    return json.loads(found[0].read_text()) if found else None


__all__ = ["front_facts", "save", "read_facts", "STRIP", "SUFFIX", "SCHEME_SAID"]
