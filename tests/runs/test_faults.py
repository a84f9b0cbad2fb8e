"""Bad input and faults: one clear error naming the bad value and what is accepted, nothing
written to the results store; checkpoints that would run code are refused; no network use."""

from __future__ import annotations

import os
import pickle
import socket
import struct

import numpy as np
import pandas as pd
import pytest
import torch

from pruneaudit import audit, cli, compress, data
from pruneaudit.errors import DataMissingError, PruneAuditError
from pruneaudit.models import build_model
from pruneaudit.runs import Dask, Grid, ResultsStore, RunSpec, run_grid, train_and_evaluate
from pruneaudit.training import TrainConfig

DENSE = {"dataset": "mnist", "model": "lenet"}
PRUNED = {**DENSE, "technique": "l1_unstructured", "treatment": "finetune", "iteration": 1}


def never_called(spec, store_root, data_root, runtime):
    raise AssertionError("a task ran although the input was bad")


def tiny_result():
    labels = np.arange(10)
    table = pd.DataFrame({"class": labels, "accuracy": 1.0, "n": 1})
    return table, pd.DataFrame({"index": labels, "label": labels, "prediction": labels})


# --------------------------------------------------------------------------- names


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"dataset": "mnsit"}, "unknown dataset 'mnsit'; accepted: 'mnist', .*mean 'mnist'"),
        ({"dataset": "cifar"}, "unknown dataset 'cifar'; accepted: .*'cifar10'"),
        ({"model": "resnet"}, "unknown model 'resnet'; accepted: .*Did you mean 'resnet18'"),
        ({"technique": "l1_unstructered"},
         "unknown technique 'l1_unstructered'; .*Did you mean 'l1_unstructured'"),
        ({"treatment": "rewinding"}, "unknown treatment 'rewinding'; .*Did you mean 'rewind'"),
        ({"extra": {"scheme": "int4"}}, "unknown quantization scheme 'int4'; accepted: "),
    ],
)
def test_unknown_names_suggest_the_closest(tmp_path, changes, message):
    axes = {**PRUNED, **changes}
    with pytest.raises(PruneAuditError, match=message):
        RunSpec(**axes)
    with pytest.raises(PruneAuditError, match=message):
        run_grid(Grid(axes), never_called, tmp_path / "store")
    assert not (tmp_path / "store").exists()


def test_unknown_names_in_the_modules(data_root):
    with pytest.raises(PruneAuditError, match="unknown dataset 'mnsit'.*Did you mean 'mnist'"):
        data.load("mnsit", root=data_root)
    with pytest.raises(PruneAuditError, match="unknown model 'lenett'.*Did you mean 'lenet'"):
        build_model("lenett", 10, 1, 28)
    model = build_model("lenet", 10, 1, 28, seed=0)
    with pytest.raises(PruneAuditError, match="'global_unstructred'.*'global_unstructured'"):
        compress.prune_to(model, "global_unstructred", 0.2)
    with pytest.raises(PruneAuditError, match="'finetuning'.*Did you mean 'finetune'"):
        compress.prune_round(model, "l1_unstructured", "finetuning", 1, compress.snapshot(model))
    with pytest.raises(PruneAuditError, match="unknown .*'dynamic_int4'.*'dynamic_int8'"):
        compress.quantize(model, "dynamic_int4")
    assert compress.sparsity(model) == 0.0  # nothing was pruned on the way


# --------------------------------------------------------------------------- ranges


@pytest.mark.parametrize("target", [1, -0.2, 1.5, float("nan"), "a"])
def test_out_of_range_targets(target):
    model = build_model("lenet", 10, 1, 28, seed=0)
    with pytest.raises(PruneAuditError, match=r"target must be (in \[0\.0, 1\.0\)|a number)"):
        compress.prune_to(model, "l1_unstructured", target)
    assert compress.sparsity(model) == 0.0


