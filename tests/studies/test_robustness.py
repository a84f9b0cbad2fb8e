"""Study 5 pipeline: relative robustness and the reference-error subset on hand-made numbers,
and one tiny run through the store."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from chart_style import check

from pruneaudit import audit, data, training
from pruneaudit import runs as runs_module
from pruneaudit.errors import PruneAuditError
from pruneaudit.runs import ResultsStore, RunSpec, populations
from pruneaudit.studies import robustness as robust
from pruneaudit.studies.compression_impact.params import Populations
from pruneaudit.studies.robustness.findings import (
    H1_CORRUPTIONS,
    findings_from_accuracy,
    h1_relative,
    headline_level,
    runs_findings,
)
from pruneaudit.studies.robustness.frames import (
    CLEAN,
    RobustnessRuns,
    accuracy_by_severity,
    corruption_examples,
    mean_accuracy,
    most_hurt,
    natural_adversarial,
    relative_robustness,
)
from pruneaudit.studies.robustness.frames import reference_wrong as robust_reference_wrong
from pruneaudit.studies.robustness.params import check_grid
from pruneaudit.studies.robustness.tables import h1_corruption_table
from pruneaudit.studies.robustness.views import (
    corruption_explorer,
    corruption_table_view,
    examples_view,
    natural_view,
    protocol_view,
    severity_view,
)

Y = np.array([0, 1, 2, 0, 1])


def _rows(level, corruption, severity, accs):
    return [
        {"level": level, "seed": k, "sparsity": level, "corruption": corruption,
         "severity": severity, "accuracy": a}
        for k, a in enumerate(accs)
    ]


def _spec(**kwargs) -> RunSpec:
    fields = {"epochs": 1, "lr": 0.01, "batch_size": 32, "augment": True, **kwargs}
    return RunSpec("qmnist", "lenet", **fields)


def _population(preds, level=0.0, seeds=None):
    base = _spec(train_size=100, test_size=5)
    seeds = range(len(preds)) if seeds is None else seeds
    specs = tuple(populations.member_specs(base, seeds, level))
    return populations.Population(specs, np.asarray(preds), Y, pd.DataFrame(),
                                  np.full(len(preds), level))


@pytest.fixture()
def runs() -> RobustnessRuns:
    rows = (
        _rows(0.0, CLEAN, 0, [0.9, 1.0])
        + _rows(0.5, CLEAN, 0, [0.95, 0.95])
        + _rows(0.9, CLEAN, 0, [0.9, 0.8])
        # dense: 0.8 and 0.5 at severities 1, 2
        + _rows(0.0, "fog", 1, [0.7, 0.9]) + _rows(0.0, "fog", 2, [0.5, 0.5])
        + _rows(0.5, "fog", 1, [0.8, 0.8]) + _rows(0.5, "fog", 2, [0.5, 0.5])
        + _rows(0.9, "fog", 1, [0.4, 0.4]) + _rows(0.9, "fog", 2, [0.5, 0.5])
        + _rows(0.0, "rotate", 1, [0.5, 0.5]) + _rows(0.0, "rotate", 2, [0.4, 0.4])
        + _rows(0.5, "rotate", 1, [0.5, 0.5]) + _rows(0.5, "rotate", 2, [0.2, 0.2])
        + _rows(0.9, "rotate", 1, [0.25, 0.25]) + _rows(0.9, "rotate", 2, [0.2, 0.2])
    )
    # reference (3 members) modal labels [0, 2, 2, 1, 1]: wrong on examples 1 and 3
    reference = _population([[0, 2, 2, 1, 1], [0, 2, 2, 1, 0], [1, 1, 2, 1, 1]], seeds=[7, 8, 9])
    pops = {
        0.0: _population([[0, 1, 2, 0, 1], [0, 1, 2, 1, 1]]),  # ref-wrong {1,3}: 3 of 4 right
        0.5: _population([[0, 1, 2, 1, 1], [0, 1, 2, 1, 1]], 0.5),  # 2 of 4
        0.9: _population([[0, 2, 2, 1, 1], [0, 2, 2, 1, 1]], 0.9),  # 0 of 4
    }
    return RobustnessRuns(pops, pd.DataFrame(rows), reference)


def test_relative_robustness_hand_computed(runs):
    table = relative_robustness(runs).set_index(["level", "corruption"])
    # fog at 0.9: ratios 0.4/0.8 = 0.5 and 0.5/0.5 = 1 -> mean 0.75 -> -25 %
    assert table.loc[(0.9, "fog"), "mean_ratio"] == pytest.approx(0.75)
    assert table.loc[(0.9, "fog"), "relative_change_pct"] == pytest.approx(-25.0)
    # rotate at 0.5: 1 and 0.5 -> -25 %; at 0.9: 0.5 and 0.5 -> -50 %
    assert table.loc[(0.5, "rotate"), "relative_change_pct"] == pytest.approx(-25.0)
    assert table.loc[(0.9, "rotate"), "relative_change_pct"] == pytest.approx(-50.0)
    # clean: dense 0.95, 0.5 -> 0.95 (0 %), 0.9 -> 0.85
    assert table.loc[(0.9, "fog"), "clean_change_pct"] == pytest.approx(100 * (0.85 / 0.95 - 1))
    assert table.loc[(0.5, "fog"), "clean_change_pct"] == pytest.approx(0.0)


def test_most_hurt_ranks_most_negative_first(runs):
    ranked = most_hurt(relative_robustness(runs), top=1)
    assert list(ranked["corruption"]) == ["rotate", "rotate"]
    assert list(ranked["rank"]) == [1, 1]


def test_mean_accuracy_averages_members(runs):
    means = mean_accuracy(runs).set_index(["level", "corruption", "severity"])
    assert means.loc[(0.0, "fog", 1), "accuracy"] == pytest.approx(0.8)
    assert means.loc[(0.0, "fog", 1), "members"] == 2
    assert means.loc[(0.9, CLEAN, 0), "level_name"] == "pruned 90%"


def test_accuracy_by_severity_averages_corruptions(runs):
    table = accuracy_by_severity(runs).set_index(["level", "severity"])
    assert table.loc[(0.0, 1), "accuracy"] == pytest.approx((0.8 + 0.5) / 2)
    assert table.loc[(0.9, 0), "accuracy"] == pytest.approx(0.85)


def test_corruption_examples(data_root):
    test = data.load("qmnist", "test", root=str(data_root)).subset(np.arange(3))
    frame = corruption_examples(test, 1, ["fog", "rotate"], [1, 5])
    assert len(frame) == 1 + 2 * 2
    assert frame["image"].str.startswith("data:image/png;base64,").all()
    assert frame.iloc[0]["caption"] == "clean"
    with pytest.raises(PruneAuditError, match="index must be in 0..2"):
        corruption_examples(test, 3, ["fog"], [1])
    # Figure 2: the drop-down names the corruption, each caption its severity
    page = SimpleNamespace(params=_params(example_index=1), runs=SimpleNamespace(test=test))
    spec = check(examples_view(page))[0]
    captions = [row["caption"] for row in next(iter(spec["datasets"].values()))]
    assert captions == ["clean", "severity 1", "severity 2", "severity 1", "severity 2"]


def test_natural_adversarial_subset(runs):
    np.testing.assert_array_equal(robust_reference_wrong(runs), [False, True, False, True, False])
    table = natural_adversarial(runs).set_index(["subset", "level"])
    assert table.loc[("reference_wrong", 0.0), "n"] == 2
    assert table.loc[("reference_wrong", 0.0), "mean_member_accuracy"] == pytest.approx(0.75)
    assert table.loc[("reference_wrong", 0.5), "mean_member_accuracy"] == pytest.approx(0.5)
    assert table.loc[("reference_wrong", 0.9), "relative_change_pct"] == pytest.approx(-100.0)
    assert table.loc[("reference_wrong", 0.0), "relative_change_pct"] == 0.0


def _by_name(rows) -> dict:
    return {r.finding.split(" at ")[0].split(",")[0]: r for r in rows}


def test_findings_hand_computed(runs):
    rows = _by_name(runs_findings(runs, n_boot=99))
    assert {k.split(" ")[0] for k in rows} == {"D5.1", "D5.2", "D5.3", "D5.4"}
    # D5.1: reference-wrong top-1 per member, dense [1, 0.5] (mean 0.75), pruned 90% [0, 0]
    d51 = rows["D5.1 natural-adversarial relative top-1"]
    assert d51.ours == pytest.approx(-1.0) and d51.paper is None  # direction only
    assert "direction only" in d51.basis and "-59.80%" in d51.definition and not d51.size
    assert d51.ci_low >= -1  # on the log-ratio scale: never below -100%
    assert d51.unit == "percent" and d51.definition
    # trend: population means on those digits 0.75, 0.5, 0 at levels 0, 0.5, 0.9: rho = -1
    assert rows["D5.1 trend: natural-adversarial top-1 falls with sparsity"].ours == -1.0
    # D5.2: member means over fog/rotate and severities: dense [0.525, 0.575] (mean 0.55),
    # pruned 90% [0.3375, 0.3375]: 0.3375 / 0.55 - 1, Welch df of a constant and a 2-sample
    d52 = rows["D5.2 relative top-1 under corruption"]
    assert d52.ours == pytest.approx(0.3375 / 0.55 - 1)
    raw = audit.welch_interval(np.full(2, 0.3375 / 0.55), np.array([0.525, 0.575]) / 0.55)
    assert (d52.ci_low, d52.ci_high) == pytest.approx(
        audit.bounded_interval(*raw, "relative")[1:])
    assert -1 < d52.ci_low < d52.ours < d52.ci_high and "log-ratio" in d52.basis
    assert "df 1.0" in d52.basis and d52.source == "H1; App. Table 3"
    # fog: 0.45 vs dense 0.65; rotate: 0.225 vs 0.45: both lose at 90%
    assert rows["D5.2 share of corruptions that lose top-1"].ours == 1.0
    assert rows["D5.2 share of corruptions that lose more"].verdict == audit.NOT_TESTABLE
    # no noise corruption here: D5.3 cannot be tested; no 70% population: nor D5.4
    assert rows["D5.3 noise minus other corruptions"].verdict == audit.NOT_TESTABLE
    assert rows["D5.4 relative top-1 under corruption"].verdict == audit.NOT_TESTABLE


#: The words an analogue's verdict may use (direction only: H1's quantity on another task).
ANALOGUE_VERDICTS = (audit.SAME_DIRECTION, audit.OPPOSITE, audit.EFFECT_ABSENT,
                     audit.INCONCLUSIVE)


def test_every_row_is_an_analogue_without_band_or_size(runs):
    """LeNet on digits, corruptions and severities of our own, a ratio of pooled means: every
    row is H1's quantity carried to another task, so it says a direction, never a size."""
    frame = runs.accuracy.replace({"level": {0.5: 0.7}})
    ref = _by_name(runs_findings(runs, n_boot=99))
    for rows in (list(ref.values()), findings_from_accuracy(frame, n_boot=99)):
        for row in rows:
            assert row.comparability == "analogue", row.finding
            assert row.claim in robust.claims(), row.claim
            assert row.paper_band is None and row.size == "" and row.margin is None, row.finding
            assert row.verdict in (*ANALOGUE_VERDICTS, audit.NOT_TESTABLE), row
    assert "8 of our" in robust.claims()["D5.2"].why
    # H1's value is shown beside ours wherever H1 prints one for our quantity (D5.1: no value,
    # ImageNet-A's near-zero base); the margin is the negligible band that makes "absent"
    assert ref["D5.2 relative top-1 under corruption"].paper == pytest.approx(
        np.mean([h1_relative(c, 0.9) for c in H1_CORRUPTIONS]))
    assert [c.id for c in robust.claims().values() if c.headline] == ["D5.1", "D5.2"]
    claim = robust.claims()["D5.3"]
    assert audit.judge(claim, audit.Estimate(-0.01, -0.08, 0.01, "x")).verdict == \
        audit.INCONCLUSIVE
    assert audit.judge(claim, audit.Estimate(-0.01, -0.03, 0.01, "x")).verdict == \
        audit.EFFECT_ABSENT  # inside the 6-point negligible band
    assert audit.judge(claim, audit.Estimate(-0.5, -0.6, -0.4, "x")).verdict == \
        audit.SAME_DIRECTION  # far beyond H1's size: still no size verdict


