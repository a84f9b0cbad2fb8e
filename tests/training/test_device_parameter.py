"""The device and precision parameters of every study, checked before any kernel starts."""

from __future__ import annotations

import pytest
import torch

from pruneaudit import book, config
from pruneaudit.book.builder import runner
from pruneaudit.errors import PruneAuditError
from pruneaudit.studies.params import StudyParams


@pytest.fixture
def no_cuda(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 0)


@pytest.fixture
def one_gpu(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)


@pytest.mark.parametrize("device", ["auto", "cpu", " cpu"])
def test_devices_of_any_machine_pass(no_cuda, device):
    assert StudyParams(device=device).device == device


@pytest.mark.parametrize("device", ["tpu", "gpu", "cuda:x", "cpu:0", ""])
def test_an_unknown_device_is_one_clear_error(no_cuda, device):
    with pytest.raises(
        PruneAuditError, match=r"^bad study parameters: device must be auto, cpu, cuda or cuda:N"
    ):
        StudyParams(device=device)


@pytest.mark.parametrize("device", ["cuda", "cuda:0"], ids=["plain", "index"])  # not "cuda"
def test_cuda_without_cuda_names_the_fix(no_cuda, device):
    with pytest.raises(PruneAuditError, match=r"0 CUDA device\(s\); use device='auto' or 'cpu'"):
        StudyParams(device=device)


def test_cuda_devices_this_machine_has(one_gpu):
    with pytest.raises(PruneAuditError, match="'cuda:1' asked for, but this machine has 1"):
        StudyParams(device="cuda:1")


def test_the_precision_setting_is_checked_and_bf16_needs_cuda(no_cuda, monkeypatch):
    monkeypatch.delenv(config.PRECISION_ENV, raising=False)
    assert StudyParams()
    monkeypatch.setenv(config.PRECISION_ENV, "fp16")
    with pytest.raises(PruneAuditError, match="precision must be fp32 or bf16, got 'fp16'"):
        StudyParams()
    monkeypatch.setenv(config.PRECISION_ENV, "bf16")
    with pytest.raises(PruneAuditError, match=r"precision 'bf16' \(\$PRUNEAUDIT_PRECISION\) "
                       "needs a CUDA device.*set PRUNEAUDIT_PRECISION=fp32"):
        StudyParams()


def test_bf16_with_cuda_passes(one_gpu, monkeypatch):
    monkeypatch.setenv(config.PRECISION_ENV, "bf16")
    assert StudyParams(device="cuda:0")


def test_a_bad_device_fails_the_build_before_any_kernel(no_cuda, monkeypatch, tmp_path):
    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("a kernel was started")

    real_run_notebook = runner.run_notebook  # checks its parameters before any kernel starts
    monkeypatch.setattr(runner, "run_notebook", never)
    monkeypatch.setattr(runner, "run_job", never)
    for device, message in (("tpu", "device must be auto, cpu, cuda"),
                            ("cuda", "0 CUDA device")):
        with pytest.raises(PruneAuditError, match=message):
            book.build("smoke", ["02_qmnist_writers", "05_robustness"],
                       overrides={"device": device}, path_output=tmp_path)
        assert not (tmp_path / "book" / "studies").exists()
    with pytest.raises(PruneAuditError, match=r"^notebook 0\d_\w+: bad .*device must be"):
        real_run_notebook("05_robustness", "smoke", {"device": "tpu"}, tmp_path)
    assert list(tmp_path.iterdir()) == []
