"""Model-epochs per minute of LeNet on QMNIST-size data on one device, and what the papers'
protocols would cost at the measured rates.

In one run on one machine (``--device``, default the setting: CUDA when available, else CPU),
LeNet on the first ``--images`` (default 48,000: QMNIST's training set less P's 20% validation)
QMNIST training digits, batch 32, SGD lr 0.01, ``--epochs`` epochs per model:

(a) a plain single-model PyTorch loop on the device: images and labels held on the device,
    ``randperm`` batches, normalize, forward, backward, step (no augmentation, no DataLoader:
    the fastest plain loop, so the ratios below are conservative);
(a2) :func:`pruneaudit.training.train`, one model (with the protocol's random-crop augmentation);
(b) :func:`pruneaudit.training.train_population` with K models (``--ks``, default 8 and 30),
    its eager step (``graphs=False``);
(c) the same with one CUDA graph per step (``graphs=True``; CUDA only);
(d) the same with CUDA graphs and bf16 autocast (``precision="bf16"``; CUDA only).

The targets (printed as measured ratios of this one run): K = 30 with graphs at >= 4x the
eager trainer's rate and >= 60x the plain loop's (a), and K >= 120 with graphs at >= 1.2M
images/s on an H100-class card. On a CPU only (a), (a2) and (b) run (graphs and bf16 are CUDA
paths) and the targets print as not measured.

Every configuration runs once untimed on 1,024 images first (CUDA context, cuDNN algorithm
choice, allocator warm-up), then timed with ``torch.cuda.synchronize()`` around the timed part.
Achieved FLOP/s counts the forward and backward convolution and matmul FLOPs of LeNet
analytically (:func:`train_flops_per_image`: per layer ``2 * MACs`` forward, the same for the
weight gradient, and again for the input gradient except for the first layer), over the wall
time; the share of peak uses the device's float32 peak (TF32 is off, see
:mod:`pruneaudit.training.device`) from :data:`PEAK_TFLOPS` by device name, ``--peak-tflops``,
or on the CPU a timed 4096 x 4096 matmul. The hours of every study's paper profile (its own
``cost(params)``, :func:`protocols`) at each measured rate come from
:func:`pruneaudit.runs.training_cost`. Prints the table and writes
``benchmarks/out/gpu_training_<device type>.{md,csv}`` and the hours to
``benchmarks/out/gpu_training_<device type>_costs.csv``; ``pruneaudit gpu-rates
benchmarks/out/gpu_training_cuda_costs.csv`` then installs a CUDA run's hours as the package's
data (``pruneaudit.runs.cost.GPU_COSTS``, which the study pages read).

Usage: ``python benchmarks/gpu_training.py [--device cuda] [--images 48000] [--ks 30,120]``
(``--report-only cuda`` rewrites the report from a run's saved tables);
a quick check on a CPU: ``--device cpu --images 512 --ks 2,4``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn

OUT = Path(__file__).resolve().parent / "out"
REPO = Path(__file__).resolve().parents[1]
BATCH, LR = 32, 0.01
WARMUP_IMAGES = 1024

#: float32 (non-tensor-core) peak TFLOP/s by a substring of ``torch.cuda.get_device_name``;
#: the first match wins (so the PCIe H100 is listed before the SXM one). Vendor datasheets.
PEAK_TFLOPS: dict[str, float] = {
    "H100 PCIe": 51.2,
    "H100": 66.9,
    "H200": 66.9,
    "A100": 19.5,
    "A10": 31.2,
    "L40S": 91.6,
    "L4": 30.3,
    "V100": 15.7,
    "T4": 8.1,
    "RTX 4090": 82.6,
}


def protocols(root: str | None = None) -> dict[str, tuple[int, int, str]]:
    """The paper profile's workload of every study, as each study states it (``cost(params)`` of
    every study package on ``nbs/profiles/paper.yml``), one entry per study and architecture:
    name -> (model-epochs, training images per epoch, architecture). A study that trains
    nothing (the template) has none. A larger network than LeNet is costed at LeNet's rate
    times the ratio of its training FLOPs to LeNet's (:func:`train_flops_per_image`; an upper
    bound where its larger layers reach a higher share of the peak than LeNet's)."""
    from pruneaudit.book import Profile, study_of
    from pruneaudit.book.paths import study_notebooks

    paper = Profile.read("paper", {"data_root": root} if root else None)
    out = {}
    for name in study_notebooks():
        params = paper.study_params(name)
        for w in study_of(name).cost(params):
            if w.model_epochs:
                out[f"{params.STUDY} (paper profile, {w.model})"] = (
                    w.model_epochs, round(w.images / w.model_epochs), w.model)
    return out