def test_d54_compares_90_with_70_percent(runs):
    frame = runs.accuracy.replace({"level": {0.5: 0.7}})
    rows = _by_name(findings_from_accuracy(frame, n_boot=99))
    # pruned 90% minus pruned 70% ([0.5, 0.5] member means over the corruptions), over dense
    d54 = rows["D5.4 relative top-1 under corruption"]
    assert d54.ours == pytest.approx((0.3375 - 0.5) / 0.55)
    h1 = [h1_relative(c, 0.9) - h1_relative(c, 0.7) for c in H1_CORRUPTIONS]
    assert d54.paper == pytest.approx(np.mean(h1))
    assert d54.claim == "D5.4" and d54.comparability == "analogue" and d54.paper_band is None
    # fog 0.45 < 0.65 at 70%, rotate 0.225 < 0.35: every corruption loses more at 90%
    assert rows["D5.2 share of corruptions that lose more"].ours == 1.0


def test_bad_inputs(runs):
    with pytest.raises(PruneAuditError, match="unknown corruption"):
        check_grid(["fogg"], [1])
    with pytest.raises(PruneAuditError, match="severities among 1..5"):
        check_grid(["fog"], [6])
    no_ref = RobustnessRuns(runs.populations, runs.accuracy, None)
    with pytest.raises(PruneAuditError, match="reference_seeds"):
        natural_adversarial(no_ref)


