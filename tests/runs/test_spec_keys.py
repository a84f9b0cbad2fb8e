"""Store keys of the runs each kind of run makes are pinned: moving code never retires a run.

The hex digests were computed from the specs these builders made before the run modules were
split by kind of run; a change here means every stored run of that kind would be trained again.
"""

from __future__ import annotations

import pytest

from pruneaudit import runs
from pruneaudit.runs import RunSpec, series

BASE = RunSpec("mnist", "lenet", epochs=2, train_size=256, test_size=128)

PINNED = {
    "dense": (lambda: BASE, "44b80db621afb32ca6ce367fde9fe3bc820a7f8e175c720053559428f7cabdf1"),
    "iterative": (
        lambda: runs.series_specs(BASE, "l1_unstructured", "rewind", 2)[2],
        "3a1122859a83c20173dd3b9c75ba3b053674c187ffe40f56dd81305bbca4c8cf",
    ),
    "gradual": (
        lambda: runs.member_specs(BASE, [3], 0.5)[0],
        "d4f5e9eb93ba52cfe317fd0f6f11d5bcd6e2722378ab3ebf510af2f227ff6eab",
    ),
    "gradual, independent seeds": (
        lambda: runs.level_specs(BASE, [0, 1], [0.9])[0.9][1],
        "89ed97d7deb2cb5bb43f0745ce331aa1d19519997cd0ed9bc78a0359e6fe0c8e",
    ),
    "quantized": (
        lambda: runs.quantized_specs(runs.member_specs(BASE, [0, 1], 0.5), "static_int8")[1],
        "e391c39e72c54f00814d55c17ccd6f897899a6187ea4e20d04b6af5d550afef2",
    ),
    "corrupted": (
        lambda: runs.corrupted_specs(runs.member_specs(BASE, [0]), "contrast", 3, 1)[0],
        "b011cf1ed972e3029667b889d6a6ed300fb8f8be49c684a6ed8e56495ef9033a",
    ),
    "flip": (
        lambda: BASE.replace(extra=runs.flip_extra(True)),
        "e4b2d1dd096104f8a455fe75fbc81b3c5bf6dd04eb2eeae348021523cbe7d590",
    ),
    "dense epochs": (
        lambda: BASE.with_extra(dense_epochs=4),
        "e3336cd364555f0e245329211da168875ba8179e0be6a56589034d24cd6738d9",
    ),
    "imbalanced": (
        lambda: series.imbalanced(BASE, 10),
        "2df9dc1b1738361478fc07fc63c327e1ca9fd7a04643f82668a2162fbd31d747",
    ),
    "imbalanced, float factor": (
        lambda: series.imbalanced(BASE, 2.5),
        "b18311f3b50b160a43019f0744bd9d30e434d5009d985680e3c72ef1f731d473",
    ),
}


@pytest.mark.parametrize("name", list(PINNED))
def test_store_keys_are_pinned(name: str) -> None:
    make, key = PINNED[name]
    spec = make()
    assert spec.key == key
    assert RunSpec.from_dict(spec.as_dict()).key == key  # a stored spec reads back to its key


def test_every_extra_key_constant_is_declared_with_its_type() -> None:
    from pruneaudit.runs import spec as spec_mod

    constants = {v for k, v in vars(spec_mod).items() if k.endswith("_KEY") and k != "PRECISION"}
    assert constants == set(spec_mod.EXTRA_TYPES)
    assert spec_mod.EXTRA_TYPES["severity"] is int and spec_mod.EXTRA_TYPES["flip"] is bool


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"severity": "3"}, r"extra\['severity'\] must be int, got '3'"),
        ({"severity": True}, r"extra\['severity'\] must be int"),
        ({"flip": 1}, r"extra\['flip'\] must be bool, got 1"),
        ({"corruption": 2}, r"extra\['corruption'\] must be str"),
        ({"imbalance_factor": "10"}, r"extra\['imbalance_factor'\] must be float"),
    ],
)
def test_declared_extra_keys_are_type_checked(extra: dict, message: str) -> None:
    from pruneaudit.errors import PruneAuditError

    with pytest.raises(PruneAuditError, match=message):
        BASE.replace(extra=extra)


def test_free_form_extra_keys_and_int_for_float_still_pass() -> None:
    assert dict(BASE.replace(extra={"note": "x", "imbalance_factor": 10}).extra)["note"] == "x"
