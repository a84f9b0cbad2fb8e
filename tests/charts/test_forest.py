"""The forest plot (:mod:`pruneaudit.charts.forest`): one panel per claim on its own unit, text of
at least 12 px, Okabe-Ito colours with a shape per source, the null drawn only where known."""

from __future__ import annotations

import math

import pandas as pd
import pytest
import vl_convert

from pruneaudit.charts import forest
from pruneaudit.errors import PruneAuditError


def _frame() -> pd.DataFrame:
    rows = []
    for claim, unit, null in (("D2.1", "points", 0.0), ("D5.1 trend", "ratio", math.nan)):
        for build, source, est in (("default", "default build", -0.2),
                                   ("other", "other build", -0.1),
                                   ("pooled (fixed effect)", "pooled", -0.15)):
            rows.append({"study": "02_a", "claim": claim, "finding": f"{claim} a long name",
                         "unit": unit, "build": build, "source": source, "estimate": est,
                         "low": est - 0.05, "high": est + 0.05, "null": null})
    return pd.DataFrame(rows)


def test_each_claim_is_a_panel_on_its_own_unit_with_readable_text() -> None:
    spec = forest.forest_chart(_frame()).to_dict()
    panels = spec["vconcat"]
    assert len(panels) == 2
    first, second = panels
    # points shown x100 with their unit in words; the null drawn only where the claim has one
    assert len(first["layer"]) == 3 and len(second["layer"]) == 2
    titles = [layer["encoding"]["x"]["title"] for layer in first["layer"][1:]]
    assert titles == ["estimate (percentage points)"] * 2
    assert second["layer"][0]["encoding"]["x"]["title"] == "estimate (ratio, no unit)"
    data = spec["datasets"]
    assert any(math.isclose(r["estimate"], -20.0) for rows in data.values() for r in rows
               if r.get("claim") == "D2.1")
    config = spec["config"]
    sizes = [config["axis"]["labelFontSize"], config["axis"]["titleFontSize"],
             config["legend"]["labelFontSize"], config["legend"]["titleFontSize"],
             config["title"]["fontSize"]]
    assert min(sizes) >= 12
    colour = first["layer"][2]["encoding"]["color"]["scale"]
    assert colour["range"] == ["#E69F00", "#0072B2", "#D55E00"]  # Okabe-Ito
    shape = first["layer"][2]["encoding"]["shape"]["scale"]["range"]
    assert len(set(shape)) == 3  # a shape per source, not colour alone
    vl_convert.vegalite_to_svg(spec)  # valid Vega-Lite


def test_an_unknown_source_or_a_missing_column_is_named() -> None:
    with pytest.raises(PruneAuditError, match="unknown source"):
        forest.forest_chart(_frame().assign(source="mystery"))
    with pytest.raises(PruneAuditError, match="null"):
        forest.forest_chart(_frame().drop(columns="null"))