@pytest.mark.parametrize("target", [1.0, -0.1, 2])
def test_out_of_range_sparsities(tmp_path, target):
    model = build_model("lenet", 10, 1, 28, seed=0)
    with pytest.raises(PruneAuditError, match=rf"target must be in \[0\.0, 1\.0\), got {target}"):
        compress.prune_to(model, "l1_unstructured", target)
    with pytest.raises(PruneAuditError, match=rf"target_sparsity must be in .*got {target}"):
        compress.GradualPruner(target, 0, 10, 1)
    with pytest.raises(PruneAuditError, match=rf"sparsity level must be in \[0, 1\), got {target}"):
        run_grid(Grid({**DENSE, "extra": {"level": [0.5, target]}}), never_called, tmp_path)
    assert compress.sparsity(model) == 0.0 and not (tmp_path / "runs").exists()


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"epochs": 0}, "epochs must be a positive integer, got 0"),
        ({"epochs": -3}, "epochs must be a positive integer, got -3"),
        ({"epochs": 1.5}, "epochs must be a positive integer, got 1.5"),
        ({"batch_size": 0}, "batch_size must be a positive integer, got 0"),
        ({"batch_size": -32}, "batch_size must be a positive integer, got -32"),
        ({"lr": 0}, r"lr must be in \(0, inf\], got 0"),
        ({"iteration": -1}, "iteration must be an integer >= 0, got -1"),
        ({"seed": -1}, "seed must be an integer >= 0, got -1"),
        ({"train_size": 0}, "train_size must be a positive integer, got 0"),
        ({"val_fraction": 1.0}, r"val_fraction must be in \[0, 1\), got 1.0"),
        ({"technique": None}, "treatment 'finetune' needs a technique"),
        ({"technique": None, "treatment": None}, "iteration 1 is a pruning round"),
    ],
)
def test_bad_protocol_values_write_nothing(tmp_path, changes, message):
    with pytest.raises(PruneAuditError, match=message):
        RunSpec(**{**PRUNED, **changes})
    argv = ["grid", "run", "--dataset", "mnist", "--model", "lenet", "--store", str(tmp_path)]
    flags = {"epochs": "--epochs", "batch_size": "--batch-size", "lr": "--lr"}
    for name, value in changes.items():
        if name in flags and isinstance(value, int):
            assert cli.main([*argv, flags[name], str(value)]) == 2
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize(("changes", "name"), [({"epochs": 0}, "epochs"),
                                               ({"batch_size": -1}, "batch_size")])
def test_train_config_rejects_non_positive_values(changes, name):
    with pytest.raises(PruneAuditError, match=f"{name} must be a positive integer"):
        TrainConfig(**changes)


# --------------------------------------------------------------------------- store folder


def test_store_under_a_regular_file_is_not_writable(tmp_path):
    blocker = tmp_path / "results"
    blocker.write_text("a file, not a folder")
    store = ResultsStore(blocker / "store")
    with pytest.raises(PruneAuditError, match=r"results store .*store' is not writable") as err:
        store.save(RunSpec(**DENSE), *tiny_result())
    assert "PRUNEAUDIT_STORE" in str(err.value)
    with pytest.raises(PruneAuditError, match="is not writable"):
        store.get_or_run(RunSpec(**DENSE), lambda spec: pytest.fail("ran although unwritable"))
    with pytest.raises(PruneAuditError, match="is not writable"):
        run_grid([RunSpec(**DENSE)], never_called, store, progress=False)
    assert cli.main(["grid", "run", "--dataset", "mnist", "--model", "lenet",
                     "--store", str(blocker / "store")]) == 2
    assert blocker.read_text() == "a file, not a folder"
    assert store.keys() == [] and not store.has(RunSpec(**DENSE))


@pytest.mark.skipif(
    hasattr(os, "geteuid") and os.geteuid() == 0,
    reason="root writes through chmod 0o500; the regular-file test covers root",
)
def test_store_without_write_permission(tmp_path):
    root = tmp_path / "store"
    root.mkdir(mode=0o500)
    try:
        with pytest.raises(PruneAuditError, match="is not writable"):
            ResultsStore(root).save(RunSpec(**DENSE), *tiny_result())
    finally:
        root.chmod(0o700)


# --------------------------------------------------------------------------- security


