"""Study 5 (H1 section 4): robustness of dense vs pruned populations under distribution shift.

The populations are Study 4's (:func:`pruneaudit.runs.run_levels`: the same member specs, so a
store that holds Study 4's runs trains nothing here; independent seeds per level by default).
Each member is evaluated on the test set corrupted by every corruption of
:mod:`pruneaudit.data.corruptions` at every severity (:func:`pruneaudit.runs.run_corrupted`, one
seeded corruption draw shared by all members).

- :func:`accuracy_frame`: tidy top-1 of every member on the clean and the corrupted test sets;
- :func:`relative_robustness`: H1's metric per corruption and level, from the population-mean
  accuracy (:func:`pruneaudit.corruptions.relative_robustness`: the mean over severities of
  pruned / dense accuracy on the same corruption, and its relative change in %);
- :func:`most_hurt`: the corruptions ranked by that change at each level;
- :func:`natural_adversarial`: the analogue of ImageNet-A — the test examples that a separately
  trained dense *reference* population (other seeds) gets wrong (modal label wrong), and the
  accuracy of each population on them.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import altair as alt
import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from pruneaudit import audit, charts, data, runs
from pruneaudit.errors import PruneAuditError, check_choice
from pruneaudit.runs.populations import check_seeds, level_name, level_seeds
from pruneaudit.runs.store import ResultsStore, RunSpec

CLEAN = "clean"
IMAGENET = "ImageNet test set (as printed)"
SEVERITIES = (1, 2, 3, 4, 5)


def _check_grid(names: Sequence[str], severities: Sequence[int]) -> tuple[list[str], list[int]]:
    names = [check_choice("corruption", n, data.CORRUPTIONS) for n in dict.fromkeys(names)]
    sev = list(dict.fromkeys(severities))
    bad = [s for s in sev if isinstance(s, bool) or not isinstance(s, int) or not 1 <= s <= 5]
    if bad or not sev or not names:
        raise PruneAuditError(
            f"need at least one corruption and severities among 1..5; got corruptions {names} "
            f"and severities {list(severities)}"
        )
    return names, sev


@dataclass(frozen=True)
class RobustnessRuns:
    """Clean populations per level, the tidy accuracy frame, the reference population and the
    clean test data."""

    populations: dict[float, runs.Population]
    accuracy: pd.DataFrame
    reference: runs.Population | None
    test: data.ImageData | None = None


def _member_rows(
    pop: runs.Population, level: float, corruption: str, severity: int
) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "level": level,
            "seed": [s.seed for s in pop.specs],
            "sparsity": pop.sparsity,
            "corruption": corruption,
            "severity": severity,
            "accuracy": (pop.preds == pop.labels[None, :]).mean(axis=1),
        }
    )


def run(
    base: RunSpec,
    seeds: Iterable[int],
    levels: Iterable[float],
    store: ResultsStore,
    root: str | None = None,
    *,
    names: Sequence[str] = data.CORRUPTIONS,
    severities: Sequence[int] = SEVERITIES,
    corruption_seed: int = 0,
    reference_seeds: Iterable[int] | None = None,
    progress: bool = True,
    independent: bool = True,
) -> RobustnessRuns:
    """Train (or read) the populations, evaluate them on every corrupted test set, and train the
    reference population (dense, ``reference_seeds``, which must not overlap ``seeds``).

    Returns the clean populations per level (0.0 = dense), the tidy accuracy frame of
    :func:`accuracy_frame` and the reference population (None without ``reference_seeds``).
    """
    names, sev = _check_grid(names, severities)
    seeds = list(seeds)
    pops = runs.run_levels(base, seeds, levels, store, root, progress, independent)
    specs = [s for pop in pops.values() for s in pop.specs]
    level_of = np.repeat(list(pops), [len(p.specs) for p in pops.values()])
    parts = [_member_rows(p, t, CLEAN, 0) for t, p in pops.items()]
    grid = [(c, s) for c in names for s in sev]
    for corruption, severity in tqdm(grid, disable=not progress, desc="corrupted test sets"):
        shifted = runs.run_corrupted(
            specs, corruption, severity, store, root, seed=corruption_seed
        )
        for t in pops:
            rows = level_of == t
            sub = runs.Population(
                tuple(s for s, r in zip(shifted.specs, rows, strict=True) if r),
                shifted.preds[rows],
                shifted.labels,
                shifted.classes,
                shifted.sparsity[rows],
            )
            parts.append(_member_rows(sub, t, corruption, severity))
    reference = None
    if reference_seeds is not None:
        ref_seeds = list(reference_seeds)
        overlap = sorted(set(ref_seeds) & set(seeds))
        if overlap:
            raise PruneAuditError(
                f"the reference population must be trained on other seeds; seeds {overlap} "
                "are also population members"
            )
        ref_specs = runs.member_specs(base, runs.check_seeds(ref_seeds))
        reference = runs.run_population(ref_specs, store, root, progress)
    test = runs.splits(specs[0], root).test
    return RobustnessRuns(pops, pd.concat(parts, ignore_index=True), reference, test)


def accuracy_frame(runs: RobustnessRuns) -> pd.DataFrame:
    """Tidy member accuracies: level, seed, sparsity (measured), corruption (``"clean"`` for
    the clean test set, severity 0), severity, accuracy."""
    return runs.accuracy.copy()


def mean_accuracy(runs: RobustnessRuns) -> pd.DataFrame:
    """Population-mean accuracy (and its standard deviation over members) per level,
    corruption and severity; the clean test set is ``corruption = "clean"``, severity 0."""
    keys = ["level", "corruption", "severity"]
    out = (
        runs.accuracy.groupby(keys, sort=False)
        .agg(accuracy=("accuracy", "mean"), accuracy_sd=("accuracy", "std"),
             sparsity=("sparsity", "mean"), members=("seed", "size"))
        .reset_index()
    )
    out["level_name"] = [level_name(t) for t in out["level"]]
    return out


def accuracy_by_severity(runs: RobustnessRuns) -> pd.DataFrame:
    """Population-mean accuracy averaged over the corruptions, per level and severity
    (severity 0 = the clean test set). Columns: level, level_name, severity, accuracy."""
    means = mean_accuracy(runs)
    out = means.groupby(["level", "severity"], sort=True)["accuracy"].mean().reset_index()
    out["level_name"] = [level_name(t) for t in out["level"]]
    return out[["level", "level_name", "severity", "accuracy"]]


def corruption_examples(
    test: data.ImageData,
    index: int,
    names: Sequence[str] = data.CORRUPTIONS,
    severities: Sequence[int] = SEVERITIES,
    seed: int = 0,
    scale: int = 2,
) -> pd.DataFrame:
    """One test image under every corruption and severity, for a gallery (the draws of
    :func:`pruneaudit.corruptions.corrupt` with ``seed`` on that image alone).

    Columns: corruption, severity, image (PNG data URL), caption."""
    names, sev = _check_grid(names, severities)
    if not 0 <= index < len(test):
        raise PruneAuditError(f"index must be in 0..{len(test) - 1}, got {index}")
    one = test.images[index : index + 1]
    rows = [{"corruption": "clean", "severity": 0, "image": charts.image_data_url(
        one[0].numpy(), scale), "caption": "clean"}]
    for name in names:
        for s in sev:
            img = data.corrupt(one, name, s, seed=seed)[0].numpy()
            rows.append({"corruption": name, "severity": s,
                         "image": charts.image_data_url(img, scale), "caption": f"{name} {s}"})
    return pd.DataFrame(rows)


def relative_robustness(runs: RobustnessRuns) -> pd.DataFrame:
    """H1's relative robustness per corruption and pruning level, from population means.

    Columns: corruption, level, level_name, sparsity (measured, mean), severities,
    mean_ratio (mean over severities of pruned / dense accuracy), relative_change_pct,
    clean_change_pct (the same ratio on the clean test set, for reference).
    """
    means = mean_accuracy(runs)
    shifted = means[means["corruption"] != CLEAN]
    table = data.relative_robustness(
        shifted.rename(columns={"sparsity": "measured", "level": "sparsity"})[
            ["sparsity", "corruption", "severity", "accuracy"]
        ]
    ).rename(columns={"sparsity": "level"})
    clean = means[means["corruption"] == CLEAN].set_index("level")
    dense_clean = clean.loc[0.0, "accuracy"]
    table["clean_change_pct"] = [100 * (clean.loc[t, "accuracy"] / dense_clean - 1)
                                 for t in table["level"]]
    table["sparsity"] = [clean.loc[t, "sparsity"] for t in table["level"]]
    table["level_name"] = [level_name(t) for t in table["level"]]
    cols = ["corruption", "level", "level_name", "sparsity", "severities", "mean_ratio",
            "relative_change_pct", "clean_change_pct"]
    return table[cols].sort_values(["level", "relative_change_pct"], ignore_index=True)


def most_hurt(table: pd.DataFrame, top: int | None = None) -> pd.DataFrame:
    """Corruptions ranked per level by relative change (most negative first, rank 1), from
    :func:`relative_robustness`; ``top`` keeps the first ``top`` per level."""
    out = table.sort_values(["level", "relative_change_pct"], ignore_index=True)
    out["rank"] = out.groupby("level").cumcount() + 1
    return out if top is None else out[out["rank"] <= top].reset_index(drop=True)


def reference_wrong(runs: RobustnessRuns) -> np.ndarray:
    """Mask of the test examples whose reference-population modal label is wrong."""
    if runs.reference is None:
        raise PruneAuditError("no reference population: run with reference_seeds")
    ref = runs.reference
    k = int(max(ref.labels.max(), ref.preds.max())) + 1
    return audit.modal_labels(ref.preds, k) != ref.labels


def natural_adversarial(runs: RobustnessRuns) -> pd.DataFrame:
    """Accuracy of every population on the examples the reference population gets wrong, on
    the rest, and on all (:func:`pruneaudit.cie.subset_accuracy`), with each pruned level's
    relative change against the dense population on the same subset.

    Columns: subset, level, level_name, n, modal_accuracy, mean_member_accuracy,
    relative_change_pct (of the mean-member accuracy; 0 for dense).
    """
    wrong = reference_wrong(runs)
    pops = runs.populations
    y = pops[0.0].labels
    k = int(max(y.max(), *(p.preds.max() for p in pops.values()))) + 1
    table = audit.subset_accuracy(
        y,
        {t: p.preds for t, p in pops.items()},
        {"reference_wrong": wrong, "reference_right": ~wrong, "all": np.ones_like(wrong)},
        k,
    ).rename(columns={"population": "level"})
    dense = table[table["level"] == 0.0].set_index("subset")["mean_member_accuracy"]
    table["relative_change_pct"] = [
        100 * (a / dense[s] - 1) if dense[s] > 0 else float("nan")
        for s, a in zip(table["subset"], table["mean_member_accuracy"], strict=True)
    ]
    table["level_name"] = [level_name(t) for t in table["level"]]
    cols = ["subset", "level", "level_name", "n", "modal_accuracy", "mean_member_accuracy",
            "relative_change_pct"]
    return table[cols]




# --------------------------------------------------------------------------- findings

STUDY = "S5_robustness"
#: H1 prints its headline numbers at t = 90%: the findings use our pruning level nearest to it.
HEADLINE_LEVEL = 0.9
NATURAL = "natural_adversarial"
#: Our noise corruptions (H1: noise is worst at 90%).
NOISE = ("gaussian_noise", "shot_noise", "impulse_noise")
#: H1's ImageNet-C corruptions (Table 7 rows) and its noise ones.
H1_CORRUPTIONS = ("brightness", "contrast", "defocus_blur", "elastic", "fog",
                  "frosted_glass_blur", "gaussian_noise", "impulse_noise", "jpeg_compression",
                  "pixelate", "shot_noise", "zoom_blur")
H1_RELATIVE = "ImageNet-C top-1 normalized vs non-pruned (%)"
BASIS = ("Welch interval over the members (pruned vs dense population, {k} and {kd} models) of "
         "each member's top-1 divided by the dense population's mean, in %")


@functools.cache
def _lookup(study: str, metric: str, **columns: str) -> audit.Published:
    return audit.lookup(study, metric, **columns)


def _h1_relative(corruption: str, level: float) -> float:
    return _lookup(STUDY, H1_RELATIVE, dataset=f"ImageNet-C {corruption}",
                   setting=f"t={level}").number


def _h1_mean(level: float, names: Sequence[str] = H1_CORRUPTIONS) -> float:
    """Mean of H1's relative top-1 change (%) over ``names`` at ``level`` (0.7 or 0.9)."""
    return float(np.mean([_h1_relative(c, level) for c in names]))