def _params(**changes) -> robust.Params:
    values = {"members": 2, "levels": (0.9,), "corruption_names": ("fog", "rotate"),
              "severities": (1, 2), "corruption_seed": 0, "reference_seeds": (7, 8, 9),
              "n_boot": 99, "example_index": 0}
    return robust.Params(**{**values, **changes})


def test_tiny_run_reuses_study4_populations(data_root, tmp_path, monkeypatch, impact_params):
    base = _spec(train_size=320, test_size=120)
    store = ResultsStore(tmp_path)
    runs_module.run_levels(base, [0, 1], [0.5], store, str(data_root), progress=False)
    study4 = impact_params(levels=(0.5, 0.9), train_size=320, test_size=120)
    params = _params(levels=[0.5], severities=[1, 5], reference_seeds=[5, 6],
                     data_root=str(data_root), study4=study4)
    assert params.populations() == Populations(base, (0, 1, 2), (0.5, 0.9)).subset(
        2, [0.5])
    trained = []
    real = training.train_packed

    def counting(parts, **kwargs):
        trained.append(sum(len(p.models) for p in parts))
        return real(parts, **kwargs)

    monkeypatch.setattr(training, "train_packed", counting)
    with pytest.raises(PruneAuditError, match="other seeds"):
        _params(levels=[0.5], reference_seeds=[1, 2], study4=study4)
    result = robust.run(params, store, progress=False)
    assert trained == [2]  # only the reference population was trained
    assert result.params is params and result.populations == params.populations()
    examples_view(result).to_dict()  # the page's test digit under its corruptions
    runs = result.runs
    assert len(runs.test) == 120
    frame = runs.accuracy
    assert len(frame) == 2 * 2 * (1 + 2 * 2)
    assert frame["accuracy"].between(0, 1).all()
    table = relative_robustness(runs)
    assert set(table["corruption"]) == {"fog", "rotate"}
    assert list(table["severities"].unique()) == [2]
    pd.testing.assert_frame_equal(result.relative, table)
    protocol = robust.protocol_table(result)
    assert "K = 2 per level" in protocol.loc["models", "this page"]
    assert "K = 2, other seeds" in protocol.loc["natural adversarial", "this page"]


