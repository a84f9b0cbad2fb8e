"""``make test`` runs with ``--dist loadgroup``: tests marked with one ``xdist_group`` share a
process (the book's page checks rely on it to open each page once per viewport). Some pytest and
pytest-xdist pairs ignore the marks without a word; this test fails on them."""

from __future__ import annotations

import pytest

pytest.importorskip("xdist")

pytest_plugins = ["pytester"]

TESTS = """
import os

import pytest

@pytest.mark.xdist_group("one")
@pytest.mark.parametrize("i", range(4))
def test_grouped(i):
    with open(f"worker_{i}", "w") as f:
        f.write(os.environ["PYTEST_XDIST_WORKER"])

@pytest.mark.parametrize("i", range(4))
def test_free(i):
    pass
"""


def test_a_group_runs_in_one_process(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_groups=TESTS)
    result = pytester.runpytest_subprocess("-n", "2", "--dist", "loadgroup", "-p", "xdist")
    result.assert_outcomes(passed=8)
    workers = {(pytester.path / f"worker_{i}").read_text() for i in range(4)}
    assert len(workers) == 1, f"the group ran in {sorted(workers)}: --dist loadgroup ignored it"