def member_scores(accuracy: pd.DataFrame, corruptions: Sequence[str] | None = None) -> pd.Series:
    """Each member's top-1 averaged over ``corruptions`` (None: every corruption that is not
    clean nor natural-adversarial) and their severities: a Series indexed by (level, seed)."""
    if corruptions is None:
        rows = ~accuracy["corruption"].isin([CLEAN, NATURAL])
    else:
        rows = accuracy["corruption"].isin(list(corruptions))
    return accuracy[rows].groupby(["level", "seed"])["accuracy"].mean()


def _relative(scores: pd.Series, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Members' scores at ``level`` and at the dense level, each divided by the dense mean,
    in % (so that a difference of means is H1's relative change)."""
    dense = scores.loc[0.0].to_numpy(dtype=float)
    scale = 100 / dense.mean()
    return scores.loc[level].to_numpy(dtype=float) * scale, dense * scale


def findings_from_accuracy(
    accuracy: pd.DataFrame, headline: float | None = None
) -> list[audit.Finding]:
    """D5.1-D5.4 from the tidy member accuracies (:func:`accuracy_frame`, plus rows with
    ``corruption = "natural_adversarial"`` for the reference-wrong test examples).

    Each finding is a difference of population means of per-member relative top-1 (%), with
    its Welch interval over the members: D5.1 the relative change on the natural-adversarial
    examples at the headline level; D5.2 the relative change averaged over the corruptions (H1:
    the mean of its 12 ImageNet-C corruptions at 90%) and its part beyond the clean change
    (per member: corrupted minus clean relative top-1); D5.3 the relative change on the noise
    corruptions minus on the others; D5.4 the relative change at the headline level minus at
    the lowest pruned level (H1: at 90% minus at 70%).
    """
    levels = sorted(t for t in accuracy["level"].unique() if t > 0)
    if 0.0 not in set(accuracy["level"]) or not levels:
        raise PruneAuditError("the accuracy frame needs the dense level 0 and a pruned level")
    top = headline if headline is not None else min(
        levels, key=lambda t: (abs(t - HEADLINE_LEVEL), -t))
    present = set(accuracy["corruption"])
    shifted = sorted(present - {CLEAN, NATURAL})
    rows: list[audit.Finding] = []

    def welch(a: np.ndarray, b: np.ndarray, name: str, paper: float, source: str):
        diff, lo, hi = audit.welch_interval(a, b)
        return audit.finding(name, diff, lo, hi, paper, source=source,
                             basis=BASIS.format(k=len(a), kd=len(b)))

    nat = _lookup(STUDY, "ImageNet-A top-1 normalized vs non-pruned (%)",
                       dataset="ImageNet-A (7,500 images)", setting="t=90.0%")
    name = f"D5.1 natural-adversarial relative top-1 at {level_name(top)} (%)"
    if NATURAL in present:
        a, b = _relative(member_scores(accuracy, [NATURAL]), top)
        rows.append(welch(a, b, name, nat.number, nat.source))
    else:
        rows.append(audit.not_testable(name, nat.number, source=nat.source,
                                       why="no reference population (reference_seeds empty)"))
    if not shifted:
        raise PruneAuditError("the accuracy frame holds no corrupted test set")
    scores = member_scores(accuracy)
    a, b = _relative(scores, top)
    rows.append(welch(a, b, f"D5.2 relative top-1 under corruption at {level_name(top)} (%)",
                      _h1_mean(0.9), "H1 Table 7 (mean of 12 ImageNet-C corruptions, t = 90%)"))
    clean = member_scores(accuracy, [CLEAN])
    ca, cb = _relative(clean, top)
    h1_clean = 100 * (_lookup("S4_class_level_PIE_CIE", "top-1 (%)", dataset=IMAGENET,
                                   setting="t=90%").number / _lookup(
        "S4_class_level_PIE_CIE", "top-1 (%)", dataset=IMAGENET, setting="t=0%").number - 1)
    rows.append(welch(a - ca, b - cb, "D5.2 relative top-1 lost under corruption beyond the "
                      f"clean loss at {level_name(top)} (points)", _h1_mean(0.9) - h1_clean,
                      "H1 Table 7 minus Table 2 (t = 90%)"))
    noise = [c for c in shifted if c in NOISE]
    other = [c for c in shifted if c not in NOISE]
    name = f"D5.3 noise minus other corruptions, relative top-1 at {level_name(top)} (points)"
    paper = _h1_mean(0.9, NOISE) - _h1_mean(0.9, [c for c in H1_CORRUPTIONS if c not in NOISE])
    if noise and other:
        na, nb = _relative(member_scores(accuracy, noise), top)
        oa, ob = _relative(member_scores(accuracy, other), top)
        rows.append(welch(na - oa, nb - ob, name, paper, "H1 Table 7 (t = 90%)"))
    else:
        rows.append(audit.not_testable(name, paper, source="H1 Table 7",
                                       why="needs a noise and a non-noise corruption"))
    low = levels[0]
    name = (f"D5.4 relative top-1 under corruption, {level_name(top)} minus "
            f"{level_name(low)} (points)")
    paper = _h1_mean(0.9) - _h1_mean(0.7)
    if low < top:
        hi_rel, _ = _relative(scores, top)
        lo_rel, _ = _relative(scores, low)
        rows.append(welch(hi_rel, lo_rel, name, paper, "H1 Table 7 (t = 90% minus 70%)"))
    else:
        rows.append(audit.not_testable(name, paper, source="H1 Table 7",
                                       why="needs a pruned level below the headline level"))
    return rows


def natural_member_rows(runs: RobustnessRuns) -> pd.DataFrame:
    """Member accuracies on the examples the reference population gets wrong, as rows of the
    accuracy frame with ``corruption = "natural_adversarial"`` (severity 0)."""
    wrong = reference_wrong(runs)
    parts = []
    for t, pop in runs.populations.items():
        sub = (pop.preds[:, wrong] == pop.labels[None, wrong]).mean(axis=1)
        parts.append(pd.DataFrame({"level": t, "seed": [s.seed for s in pop.specs],
                                   "sparsity": pop.sparsity, "corruption": NATURAL,
                                   "severity": 0, "accuracy": sub}))
    return pd.concat(parts, ignore_index=True)


def findings(runs: RobustnessRuns) -> list[audit.Finding]:
    """D5.1-D5.4 of the study's populations (:func:`findings_from_accuracy`)."""
    frame = runs.accuracy
    if runs.reference is not None:
        frame = pd.concat([frame, natural_member_rows(runs)], ignore_index=True)
    return findings_from_accuracy(frame)


# --------------------------------------------------------------------------- page


def validate(params: Mapping[str, object]) -> None:
    """Check the page's parameters before any kernel starts or any model trains; one
    :class:`PruneAuditError` names every problem and its fix."""
    problems = []
    seeds = list(params.get("seeds", [0, 1]))
    reference = list(params.get("reference_seeds", []))
    checks = [
        lambda: check_seeds(seeds),
        lambda: runs.check_levels(params.get("levels", [0.5])),
        lambda: [level_seeds(seeds, t, bool(params.get("independent", True)))
                 for t in params.get("levels", [0.5])],
        lambda: _check_grid(params.get("corruption_names", ["contrast"]),
                            params.get("severities", [1])),
    ]
    if reference:
        checks.append(lambda: check_seeds(reference))
    for check in checks:
        try:
            check()
        except PruneAuditError as err:
            problems.append(str(err))
    overlap = sorted(set(seeds) & set(reference))
    if overlap:
        problems.append(f"reference_seeds must not overlap seeds (shared: {overlap})")
    index = params.get("example_index", 0)
    if isinstance(index, bool) or not isinstance(index, int) or index < 0:
        problems.append(f"example_index must be a non-negative integer, got {index!r}")
    if problems:
        raise PruneAuditError("bad Study 5 parameters: " + "; ".join(problems))


def protocol_table(runs_: RobustnessRuns, spec: RunSpec, independent: bool = True) -> pd.DataFrame:
    """H1 section 4's protocol beside this page's, one row per setting."""
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


def h1_corruption_table(table: pd.DataFrame) -> pd.DataFrame:
    """Our relative change per corruption at each pruned level (:func:`relative_robustness`)
    beside H1's ImageNet-C value for the same corruption at 70% and 90% (NaN where H1 has no
    such corruption)."""
    out = table.pivot_table(index="corruption", columns="level_name",
                            values="relative_change_pct", sort=False)
    for level in (0.7, 0.9):
        out[f"H1 ImageNet-C t = {level:g}"] = [
            _h1_relative(c, level) if c in H1_CORRUPTIONS else float("nan") for c in out.index
        ]
    return out.reset_index()


def corruption_explorer(runs_: RobustnessRuns) -> alt.LayerChart:
    """Population-mean top-1 against pruning level for one corruption and severity picked by
    two drop-downs (Vega-Lite parameters: works in the static page, no kernel)."""
    means = mean_accuracy(runs_)
    shifted = means[means["corruption"] != CLEAN].copy()
    clean = means[means["corruption"] == CLEAN][["level", "accuracy"]].rename(
        columns={"accuracy": "clean accuracy"})
    shifted = shifted.merge(clean, on="level")
    names = sorted(shifted["corruption"].unique())
    sev = sorted(shifted["severity"].unique())
    pick_c = alt.param(name="corruption_shown", value=names[0],
                       bind=alt.binding_select(options=names, name="corruption "))
    pick_s = alt.param(name="severity_shown", value=int(sev[-1]),
                       bind=alt.binding_select(options=[int(s) for s in sev], name="severity "))
    long = shifted.melt(id_vars=["level", "level_name", "corruption", "severity", "sparsity"],
                        value_vars=["accuracy", "clean accuracy"], var_name="test set",
                        value_name="top-1")
    long["test set"] = long["test set"].map({"accuracy": "corrupted", "clean accuracy": "clean"})
    base = (
        alt.Chart(long)
        .add_params(pick_c, pick_s)
        .transform_filter(f"datum.corruption == {pick_c.name}")
        .transform_filter(f"datum.severity == {pick_s.name}")
        .encode(
            x=alt.X("level:Q", title="pruning level t"),
            y=alt.Y("top-1:Q", title="population-mean top-1", scale=alt.Scale(zero=False)),
            color=alt.Color("test set:N"),
            tooltip=["level_name", "corruption", "severity", "test set",
                     alt.Tooltip("top-1:Q", format=".1%")],
        )
    )
    return alt.layer(base.mark_line(), base.mark_point(filled=True)).properties(
        width=420, height=260,
        title="Top-1 vs pruning level on one corrupted test set (pick corruption, severity)")


def key_figure(table: pd.DataFrame) -> alt.Chart:
    """The page's key figure: relative change (%) of pruned vs dense top-1 per corruption and
    level, from :func:`relative_robustness`, with the clean change as a rule."""
    bars = alt.Chart(table).mark_bar().encode(
        x=alt.X("relative_change_pct:Q", title="relative top-1 change vs dense (%)"),
        y=alt.Y("corruption:N", sort="x", title=None),
        color=alt.Color("level_name:N", title="population"),
        yOffset="level_name:N",
        tooltip=["corruption", "level_name", alt.Tooltip("relative_change_pct:Q", format=".2f"),
                 alt.Tooltip("clean_change_pct:Q", format=".2f")],
    )
    return bars.properties(width=420, height=22 * table["corruption"].nunique() * max(
        1, table["level_name"].nunique()) // 2 + 60,
        title="Pruned vs dense top-1 under each corruption (mean over severities)")
