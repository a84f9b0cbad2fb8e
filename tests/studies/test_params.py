"""The study parameters object: types checked, rules each one message, frozen after checking."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pruneaudit.errors import PruneAuditError, check_positive_int, check_range
from pruneaudit.runs.series import distinct
from pruneaudit.studies.params import StudyParams, matches


@dataclass(frozen=True, kw_only=True)
class Example(StudyParams):
    STUDY = "Study X"

    seeds: tuple[int, ...]
    epochs: int
    lr: float
    floor: float | None

    def rules(self):
        yield lambda: check_positive_int("epochs", self.epochs)
        yield lambda: check_range("lr", self.lr, 0, 1, lo_open=True)
        yield lambda: distinct("seeds", self.seeds)


def namespace(**values):
    base = {"seeds": [0, 1], "epochs": 2, "lr": 0.1, "floor": None}
    base.update(values)
    kinds = {"seeds": list[int], "epochs": int, "lr": float, "floor": float | None}
    return {**base, "__annotations__": kinds}


def test_from_namespace_freezes_lists_and_keeps_defaults() -> None:
    params = Example.from_namespace(namespace())
    assert params.seeds == (0, 1) and params.device == "auto" and params.store is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        params.epochs = 3  # type: ignore[misc]
    assert params.as_dict()["seeds"] == [0, 1]


def test_every_broken_rule_is_named_once() -> None:
    with pytest.raises(PruneAuditError) as err:
        Example.from_namespace(namespace(epochs=0, lr=2.0))
    text = str(err.value)
    assert text.startswith("bad Study X parameters: ")
    assert text.count("epochs must be a positive integer") == 1
    assert text.count("lr must be in (0, 1]") == 1


def test_types_are_checked_before_rules() -> None:
    with pytest.raises(PruneAuditError, match=r"epochs must be int, got 'two'"):
        Example.from_namespace(namespace(epochs="two"))
    tuple_error = r"seeds must be list\[int\], got \[0, 'a'\]"  # as a profile writes it
    with pytest.raises(PruneAuditError, match=tuple_error):
        Example(seeds=[0, "a"], epochs=1, lr=0.1, floor=None)


def test_cell_must_match_the_fields() -> None:
    ns = namespace()
    ns["__annotations__"] = {**ns["__annotations__"], "extra": int}
    ns["extra"] = 1
    del ns["__annotations__"]["floor"]
    with pytest.raises(PruneAuditError, match="declare floor; extra is not a parameter"):
        Example.from_namespace(ns)
    with pytest.raises(PruneAuditError, match="declares no typed parameters"):
        Example.from_namespace({"epochs": 1})


@pytest.mark.parametrize(
    ("value", "kind", "ok"),
    [
        (3, int, True),
        (True, int, False),
        (3, float, True),
        ("3", float, False),
        (None, str | None, True),
        ("x", str | None, True),
        (1, str | None, False),
        (["a", "b"], list[str], True),
        (["a", 1], list[str], False),
        (("a", "b"), tuple[str, ...], True),
        ({"a": 1}, dict[str, int], True),
        ({"a": "1"}, dict[str, int], False),
    ],
)
def test_matches(value: object, kind: object, ok: bool) -> None:
    assert matches(value, kind) is ok


def test_every_bad_type_is_named_once() -> None:
    """The construction is the one check of the values: one error names each bad value."""
    message = r"^bad Study X parameters: epochs must be int, got 'two'; lr must be float, got 'x'$"
    with pytest.raises(PruneAuditError, match=message):
        Example.from_namespace(namespace(epochs="two", lr="x"))
    ns = namespace()
    del ns["floor"]  # declared in the cell, given no value
    with pytest.raises(PruneAuditError, match="floor is not defined"):
        Example.from_namespace(ns)


@given(st.lists(st.integers(), max_size=5))
def test_lists_of_ints_match_and_freeze(values: list[int]) -> None:
    assert matches(values, list[int])
    if values and len(set(values)) == len(values):
        assert Example(seeds=values, epochs=1, lr=0.5, floor=None).seeds == tuple(values)
    else:
        with pytest.raises(PruneAuditError, match="seeds must"):
            Example(seeds=values, epochs=1, lr=0.5, floor=None)
