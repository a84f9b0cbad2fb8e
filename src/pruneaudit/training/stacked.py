"""Population training: K models of one architecture trained as one computation.

:func:`train_population` gives each member the result :func:`pruneaudit.training.train` gives it
alone (same weights within float tolerance), but runs all K members in one forward and backward
pass per step, which is several times faster on a CPU than K separate loops.

Design
------
* **Stacked parameters, one computation** (:class:`pruneaudit.training.stack.Stack`): each
  parameter of the K members is one ``(K, *shape)`` tensor (pruned ones with a stacked mask,
  used as ``orig * mask`` as :mod:`torch.nn.utils.prune` does); convolutions are grouped over
  the members' channels, linear layers batched matrix products. One ``torch.optim.SGD`` over
  the stacked tensors performs every member's update: SGD is elementwise, so this is each
  member's own update. The loss is the sum over members of each member's mean cross-entropy,
  so each member receives exactly its own gradient.
* **Own random draws.** Each member owns ``torch.Generator().manual_seed(cfg.seed)`` and draws
  from it exactly as :func:`~pruneaudit.training.train` does (see that module's contract): at the
  start of each epoch its permutation, then each batch's augmentation draws, in order. The
  draws of an epoch are made up front; the members' batches are gathered, augmented (with
  their own draws) and normalized as one tensor.
* **Step hooks** (e.g. :class:`~pruneaudit.compress.GradualPruner`) see the member module itself.
  On a step where a member's hook acts, that member's current weights are copied from the
  stack into its module, the hook is called, and the module's weights and masks (which the hook
  may have changed or created, e.g. by pruning a so far unpruned layer) are copied back into
  the stack. A :class:`~pruneaudit.training.ScheduledHook` (a GradualPruner) acts only on the
  steps its ``acts_at`` names, so on the other steps nothing is copied; any other hook is
  called (with these copies) after every step. A hook must change
  parameters in place (as torch's pruning does), not replace parameter objects, and touch only
  its own member: hooks of members in different blocks may run at once, in different threads.
* At the end every member's module receives its trained weights and masks (and the effective
  ``weight = weight_orig * weight_mask`` of pruned layers is recomputed).
* **Packed populations** (:func:`train_packed`): members of other training pools (datasets,
  long tails) and other schedules (epochs) train in one call as *parts*, each part a set of
  members that share a pool and every setting but the seed. Each part is split into blocks
  as a population of its own would be, and the blocks of all parts form one queue, longest
  first, on the threads. A block never mixes parts (on the CPU a wider block buys little:
  ``benchmarks/out/training_speed.md``), so a packed member gets the bits it gets alone.

Speed settings (what each sets; the measurements behind them, and the settings not kept, are in
``benchmarks/out/profile_evidence.md``, section "Population trainer"):

* stacked blocks of at most :data:`BLOCK` = 8 members, which bounds the activations allocated
  per step; on the CPU as many blocks as the torch threads, each of at least :data:`MIN_BLOCK`
  members, where the population has members enough (:func:`blocks`);
* **blocks in parallel, one per thread.** The blocks are independent computations (own stack,
  optimizer, draws and hooks), so on the CPU up to ``torch.get_num_threads()`` of them train
  at once in Python threads (torch releases the GIL inside its kernels), each at one torch
  thread (the process's count, which the threads share, restored after);
* grouped convolutions on ``channels_last`` tensors (max-pooling is vectorized over channels
  in that layout);
* pool-before-ReLU (above).

Devices: ``device`` (default: the runtime's setting,
:meth:`pruneaudit.runtime.Runtime.device_setting`) holds the
stacked parameters, the data (moved once) and the per-epoch draws (made by the members' CPU
generators, then moved once per epoch); the member modules stay where they are (the CPU) and
receive their weights at the end, so step hooks such as a GradualPruner act on CPU modules as
they do in a CPU run. On CUDA: blocks of :data:`CUDA_BLOCK` members (one LeNet step is a few
small kernels, so fewer, wider launches; chosen by reasoning, not yet measured on a GPU), the
default contiguous layout (``channels_last`` was measured only on the CPU) and TF32 off
(:func:`pruneaudit.training.device.full_precision`); one CUDA graph per step unless
``graphs=False`` (:mod:`pruneaudit.training.graphed`); ``benchmarks/gpu_training.py`` measures
what the trainer achieves.

A member's bits never depend on its companions (CPU)
----------------------------------------------------
On the CPU a member's trained weights (hence its predictions) are the same, bit for bit, in
any population: alone or beside any number of companions, at any position in its block, on
any number of torch threads, whatever the companions' seeds, data or hooks. Measured on the
previous trainer (blocks of the population's size at the threads of the time; LeNet, and the
small AlexNet where noted; ``tests/training/test_companions.py``): at one torch thread a block
of 2 to 8 members gives a member the same bits at every size and position, while a block of
one runs the ungrouped convolution (other bits; AlexNet in some settings); at two threads a
block of one differs again (both), and so does a block of an odd size (LeNet: the
convolutions' bias and weight gradients are summed in another split across the threads).
On an AVX2 CPU (AMD EPYC, torch 2.14.1) a block of three also gave its members other
convolution bits than blocks of 2 and 4 to 9, at every position (one thread). Hence the
**canonical block**: every CPU block trains at one torch thread (blocks run in parallel
instead, so the split into blocks may follow the threads), and a block of one or three members
trains beside throwaway copies of its first member, as a block of two or four
(:data:`PADDED_SIZES`), whose results are discarded.
Evaluation (the forward pass only) gave the same logits, bit for bit, in blocks of 2 to 9
members on 1 and 2 threads, and other bits in a block of one: a lone member is evaluated
beside a copy of itself (:mod:`pruneaudit.training.predict`). Runs trained before this
scheme are retired by the run key's ``trainer`` (:data:`pruneaudit.runs.spec.TRAINER_SCHEME`).
On CUDA (blocks of :data:`CUDA_BLOCK`, split by ``ceil(K / 64)``, no throwaway copy) none of
this has been measured.

Supported architectures (:func:`supports`): :class:`~pruneaudit.models.LeNet` and the
torchvision ``AlexNet`` frame of :func:`~pruneaudit.models.build_model` ("alexnet"), made of
Conv2d (no groups), ReLU, MaxPool2d, AdaptiveAvgPool2d and Linear layers, with float32
parameters on one device. Other models (VGG11, ResNet18) are trained one after another with
:func:`~pruneaudit.training.train` and evaluated with :func:`~pruneaudit.training.evaluate`.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar, Unpack

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from pruneaudit.compress import copy_model
from pruneaudit.data.augment import apply_augmentation, crop_padding, draw_augmentation, normalize
from pruneaudit.errors import PruneAuditError
from pruneaudit.runtime import Runtime, threads_at
from pruneaudit.training.device import autocast, full_precision, on_device, resolve_device
from pruneaudit.training.graphed import StaticStep
from pruneaudit.training.loop import (
    StepHook,
    TrainConfig,
    epoch_order,
    hook_acts,
    steps_per_epoch,
    train,
)
from pruneaudit.training.stack import Stack, check_architecture, supports

if TYPE_CHECKING:
    from pruneaudit.data.datasets import ImageData

#: TrainConfig fields that must be equal across the members of a population (all but the seed).
SHARED_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(TrainConfig) if f.name != "seed")

#: Members per stacked block (see "Speed" in the module docstring).
BLOCK = 8
#: Fewest members of a CPU block: a lone member trains beside a throwaway copy of itself (a
#: block of one runs the ungrouped convolution, whose rounding differs; see the module docstring).
MIN_BLOCK = 2
#: CPU blocks trained at another size, beside throwaway copies of their first member: one (see
#: MIN_BLOCK), and three, whose grouped convolutions gave LeNet other bits than blocks of 2 and
#: 4 to 9 on an AVX2 CPU (AMD EPYC, torch 2.14.1, oneDNN 3.12; the companion tests had passed
#: on AVX-512 Xeons without it).
PADDED_SIZES = {1: MIN_BLOCK, 3: 4}
#: Members per stacked block on CUDA (see "Devices" in the module docstring).
CUDA_BLOCK = 64
_CPU = torch.device("cpu")
T = TypeVar("T")


# --------------------------------------------------------------------------- checks


def _check_population(
    models: Sequence[nn.Module], cfgs: Sequence[TrainConfig] | None = None
) -> None:
    if len(models) == 0:
        raise PruneAuditError("a population needs at least one model, got an empty list")
    if len({id(m) for m in models}) != len(models):
        raise PruneAuditError("the same model object appears more than once in the population")
    if cfgs is not None:
        if len(cfgs) != len(models):
            raise PruneAuditError(f"{len(models)} models but {len(cfgs)} TrainConfigs")
        for cfg in cfgs:
            if not isinstance(cfg, TrainConfig):
                raise PruneAuditError(f"cfgs must be TrainConfig objects, got {type(cfg).__name__}")
        for name in SHARED_FIELDS:
            values = [getattr(c, name) for c in cfgs]
            if len(set(values)) > 1:
                raise PruneAuditError(
                    f"all members of a population must share {name!r} (only the seed may "
                    f"differ), got {name}={sorted(set(values))}"
                )


# --------------------------------------------------------------------------- training


def _epoch_draws(
    n: int,
    cfg: TrainConfig,
    spec: object,
    generators: Sequence[torch.Generator],
) -> tuple[torch.Tensor, torch.Tensor | None, torch.Tensor | None]:
    """One epoch's draws of every member, as :func:`~pruneaudit.training.train` makes them.

    Returns the permutations ``(n, K)``, crop offsets ``(n, K, 2)`` and flips ``(n, K)`` (or None),
    indexed by position in the epoch; batch ``s`` is rows ``s*B .. s*B + B - 1``.
    """
    perms, offsets, flips = [], [], []
    for g in generators:
        batches = epoch_order(n, cfg.batch_size, g)
        perms.append(torch.cat(batches))
        if cfg.augment:
            draws = [draw_augmentation(len(idx), spec, g) for idx in batches]  # type: ignore[arg-type]
            offsets.append(torch.cat([o for o, _ in draws]))
            if draws[0][1] is not None:
                flips.append(torch.cat([f for _, f in draws]))
    perm = torch.stack(perms, 1)
    off = torch.stack(offsets, 1) if offsets else None
    flip = torch.stack(flips, 1) if flips else None
    return perm, off, flip


def block_size(device: torch.device) -> int:
    """Members per stacked block on ``device``: :data:`BLOCK` on the CPU, :data:`CUDA_BLOCK`
    on CUDA."""
    return CUDA_BLOCK if device.type == "cuda" else BLOCK


@dataclass(frozen=True)
class Part:
    """Members of a packed population that share a training pool and every training setting but
    the seed (:func:`train_packed`): ``models`` with their ``cfgs``, trained on ``data`` or,
    with ``indices``, member k on ``data.subset(indices[k])`` (all of one size), with
    ``step_hooks`` (None: none)."""

    models: list[nn.Module]
    data: ImageData
    cfgs: list[TrainConfig]
    indices: Sequence[np.ndarray | torch.Tensor] | None = None
    step_hooks: list[StepHook | None] | None = None


class PackedOptions(TypedDict, total=False):
    """The process settings of :func:`train_packed`, by name (:func:`train_population` passes
    them on)."""

    progress: bool
    num_threads: int | None
    device: str | torch.device | None
    graphs: bool | str
    precision: str | None
    runtime: Runtime | None


def train_population(
    models: list[nn.Module],
    data: ImageData,
    cfgs: list[TrainConfig],
    *,
    indices: Sequence[np.ndarray | torch.Tensor] | None = None,
    step_hooks: list[StepHook | None] | None = None,
    **options: Unpack[PackedOptions],
) -> list[nn.Module]:
    """Train K models in place as one computation; returns ``models``.

    Member k ends as ``train(models[k], data_k, cfgs[k], step_hook=step_hooks[k])`` would leave
    it (within float tolerance), where ``data_k`` is ``data`` or, with ``indices``,
    ``data.subset(indices[k])`` (members' own training splits of one pool, all of one size):
    own initial weights and masks, own seed (data order and augmentation draws), own examples.
    All settings but the seed must be equal across ``cfgs``; members of other pools or settings
    train beside them with :func:`train_packed`. ``options``: :func:`train_packed`'s
    (:class:`PackedOptions`).
    """
    train_packed([Part(models, data, cfgs, indices, step_hooks)], **options)
    return models


def train_packed(
    parts: Sequence[Part],
    *,
    progress: bool = True,
    num_threads: int | None = None,
    device: str | torch.device | None = None,
    graphs: bool | str = "auto",
    precision: str | None = None,
    runtime: Runtime | None = None,
) -> None:
    """Train the members of every part in place as one packed population: each part's members
    in stacked blocks (as :func:`train_population` splits them), every block of every part in
    one queue, longest first, so that parts of other pools (datasets, long tails) and other
    schedules (epochs) fill the threads together. Each member ends as in
    :func:`train_population` of its part alone, bit for bit on the CPU (its block is canonical;
    see the module docstring).

    Architectures :func:`supports` rejects are trained one after another with
    :func:`~pruneaudit.training.train`. The progress bar counts model-epochs. ``num_threads``
    torch threads are used while training (on the CPU: as many blocks at once, each at one
    thread; a member's bits do not depend on the count, see the module docstring); ``None``
    keeps torch's setting, or, where ``runtime`` (default: a fresh
    :class:`~pruneaudit.runtime.Runtime` from the environment, which does not follow them) follows
    the free cores (as the
    book's kernels do), trains at the cores free since the previous population
    (:meth:`pruneaudit.runtime.Runtime.population_threads`; the models trained one after another
    train at its steady count instead: their bits depend on the count), read again as its blocks
    end (a long packed population follows the load); torch's count is restored after.
    ``device`` (default: the runtime's setting) runs the computation; see "Devices" in the module
    docstring. ``graphs``: each step of a stacked block as one CUDA graph replay
    (:mod:`pruneaudit.training.graphed`); ``"auto"`` (default) on CUDA, the eager step on the
    CPU; ``True`` on the CPU runs the graph path's static-buffer step without capture (same
    results, no speed-up: a check of its arithmetic). ``precision`` (default: the runtime's,
    :meth:`pruneaudit.runtime.Runtime.precision_setting`): ``fp32`` or ``bf16`` autocast on
    CUDA. The progress bar is the runtime's (:meth:`pruneaudit.runtime.Runtime.bar`).
    """
    runtime = Runtime.given(runtime)
    dev = resolve_device(runtime.device_setting(device))
    use_graphs = _graphs_setting(graphs, dev)
    precision = runtime.precision_setting(precision)
    autocast(precision, dev)  # bf16 on the CPU: one clear error before any work
    if not parts:
        raise PruneAuditError("a packed population needs at least one part, got none")
    checked = [_checked_part(p) for p in parts]
    if len({id(m) for p in checked for m in p.models}) != sum(len(p.models) for p in checked):
        raise PruneAuditError("the same model object appears in more than one part")
    if not check_architecture([p.models[0] for p in checked]):  # one after another
        for part in checked:
            members = _member_indices(part)
            for k, (model, cfg, hook) in enumerate(
                zip(part.models, part.cfgs, part.step_hooks, strict=True)  # type: ignore[arg-type]
            ):
                own = part.data if members is None else part.data.subset(members[:, k].numpy())
                train(
                    model, own, cfg, step_hook=hook, progress=progress, num_threads=num_threads,
                    device=dev, runtime=replace(runtime, precision=precision),
                )
        return
    recheck = None
    if num_threads is None:  # the free cores re-read, where the runtime follows them
        recheck = runtime.population_threads
        num_threads = recheck()
    with threads_at(num_threads), full_precision(dev):
        _train_stacked(
            [replace(p, data=on_device(p.data, dev)) for p in checked], progress, runtime.bar,
            dev, use_graphs, precision, recheck,
        )


def _checked_part(part: Part) -> Part:
    """``part`` with its hooks filled in (None: no hook), after the checks of one part."""
    _check_population(part.models, part.cfgs)
    check_architecture(part.models)
    hooks = [None] * len(part.models) if part.step_hooks is None else list(part.step_hooks)
    if len(hooks) != len(part.models):
        raise PruneAuditError(f"{len(part.models)} models but {len(hooks)} step hooks")
    if len(part.data) == 0:
        raise PruneAuditError("cannot train on an empty ImageData")
    return replace(part, step_hooks=hooks)


def _graphs_setting(graphs: bool | str, device: torch.device) -> bool:
    """Whether the graph path runs: ``"auto"`` on CUDA only; ``True`` or ``False`` as given."""
    if graphs == "auto":
        return device.type == "cuda"
    if not isinstance(graphs, bool):
        raise PruneAuditError(f"graphs must be True, False or 'auto', got {graphs!r}")
    return graphs


def _member_indices(part: Part) -> torch.Tensor | None:
    """The members' example indices of ``part`` as one ``(n, K)`` int64 tensor (None: all of
    its data)."""
    if part.indices is None:
        return None
    k, pool = len(part.models), len(part.data)
    if len(part.indices) != k:
        raise PruneAuditError(f"{k} models but {len(part.indices)} index arrays")
    cols = [torch.as_tensor(np.asarray(i), dtype=torch.int64).reshape(-1) for i in part.indices]
    sizes = sorted({len(c) for c in cols})
    if len(sizes) != 1 or sizes[0] == 0:
        raise PruneAuditError(
            f"members' training index arrays must be non-empty and of one size, got sizes {sizes}"
        )
    table = torch.stack(cols, 1)
    if table.min() < 0 or table.max() >= pool:
        raise PruneAuditError(f"training indices must lie in [0, {pool}) (the size of data)")
    return table


def blocks(k: int, device: torch.device, workers: int = 1) -> list[list[int]]:
    """The members of a population of ``k`` in stacked blocks of near-equal size: ``ceil(k /
    size)`` blocks (``size``: :func:`block_size`), e.g. 12 -> 6 + 6 and 20 -> 6 + 7 + 7 on the
    CPU; there, more where that fills ``workers`` (the torch threads) with blocks of
    :data:`MIN_BLOCK` members or more (a lone member padded), e.g. 4 -> 2 + 2 and 3 -> 1 + 2
    at two threads. A member's bits do not depend on the split (see the module docstring)."""
    n = -(-k // block_size(device))
    if device.type == "cpu":
        n = max(n, min(workers, -(-k // MIN_BLOCK)))
    bounds = [i * k // n for i in range(n + 1)]
    return [list(range(a, b)) for a, b in zip(bounds, bounds[1:], strict=False)]


def _each_block(
    run: Callable[[T], None],
    groups: list[T],
    device: torch.device,
    recheck: Callable[[], int | None] | None = None,
) -> None:
    """``run(block)`` for every block: on the CPU each at one torch thread, up to one block per
    torch thread at once, in Python threads (see "Speed"); else in turn. ``recheck`` (the
    runtime's free cores, where it follows them) is asked again each time a block ends: the
    blocks then run at most that many at once (None: as before), up to the machine's cores."""
    if device.type != "cpu":
        for block in groups:
            run(block)
        return
    limit = max(1, min(len(groups), torch.get_num_threads()))
    most = max(limit, min(len(groups), os.cpu_count() or 1)) if recheck else limit
    with threads_at(1):
        if most == 1:
            for block in groups:
                run(block)
            return
        with ThreadPoolExecutor(most, thread_name_prefix="pruneaudit-block") as pool:
            running: set[Future] = set()
            for block in groups:
                while len(running) >= limit:
                    done, running = wait(running, return_when=FIRST_COMPLETED)
                    for future in done:
                        future.result()
                    if recheck is not None:
                        limit = min(most, recheck() or limit)
                running.add(pool.submit(run, block))
            for future in running:
                future.result()


def _train_stacked(
    parts: list[Part],
    progress: bool,
    make_bar: Callable[..., Any],
    device: torch.device = _CPU,
    graphs: bool = False,
    precision: str = "fp32",
    recheck: Callable[[], int | None] | None = None,
) -> None:
    """Every block of every part (hooks filled in), in one queue, longest first (``make_bar``:
    the runtime's progress bar; ``recheck``: :func:`_each_block`'s)."""
    for part in parts:
        for model in part.models:
            model.train()
    members = [_member_indices(p) for p in parts]
    names = sorted({p.data.name for p in parts})
    k = sum(len(p.models) for p in parts)
    bar = make_bar(
        total=sum(len(p.models) * p.cfgs[0].epochs for p in parts),
        disable=not progress,
        desc=f"train {k} x {type(parts[0].models[0]).__name__} on {', '.join(names)}",
        unit="model-epoch",
        bar_format="{l_bar}{bar}| {n:.1f}/{total} [{elapsed}<{remaining}, {rate_fmt}]",
        leave=False,
    )
    lock = threading.Lock()

    def advance(amount: float) -> None:
        with lock:
            bar.update(amount)

    def run(job: tuple[int, list[int]]) -> None:
        part, own, block = parts[job[0]], members[job[0]], job[1]
        # a block of one or three CPU members trains beside throwaway copies (PADDED_SIZES)
        pad = PADDED_SIZES.get(len(block), len(block)) - len(block) if device.type == "cpu" else 0
        nets = [part.models[i] for i in block]
        nets += [copy_model(nets[0]) for _ in range(pad)]
        cols = block + block[:1] * pad
        hooks = [part.step_hooks[i] for i in block] + [None] * pad  # type: ignore[index]
        _train_block(
            Part(nets, part.data, [part.cfgs[i] for i in cols], step_hooks=hooks),
            None if own is None else own[:, cols], device,
            lambda amount: advance(amount * len(block) / len(cols)), graphs, precision,
        )

    # more blocks than the threads' count only where one part would leave a thread idle
    workers = torch.get_num_threads() if len(parts) == 1 else 1
    jobs = [(i, block) for i, p in enumerate(parts) for block in blocks(len(p.models), device,
                                                                         workers)]
    jobs.sort(key=lambda job: -_work(parts[job[0]], members[job[0]]) * len(job[1]))
    with bar:
        _each_block(run, jobs, device, recheck)


def _work(part: Part, members: torch.Tensor | None) -> int:
    """Images one member of ``part`` sees over its epochs (the blocks' queue order)."""
    n = len(part.data) if members is None else members.shape[0]
    return n * part.cfgs[0].epochs


def _train_block(
    block: Part,
    members: torch.Tensor | None,
    device: torch.device,
    advance: Callable[[float], None],
    graphs: bool = False,
    precision: str = "fp32",
) -> None:
    """Train one stacked block of members (``block``: its models, data on ``device``, configs
    and a hook or None per member; ``members``: each member's example positions, or None: all
    of ``data``) through all its epochs (its own draws and hooks): each step eagerly, or with
    ``graphs`` through :class:`~pruneaudit.training.graphed.StaticStep` (one CUDA graph replay
    per full batch on CUDA)."""
    models, data, cfgs = block.models, block.data, block.cfgs
    step_hooks: list[StepHook | None] = block.step_hooks  # type: ignore[assignment]
    n = len(data) if members is None else members.shape[0]
    cfg, spec, k = cfgs[0], data.spec, len(models)
    stack = Stack(models, True, device, every_mask=graphs)
    opt = torch.optim.SGD(
        stack.params, lr=cfg.lr, momentum=cfg.momentum, weight_decay=cfg.weight_decay
    )
    generators = [torch.Generator().manual_seed(c.seed) for c in cfgs]
    pad = crop_padding(spec.size) if cfg.augment else 0
    images, labels = data.images, data.labels
    c, h, w = images.shape[1:]
    b = cfg.batch_size
    spe = steps_per_epoch(n, b)
    static = None
    if graphs:
        static = StaticStep(
            stack, data, cfg, n=n, pad=pad, precision=precision, capture=device.type == "cuda"
        )
    step = 0
    for _ in range(cfg.epochs):
        draws = _epoch_draws(n, cfg, spec, generators)
        if members is not None:  # positions in each member's split -> indices into data
            draws = (torch.gather(members, 0, draws[0]), *draws[1:])
        perm, offsets, flips = (None if t is None else t.to(device) for t in draws)
        if static is not None:
            static.load_epoch(perm, offsets, flips)
        for s in range(spe):
            if static is not None:
                static.step(s)
                _after_step(stack, models, step_hooks, step)
                step += 1
                advance(k / spe)
                continue
            rows = slice(s * b, (s + 1) * b)
            idx = perm[rows]  # (bb, k): batch position major, member minor
            bb = idx.shape[0]
            x = images[idx.reshape(-1)]
            if offsets is not None:
                x = apply_augmentation(
                    x,
                    offsets[rows].reshape(-1, 2),
                    None if flips is None else flips[rows].reshape(-1),
                    pad,
                )
            x = normalize(x, spec).view(bb, k * c, h, w)
            with autocast(precision, device):
                logits = stack.forward(x).float()  # (k, bb, classes); float32 already in fp32
            target = labels[idx.t().reshape(-1)]
            loss = F.cross_entropy(logits.reshape(k * bb, -1), target, reduction="sum")
            opt.zero_grad(set_to_none=True)
            (loss / bb).backward()
            opt.step()
            _after_step(stack, models, step_hooks, step)
            step += 1
            advance(k / spe)
    stack.finish()


def _after_step(
    stack: Stack, models: list[nn.Module], step_hooks: list[StepHook | None], step: int
) -> None:
    """Each member's step hook where it acts, on the member's module (weights copied out of
    the stack and back, in place)."""
    for local, hook in enumerate(step_hooks):
        if hook_acts(hook, step):
            stack.push(local)
            hook(models[local], step)  # type: ignore[misc]
            stack.pull(local)


__all__ = [
    "MIN_BLOCK",
    "PADDED_SIZES",
    "SHARED_FIELDS",
    "PackedOptions",
    "Part",
    "block_size",
    "blocks",
    "supports",
    "train_packed",
    "train_population",
]
