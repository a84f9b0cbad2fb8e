"""How long ``PROFILE=paper`` trains, study by study, on the 2-core CPU and on one GPU.

The workload is each study's own statement of it, ``cost(params)`` of every study package
(found from the notebooks in ``nbs/``), on the paper profile's parameters:
model-epochs and training images seen. The hours are ``images / rate``:

* CPU: LeNet at the population trainer's measured rate (``benchmarks/out/training_speed.csv``,
  ``train_population K=30`` on 2 threads); the other models at
  :func:`pruneaudit.runs.cost.seconds_per_10k` (the results store's recorded rate, else the
  reference rate measured on the project's 2-core CPU);
* GPU: LeNet's ``train_population`` rates at K = 30 measured by ``benchmarks/gpu_training.py
  --device cuda`` (``benchmarks/out/gpu_training_cuda.csv``, the device named in its ``.md``):
  the eager step and one CUDA graph per step (the trainer's default on CUDA). No GPU rate was
  measured for AlexNet, VGG11 or ResNet18: their GPU hours are LeNet's measured rate scaled by
  the ratio of training FLOPs per image (analytic, :func:`gpu_training.train_flops_per_image`),
  an upper bound where a larger network uses more of the card than launch-bound LeNet does.

Training only: evaluation, pruning and store I/O are not counted. Writes
``benchmarks/out/paper_gpu_cost.{md,csv}``; ``pruneaudit appendix benchmarks/out``
then copies the report into the fragment the Reproducing page includes. Usage:
``python benchmarks/paper_gpu_cost.py [--root DATA]``.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import sys
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"

#: The measured GPU rows of benchmarks/out/gpu_training_cuda.csv used for LeNet, by column key.
GPU_ROWS = {
    "eager": "(b) train_population K=30 eager",
    "graph": "(b) train_population K=30 graphs",
}
#: The measured CPU population row of benchmarks/out/training_speed.csv used for LeNet.
CPU_ROW = "(c) train_population K=30"


def _bench(name: str):
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def lenet_cpu_seconds_per_10k(path: Path = OUT / "training_speed.csv") -> tuple[float, str]:
    """Seconds per 10,000 images per model of the measured CPU population row."""
    table = pd.read_csv(path)
    row = table[table.configuration == CPU_ROW].iloc[0]
    return 60 / row.model_epochs_per_min, f"{CPU_ROW}, {int(row.threads)} threads ({path.name})"


def lenet_gpu_rates(path: Path = OUT / "gpu_training_cuda.csv") -> tuple[dict, str]:
    """Measured LeNet images/s of :data:`GPU_ROWS` and the device they were measured on."""
    if not path.exists():
        sys.exit(f"{path} is missing: run `python benchmarks/gpu_training.py --device cuda "
                 "--images 12000 --ks 30,120` on a CUDA machine first")
    table = pd.read_csv(path).set_index("configuration")
    match = re.search(r"\((NVIDIA[^)]*)\)", path.with_suffix(".md").read_text())
    device = match.group(1) if match else "a CUDA GPU"
    return {key: float(table.loc[row, "images_per_s"]) for key, row in GPU_ROWS.items()}, device


def workload(root: str | None) -> pd.DataFrame:
    """One row per (study, model) of the paper profile, as each study states its workload
    (``cost(params)`` of every study, on the paper profile): model_epochs and
    images (all training images seen, over every model and epoch)."""
    from pruneaudit.book import Profile, study_of
    from pruneaudit.book.paths import study_notebooks

    paper = Profile.read("paper", {"data_root": root} if root else None)
    rows = []
    for name in study_notebooks():
        params = paper.study_params(name)
        rows += [(params.STUDY, w.model, w.model_epochs, w.images)
                 for w in study_of(name).cost(params) if w.model_epochs]
    return pd.DataFrame(rows, columns=["study", "model", "model_epochs", "images"])


def costed(work: pd.DataFrame) -> tuple[pd.DataFrame, list[str], str]:
    """``work`` with CPU and GPU hours, the lines saying where each rate comes from, and the
    GPU's name."""
    from pruneaudit.runs.cost import seconds_per_10k

    flops = _bench("gpu_training").architecture_flops
    lenet_flops = flops("lenet")
    cpu_lenet, cpu_source = lenet_cpu_seconds_per_10k()
    out, notes = work.copy(), [f"CPU, lenet: {cpu_lenet:.3g} s per 10k images ({cpu_source})"]
    cpu, scale = {}, {}
    for model in work.model.unique():
        if model == "lenet":
            cpu[model] = cpu_lenet
        else:
            rate = seconds_per_10k(model)
            cpu[model] = rate.seconds_per_10k
            notes.append(f"CPU, {model}: {rate.text()}")
        scale[model] = flops(model) / lenet_flops
        if model != "lenet":
            notes.append(f"GPU, {model}: LeNet's measured rate / {scale[model]:,.1f} "
                         "(training FLOPs per image relative to LeNet; an upper bound)")
    out["cpu_hours"] = out.images / 10_000 * out.model.map(cpu) / 3600
    rates, device = lenet_gpu_rates()
    for key, images_per_s in rates.items():
        out[f"gpu_hours_{key}"] = out.images * out.model.map(scale) / images_per_s / 3600
        notes.append(f"GPU {key}: LeNet {images_per_s:,.0f} images/s, {GPU_ROWS[key]} "
                     f"(measured on {device}, gpu_training_cuda.csv)")
    return out, notes, device


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=None, help="data root (default: the setting)")
    args = parser.parse_args(argv)
    table, notes, device = costed(workload(args.root))
    per_study = table.groupby("study", sort=True)[
        ["model_epochs", "images", "cpu_hours", "gpu_hours_eager", "gpu_hours_graph"]
    ].sum().reset_index()
    per_study["models"] = table.groupby("study", sort=True).model.agg(", ".join).values
    total = per_study.sum(numeric_only=True)
    per_study.loc[len(per_study)] = {"study": "all", "models": "", **total.to_dict()}
    shown = pd.DataFrame({
        "study": per_study.study,
        "models": per_study.models,
        "model-epochs": per_study.model_epochs.map("{:,.0f}".format),
        "CPU hours (2 cores)": per_study.cpu_hours.map("{:,.1f}".format),
        f"{device} hours, eager step": per_study.gpu_hours_eager.map("{:,.1f}".format),
        f"{device} hours, CUDA graph step (default)": per_study.gpu_hours_graph.map(
            "{:,.1f}".format),
    })
    print(shown.to_string(index=False))
    print("\n".join(notes))
    OUT.mkdir(exist_ok=True)
    table.to_csv(OUT / "paper_gpu_cost.csv", index=False)
    text = (
        shown.to_markdown(index=False, disable_numparse=True) + "\n\nTraining only. Rates:\n\n"
        + "".join(f"- {n}\n" for n in notes) + f"\nThe GPU rates were measured on one {device} "
        "by `benchmarks/gpu_training.py --device cuda` (`benchmarks/out/gpu_training_cuda.md`), "
        "float32; bf16 is not counted.\n"
    )
    (OUT / "paper_gpu_cost.md").write_text(text)


if __name__ == "__main__":
    sys.exit(main())