class Exploit:
    """Unpickling this calls ``os.system`` (what a malicious checkpoint would do)."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def test_a_checkpoint_that_would_run_code_is_refused(tmp_path):
    store = ResultsStore(tmp_path / "store")
    run = store.save(RunSpec(**DENSE), *tiny_result(), checkpoint={"w": torch.ones(2)})
    marker = tmp_path / "pwned"
    torch.save({"w": torch.ones(2), "payload": Exploit(marker)}, run.path / "checkpoint.pt")
    with pytest.raises(PruneAuditError, match="refused to load checkpoint .*not a plain state"):
        store.load(RunSpec(**DENSE)).checkpoint()
    assert not marker.exists()
    # The planted file is a real exploit: an unsafe load would have run it.
    with open(run.path / "checkpoint.pt", "rb") as fh:
        torch.load(fh, weights_only=False)
    assert marker.exists()


def test_a_plain_pickle_checkpoint_is_refused(tmp_path):
    store = ResultsStore(tmp_path)
    run = store.save(RunSpec(**DENSE), *tiny_result(), checkpoint={"w": torch.zeros(1)})
    marker = tmp_path / "pwned2"
    (run.path / "checkpoint.pt").write_bytes(pickle.dumps(Exploit(marker), protocol=2))
    with pytest.raises(PruneAuditError, match="refused to load checkpoint"):
        run.checkpoint()
    assert not marker.exists()


def test_no_network_connection_when_data_is_present(tmp_path, data_root, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError(f"network use attempted: {args!r}")

    for name in ("connect", "connect_ex", "sendto"):
        monkeypatch.setattr(socket.socket, name, refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    data.clear_cache()  # read the files again under the guard
    spec = RunSpec(**PRUNED, epochs=1, train_size=256, test_size=128, seed=2)
    report = run_grid([spec], store=tmp_path, data_root=data_root, progress=False)
    assert report.ok and len(report.done) == 2
    run = ResultsStore(tmp_path).load(spec)
    assert len(run.predictions) == 128 and "weight_orig" not in "".join(run.checkpoint())
    assert train_and_evaluate(spec, tmp_path, data_root) == spec.key


# --------------------------------------------------------------------------- other modules


def test_data_missing_offline_names_dataset_and_folder(tmp_path):
    with pytest.raises(DataMissingError) as err:
        data.load("fashion_mnist", "train", root=tmp_path)
    assert "fashion_mnist" in str(err.value) and str(tmp_path) in str(err.value)
    assert not any(tmp_path.iterdir()) or all(p.is_dir() for p in tmp_path.rglob("*"))


def test_idx_files_with_wrong_magic_or_truncated(tmp_path):
    bad_magic = tmp_path / "bad-magic"
    bad_magic.write_bytes(b"\x12\x34\x08\x01" + struct.pack(">I", 3) + b"abc")
    with pytest.raises(PruneAuditError, match="is not an idx file: magic number 12340801"):
        data.read_idx(bad_magic)
    truncated = tmp_path / "truncated"
    truncated.write_bytes(b"\x00\x00\x08\x03" + struct.pack(">III", 10, 28, 28) + bytes(100))
    with pytest.raises(PruneAuditError, match="truncated"):
        data.read_idx(truncated)


def test_population_too_small_for_a_t_test():
    one = np.full((1, 10), 0.9)
    many = np.full((5, 10), 0.9)
    with pytest.raises(PruneAuditError, match="K = 1 model.*needs at least 2"):
        audit.class_recall_ttest(one, [0.9], many, np.full(5, 0.9))


def test_taxicab_and_jaccard_need_equal_population_sizes():
    rng = np.random.default_rng(0)
    a, b = rng.integers(0, 10, (3, 20)), rng.integers(0, 10, (2, 20))
    for fn in (audit.taxicab_scores, audit.jaccard_scores):
        with pytest.raises(PruneAuditError, match="equal size; baseline has K = 3 .* K = 2"):
            fn(a, b, 10)


def test_notebook_parameter_of_the_wrong_type():
    from pruneaudit.studies.pareto_selection import Params

    with pytest.raises(PruneAuditError, match="epochs must be int, got 'two'"):
        Params(epochs="two", seeds=[0])


def test_unreachable_scheduler_is_one_clear_error(tmp_path):
    import dask
    import distributed  # noqa: F401  (load its config defaults before overriding one of them:
    # a dask.config.set of a key under a missing "distributed" section removes it on exit)

    with (
        dask.config.set({"distributed.comm.timeouts.connect": "1s"}),
        pytest.raises(PruneAuditError, match="cannot reach the Dask scheduler at 'tcp://127.0.0.1:9'"),
    ):
        run_grid([RunSpec(**DENSE)], never_called, tmp_path, executor=Dask("tcp://127.0.0.1:9"),
                 progress=False)
    assert ResultsStore(tmp_path).keys() == []