def test_params_name_every_broken_rule_once(impact_params):
    assert _params(levels=[0.5, 0.9]).levels == (0.5, 0.9)  # lists are frozen
    with pytest.raises(PruneAuditError) as err:
        _params(members=1, levels=(1.5,), corruption_names=("fogg",), reference_seeds=(3, 3),
                n_boot=0, example_index=-1)
    text = str(err.value)
    assert text.startswith("bad Study 5 parameters: ")
    for fragment in ("members must be an integer >= 2", "levels must lie in (0, 1)", "fogg",
                     "at least 2 distinct seeds", "n_boot", "example_index"):
        assert text.count(fragment) == 1, fragment  # one message per broken rule
    study4 = impact_params(levels=(0.5, 0.9))
    with pytest.raises(PruneAuditError, match="members must be an integer in 2..3"):
        _params(members=4, study4=study4)
    with pytest.raises(PruneAuditError, match=r"levels \[0.7\] are not Study 4's levels"):
        _params(levels=[0.7], study4=study4)
    with pytest.raises(PruneAuditError, match="give Study 4's parameters as study4"):
        _params().populations()
    # the runner passes Study 4's parameters as a mapping (papermill): built into its Params
    given = _params(levels=[0.9], study4=study4.as_dict())
    assert given.study4 == study4 and given.as_dict()["study4"] == study4.as_dict()
    with pytest.raises(PruneAuditError, match="bad Study 4 parameters"):
        _params(study4={**study4.as_dict(), "alpha": 2.0})


