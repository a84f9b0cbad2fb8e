"""What a protocol costs to train: model-epochs, images seen and hours at a measured rate.

One formula for every study: ``hours = model_epochs * images_per_epoch / 10_000 *
seconds_per_10k / 3600``, where ``seconds_per_10k`` is a measured rate (seconds per 10,000
training images per model) on the machine in question.

The rate has one source, :func:`seconds_per_10k`: every population the results store trains
records its wall time and the images its members saw (:func:`record_rate`, ``_rates.jsonl``
in the store), and the rate is the median of the model's records on that device from
populations of at least :data:`MIN_RATE_IMAGES` images; where a store has none yet, the
reference rates :data:`REFERENCE_SECONDS_PER_10K` stand in (and the text says so).
"""

from __future__ import annotations

import json
import math
import os
import statistics
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from pruneaudit import config
from pruneaudit.charts import format as fmt
from pruneaudit.errors import PruneAuditError, check_positive_int

#: The package's record of the GPU benchmark (``benchmarks/gpu_training.py --device cuda``
#: writes it): the hours of each protocol it costed (rows ``protocol`` "Study N (...)",
#: ``configuration``, ``model_epochs``, ``hours``) at the GPU rates it measured.
GPU_COSTS = Path(__file__).with_name("gpu_costs.csv")

#: Seconds per 10,000 training images per model on a 2-core CPU: the rate before a store has
#: recorded its own. LeNet's is the population trainer's median over the 150 populations of
#: the cold quick build of 28 Nov 2026 (an Intel Xeon with AVX-512; the Benchmarks appendix);
#: the others' were measured for one model trained alone (batch 32), so they overstate a
#: population's rate.
REFERENCE_SECONDS_PER_10K = {"lenet": 0.55, "alexnet": 24.0, "vgg11": 100.0, "resnet18": 290.0}
#: A population that saw fewer images is not read as a rate: its start-up (the data pool, the
#: stacked network, the threads) dominates, and a smoke population's rate (about 10,000 images)
#: overstates a quick one's about 3.5 times. Records without their images (written before
#: 29 Nov 2026) are not read either.
MIN_RATE_IMAGES = 50_000
#: The store's record of training rates, one JSON line per trained population.
RATES_FILE = "_rates.jsonl"


@dataclass(frozen=True)
class Rate:
    """A training rate and where it comes from."""

    seconds_per_10k: float
    #: "recorded" (median of this store's records), "probed" (:func:`~pruneaudit.runs.speed_probe`,
    #: LeNet on the CPU before any record) or "reference".
    source: str
    records: int = 0

    def text(self) -> str:
        """``0.83 s per 10k images per model (median of 12 trainings recorded in this store)``."""
        none_yet = f"no population of {MIN_RATE_IMAGES:,} images or more recorded here yet"
        where = {
            "recorded": f"median of {self.records} trainings recorded in this results store",
            "probed": f"this machine's speed probe; {none_yet}",
        }.get(self.source, f"reference measurement on a 2-core CPU; {none_yet}")
        return f"{fmt.number(self.seconds_per_10k, 2)} s per 10k images per model ({where})"


def record_rate(
    store_root: str | os.PathLike, model: str, device: str, seconds: float, images: int
) -> None:
    """Append one training's rate to the store's :data:`RATES_FILE` (``images``: all the images
    its members saw, over all epochs). Nothing is written for a training of no images."""
    if images <= 0 or seconds <= 0:
        return
    line = {"model": model, "device": device, "seconds_per_10k": seconds / images * 10_000,
            "images": images}
    path = Path(store_root) / RATES_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as f:
        f.write(json.dumps(line) + "\n")


def seconds_per_10k(
    model: str, store_root: str | os.PathLike | None = None, device: str = "cpu"
) -> Rate:
    """The training rate of ``model`` on ``device``: the median of the store's records (the last
    50 of populations of at least :data:`MIN_RATE_IMAGES` images), else the reference rate.
    Raises naming the models when ``model`` has neither."""
    records = []
    path = Path(config.store_root(store_root)) / RATES_FILE
    if path.is_file():
        for line in path.read_text().splitlines():
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line cut short by an interrupted write
            if (row.get("model") == model and row.get("device") == device
                    and row.get("images", 0) >= MIN_RATE_IMAGES):
                records.append(float(row["seconds_per_10k"]))
    if records:
        return Rate(statistics.median(records[-50:]), "recorded", len(records[-50:]))
    if model not in REFERENCE_SECONDS_PER_10K:
        raise PruneAuditError(
            f"no training rate for model {model!r}: train it once (the store records its rate) "
            f"or use one of {sorted(REFERENCE_SECONDS_PER_10K)}"
        )
    return Rate(REFERENCE_SECONDS_PER_10K[model], "reference")


@dataclass(frozen=True)
class Cost:
    """Training cost of a protocol."""

    model_epochs: int
    images_per_epoch: int
    hours: float

    @property
    def images(self) -> int:
        """Training images seen in total (over all models and epochs)."""
        return self.model_epochs * self.images_per_epoch


