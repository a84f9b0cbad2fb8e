"""Store keys of the runs each kind of run makes are pinned: moving code never retires a run.

The first hex digest of each kind was computed from the specs these builders made before the
run modules were split by kind of run: it is still the key of that spec under the legacy
trainer scheme (``trainer=1``, left out of the key), so stores written then keep their folders.
The second is its key today: the trainer scheme (``trainer=2``: a member's bits independent of
its companions, :mod:`pruneaudit.training.stacked`) retired every LeNet and AlexNet run made
before it. A change here means every stored run of that kind would be trained again.
"""

from __future__ import annotations

import pytest

from pruneaudit import runs
from pruneaudit.runs import RunSpec, series
from pruneaudit.runs.spec import LEGACY_TRAINER_SCHEME, TRAINER_SCHEME

BASE = RunSpec("mnist", "lenet", epochs=2, train_size=256, test_size=128)

PINNED = {
    "dense": (
        lambda: BASE,
        "44b80db621afb32ca6ce367fde9fe3bc820a7f8e175c720053559428f7cabdf1",
        "8c3a498253734250af82803564e655cb7e04422acc19ae2ecfdb64f76c30951d",
    ),
    "iterative": (
        lambda: runs.series_specs(BASE, "l1_unstructured", "rewind", 2)[2],
        "3a1122859a83c20173dd3b9c75ba3b053674c187ffe40f56dd81305bbca4c8cf",
        "aabe4f4eb67fc4d67b616a1aef0ecdb2babb91843677cfa6489aa51b63085903",
    ),
    "gradual": (
        lambda: runs.member_specs(BASE, [3], 0.5)[0],
        "d4f5e9eb93ba52cfe317fd0f6f11d5bcd6e2722378ab3ebf510af2f227ff6eab",
        "4c6f7849306bf4d1a1ea2969374759d70e790997e1cf9bc88657d6f34f419c49",
    ),
    "gradual, independent seeds": (
        lambda: runs.level_specs(BASE, [0, 1], [0.9])[0.9][1],
        "89ed97d7deb2cb5bb43f0745ce331aa1d19519997cd0ed9bc78a0359e6fe0c8e",
        "a5887b0e84ad3f7af521ba1e60862f18bbd047120994f341d084544701fe9920",
    ),
    "quantized": (
        lambda: runs.quantized_specs(runs.member_specs(BASE, [0, 1], 0.5), "static_int8")[1],
        "e391c39e72c54f00814d55c17ccd6f897899a6187ea4e20d04b6af5d550afef2",
        "f238b569640b2bf0aa49fd9aeb74df2cda9634b215988b0eab2174dae193fdaf",
    ),
    "corrupted": (
        lambda: runs.corrupted_specs(runs.member_specs(BASE, [0]), "contrast", 3, 1)[0],
        "b011cf1ed972e3029667b889d6a6ed300fb8f8be49c684a6ed8e56495ef9033a",
        "a9bdd3539ad6420808ba4b9165a6f92a47c42f3d3405efd107c031068c244bf5",
    ),
    "flip": (
        lambda: BASE.replace(extra=runs.flip_extra(True)),
        "e4b2d1dd096104f8a455fe75fbc81b3c5bf6dd04eb2eeae348021523cbe7d590",
        "8ae901623f5a2f64d8e330c99677d55f390cfedc37269a58836cd73dcfa9c824",
    ),
    "dense epochs": (
        lambda: BASE.with_extra(dense_epochs=4),
        "e3336cd364555f0e245329211da168875ba8179e0be6a56589034d24cd6738d9",
        "d7b42c6be955b51c05b6dddabf95c63ae262303ef13f60a7c3ca7a94e4f25ae2",
    ),
    "imbalanced": (
        lambda: series.imbalanced(BASE, 10),
        "2df9dc1b1738361478fc07fc63c327e1ca9fd7a04643f82668a2162fbd31d747",
        "3baaa91edf947d557a45e0b41fb2bd61aea0adf89cda4ad41a7d4758cf0a35fd",
    ),
    "imbalanced, float factor": (
        lambda: series.imbalanced(BASE, 2.5),
        "b18311f3b50b160a43019f0744bd9d30e434d5009d985680e3c72ef1f731d473",
        "cd59e7c7fc4d94c8a59851f84df682b3cf44fc5db7a92e8b4e5924f44bdca90a",
    ),
}


@pytest.mark.parametrize("name", list(PINNED))
def test_store_keys_are_pinned(name: str) -> None:
    make, legacy, key = PINNED[name]
    spec = make()
    assert spec.trainer == TRAINER_SCHEME and spec.key == key
    assert RunSpec.from_dict(spec.as_dict()).key == key  # a stored spec reads back to its key
    old = spec.replace(trainer=LEGACY_TRAINER_SCHEME)
    assert old.key == legacy and "trainer" not in old.as_dict()
    assert RunSpec.from_dict(old.as_dict()) == old  # a spec.json written before: legacy scheme


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
