"""The GPU benchmark (``benchmarks/gpu_training.py``): its analytic FLOP count and CPU path."""

from __future__ import annotations

import benchmark_scripts
import pytest
import torch
import torch.nn.functional as F
from torch.utils.flop_counter import FlopCounterMode

from pruneaudit.models import build_model


@pytest.fixture(scope="module")
def bench():
    return benchmark_scripts.load("gpu_training")


@pytest.mark.parametrize("arch", ["lenet", "alexnet"])
def test_analytic_flops_match_torch_flop_counter(bench, arch):
    """Per image, forward + backward conv and matmul FLOPs equal torch's counter exactly."""
    model = build_model(arch, 10, 1, 28, seed=0)
    x, y = torch.randn(4, 1, 28, 28), torch.randint(0, 10, (4,))
    with FlopCounterMode(display=False) as counter:
        F.cross_entropy(model(x), y).backward()
    assert bench.train_flops_per_image(model, 1, 28) * 4 == counter.get_total_flops()
    assert bench.architecture_flops(arch) * 4 == counter.get_total_flops()  # shapes alone


def test_peak_by_device_name(bench, monkeypatch):
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda d=None: "NVIDIA H100 PCIe")
    assert bench.peak_tflops(torch.device("cuda"), None)[0] == 51.2
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda d=None: "NVIDIA H100 80GB HBM3")
    assert bench.peak_tflops(torch.device("cuda"), None)[0] == 66.9
    assert bench.peak_tflops(torch.device("cuda"), 10.0) == (10.0, "--peak-tflops")
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda d=None: "Mystery GPU")
    with pytest.raises(SystemExit, match="--peak-tflops"):
        bench.peak_tflops(torch.device("cuda"), None)


def test_cpu_run_writes_its_table_with_the_targets_as_not_measured(bench, data_root, tmp_path,
                                                                   monkeypatch, capsys):
    monkeypatch.setattr(bench, "OUT", tmp_path)
    bench.main(["--device", "cpu", "--images", "64", "--ks", "2", "--root", str(data_root),
                "--peak-tflops", "0.05"])
    out = capsys.readouterr().out
    assert "Study 2 (paper profile, lenet)" in out
    assert "K=2: graph path not measured (CUDA only)" in out
    table = (tmp_path / "gpu_training_cpu.csv").read_text()
    assert "train_population K=2" in table and (tmp_path / "gpu_training_cpu.md").is_file()
    assert "K=2 eager" in table and "graphs" not in table


def test_targets_are_ratios_of_one_run(bench):
    """Hand-computed: graphs 4.5x eager and 90x the plain loop at K=30; 1.3M at K=120."""
    import pandas as pd

    rows = {
        "(a) plain loop, batch 32, data on the device": 10_000.0,
        "(b) train_population K=30 eager": 200_000.0,
        "(b) train_population K=30 graphs": 900_000.0,
        "(b) train_population K=30 graphs bf16": 1_000_000.0,
        "(b) train_population K=120 eager": 250_000.0,
        "(b) train_population K=120 graphs": 1_100_000.0,
        "(b) train_population K=120 graphs bf16": 1_300_000.0,
    }
    table = pd.DataFrame({"configuration": list(rows), "images_per_s": list(rows.values())})
    k30, k120 = bench.targets(table, [30, 120])
    assert "= 4.50x eager" in k30 and "90.0x the plain loop" in k30 and "1.2M" not in k30
    assert "= 4.40x eager" in k120 and "best with bf16 1,300,000" in k120
    assert k120.endswith("(target >= 1.2M on an H100: met)")


def _paper_cost_module():
    return benchmark_scripts.load("paper_gpu_cost")


def test_paper_profile_workload_and_hours(data_root, tmp_path, monkeypatch):
    """Hand-computed from nbs/profiles/paper.yml: Study 2 is 6 x 21 x 30 model-epochs of 48,000
    digits, Study 4 30 x 8 x 30, Study 5 30 x 30; the GPU hours are images / the measured rate."""
    cost = _paper_cost_module()
    monkeypatch.setenv("PRUNEAUDIT_STORE", str(tmp_path))  # reference rates, no records
    monkeypatch.setattr(cost, "lenet_gpu_rates",
                        lambda: ({"eager": 250_000.0, "graph": 800_000.0}, "NVIDIA Test"))
    work = cost.workload(str(data_root)).set_index("study")
    assert work.loc["Study 2", "model_epochs"] == 6 * 21 * 30
    assert work.loc["Study 2", "images"] == 6 * 21 * 30 * 48_000
    assert work.loc["Study 4", "model_epochs"] == 30 * 8 * 30
    assert work.loc["Study 5", "model_epochs"] == 30 * 30
    table, notes, device = cost.costed(work.reset_index())
    s2 = table.set_index("study").loc["Study 2"]
    assert s2.gpu_hours_eager == pytest.approx(3780 * 48_000 / 250_000 / 3600)
    assert s2.gpu_hours_graph == pytest.approx(3780 * 48_000 / 800_000 / 3600)
    assert device == "NVIDIA Test" and any("measured on NVIDIA Test" in n for n in notes)


def test_paper_cost_reads_the_measured_gpu_rates(tmp_path):
    cost = _paper_cost_module()
    csv = tmp_path / "gpu_training_cuda.csv"
    csv.write_text("configuration,images_per_s\n"
                   "(b) train_population K=30 eager,250000\n"
                   "(b) train_population K=30 graphs,800000\n"
                   "(b) train_population K=120 graphs,900000\n")
    csv.with_suffix(".md").write_text("device cuda (NVIDIA H200), torch 2.11\n")
    rates, device = cost.lenet_gpu_rates(csv)
    assert rates == {"eager": 250_000.0, "graph": 800_000.0} and device == "NVIDIA H200"
    with pytest.raises(SystemExit, match="gpu_training.py --device cuda"):
        cost.lenet_gpu_rates(tmp_path / "missing.csv")