def training_cost(model_epochs: int, images_per_epoch: int, seconds_per_10k: float) -> Cost:
    """The :class:`Cost` of ``model_epochs`` epochs over ``images_per_epoch`` images each, at
    ``seconds_per_10k`` seconds per 10,000 images per model."""
    check_positive_int("model_epochs", model_epochs)
    check_positive_int("images_per_epoch", images_per_epoch)
    if not seconds_per_10k > 0:
        raise PruneAuditError(
            f"seconds_per_10k must be a measured rate > 0 seconds, got {seconds_per_10k!r}"
        )
    hours = model_epochs * images_per_epoch / 10_000 * seconds_per_10k / 3600
    return Cost(model_epochs, images_per_epoch, hours)


def _gpu_rows(study: str, path: str | Path) -> pd.DataFrame:
    path = Path(path)
    if not path.is_file():
        return pd.DataFrame(columns=["protocol", "hours"])
    costs = pd.read_csv(path)
    return costs[costs["protocol"].str.startswith(study + " (")]


def gpu_hours(study: str, path: str | Path = GPU_COSTS) -> float | None:
    """Hours of ``study``'s protocol (``"Study 2"``...) at the fastest configuration that the
    GPU benchmark measured (:data:`GPU_COSTS`), summed over the study's architectures, or None
    where none was measured."""
    rows = _gpu_rows(study, path)
    if not len(rows):
        return None
    return float(rows.groupby("protocol")["hours"].min().sum())


def gpu_cost_text(study: str, path: str | Path = GPU_COSTS) -> str:
    """The study's GPU training time as measured, naming the protocol costed, or a plain 'not
    measured'."""
    hours = gpu_hours(study, path)
    if hours is None:
        return (
            "not measured: no GPU was available where this book was built (the book's GPU "
            "benchmark measures it on one; the Reproducing page says how)"
        )
    costed = ", ".join(dict.fromkeys(_gpu_rows(study, path)["protocol"]))
    return (f"about {hours:,.1f} h for {costed} (fastest configuration of the book's GPU "
            "benchmark)")


@dataclass(frozen=True)
class StudyCost:
    """What one study's parameters will train, summed over its workloads (the ``Workload``
    rows of a study's ``cost(params)``): ``populations`` (stacked trainings; None where the
    study does not state them), ``models``, ``model_epochs``, ``evaluations``, and ``seconds``
    of training at this machine's rates (NaN where a model has no rate), with the rates'
    ``source`` (``recorded``, ``reference`` or both)."""

    populations: int | None
    models: int
    model_epochs: int
    evaluations: int
    seconds: float
    source: str

    def counts(self) -> str:
        """``12 populations, 48 models, 96 model-epochs, 48 evaluations``."""
        populations = "? populations" if self.populations is None else (
            f"{self.populations} population{'s' * (self.populations != 1)}")
        return (f"{populations}, {self.models} models, {self.model_epochs} model-epochs, "
                f"{self.evaluations} evaluations")

    def text(self) -> str:
        """:meth:`counts`, then the training's minutes: ``..., about 3.2 min of training``."""
        minutes = self.seconds / 60
        minutes = ("minutes unknown (no training rate)" if math.isnan(minutes)
                   else f"{'about' if minutes >= 0.1 else 'under'} {max(minutes, 0.1):.1f} min "
                   f"of training ({self.source} rate)")
        return f"{self.counts()}, {minutes}"


def study_cost(
    workloads: Iterable[object], store: str | os.PathLike | None = None, device: str = "cpu"
) -> StudyCost:
    """The :class:`StudyCost` of ``workloads`` (each with ``model``, ``models``,
    ``model_epochs``, ``images``, ``evaluations`` and, where stated, ``populations``), each
    model's images at its rate on ``device`` (:func:`seconds_per_10k`, recorded in ``store``;
    before any record, LeNet's on the CPU is this machine's :func:`~pruneaudit.runs.speed_probe`,
    which the trainer's populations of a quick build matched within a few percent, bar Study 3's:
    ``benchmarks/out/profile_evidence.md``)."""
    rows = list(workloads)
    seconds, sources, stated = 0.0, [], [getattr(w, "populations", None) for w in rows]
    for w in rows:
        if not w.images:
            continue
        try:
            rate = seconds_per_10k(w.model, store, device)
        except PruneAuditError:
            seconds = math.nan
            continue
        if rate.source == "reference" and (w.model, device) == ("lenet", "cpu"):
            from pruneaudit.runs.probe import speed_probe

            rate = Rate(speed_probe(), "probed")
        seconds += w.images / 10_000 * rate.seconds_per_10k
        sources.append(rate.source)
    return StudyCost(
        populations=None if None in stated else sum(stated),  # type: ignore[arg-type]
        models=sum(w.models for w in rows),
        model_epochs=sum(w.model_epochs for w in rows),
        evaluations=sum(w.evaluations for w in rows),
        seconds=seconds,
        source=" and ".join(sorted(set(sources))) or "no",
    )
