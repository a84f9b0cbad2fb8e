"""Write the book's page *Pooled over builds* (``book/pooled.md``) from the committed builds.

Each folder ``<builds>/<build>`` holds one build's ``<notebook>.findings.json`` files, made from
its own seed set (``benchmarks/replication.py --recompute --save-builds``). For every row of a
paper's claim (kind ``same`` or ``analogue``) the page shows each build's estimate and interval
side by side (a forest plot, :mod:`pruneaudit.charts.forest`) and their pooled estimate
(:func:`pruneaudit.audit.pooled.pool`), the default build's own beside it. The package reads no
file under ``benchmarks/``: this command is given the folder of one profile's builds.

Usage::

    pruneaudit pooled BUILDS [--check]
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from pruneaudit.audit import pooled
from pruneaudit.audit.between_builds import json_builds
from pruneaudit.book.paths import BOOK, study_notebooks
from pruneaudit.charts import format as fmt
from pruneaudit.errors import PruneAuditError

PAGE = BOOK / "pooled.md"
#: How a unit is named in the table, and the factor that shows it.
UNIT_WORDS = {"percent": ("percent", 100.0), "points": ("percentage points", 100.0),
              "ratio": ("ratio", 1.0), "": ("as the row defines it", 1.0)}
PAPERS_SIDE = "paper's side"
#: A chart's element id as :func:`pruneaudit.charts.figures.chart_html` numbers it.
CHART_ID = re.compile(r"(pa-vega-[0-9a-f]+)-[0-9]+")
STUDY_TITLES = {"01_population_ols": "Study 1 — population fit (P)",
                "02_qmnist_writers": "Study 2 — QMNIST writers (P)",
                "03_pareto_selection": "Study 3 — Pareto selection (P)",
                "04_compression_impact": "Study 4 — class-level impact (H1, H2)",
                "05_robustness": "Study 5 — robustness (H1)"}


def declared_claims() -> dict[tuple[str, str], object]:
    """Every study's declared claims by ``(study, claim id)``."""
    from pruneaudit.studies.claims_log import all_claims

    return {(c.study, c.id): c for c in all_claims()}


def _short(study: str) -> str:
    return STUDY_TITLES.get(study, study).split(" — ")[0]


def side_of_null(row: object) -> str:
    """Where a pooled row's interval lies: ``paper's side``, ``other side``, ``crosses the
    null`` (or ``n/a`` without a pooled interval, a null or an expected side)."""
    low, high, null, side = row.pooled_low, row.pooled_high, row.null, row.side
    if not (math.isfinite(low) and math.isfinite(null)) or side not in (1, -1) or \
            row.equivalence:
        return fmt.MISSING
    if low > null or high < null:
        return PAPERS_SIDE if (low > null) == (side == 1) else "other side"
    return "crosses the null"


def _interval(value: float, low: float, high: float, scale: float) -> str:
    if not math.isfinite(value):
        return fmt.MISSING
    shown = fmt.same_precision([value, low, high], low, high, scale)
    return f"{shown[0]} [{shown[1]}, {shown[2]}]"


