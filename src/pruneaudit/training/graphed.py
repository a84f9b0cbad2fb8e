"""One stacked training step as one CUDA graph replay (the population trainer's graph path).

A stacked block's step on a GPU is a few dozen small kernels; launched one by one from Python
the card mostly waits for the launches. :class:`StaticStep` holds everything a step reads in
tensors that never move (PyTorch's "whole network capture" recipe, ``torch.cuda.graphs``):

* **static buffers**: the epoch's draws (permutations ``(n, K)``, crop offsets, flips), copied in
  once per epoch (:meth:`StaticStep.load_epoch`), and the batch's positions in the epoch
  (``rows``), which the graph advances by one batch at the end of every replay;
* **the batch gather inside the graph**: images and labels (already on the device) are indexed
  with the rows' permutation entries, augmented and normalized in the graph;
* **masks and the learning rate as device tensors** (every parameter has a mask, all ones where
  it is not pruned, so that a step hook that prunes a layer changes values, never addresses);
* **SGD as foreach operations** on the stacked parameters and momentum buffers (zeros at the
  start: ``momentum * 0 + grad`` is ``torch.optim.SGD``'s first-step ``clone(grad)`` exactly);
* **warm-up on a side stream** before capture (cuDNN's algorithm choice, the allocator), on
  copies of the weights, which are put back afterwards: the warm-up trains nothing.

A short last batch (``batch_size`` not dividing ``n``) has another shape: it runs the same step
eagerly. Without capture (``capture=False``, e.g. on the CPU) every step runs eagerly through the
same code, which lets a CPU test check the graph path's arithmetic against the trainer's eager
step. Step hooks act between replays on the same tensors (in-place copies).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import torch
import torch.nn.functional as F

from pruneaudit.data.augment import apply_augmentation
from pruneaudit.training.device import autocast

if TYPE_CHECKING:
    from pruneaudit.data import ImageData
    from pruneaudit.training.loop import TrainConfig
    from pruneaudit.training.stack import Stack

#: Untimed steps run on a side stream before capture (PyTorch's recipe uses a few).
WARMUP_STEPS = 3


def normalizer(
    mean: Sequence[float], std: Sequence[float], device: torch.device
) -> tuple[torch.Tensor, torch.Tensor]:
    """``(scale, shift)`` on ``device`` with ``normalize(x) == shift + x * scale``: the same
    constants :func:`pruneaudit.data.augment.normalize` uses, held on the device (its own copy
    moves them from the CPU at each call, which a graph cannot capture)."""
    std_t = torch.tensor(tuple(map(float, std)), dtype=torch.float32).view(-1, 1, 1)
    mean_t = torch.tensor(tuple(map(float, mean)), dtype=torch.float32).view(-1, 1, 1)
    return (1.0 / (255.0 * std_t)).to(device), (-mean_t / std_t).to(device)


class StaticStep:
    """The training steps of one stacked block with every input in a fixed tensor.

    ``stack.forward(x)`` is the stack's forward pass (logits ``(K, B, classes)`` for ``(B, K*C,
    H, W)`` inputs) over its ``params`` and ``masks`` (one mask per parameter); ``data``'s
    images and labels are on the stack's device; ``n`` examples per member and epoch in batches
    of ``cfg.batch_size``; SGD with ``cfg``'s ``lr``, ``momentum`` and ``weight_decay``; ``pad``
    the crop padding (0: no augmentation); ``precision`` as
    :func:`pruneaudit.training.device.autocast`.
    """

    def __init__(
        self,
        stack: Stack,
        data: ImageData,
        cfg: TrainConfig,
        *,
        n: int,
        pad: int,
        precision: str,
        capture: bool,
    ) -> None:
        params: list[torch.Tensor] = stack.params  # type: ignore[assignment]
        self.forward: Callable[[torch.Tensor], torch.Tensor] = stack.forward
        self.params, self.masks = params, stack.masks
        self.images, self.labels = data.images, data.labels
        device = params[0].device
        self.device = device
        self.scale, self.shift = normalizer(data.spec.mean, data.spec.std, device)
        self.n, self.b, self.pad = n, cfg.batch_size, pad
        self.k = params[0].shape[0]
        self.momentum, self.weight_decay = cfg.momentum, cfg.weight_decay
        self.precision = precision
        self.neg_lr = torch.tensor(-cfg.lr, dtype=torch.float32, device=device)
        self.buffers = [torch.zeros_like(p) for p in params] if cfg.momentum else []
        self.rows = torch.arange(cfg.batch_size, device=device)
        self.full = n // cfg.batch_size  # full batches per epoch (the graph's steps)
        self.perm = torch.zeros((n, self.k), dtype=torch.int64, device=device)
        self.offsets: torch.Tensor | None = None
        self.flips: torch.Tensor | None = None
        self.capture = capture
        self.graph: torch.cuda.CUDAGraph | None = None

    # ------------------------------------------------------------------ the step

    def _step(self, rows: torch.Tensor) -> None:
        """One SGD step on the batch at positions ``rows`` of the epoch (no host sync)."""
        k = self.k
        bb = rows.shape[0]
        idx = self.perm.index_select(0, rows)  # (bb, k): batch position major, member minor
        x = self.images.index_select(0, idx.reshape(-1))
        if self.offsets is not None:
            flips = None if self.flips is None else self.flips.index_select(0, rows).reshape(-1)
            x = apply_augmentation(
                x, self.offsets.index_select(0, rows).reshape(-1, 2), flips, self.pad
            )
        c, h, w = x.shape[1:]
        x = torch.addcmul(self.shift, x.to(torch.float32), self.scale).view(bb, k * c, h, w)
        target = self.labels.index_select(0, idx.t().reshape(-1))
        with autocast(self.precision, self.device):
            logits = self.forward(x)
        loss = F.cross_entropy(
            logits.float().reshape(k * bb, -1), target, reduction="sum"
        )
        grads = torch.autograd.grad(loss / bb, self.params)
        self._update(list(grads))

    @torch.no_grad()
    def _update(self, grads: list[torch.Tensor]) -> None:
        """``torch.optim.SGD``'s update (dampening 0, no Nesterov) with a device learning rate."""
        if self.weight_decay:
            grads = torch._foreach_add(grads, self.params, alpha=self.weight_decay)
        if self.momentum:
            torch._foreach_mul_(self.buffers, self.momentum)
            torch._foreach_add_(self.buffers, grads)
            grads = self.buffers
        torch._foreach_add_(self.params, torch._foreach_mul(grads, self.neg_lr))

    def _graph_step(self) -> None:
        self._step(self.rows)
        self.rows.add_(self.b)

    # ------------------------------------------------------------------ driving

    def load_epoch(
        self, perm: torch.Tensor, offsets: torch.Tensor | None, flips: torch.Tensor | None
    ) -> None:
        """Copy one epoch's draws (on the device) into the static buffers; rows to batch 0.
        The first call also captures the graph (after a warm-up) when capturing."""
        self.perm.copy_(perm)
        if offsets is not None:
            if self.offsets is None:
                self.offsets = torch.empty_like(offsets)
            self.offsets.copy_(offsets)
        if flips is not None:
            if self.flips is None:
                self.flips = torch.empty_like(flips)
            self.flips.copy_(flips)
        self.rows.copy_(torch.arange(self.b, device=self.device))
        if self.capture and self.graph is None and self.full > 0:
            self._capture()

    def step(self, s: int) -> None:
        """Step ``s`` of the epoch: a graph replay for a full batch, else an eager step."""
        if s < self.full and self.graph is not None:
            self.graph.replay()
        elif s < self.full:
            self._graph_step()
        else:
            self._step(torch.arange(s * self.b, self.n, device=self.device))

    def _capture(self) -> None:
        """Warm up on a side stream (on copies of the state, restored after), then capture."""
        saved = [t.detach().clone() for t in (*self.params, *self.buffers)]
        stream = torch.cuda.Stream(self.device)
        stream.wait_stream(torch.cuda.current_stream(self.device))
        with torch.cuda.stream(stream):
            for _ in range(WARMUP_STEPS):
                self._step(self.rows)
        torch.cuda.current_stream(self.device).wait_stream(stream)
        with torch.no_grad():
            for t, s in zip((*self.params, *self.buffers), saved, strict=True):
                t.copy_(s)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            self._graph_step()
        self.graph = graph  # capture records the work; nothing ran, rows are still batch 0


__all__ = ["StaticStep", "WARMUP_STEPS", "normalizer"]
