"""Study 4 pipeline: tables on hand-made populations, and one tiny run through the store."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
import torch
from chart_style import check

from pruneaudit import audit, compress, data, training
from pruneaudit.errors import PruneAuditError
from pruneaudit.runs import ResultsStore, RunSpec, populations
from pruneaudit.runs import cost as runs_cost
from pruneaudit.studies import compression_impact as impact
from pruneaudit.studies.compression_impact.findings import runs_findings
from pruneaudit.studies.compression_impact.params import Populations
from pruneaudit.studies.compression_impact.published import h1_class_table, h1_pie_table
from pruneaudit.studies.compression_impact.run import (
    PRUNING,
    QUANTIZATION,
    Compressed,
    ImpactRuns,
    variant_name,
)
from pruneaudit.studies.compression_impact.tables import (
    PIE_CATEGORIES,
    celeba_representation,
    cie_accuracy,
    cie_threshold,
    class_tests,
    over_indexing,
    pie_accuracy,
    pie_examples,
    recall_curves,
    subgroup_metrics,
    summary,
)
from pruneaudit.studies.compression_impact.views import (
    cie_view,
    class_change_view,
    class_table_view,
    gallery_explorer,
    key_title,
    over_index_view,
    pie_table_view,
    protocol_view,
    recall_view,
    subgroup_view,
)

# N = 6 examples, C = 3 classes, K = 3 members; series hsf0 for the first three.
Y = np.array([0, 1, 2, 0, 1, 2])
BASE = np.array(
    [
        [0, 1, 2, 0, 1, 2],
        [0, 1, 2, 0, 2, 2],
        [0, 1, 2, 1, 1, 2],
    ]
)
# modal labels: baseline [0,1,2,0,1,2]; compressed [0,1,1,1,2,2]
# -> PIE at 2 (baseline right), 3 (baseline right), 4 (baseline right).
COMP = np.array(
    [
        [0, 1, 1, 1, 2, 2],
        [0, 1, 1, 1, 2, 0],
        [0, 2, 2, 0, 2, 2],
    ]
)
SERIES = ["hsf0", "hsf0", "hsf0", "hsf4", "hsf4", "hsf4"]

#: The words an analogue's and our own question's verdicts may use.
ANALOGUE_VERDICTS = (audit.SAME_DIRECTION, audit.OPPOSITE, audit.EFFECT_ABSENT,
                     audit.INCONCLUSIVE)
BEYOND_VERDICTS = (audit.PRESENT, audit.OTHER_SIGN, audit.EFFECT_ABSENT, audit.INCONCLUSIVE)


def _spec(**kwargs) -> RunSpec:
    fields = {"epochs": 1, "lr": 0.01, "batch_size": 32, "augment": True, **kwargs}
    return RunSpec("qmnist", "lenet", **fields)


def _population(base, preds: np.ndarray, level: float = 0.0) -> populations.Population:
    specs = tuple(populations.member_specs(base, range(len(preds)), level))
    return populations.Population(specs, preds, Y, pd.DataFrame(), np.full(len(preds), level))


def _image_data(n: int, series: list[str]) -> data.ImageData:
    spec = dataclasses.replace(data.DATASETS["qmnist"], num_classes=3)
    images = torch.arange(n * 28 * 28, dtype=torch.int64).remainder(256).to(torch.uint8)
    meta = pd.DataFrame({"series": series, "writer": np.arange(n)})
    labels = torch.as_tensor(Y[:n] if n == len(Y) else np.arange(n) % 3)
    return data.ImageData("qmnist", images.view(n, 1, 28, 28), labels,
                          ("0", "1", "2"), spec, meta)


@pytest.fixture()
def runs() -> ImpactRuns:
    base = _spec(train_size=100, test_size=6)
    pruned = Compressed("pruned 90%", PRUNING, 0.9, None,
                               _population(base, COMP, 0.9))
    quant = Compressed("float16", QUANTIZATION, None, "float16",
                              _population(base, BASE))
    train_series = ["hsf0"] * 3 + ["hsf4"]  # train shares 3/4, 1/4
    return ImpactRuns(
        _population(base, BASE), (pruned, quant), _image_data(6, SERIES),
        _image_data(4, train_series),
    )


def test_summary_counts_pies_and_accuracy(runs):
    table = summary(runs).set_index("variant")
    assert table.loc["pruned 90%", "pie"] == 3
    assert table.loc["pruned 90%", "pie_share"] == pytest.approx(0.5)
    assert table.loc["float16", "pie"] == 0  # identical predictions
    assert table.loc["float16", "significant_classes"] == 0
    base_acc = (BASE == Y).mean(axis=1).mean()
    assert table.loc["pruned 90%", "baseline_top1"] == pytest.approx(base_acc)
    assert table.loc["pruned 90%", "compressed_top1"] == pytest.approx((COMP == Y).mean())
    assert table.loc["pruned 90%", "sparsity"] == pytest.approx(0.9)


def test_class_tests_match_population_module(runs):
    tests = class_tests(runs)
    assert len(tests) == 2 * 3
    assert set(tests["variant"]) == {"pruned 90%", "float16"}
    pruned = tests[tests.variant == "pruned 90%"].set_index("class")
    # class 2: baseline recall 1 for every member; compressed recalls 1/2, 0, 1
    assert pruned.loc[2, "compressed_recall"] == pytest.approx(0.5)
    assert pruned.loc[2, "relative_recall_difference"] == pytest.approx(0.5)
    assert (tests[tests.variant == "float16"]["absolute_recall_difference"] == 0).all()


def test_pie_accuracy_on_pie_subset(runs):
    acc = pie_accuracy(runs)
    row = acc[(acc.variant == "pruned 90%") & (acc.subset == "pie")].set_index("population")
    # PIEs 2, 3, 4: the baseline's modal labels are right on all, the compressed on none.
    assert row.loc["baseline", "modal_accuracy"] == 1.0
    assert row.loc["compressed", "modal_accuracy"] == 0.0
    assert (row["n"] == 3).all()


def test_jaccard_selects_what_taxicab_selects(runs):
    table = cie_accuracy(runs, percentiles=(50, 90), seed=3)
    assert table["same_as_taxicab"].all()
    # top 50 % of 6 examples = 3 examples
    assert set(table.loc[table.percentile == 50, "n"]) == {3}


def test_over_indexing_uses_h2_taxicab_threshold(runs):
    # Taxicab scores (hand-computed from the votes): [0, 2, 4, 2, 4, 2]; H2's Fig. 2 CIE set is
    # the top 20 % (80th percentile): ceil(6 * 0.2) = 2 examples, 2 (hsf0) and 4 (hsf4).
    assert cie_threshold() == 80
    np.testing.assert_array_equal(audit.taxicab_scores(BASE, COMP, 3), [0, 2, 4, 2, 4, 2])
    table = over_indexing(runs, names=["pruned 90%"]).set_index("value")
    assert (table["percentile"] == 80).all()
    assert table.loc["hsf4", "cie_share"] == pytest.approx(1 / 2)
    assert table.loc["hsf4", "train_share"] == pytest.approx(1 / 4)
    assert table.loc["hsf4", "test_share"] == pytest.approx(1 / 2)
    assert table.loc["hsf4", "over_index_train"] == pytest.approx((1 / 2) / (1 / 4))
    assert table.loc["hsf4", "over_index_test"] == pytest.approx(1.0)


def test_subgroup_error_rate_and_macro_rates(runs):
    table = subgroup_metrics(runs, names=["pruned 90%"])
    err = table[(table.metric == "error_rate") & (table.group == "series=hsf4")].iloc[0]
    assert err["baseline"] == pytest.approx(np.mean(BASE[:, 3:] != Y[3:]))
    assert err["compressed"] == pytest.approx(np.mean(COMP[:, 3:] != Y[3:]))
    # FNR macro-averaged over the classes present, one-vs-rest, members averaged (brute force)
    fnr = []
    for c in range(3):
        per_member = [np.mean(COMP[k][np.equal(Y, c)] != c) for k in range(3)]
        fnr.append(np.mean(per_member))
    overall = table[(table.metric == "fnr") & (table.grouping == "overall")].iloc[0]
    assert overall["compressed"] == pytest.approx(np.mean(fnr))
    expected = (overall["compressed"] - overall["baseline"]) / overall["baseline"]
    assert overall["normalized_difference"] == pytest.approx(expected)


def _result(runs: ImpactRuns, params: impact.Params) -> impact.Result:
    return impact.Result(params, Populations.from_params(params), runs)


def test_pie_examples_categories_and_captions(runs, impact_params):
    frame = pie_examples(runs, "pruned 90%", per_category=None)
    assert sorted(frame["index"]) == [2, 3, 4]
    assert set(frame["category"]) == {PIE_CATEGORIES[0]}
    assert frame["image"].str.startswith("data:image/png;base64,").all()
    first = frame.set_index("index").loc[2]
    assert first["caption"] == "true 2\nbase 2\ncomp 1"
    assert first["series"] == "hsf0"
    assert pie_examples(runs, "pruned 90%", per_category=1).shape[0] == 1


def test_findings_cover_d41_to_d411_with_verdicts(runs):
    rows = runs_findings(runs, n_perm=19, n_boot=19)
    ids = [r.finding.split(" ")[0] for r in rows]
    papers = sorted({i for i in ids if i.startswith("D")}, key=lambda i: int(i.split(".")[1]))
    assert papers == [f"D4.{i}" for i in range(1, 15)]
    # our own questions carry ids of their own (B4.x), never a paper finding's
    assert {r.claim.split(" ")[0] for r in rows if r.comparability == "beyond"} == {
        "B4.3", "B4.5", "B4.9", "B4.10", "B4.11"}
    for r in rows:
        assert r.verdict in audit.VERDICTS
        assert r.basis  # what the interval is over, or why it is not testable
        if r.verdict != audit.NOT_TESTABLE:
            assert r.ci_low <= r.ours <= r.ci_high or np.isnan(r.ours)
    # the D4.1 share: no class significant in this tiny case, Clopper-Pearson over 3 classes
    d41 = rows[0]
    assert d41.ours == 0.0 and d41.ci_high == pytest.approx(1 - 0.025 ** (1 / 3))
    # an analogue: H1's 637 of 1,000 ImageNet classes is shown, but no band and no size here
    assert d41.claim == "D4.1" and d41.comparability == "analogue"
    assert d41.paper_band is None and d41.size == "" and d41.verdict in ANALOGUE_VERDICTS
    # D4.4 compares two tasks (H1: CIFAR-10's 2 of 10 against ImageNet's 637 of 1,000): one
    # task here, so not testable; no row repeats D4.1's estimate under another id
    d44 = next(r for r in rows if r.claim == "D4.4")
    assert d44.verdict == audit.NOT_TESTABLE and d44.ours is None
    assert d44.paper == pytest.approx(0.2 - 0.637)
    share = (d41.ours, d41.ci_low, d41.ci_high)
    assert [r.claim for r in rows if (r.ours, r.ci_low, r.ci_high) == share] == ["D4.1"]
    for r in rows:  # bounded rows keep their bounds
        if r.claim.startswith(("D4.3", "D4.11")) and r.ci_low is not None:
            assert r.ci_low >= (0 if r.claim.startswith("D4.3") else -1)
    # rows in the claims' order, one per claim; the raw gaps carry the papers' verdicts, our own
    # questions never a paper word and never a headline
    assert [r.claim for r in rows] == list(impact.claims())
    for r in rows:
        if r.comparability == "beyond":
            assert r.verdict in BEYOND_VERDICTS and not r.headline and r.paper is None
    d45 = next(r for r in rows if r.claim == "D4.5")  # H1's ImageNet gap on our digits
    assert d45.comparability == "analogue" and d45.paper == pytest.approx((39.81 - 76.75) / 100)
    assert d45.paper_band is None and d45.headline and d45.verdict in ANALOGUE_VERDICTS
    # by hand (module header): PIEs at 2, 3, 4; dense members right 16/18 in all and 7/9 on the
    # PIEs, pruned 9/18 and 2/9; the float16 members are the dense ones (no PIE)
    by_id = {r.claim: r for r in rows}
    assert by_id["D4.12"].ours == pytest.approx(2 / 9 - 1 / 2)  # pruned, PIEs minus all
    assert by_id["D4.13"].ours == pytest.approx((2 / 9 - 7 / 9) - (1 / 2 - 16 / 18))
    assert by_id["D4.14"].ours == pytest.approx(0 - 3 / 6)  # PIE share, quantized - pruned
    assert "float16 copy" in by_id["D4.14"].basis
    for ident in ("D4.12", "D4.13", "D4.14"):
        assert by_id[ident].comparability == "analogue" and not by_id[ident].headline
    # no row of Study 4 is the papers' own: their tasks are not ours
    assert {r.comparability for r in rows} <= {"analogue", "beyond", "not comparable",
                                               "not testable"}


def test_page_findings_and_numbers_read_the_parameters(runs, impact_params):
    params = impact_params(n_perm=19, n_boot=19, tie_seed=2, alpha=0.1)
    result = impact.Result(params, Populations.from_params(params), runs)
    expected = runs_findings(runs, 0.1, "series", hard_group="hsf4", n_perm=19,
                                    n_boot=19, seed=2)
    assert repr(impact.findings(result)) == repr(expected)  # NaN-safe
    # the papers' main claims lead: H1's class-level impact and PIEs, H2's CIEs
    assert [r.claim for r in impact.findings(result) if r.headline] == ["D4.1", "D4.5", "D4.10"]
    numbers = impact.numbers(result)
    assert numbers == {
        "headline": "pruned 90%", "members": 3, "pairing": "independent",
        "top1_change_points": pytest.approx(100 * ((COMP == Y).mean() - (BASE == Y).mean())),
        "pie_share": pytest.approx(0.5), "significant_classes": 0, "classes": 3, "alpha": 0.1,
        "epochs": params.epochs, "hard_group": "hsf4",
        "train_digits": f"{params.train_size:,}" if params.train_size else "all",
    }
    assert all(isinstance(v, int | float | str) for v in numbers.values())


def test_bad_inputs(runs):
    with pytest.raises(PruneAuditError, match="unknown compressed variant"):
        runs.get("pruned 50%")
    with pytest.raises(PruneAuditError, match="no group column"):
        subgroup_metrics(runs, group="writer_age")
    with pytest.raises(PruneAuditError, match="either a pruning level or"):
        variant_name()


def test_recall_curves_start_at_the_baseline(runs):
    curves = recall_curves(runs)
    assert sorted(curves["level"].unique()) == [0.0, 0.9]  # quantized variants are not curves
    at = curves.set_index(["level", "class"])
    assert at.loc[(0.9, 2), "recall"] == pytest.approx(0.5)
    assert at.loc[(0.9, 2), "baseline_recall"] == pytest.approx(1.0)
    assert at.loc[(0.0, 2), "recall"] == at.loc[(0.0, 2), "baseline_recall"]


def test_celeba_representation(data_root):
    table = celeba_representation(str(data_root)).set_index("group")
    assert table.loc["all", "share"] == 1.0
    parts = [f"{a}Male & {b}Young" for a in ("", "not ") for b in ("", "not ")]
    assert table.loc[parts, "n"].sum() == table.loc["all", "n"]
    assert table.loc["Male", "share"] + table.loc["not Male", "share"] == pytest.approx(1.0)


def test_tiny_run_through_store(data_root, tmp_path, monkeypatch, impact_params):
    schemes = ("float16", "dynamic_int8", "static_int8")
    params = impact_params(seeds=(0, 1), levels=(0.5,), schemes=schemes, train_size=320,
                           test_size=150, data_root=str(data_root), store=str(tmp_path))
    store = ResultsStore(tmp_path)
    result = impact.run(params, store, progress=False)
    assert result.params is params and result.populations == Populations(
        _spec(train_size=320, test_size=150), (0, 1), (0.5,))
    runs = result.runs
    assert runs.names == ["pruned 50%", *schemes]
    assert runs.independent  # the default: the pruned population has its own seeds
    pruned_seeds = [s.seed for s in runs.get("pruned 50%").population.specs]
    assert pruned_seeds == [populations.LEVEL_SEED_STRIDE * 500 + k for k in (0, 1)]
    assert [s.seed for s in runs.get("float16").population.specs] == [0, 1]
    for scheme in schemes:  # a quantized copy keeps the sparsity of the model it was made from
        np.testing.assert_array_equal(runs.get(scheme).population.sparsity, [0.0, 0.0])
    assert runs.baseline.preds.shape == (2, 150)
    assert runs.get("pruned 50%").population.sparsity == pytest.approx([0.5, 0.5], abs=0.02)
    table = summary(runs)
    assert table["compressed_top1"].between(0, 1).all()
    # the protocol table states the training rate it used: the reference, as the tiny run
    # recorded its rate but a population this small is not read as one
    protocol = impact.protocol_table(result)
    assert "reference measurement" in protocol.loc["training rate (CPU)", "this page"]
    # asking again trains and quantizes nothing
    monkeypatch.setattr(training, "train_packed", _fail)
    monkeypatch.setattr(compress, "quantize", _fail)
    again = impact.run(params, store, progress=False).runs
    np.testing.assert_array_equal(again.get("float16").population.preds,
                                  runs.get("float16").population.preds)
    assert audit.pie_flags(runs.baseline.preds, runs.baseline.preds).sum() == 0


def _fail(*args, **kwargs):
    raise AssertionError("a stored run was computed again")


def test_params_name_every_broken_rule_once(impact_params):
    assert impact_params(seeds=[0, 1], levels=[0.5]).seeds == (0, 1)  # lists are frozen
    with pytest.raises(PruneAuditError) as err:
        impact_params(seeds=(0,), levels=(1.5,), schemes=("int4",), alpha=2.0, lr=0.0,
                      subgroup_reduce="median", gallery_size=0, percentiles=(0,),
                      model="lenet5", test_size=0)
    text = str(err.value)
    assert text.startswith("bad Study 4 parameters: ")
    for fragment in ("distinct seeds", "levels must lie in (0, 1)", "int4", "alpha", "lr must",
                     "subgroup_reduce", "gallery_size", "percentiles", "model 'lenet5'",
                     "test_size"):
        assert text.count(fragment) == 1, fragment  # one message per broken rule
    with pytest.raises(PruneAuditError, match="independent populations need seeds in"):
        impact_params(seeds=(0, 10**9))
    with pytest.raises(PruneAuditError, match="alpha must be float, got 'x'"):
        impact_params(alpha="x")


def test_h1_tables_and_explorer(runs, impact_params):
    t2 = h1_class_table(runs).set_index("variant")
    assert t2.loc["pruned 90%", "H1 ImageNet significant classes (of 1,000)"] == 637
    assert t2.loc["float16", "H1 ImageNet significant classes (of 1,000)"] == 58
    assert t2.loc["pruned 90%", "PIEs (ours)"] == "3 of 6"
    t6 = h1_pie_table(runs).set_index("variant")
    # dense members on the PIEs 2, 3, 4: 3 + 2 + 2 right of 9 (H1's values are member means)
    assert t6.loc["pruned 90%", "dense on PIEs"] == pytest.approx(7 / 9)
    assert t6.loc["pruned 90%", "H1 ImageNet on PIEs"] == pytest.approx(0.3981)
    spec = gallery_explorer(_result(runs, impact_params(gallery_size=2))).to_dict()
    names = {p["name"] for p in spec["params"]}
    assert {"level_shown", "class_shown"} <= names

def test_protocol_table_states_the_training_rate(runs, impact_params, tmp_path):
    params = impact_params(store=str(tmp_path))  # a store that has recorded no training
    result = impact.Result(params, Populations.from_params(params), runs)
    protocol = impact.protocol_table(result)
    assert "independent" in protocol.loc["populations", "this page"]
    rate = runs_cost.seconds_per_10k("lenet", str(tmp_path))
    assert protocol.loc["training rate (CPU)", "this page"] == rate.text()
    assert "reference" in rate.text()
    ours = runs_cost.training_cost(3 * 2 * 1, len(runs.train), rate.seconds_per_10k)
    assert protocol.loc["training hours at that rate", "this page"] == f"{ours.hours:.2f}"
    key = check(impact.key_figure(result))[0]
    assert key["title"] == key_title(summary(runs, params.alpha))  # its numbers, stated
    check(class_change_view(result), recall_view(result), subgroup_view(result),
          gallery_explorer(result))
    for view in (protocol_view, class_table_view, class_change_view,
                 recall_view, pie_table_view, cie_view,
                 subgroup_view, over_index_view):
        assert view(result) is not None, view.__name__


def test_populations_one_definition_for_study_5(impact_params):
    params = impact_params(augment=False, levels=[0.5, 0.9])
    pops = Populations.from_params(params)
    assert pops.seeds == (0, 1, 2) and pops.levels == (0.5, 0.9) and pops.spec.epochs == 1
    assert pops.spec == _spec(augment=False, train_size=100, test_size=6)
    sub = pops.subset(2, [0.9])
    assert sub.seeds == (0, 1) and sub.levels == (0.9,) and sub.spec == pops.spec
    with pytest.raises(PruneAuditError, match="not Study 4's levels"):
        pops.subset(2, [0.7])
    with pytest.raises(PruneAuditError, match="members must be an integer in 2..3"):
        pops.subset(4)
    with pytest.raises(PruneAuditError, match="made from its Params"):
        Populations.from_params({"seeds": [0, 1]})