def _root(arg: str | None) -> Path:
    if arg:
        return Path(arg)
    return Path(os.environ.get("PRUNEAUDIT_DATA", REPO.parent / "shared" / "data"))


def train_flops_per_image(model: nn.Module, channels: int, size: int) -> int:
    """Forward + backward FLOPs of ``model`` on one image, from its conv and linear layers.

    Per layer, ``2 * MACs`` forward (conv: ``C_out * H_out * W_out * C_in / groups * k_h * k_w``;
    linear: ``in * out``), the same for the weight gradient, and the same for the input gradient
    except for the first layer (no gradient w.r.t. the images). Biases, ReLU, pooling and the
    loss are left out (a few percent for LeNet).
    """
    macs: list[int] = []

    def hook(module: nn.Module, _inp, out: torch.Tensor) -> None:
        if isinstance(module, nn.Conv2d):
            k = module.kernel_size[0] * module.kernel_size[1]
            per_out = module.in_channels // module.groups * k
            macs.append(out[0].numel() * per_out)
        else:
            macs.append(module.in_features * module.out_features)

    handles = [
        m.register_forward_hook(hook)
        for m in model.modules()
        if isinstance(m, nn.Conv2d | nn.Linear)
    ]
    try:
        with torch.no_grad():
            model(torch.zeros(1, channels, size, size))
    finally:
        for h in handles:
            h.remove()
    forward = 2 * sum(macs)
    return 3 * forward - 2 * macs[0]


def architecture_flops(name: str, channels: int = 1, size: int = 28) -> int:
    """:func:`train_flops_per_image` of the model ``name`` (10 classes), built on the meta device:
    layer shapes only, no weights drawn (drawing a VGG11's or an AlexNet's takes seconds)."""
    from pruneaudit.models import build_model

    with torch.device("meta"):
        return train_flops_per_image(build_model(name, 10, channels, size), channels, size)


def peak_tflops(device: torch.device, given: float | None) -> tuple[float, str]:
    """(float32 peak TFLOP/s, where it came from)."""
    if given is not None:
        return given, "--peak-tflops"
    if device.type == "cuda":
        name = torch.cuda.get_device_name(device)
        for key, value in PEAK_TFLOPS.items():
            if key in name:
                return value, f"datasheet float32 peak of {key}"
        raise SystemExit(f"no peak known for {name!r}: pass --peak-tflops")
    n = 2048
    a, b = torch.randn(n, n), torch.randn(n, n)
    a @ b
    best = min(_timed(lambda: a @ b, device) for _ in range(3))
    return 2 * n**3 / best / 1e12, f"timed {n} x {n} float32 matmul"


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _timed(fn: Callable[[], object], device: torch.device) -> float:
    _sync(device)
    start = time.perf_counter()
    fn()
    _sync(device)
    return time.perf_counter() - start


def plain_loop(digits, epochs: int, device: torch.device) -> None:
    """(a): the plain single-model loop, data on the device, batch 32."""
    from pruneaudit.data.augment import normalize
    from pruneaudit.models import build_model

    images, labels = digits.images.to(device), digits.labels.to(device)
    model = build_model("lenet", 10, 1, 28, seed=0).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    model.train()
    for _ in range(epochs):
        for idx in torch.randperm(len(images), device=device).split(BATCH):
            loss = F.cross_entropy(model(normalize(images[idx], digits.spec)), labels[idx])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()


def package_single(digits, epochs: int, device: torch.device) -> None:
    """(a2): :func:`pruneaudit.training.train`."""
    from pruneaudit.models import build_model
    from pruneaudit.training import TrainConfig, train

    model = build_model("lenet", 10, 1, 28, seed=0)
    train(model, digits, TrainConfig(epochs=epochs, lr=LR), progress=False, device=device)


