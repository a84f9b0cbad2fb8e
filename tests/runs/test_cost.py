"""Training cost: the formula, and the GPU cost read from the benchmark's output."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from pruneaudit import runs
from pruneaudit.errors import PruneAuditError


def test_training_cost_hand_computed():
    # 10 model-epochs of 48,000 images at 2 s per 10k images: 10 * 4.8 * 2 s = 96 s
    cost = runs.training_cost(10, 48_000, 2.0)
    assert cost.images == 480_000
    assert cost.hours == pytest.approx(96 / 3600)
    with pytest.raises(PruneAuditError, match="measured rate"):
        runs.training_cost(10, 48_000, 0.0)


def test_gpu_hours_takes_the_fastest_configuration_of_the_study(tmp_path):
    path = tmp_path / "gpu_training_cuda_costs.csv"
    pd.DataFrame(
        {
            "protocol": ["Study 2 (P 4.1)", "Study 2 (P 4.1)", "Study 3 (P 4.2)"],
            "configuration": ["(a) plain", "(b) K=8", "(a) plain"],
            "model_epochs": [3780, 3780, 8820],
            "hours": [5.0, 2.5, 9.0],
        }
    ).to_csv(path, index=False)
    assert runs.gpu_hours("Study 2", path) == 2.5
    assert runs.gpu_hours("Study 1", path) is None  # this protocol was not measured
    assert "2.5 h" in runs.gpu_cost_text("Study 2", path)


def test_gpu_cost_says_not_measured_without_a_benchmark(tmp_path):
    text = runs.gpu_cost_text("Study 2", tmp_path / "absent.csv")
    assert text.startswith("not measured") and "GPU benchmark" in text


def test_gpu_costs_are_a_data_file_of_the_package():
    package = Path(runs.__file__).resolve().parent
    assert runs.GPU_COSTS.parent == package and "benchmarks" not in runs.GPU_COSTS.parts


def test_gpu_hours_add_the_fastest_configuration_of_each_architecture(tmp_path):
    path = tmp_path / "gpu_costs.csv"
    pd.DataFrame(
        {
            "protocol": ["Study 1 (paper profile, lenet)"] * 2
            + ["Study 1 (paper profile, vgg11)"] * 2,
            "configuration": ["(a) plain", "(b) K=8"] * 2,
            "model_epochs": [10, 10, 20, 20],
            "hours": [3.0, 1.0, 8.0, 4.0],
        }
    ).to_csv(path, index=False)
    assert runs.gpu_hours("Study 1", path) == 1.0 + 4.0
    text = runs.gpu_cost_text("Study 1", path)
    assert "about 5.0 h for Study 1 (paper profile, lenet), Study 1 (paper profile, vgg11)" in text


def test_study_cost_sums_workloads_at_the_store_rates(tmp_path):
    from types import SimpleNamespace

    from pruneaudit.runs.cost import record_rate, study_cost

    # lenet: 480,000 images at a recorded 3 s per 10k = 144 s; alexnet: 10,000 images at the
    # reference 24 s per 10k = 24 s
    record_rate(tmp_path, "lenet", "cpu", 15.0, 50_000)
    record_rate(tmp_path, "lenet", "cuda", 5.0, 50_000)  # another device's rate: not read
    rows = [SimpleNamespace(model="lenet", models=10, model_epochs=20, images=480_000,
                            evaluations=10, populations=2),
            SimpleNamespace(model="alexnet", models=1, model_epochs=1, images=10_000,
                            evaluations=3, populations=1)]
    cost = study_cost(rows, tmp_path, "cpu")
    assert (cost.populations, cost.models, cost.model_epochs, cost.evaluations) == (3, 11, 21, 13)
    assert cost.seconds == pytest.approx(144 + 24)
    assert cost.source == "recorded and reference"
    del rows[1].populations  # a workload that does not state its populations
    assert study_cost(rows, tmp_path, "cpu").populations is None
    unknown = SimpleNamespace(model="mystery", models=1, model_epochs=1, images=1, evaluations=1)
    assert math.isnan(study_cost([unknown], tmp_path).seconds)


def test_before_any_record_lenet_on_the_cpu_costs_at_the_speed_probe(tmp_path, monkeypatch):
    from types import SimpleNamespace

    from pruneaudit.runs import probe
    from pruneaudit.runs.cost import REFERENCE_SECONDS_PER_10K, Rate, study_cost

    monkeypatch.setattr(probe, "speed_probe", lambda: 0.5)
    lenet = SimpleNamespace(model="lenet", models=2, model_epochs=2, images=20_000, evaluations=2)
    alexnet = SimpleNamespace(model="alexnet", models=1, model_epochs=1, images=10_000,
                              evaluations=1)
    # an empty store: LeNet's 20,000 images at the probed 0.5 s per 10k = 1 s; AlexNet's at its
    # reference rate; on CUDA the probe (a CPU measurement) is not read
    cost = study_cost([lenet, alexnet], tmp_path, "cpu")
    assert cost.seconds == pytest.approx(1.0 + REFERENCE_SECONDS_PER_10K["alexnet"])
    assert cost.source == "probed and reference"
    assert study_cost([lenet], tmp_path, "cuda").source == "reference"
    assert "speed probe" in Rate(0.5, "probed").text()
    monkeypatch.setattr(probe, "speed_probe", lambda: pytest.fail("probed despite a record"))
    runs.cost.record_rate(tmp_path, "lenet", "cpu", 15.0, 50_000)  # 3 s per 10k, recorded
    assert study_cost([lenet], tmp_path, "cpu").seconds == pytest.approx(6.0)


def test_small_populations_and_unsized_records_are_not_read_as_rates(tmp_path):
    from pruneaudit.runs.cost import (
        MIN_RATE_IMAGES,
        RATES_FILE,
        REFERENCE_SECONDS_PER_10K,
        record_rate,
        seconds_per_10k,
    )

    # a smoke-sized population (start-up dominated) and a record without its images: reference
    record_rate(tmp_path, "lenet", "cpu", 9.0, MIN_RATE_IMAGES - 1)
    with (tmp_path / RATES_FILE).open("a") as f:
        f.write('{"model": "lenet", "device": "cpu", "seconds_per_10k": 7.0}\n')
    rate = seconds_per_10k("lenet", tmp_path)
    assert (rate.seconds_per_10k, rate.source) == (REFERENCE_SECONDS_PER_10K["lenet"], "reference")
    assert f"{MIN_RATE_IMAGES:,} images" in rate.text()
    # populations of at least MIN_RATE_IMAGES: the median of their rates
    for seconds in (1.0, 2.0, 4.0):
        record_rate(tmp_path, "lenet", "cpu", seconds * MIN_RATE_IMAGES / 10_000, MIN_RATE_IMAGES)
    rate = seconds_per_10k("lenet", tmp_path)
    assert (rate.seconds_per_10k, rate.source, rate.records) == (2.0, "recorded", 3)
