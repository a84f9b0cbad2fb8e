"""Settings: the data root and results store resolve against the repository, from anywhere."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pruneaudit import config
from pruneaudit.data import datasets
from pruneaudit.errors import DataMissingError, PruneAuditError


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake repository ``tmp/work/repo`` with a sibling ``tmp/work/shared``; no settings."""
    root = tmp_path / "work" / "repo"
    root.mkdir(parents=True)
    monkeypatch.setattr(config, "REPO", root)
    monkeypatch.delenv(config.DATA_ENV, raising=False)
    monkeypatch.delenv(config.STORE_ENV, raising=False)
    monkeypatch.chdir(tmp_path)  # the working directory is not the repository
    return root


def test_data_roots_in_documented_order(repo: Path) -> None:
    assert config.data_roots() == [repo / "data", repo.parent / "shared" / "data"]
    assert config.data_root() == repo / "data"  # none exists: where a download goes
    (repo.parent / "shared" / "data").mkdir(parents=True)
    assert config.data_root() == repo.parent / "shared" / "data"
    (repo / "data").mkdir()
    assert config.data_root() == repo / "data"


def test_dataset_root_is_the_first_holding_the_dataset(repo: Path) -> None:
    (repo / "data" / "QMNIST").mkdir(parents=True)
    (repo.parent / "shared" / "data" / "MNIST" / "raw").mkdir(parents=True)
    assert config.dataset_root("MNIST/raw") == repo.parent / "shared" / "data"
    assert config.dataset_root("QMNIST") == repo / "data"
    assert config.dataset_root("KMNIST") == repo / "data"


def test_setting_wins_and_relative_settings_resolve_against_the_repo(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(config.DATA_ENV, "elsewhere/data")
    assert config.data_roots() == [repo / "elsewhere" / "data"]
    assert config.data_root("/abs/data") == Path("/abs/data")
    assert config.data_root("rel") == repo / "rel"
    monkeypatch.setenv(config.DATA_ENV, "")  # empty: as if unset
    assert config.data_roots()[0] == repo / "data"


def test_store_root_resolves_against_the_repo(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert config.store_root() == repo / "results"
    assert config.store_root("runs") == repo / "runs"
    assert config.store_root("/tmp/x") == Path("/tmp/x")
    monkeypatch.setenv(config.STORE_ENV, "shared_runs")
    assert config.store_root() == repo / "shared_runs"


def test_same_paths_from_another_working_directory(tmp_path: Path) -> None:
    """As a live kernel started in book/studies would see them."""
    env = {k: v for k, v in os.environ.items() if k not in (config.DATA_ENV, config.STORE_ENV)}
    code = "from pruneaudit import config; print(config.store_root()); print(config.data_roots())"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
        check=True,
    ).stdout.splitlines()
    assert out[0] == str(config.REPO / "results")
    assert str(config.REPO / "data") in out[1]


def test_missing_dataset_names_dataset_folders_and_fix(tmp_path: Path) -> None:
    with pytest.raises(DataMissingError) as err:
        datasets.load("fashion_mnist", "test", root=tmp_path / "nothing")
    text = str(err.value)
    assert "'fashion_mnist'" in text
    assert f"Folders searched for {datasets.FOLDERS['fashion_mnist']}/" in text
    assert str(tmp_path / "nothing") in text
    assert "download=True" in text and "offline" in text


def test_truncated_file_is_named_with_its_expected_size(
    tmp_path: Path, data_root: Path
) -> None:
    raw = tmp_path / datasets.FOLDERS["mnist"]
    raw.mkdir(parents=True)
    for f in (data_root / datasets.FOLDERS["mnist"]).glob("*-ubyte"):
        shutil.copy(f, raw / f.name)
    bad = raw / "t10k-images-idx3-ubyte"
    with bad.open("r+b") as f:
        f.truncate(100_000)
    datasets.clear_cache()
    with pytest.raises(PruneAuditError) as err:
        datasets.load("mnist", "test", root=tmp_path)
    text = str(err.value)
    assert f"Bad file: {bad} (100,000 bytes, expected 7,840,016)" in text
    assert "offline" in text and "good copy" in text and str(raw) in text