def test_page_findings_numbers_and_helpers(runs, impact_params):
    params = _params(levels=[0.5, 0.9], study4=impact_params(levels=(0.5, 0.9)))
    relative = relative_robustness(runs)
    result = robust.Result(params, params.populations(), runs, relative)
    rows = robust.findings(result)
    expected = runs_findings(runs, n_boot=99)
    assert repr(rows) == repr(expected)
    # the headlines are the claims' (D5.1 and D5.2's mean change), never a name's prefix
    assert [r.claim for r in rows if r.headline] == ["D5.1", "D5.2"]
    assert [r.finding[:4] for r in rows if r.headline] == ["D5.1", "D5.2"]
    # at 90%, D5.2's estimate (the prose cites the answer box's number): each pruned member's
    # top-1 over fog and rotate and both severities, (0.4 + 0.5 + 0.25 + 0.2) / 4 = 0.3375,
    # over the dense mean ((0.7 + 0.5 + 0.5 + 0.4) / 4 + (0.9 + 0.5 + 0.5 + 0.4) / 4) / 2 =
    # 0.55; clean 0.85 / 0.95 - 1
    d52 = next(r for r in rows if r.claim == "D5.2")
    assert d52.ours == pytest.approx(0.3375 / 0.55 - 1)
    assert robust.numbers(result) == {
        "headline": "pruned 90%", "corrupted_change": pytest.approx(0.3375 / 0.55 - 1),
        "clean_change": pytest.approx(0.85 / 0.95 - 1), "corruptions": 2,
        "worst_corruption": "rotate", "worst_change": pytest.approx(-0.5),
        "members": params.members, "severities": len(params.severities),
    }
    assert headline_level([0.0, 0.5, 0.95, 0.85]) == 0.95  # ties: the higher
    spec = corruption_explorer(result).to_dict()
    assert {"corruption_shown", "severity_shown"} <= {p["name"] for p in spec["params"]}
    table = h1_corruption_table(relative_robustness(runs)).set_index("corruption")
    assert table.loc["fog", "H1 ImageNet-C t = 0.9"] == pytest.approx(-10.41)
    assert np.isnan(table.loc["rotate", "H1 ImageNet-C t = 0.9"])  # not in ImageNet-C
    check(robust.key_figure(result), severity_view(result), corruption_explorer(result))
    for view in (protocol_view, severity_view,
                 corruption_table_view, natural_view):
        assert view(result) is not None, view.__name__

