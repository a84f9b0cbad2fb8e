"""The runtime owns the process's settings: one module sets torch's threads, the environment is
written only to hand a kernel its record, and nothing rewrites another module's names."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
import torch

from pruneaudit import config, runtime
from pruneaudit.errors import PruneAuditError

SRC = Path(runtime.__file__).resolve().parent
#: A write to ``os.environ``: item assignment or deletion, a mutating method, a patch of it.
ENVIRON_WRITE = re.compile(
    r"os\.environ\[[^\]]*\]\s*=(?!=)|del\s+os\.environ|"
    r"os\.environ\.(update|setdefault|pop|popitem|clear)\(|patch\.dict\(\s*os\.environ|"
    r"os\.(putenv|unsetenv)\("
)


def _sources() -> dict[str, str]:
    return {str(p.relative_to(SRC)): p.read_text() for p in sorted(SRC.rglob("*.py"))}


def test_one_module_sets_torch_threads() -> None:
    setters = [name for name, text in _sources().items() if "set_num_threads(" in text]
    assert setters == ["runtime.py"]


def test_the_environment_is_written_at_two_places_at_most() -> None:
    writes = [
        f"{name}: {line.strip()}"
        for name, text in _sources().items()
        for line in text.splitlines()
        if ENVIRON_WRITE.search(line)
    ]
    assert len(writes) <= 2, writes
    assert any(w.startswith("book/builder/runner.py") for w in writes)  # the hand-off to a kernel


def test_the_pattern_finds_writes() -> None:
    found = [bool(ENVIRON_WRITE.search(line)) for line in (
        'os.environ["A"] = "1"', "os.environ.update(values)", 'os.environ.pop("A", None)',
        "with mock.patch.dict(os.environ, values):", 'os.environ.get("A")',
        'os.environ["A"] == "1"',
    )]
    assert found == [True, True, True, True, False, False]


def test_the_kernel_record_round_trips_through_one_variable() -> None:
    record = runtime.KernelRecord(
        page_dir="/tmp/book/studies", notebook="04_compression_impact", profile="smoke",
        overrides={"epochs": 2, "seeds": [0, 1]}, date="2026-01-01 00:00 UTC", measured=12.5,
        progress_file="/tmp/book/.04.progress", progress_interval=1.0, threads=2,
    )
    environ = record.environ()
    assert list(environ) == [runtime.KERNEL_ENV]
    assert runtime.KernelRecord.read(environ) == record
    assert runtime.KernelRecord.read({}) is None
    assert runtime.KernelRecord.read(runtime.KernelRecord().environ()) == runtime.KernelRecord()
    with pytest.raises(PruneAuditError, match="PRUNEAUDIT_KERNEL must hold"):
        runtime.KernelRecord.read({runtime.KERNEL_ENV: '{"page": 1}'})


def test_the_runners_record_is_what_the_page_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    from pruneaudit import book

    record = runtime.KernelRecord(profile="smoke", overrides={"seed": 1}, date="d", measured=3.0)
    assert book.build_info(record.environ()) == {
        "profile": "smoke", "overrides": {"seed": 1}, "date": "d", "seconds": 3.0,
    }
    monkeypatch.delenv(runtime.KERNEL_ENV, raising=False)
    assert book.build_info() is None


def test_device_and_precision_come_from_the_runtime_then_the_environment(monkeypatch) -> None:
    monkeypatch.setenv(config.DEVICE_ENV, "cpu")
    monkeypatch.delenv(config.PRECISION_ENV, raising=False)
    process = runtime.Runtime(device="cuda:1")
    assert runtime.Runtime().device_setting() == "cpu"  # a fresh one: the environment's
    assert process.device_setting() == "cuda:1" and process.precision_setting() == "fp32"
    with process.settings(device="auto", precision="bf16"):
        assert process.device_setting() == "auto" and process.precision_setting() == "bf16"
    assert process.device_setting() == "cuda:1"
    assert process.device_setting("cpu") == "cpu"  # a value given wins
    assert runtime.Runtime.given(None).device_setting() == "cpu"
    assert runtime.Runtime.given(process) is process
    assert config.device_setting() == "cpu"  # config's: the value, else the environment
    assert config.DEVICE_ENV in __import__("os").environ  # nothing written
    with pytest.raises(PruneAuditError, match="device must be auto, cpu, cuda or cuda:N"):
        runtime.Runtime(device="gpu")


def test_no_module_holds_the_runtime() -> None:
    """The runtime is passed, never kept: ``runtime.py`` has no ``global`` statement and binds
    at module level only constants (strings, numbers, ``__all__``) besides its functions and
    classes, and no module of the package assigns a ``global`` that names a runtime."""
    import ast

    tree = ast.parse((SRC / "runtime.py").read_text())
    assert not [n for n in ast.walk(tree) if isinstance(n, ast.Global)]
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [t.id for t in targets if isinstance(t, ast.Name)]
            value = node.value
            constant = isinstance(value, ast.Constant) and not isinstance(value.value, bytearray)
            assert constant or names == ["__all__"], ast.unparse(node)
    for name in ("current", "use", "activated", "set_device", "device_setting", "bar"):
        assert not hasattr(runtime, name), name
    with_global = {name for name, text in _sources().items()
                   if any(isinstance(n, ast.Global) for n in ast.walk(ast.parse(text)))}
    assert not with_global, f"module state set through `global` in {sorted(with_global)}"


def _tqdm_names() -> dict[str, object]:
    import tqdm.auto

    names = {name: getattr(module, "tqdm", None) for name, module in list(sys.modules.items())
             if name.startswith("pruneaudit")}
    return {**names, "tqdm.auto": tqdm.auto.tqdm}


def test_compute_shows_progress_through_the_runtime_and_patches_no_tqdm(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pruneaudit.book.builder import compute

    before, threads, seen = _tqdm_names(), torch.get_num_threads(), {}

    def fake(name: str):
        def run(params, store, *, progress=True, runtime=None):
            seen["names"] = _tqdm_names()
            seen["file"], seen["runtime"] = runtime.progress_file, runtime
            for _ in runtime.bar(range(3), desc="train 3 x LeNet", disable=not progress):
                pass
        return run

    monkeypatch.setattr(compute, "study_run", fake)
    compute.run_studies("smoke", ["01_population_ols"], {"store": str(tmp_path)}, progress=True)
    for names in (seen["names"], _tqdm_names()):  # (modules imported meanwhile aside)
        assert {name: names[name] for name in before} == before
    assert seen["file"] is not None and seen["runtime"].progress_file is None  # restored
    assert "train 3 x LeNet" in capsys.readouterr().out
    assert torch.get_num_threads() == threads


def test_setup_makes_the_kernels_runtime_from_the_record_and_patches_no_tqdm(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from pruneaudit import book
    from pruneaudit.book.profiles import notebook_path, study_of

    name = "01_population_ols"
    cells = json.loads(notebook_path(name).read_text())["cells"]
    (cell,) = [c for c in cells if "parameters" in c["metadata"].get("tags", [])]
    values: dict = {}
    exec(compile("".join(cell["source"]), name, "exec", dont_inherit=True), values)  # noqa: S102
    values.pop("__builtins__")
    record = runtime.KernelRecord(
        page_dir=str(tmp_path), notebook=name, profile="smoke", date="d",
        progress_file=str(tmp_path / "progress"), progress_interval=0.0, threads=1,
    )
    monkeypatch.setenv(runtime.KERNEL_ENV, record.environ()[runtime.KERNEL_ENV])
    before = _tqdm_names()
    page = book.setup(values, study_of(name).params)
    assert {n: v for n, v in _tqdm_names().items() if n in before} == before
    assert isinstance(page.runtime, runtime.Runtime) and page.runtime.follow
    assert page.runtime.progress_file == tmp_path / "progress" and torch.get_num_threads() == 1
    assert (page.page_dir, page.notebook) == (tmp_path, name)
    assert page.runtime.device == page.params.device == page.runtime.device_setting()
    assert "Profile smoke, overrides: none, built d." in capsys.readouterr().out
