"""The precision setting: checked once, in the run key only when not float32, bf16 CUDA-only."""

from __future__ import annotations

import pytest
import torch

from pruneaudit import config
from pruneaudit.errors import PruneAuditError
from pruneaudit.runs.spec import LEGACY_TRAINER_SCHEME, RunSpec
from pruneaudit.training import device

#: The key of this float32 spec before the precision setting existed (a change retires runs),
#: as the legacy trainer scheme keeps it (the current scheme retired it: tests/runs/test_spec_keys).
FP32_KEY = "44b80db621afb32ca6ce367fde9fe3bc820a7f8e175c720053559428f7cabdf1"


def _spec() -> RunSpec:
    return RunSpec("mnist", "lenet", epochs=2, train_size=256, test_size=128)


def test_setting_reads_the_environment_and_checks_the_value(monkeypatch):
    monkeypatch.delenv(config.PRECISION_ENV, raising=False)
    assert config.precision_setting() == "fp32"
    monkeypatch.setenv(config.PRECISION_ENV, "bf16")
    assert config.precision_setting() == "bf16"
    assert config.precision_setting("fp32") == "fp32"
    with pytest.raises(PruneAuditError, match="precision must be fp32 or bf16, got 'fp16'"):
        config.precision_setting("fp16")


def test_float32_keys_are_those_from_before_the_setting(monkeypatch):
    monkeypatch.delenv(config.PRECISION_ENV, raising=False)
    spec = _spec()
    legacy = spec.replace(trainer=LEGACY_TRAINER_SCHEME)
    assert legacy.key == FP32_KEY and spec.precision == "fp32"
    assert "precision" not in spec.as_dict()["extra"]
    assert RunSpec.from_dict(spec.as_dict()) == spec
    assert RunSpec.from_dict(legacy.as_dict()) == legacy
    assert spec.with_extra(precision="fp32").key == spec.key
    assert legacy.with_extra(precision="fp32").key == FP32_KEY


def test_bf16_is_its_own_run_and_round_trips(monkeypatch):
    monkeypatch.delenv(config.PRECISION_ENV, raising=False)
    fp32 = _spec().key
    monkeypatch.setenv(config.PRECISION_ENV, "bf16")
    spec = _spec()  # made under the bf16 setting
    assert spec.precision == "bf16" and spec.key != fp32
    assert RunSpec.from_dict(spec.as_dict()) == spec
    assert spec.columns()["precision"] == "bf16"
    # a stored float32 spec read in a bf16 process stays float32
    monkeypatch.delenv(config.PRECISION_ENV)
    stored = _spec().as_dict()
    monkeypatch.setenv(config.PRECISION_ENV, "bf16")
    assert RunSpec.from_dict(stored).key == fp32
    with pytest.raises(PruneAuditError, match="precision must be fp32 or bf16"):
        _spec().with_extra(precision="half")


def test_bf16_on_the_cpu_is_one_clear_error():
    with pytest.raises(PruneAuditError, match="bf16.*CUDA.*precision='fp32'"):
        device.autocast("bf16", torch.device("cpu"))
    with device.autocast("fp32", torch.device("cpu")):
        assert not torch.is_autocast_enabled()