def population(
    digits, epochs: int, device: torch.device, k: int, graphs: bool = False,
    precision: str = "fp32",
) -> None:
    """(b)-(d): :func:`pruneaudit.training.train_population` with ``k`` members."""
    from pruneaudit.models import build_model
    from pruneaudit.training import TrainConfig, train_population

    models = [build_model("lenet", 10, 1, 28, seed=s) for s in range(k)]
    cfgs = [TrainConfig(epochs=epochs, lr=LR, seed=s) for s in range(k)]
    train_population(models, digits, cfgs, progress=False, device=device, graphs=graphs,
                     precision=precision)


#: (label suffix, graphs, precision) of the trainer's variants; graphs and bf16 on CUDA only.
VARIANTS = (("eager", False, "fp32"), ("graphs", True, "fp32"), ("graphs bf16", True, "bf16"))


def _label(k: int, variant: str) -> str:
    return f"(b) train_population K={k} {variant}"


def targets(table: pd.DataFrame, ks: list[int]) -> list[str]:
    """The issue's targets as ratios measured in this run (``not measured`` where a row is
    missing, e.g. the graph path on a CPU)."""
    rate = dict(zip(table.configuration, table.images_per_s, strict=True))
    plain = rate["(a) plain loop, batch 32, data on the device"]
    lines = []
    for k in ks:
        eager, graph = rate.get(_label(k, "eager")), rate.get(_label(k, "graphs"))
        if graph is None:
            lines.append(f"K={k}: graph path not measured (CUDA only); eager "
                         f"{eager:,.0f} images/s = {eager / plain:.2f}x the plain loop")
            continue
        best = max(v for v in (graph, rate.get(_label(k, "graphs bf16"))) if v is not None)
        line = (f"K={k}: graphs {graph:,.0f} images/s = {graph / eager:.2f}x eager "
                f"(target >= 4 at K=30), {graph / plain:.1f}x the plain loop (target >= 60 at "
                f"K=30); best with bf16 {best:,.0f} images/s")
        if k >= 120:
            line += f" (target >= 1.2M on an H100: {'met' if best >= 1.2e6 else 'not met'})"
        lines.append(line)
    return lines


def measure(args: argparse.Namespace) -> tuple[pd.DataFrame, pd.DataFrame, str]:
    """(speed table, cost table, a line describing the run)."""
    from pruneaudit import data
    from pruneaudit.runs import training_cost
    from pruneaudit.training import full_precision, resolve_device

    device = resolve_device(args.device)
    digits = data.load("qmnist", "train", root=_root(args.root)).subset(range(args.images))
    warm = digits.subset(range(min(WARMUP_IMAGES, len(digits))))
    flops_image = architecture_flops("lenet")
    peak, peak_source = peak_tflops(device, args.peak_tflops)
    ks = [int(s) for s in args.ks.split(",") if s.strip()]
    configs: list[tuple[str, int, Callable]] = [
        ("(a) plain loop, batch 32, data on the device", 1, plain_loop),
        ("(a2) pruneaudit.training.train", 1, package_single),
    ] + [
        (_label(k, name), k,
         lambda d, e, dev, k=k, g=g, p=p: population(d, e, dev, k, g, p))
        for k in ks
        for name, g, p in VARIANTS
        if device.type == "cuda" or not g
    ]
    rows = []
    with full_precision(device):
        for label, models, fn in configs:
            fn(warm, 1, device)
            seconds = _timed(lambda fn=fn: fn(digits, args.epochs, device), device)
            model_epochs = models * args.epochs
            tflops = flops_image * len(digits) * model_epochs / seconds / 1e12
            rows.append(
                {
                    "configuration": label,
                    "models": models,
                    "seconds": seconds,
                    "model_epochs_per_min": model_epochs * 60 / seconds,
                    "images_per_s": model_epochs * len(digits) / seconds,
                    "seconds_per_10k": seconds / model_epochs / (len(digits) / 10_000),
                    "tflops": tflops,
                    "share_of_peak": tflops / peak,
                }
            )
            print(f"{label:48s} {seconds:8.2f} s  {rows[-1]['model_epochs_per_min']:9.2f} "
                  f"model-epochs/min  {tflops:.4f} TFLOP/s", flush=True)
    table = pd.DataFrame(rows)
    table.insert(4, "ratio_to_a", table.model_epochs_per_min / table.model_epochs_per_min.iloc[0])
    alexnet = architecture_flops("alexnet")
    costs = []
    for name, (model_epochs, images, arch) in protocols(args.root).items():
        arch_flops = architecture_flops(arch)
        scale = arch_flops / flops_image
        for row in rows:
            cost = training_cost(model_epochs, images, row["seconds_per_10k"] * scale)
            costs.append(
                {
                    "protocol": name,
                    "configuration": row["configuration"],
                    "model_epochs": cost.model_epochs,
                    "hours": cost.hours,
                }
            )
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else "CPU"
    info = (
        f"device {device} ({name}), torch {torch.__version__}, {torch.get_num_threads()} CPU "
        f"threads; LeNet on {len(digits):,} QMNIST digits, batch {BATCH}, SGD lr {LR}, "
        f"{args.epochs} epoch(s) per model; {flops_image / 1e6:.3f} MFLOP per image (forward + "
        f"backward, analytic; AlexNet {alexnet / 1e6:.1f}); peak {peak:.3f} TFLOP/s "
        f"({peak_source}); TF32 off"
    )
    return table, pd.DataFrame(costs), info