def table(frame: pd.DataFrame) -> str:
    """The page's table of pooled rows (those with a pooled estimate), in the frame's order."""
    lines = ["| row | kind | unit | builds pooled | pooled [95% interval] | how pooled | "
             "builds disagree (Q's p) | I² | pooled interval | default build [95% interval] |",
             "|---|---|---|---:|---|---|---:|---:|---|---|"]
    for row in frame[frame.pooled.notna()].itertuples(index=False):
        words, scale = UNIT_WORDS.get(row.unit, UNIT_WORDS[""])
        name = fmt.clean_text(str(row.finding)).replace("|", "\\|")
        cells = [name + (" (asymmetric intervals)" if row.asymmetric else ""), row.kinds,
                 words, str(row.builds), _interval(row.pooled, row.pooled_low,
                                                   row.pooled_high, scale),
                 row.model, fmt.pvalue(row.q_p), fmt.percent(row.i2, 0), side_of_null(row),
                 _interval(row.default, row.default_low, row.default_high, scale)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def answer(frame: pd.DataFrame, builds: list[str]) -> str:
    """The page's first paragraph, in plain words."""
    done = frame[frame.pooled.notna()]
    sides = [side_of_null(r) for r in done.itertuples(index=False)]
    inside = ((done.default >= done.pooled_low) & (done.default <= done.pooled_high)).sum()
    random = (done.model == pooled.RANDOM).sum()
    studies = ", ".join(_short(s) for s in dict.fromkeys(frame.study))
    absent = [_short(s) for s in study_notebooks() if s not in set(frame.study)]
    missing = (f" No build of this profile holds {', '.join(absent)}: "
               "it is not on this page." if absent else "")
    return (
        f"**Across {len(builds)} builds** of the quick profile, each trained from its own seeds, "
        f"{len(done)} rows of the papers' claims ({studies}) could be pooled. The pooled 95% "
        f"interval lies wholly on the side of the null the paper expects for "
        f"{sides.count(PAPERS_SIDE)} of them, on the other side for "
        f"{sides.count('other side')}, and crosses the null for "
        f"{sides.count('crosses the null')}. The builds disagree beyond their own intervals "
        f"(Cochran's Q, p < {pooled.HETEROGENEITY_P:.2f}) for {random} rows, pooled "
        f"with random effects. The default build's own estimate lies inside the pooled "
        f"interval for {inside} of the {len(done)}. A pooled estimate is not a verdict: the "
        "study pages judge each build against the paper's band; this page says how much the "
        "builds' seeds move each estimate and where their evidence, taken together, points."
        + missing
    )


def not_pooled(frame: pd.DataFrame) -> str:
    """The rows left unpooled and the builds left out, with why."""
    lines = []
    for row in frame[frame.pooled.isna()].itertuples(index=False):
        why = ("its estimate and interval are the same in every build: no seed changes it "
               "(one measurement, shown on its study page)" if row.model == pooled.SAME_EVERYWHERE
               else "fewer than two builds give it an interval of positive width")
        lines.append(f"- {fmt.clean_text(str(row.finding))}: {why}.")
    skipped = frame[frame.left_out > 0]
    for row in skipped.itertuples(index=False):
        lines.append(f"- {fmt.clean_text(str(row.finding))}: {row.left_out} build(s) left out of "
                     "its pool, their interval missing or of zero width (every unit the same).")
    if skipped.empty:
        lines.append("- No build of a pooled row has an interval of zero width or none: "
                     "none was left out (a build whose interval has zero width would be).")
    return "\n".join(lines)


METHOD = f"""
:::{{dropdown}} Method: standard errors, pooling, heterogeneity
Each build's 95% interval gives its standard error as (high − low) / (2 × 1.96). That is exact
for a normal interval. For a Student-$t$ interval on few degrees of freedom (the seeds' $t$ on 7,
a Welch interval on 4 to 8) it overstates the standard error by $t$ / 1.96 (about 1.2 on 7
degrees of freedom, 1.4 on 4), so such a build weighs less than it should and the pooled
interval is a little wide. For an asymmetric interval (percentile bootstrap, Clopper-Pearson, a
rank correlation near its bound of 1; marked *asymmetric intervals* in the table) the standard
error is a rough one, and a pooled interval of a bounded quantity can pass its bound.

The pooled estimate is the inverse-variance fixed effect, each build weighted by
1 / se², computed by statsmodels' `combine_effects`. Where Cochran's $Q$ (the weighted squared
distances of the builds from the fixed effect, on builds − 1 degrees of freedom) has a p-value
below {pooled.HETEROGENEITY_P:.2f} (the usual threshold for $Q$, whose power is low with
few builds) the builds disagree beyond their own intervals, and the DerSimonian-Laird random
effects estimate is used instead: it adds the between-build variance τ² to each build's and so
widens the interval. I² is the share of $Q$ beyond what sampling gives. τ² is truncated at 0 (with
it, random and fixed effects agree).

A build whose interval is missing or of zero width has no standard error and is left out of its
row's pool; a row whose estimate and interval are the same in every build is not pooled (no seed
moves it, so its builds are one measurement). The builds differ only in their seeds: they share
the training and test data. Where a row's interval also holds the sampling of test examples or
writers (a bootstrap over them), pooling shrinks a part of the uncertainty that no new seed
removes, and the pooled interval is then narrower than a replication on new data would give.
Computed by `pruneaudit.audit.pooled`; this page is written by
`pruneaudit pooled benchmarks/out/builds/quick`.
:::
"""


def charts(builds: pd.DataFrame, frame: pd.DataFrame) -> list[str]:
    """Per study, its heading and the forest plot of its pooled rows as raw HTML."""
    from pruneaudit.charts.figures import chart_html
    from pruneaudit.charts.forest import forest_chart

    forest = pooled.forest_frame(builds, frame[frame.pooled.notna()])
    out = []
    for study, rows in forest.groupby("study", sort=False):
        spec = fmt.readable_titles(forest_chart(rows).to_dict())
        # the chart's element id without the process's chart count: the same page every run
        html = CHART_ID.sub(rf"\1-{study}", chart_html(spec))
        out += [f"### {STUDY_TITLES.get(study, study)}", "",
                "```{raw} html", html, "```", ""]
    return out


def page(root: Path, claims: Mapping[tuple[str, str], object]) -> str:
    """The page's text from the builds under ``root`` (one folder per build)."""
    root = Path(root)
    if not root.is_dir():
        raise PruneAuditError(f"{root} is not a folder: pass one profile's builds "
                              "(benchmarks/out/builds/quick)")
    names = sorted(p.name for p in root.iterdir() if p.is_dir())
    builds = json_builds(root)
    if len(names) < 2 or builds.empty:
        raise PruneAuditError(f"{root} holds {len(names)} build(s) with findings: pooling "
                              "needs at least two")
    frame = pooled.pool(builds, claims)
    return "\n".join([
        "# Pooled over builds", "", answer(frame, names), "",
        "## The pooled estimates", "",
        f"Builds: {', '.join(names)} (the folder's name is its seed set; *default* is the "
        "profile's own seeds). Numbers in each row's unit; *pooled interval*: where the pooled "
        "interval lies against the row's null (n/a for a claim of no difference or one without "
        "a side).", "", table(frame), "",
        "## Rows not pooled, builds left out", "", not_pooled(frame), "",
        "## Every build, side by side", "",
        "Each panel is one row: each build's estimate and 95% interval (the default build "
        "first), the pooled estimate last; the dashed line is the row's null.", "",
        *charts(builds, frame), "## Method", METHOD,
    ])


def write_page(builds: str | Path, check: bool = False) -> int:
    """``pruneaudit pooled``: write the page from one profile's ``builds`` (or, with ``check``,
    compare it); the exit status, 1 where the committed one differs."""
    text = page(Path(builds), declared_claims())
    if check:
        stale = not PAGE.is_file() or PAGE.read_text() != text
        print(f"{PAGE} is out of date: run pruneaudit pooled {builds}" if stale
              else "up to date")
        return 1 if stale else 0
    PAGE.write_text(text)
    print(f"wrote {PAGE}")
    return 0