def report(table: pd.DataFrame, costs: pd.DataFrame, info: str, ks: list[int]) -> str:
    """The Markdown report of one run: the device line, the table (numbers as the book prints
    them, :func:`pruneaudit.charts.format.number`), the targets as measured ratios and the
    paper profile's hours of every study at each rate."""
    from pruneaudit.charts.format import number

    shown = table.copy()
    for col in shown.columns[1:]:
        shown[col] = shown[col].map(number)
    wide = costs.pivot(index="protocol", columns="configuration", values="hours")
    return (
        f"{info}\n\n{shown.to_markdown(index=False, disable_numparse=True)}\n\n"
        "Targets, measured in this run:\n\n" + "".join(f"- {r}\n" for r in targets(table, ks))
        + "\nHours of each study's paper profile at each measured rate:\n\n"
        + wide.map(number).to_markdown(disable_numparse=True) + "\n"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default=None, help="auto, cpu, cuda or cuda:N")
    parser.add_argument("--images", type=int, default=48_000, help="training images per epoch")
    parser.add_argument("--epochs", type=int, default=1, help="epochs per model")
    parser.add_argument("--ks", default="8,30", help="population sizes, comma-separated")
    parser.add_argument("--peak-tflops", type=float, default=None, help="device float32 peak")
    parser.add_argument("--root", default=None, help="data root (default: $PRUNEAUDIT_DATA)")
    parser.add_argument("--report-only", metavar="KIND", default=None,
                        help="measure nothing: rewrite benchmarks/out/gpu_training_KIND.md from "
                             "that run's saved .csv files and device line (KIND: cuda, cpu)")
    args = parser.parse_args(argv)
    ks = [int(s) for s in args.ks.split(",") if s.strip()]
    if args.report_only:
        kind = args.report_only
        table = pd.read_csv(OUT / f"gpu_training_{kind}.csv")
        costs = pd.read_csv(OUT / f"gpu_training_{kind}_costs.csv")
        info = (OUT / f"gpu_training_{kind}.md").read_text().splitlines()[0]
        ks = sorted({int(m) for m in table.models if m > 1})
        (OUT / f"gpu_training_{kind}.md").write_text(report(table, costs, info, ks))
        return
    table, costs, info = measure(args)
    print(info)
    print(table.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    print("\nTargets, measured in this run:")
    print("\n".join(targets(table, ks)))
    wide = costs.pivot(index="protocol", columns="configuration", values="hours")
    print("\nHours of each study's paper profile at each measured rate:")
    print(wide.to_string(float_format=lambda v: f"{v:,.2f}"))
    OUT.mkdir(exist_ok=True)
    kind = info.split()[1].split(":")[0]
    table.to_csv(OUT / f"gpu_training_{kind}.csv", index=False)
    costs.to_csv(OUT / f"gpu_training_{kind}_costs.csv", index=False)
    (OUT / f"gpu_training_{kind}.md").write_text(report(table, costs, info, ks))


if __name__ == "__main__":
    sys.exit(main())
