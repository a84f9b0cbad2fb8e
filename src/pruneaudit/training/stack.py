"""K models of one architecture as stacked tensors, and their one forward pass.

Each parameter of the K members becomes one leaf tensor of shape ``(K, *shape)`` (for a pruned
parameter: the tensor training updates, :func:`pruneaudit.compress.weight_and_mask`); pruned
parameters also get a stacked float mask (all ones for members where that parameter is not
pruned). The forward pass uses ``orig * mask``, exactly as :mod:`torch.nn.utils.prune` does, so
gradients reach the underlying weights through the mask. Convolutions are grouped convolutions
over the members' channels (activations laid out ``(B, K * C, H, W)``: member k owns channels
``k*C .. k*C + C - 1``), linear layers are batched matrix products (``(K, B, F)``). A ReLU
directly followed by a max-pool is computed as pool-then-ReLU: the values are equal, and so are
the gradients (max-pooling's first-maximum tie-break picks the same element in both orders).
The population trainer (:mod:`pruneaudit.training.stacked`) trains and evaluates through it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn
from torchvision.models import AlexNet

from pruneaudit.compress import refresh_effective_weight, weight_and_mask
from pruneaudit.errors import PruneAuditError
from pruneaudit.models import LeNet

#: The stacked tensors of a convolution or linear layer.
PARAM_NAMES = ("weight", "bias")
_CPU = torch.device("cpu")


def layers(model: nn.Module) -> list[nn.Module] | None:
    """The layers of a supported model in execution order (``None`` if not supported)."""
    if type(model) is LeNet:
        seq = [*model.features, nn.Flatten(), *model.classifier]
    elif type(model) is AlexNet:
        seq = [*model.features, model.avgpool, nn.Flatten(), *model.classifier]
    else:
        return None
    out = []
    for layer in seq:
        if isinstance(layer, nn.Identity) or (isinstance(layer, nn.Dropout) and layer.p == 0):
            continue
        if type(layer) is nn.Conv2d:
            if layer.groups != 1 or layer.padding_mode != "zeros":
                return None
        elif type(layer) is nn.MaxPool2d:
            if layer.return_indices:
                return None
        elif type(layer) not in (nn.ReLU, nn.AdaptiveAvgPool2d, nn.Flatten, nn.Linear):
            return None
        out.append(layer)
    tensors = [t for t in model.parameters()] + [b for b in model.buffers()]
    if any(t.dtype != torch.float32 for t in tensors) or len({t.device for t in tensors}) > 1:
        return None
    return out


def supports(model: nn.Module) -> bool:
    """Whether :func:`train_population` runs ``model``'s architecture as one stacked computation.

    True for :class:`~pruneaudit.models.LeNet` and the small AlexNet (pruned or not) with float32
    parameters on one device; other models are trained one by one (same results, no speed-up).
    """
    return layers(model) is not None


@dataclass
class _Op:
    kind: str  # conv, linear, relu, maxpool, avgpool, flatten
    layer: nn.Module  # the first member's layer (hyperparameters only)
    weight: int = -1  # slot of the stacked weight (conv, linear)
    bias: int = -1  # slot of the stacked bias, -1 if none


_KINDS = {
    nn.Conv2d: "conv",
    nn.Linear: "linear",
    nn.ReLU: "relu",
    nn.MaxPool2d: "maxpool",
    nn.AdaptiveAvgPool2d: "avgpool",
    nn.Flatten: "flatten",
}


class Stack:
    """The K members' parameters and masks as stacked tensors, and the stacked forward pass.

    ``every_mask``: every parameter gets a mask (all ones where no member prunes it), so that
    a hook that prunes a layer later changes a mask's values, never which tensors exist (the
    graph path's requirement). ``channels_last`` (default: on the CPU) lays the convolutions'
    inputs and weights out ``channels_last`` (see "Speed" in :mod:`pruneaudit.training.stacked`).
    """

    def __init__(
        self,
        models: Sequence[nn.Module],
        requires_grad: bool,
        device: torch.device = _CPU,
        every_mask: bool = False,
        channels_last: bool | None = None,
    ):
        plans = [layers(m) for m in models]
        first = plans[0]
        assert first is not None
        self.k = len(models)
        self.channels_last = device.type == "cpu" if channels_last is None else channels_last
        self.ops: list[_Op] = []
        #: per slot, per member: (module, parameter name)
        self.slots: list[list[tuple[nn.Module, str]]] = []
        for i, layer in enumerate(first):
            op = _Op(_KINDS[type(layer)], layer)
            if op.kind in ("conv", "linear"):
                for name in PARAM_NAMES:
                    if weight_and_mask(layer, name)[0] is None:
                        continue
                    setattr(op, name, len(self.slots))
                    self.slots.append([(plan[i], name) for plan in plans])  # type: ignore[index]
            self.ops.append(op)
        # ReLU right before a max-pool: pool first (same values and gradients, 4x less work)
        for a, b in zip(self.ops, self.ops[1:], strict=False):
            if a.kind == "relu" and b.kind == "maxpool":
                a.kind, a.layer, b.kind, b.layer = b.kind, b.layer, a.kind, a.layer
        with torch.no_grad():
            self.params = []
            self.masks: list[torch.Tensor | None] = []
            for slot in self.slots:
                pairs = [weight_and_mask(m, name) for m, name in slot]
                self.params.append(torch.stack([p.detach() for p, _ in pairs]).to(device))
                if all(mask is None for _, mask in pairs) and not every_mask:
                    self.masks.append(None)
                else:
                    self.masks.append(
                        torch.stack(
                            [
                                torch.ones_like(p) if mask is None else mask.detach().float()
                                for p, mask in pairs
                            ]
                        ).to(device)
                    )
        for p in self.params:
            p.requires_grad_(requires_grad)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Logits ``(K, B, classes)`` for inputs ``(B, K * C, H, W)`` (member k: channels k*C..)."""
        k = self.k
        eff = [p if m is None else p * m for p, m in zip(self.params, self.masks, strict=True)]
        h = x
        for op in self.ops:
            layer = op.layer
            if op.kind == "conv":
                w = eff[op.weight].reshape(-1, *eff[op.weight].shape[2:])
                if self.channels_last:  # faster grouped convolutions and max-pooling on CPU
                    h = h.contiguous(memory_format=torch.channels_last)
                    w = w.contiguous(memory_format=torch.channels_last)
                bias = eff[op.bias].reshape(-1) if op.bias >= 0 else None
                h = F.conv2d(h, w, bias, layer.stride, layer.padding, layer.dilation, k)
            elif op.kind == "relu":
                h = F.relu(h)
            elif op.kind == "maxpool":
                h = F.max_pool2d(
                    h, layer.kernel_size, layer.stride, layer.padding, layer.dilation,
                    layer.ceil_mode,
                )
            elif op.kind == "avgpool":
                h = F.adaptive_avg_pool2d(h, layer.output_size)
            elif op.kind == "flatten":
                h = h.reshape(h.shape[0], k, -1).transpose(0, 1)
            else:  # linear
                wt = eff[op.weight].transpose(1, 2)
                if op.bias >= 0:
                    h = torch.baddbmm(eff[op.bias].unsqueeze(1), h, wt)
                else:
                    h = torch.bmm(h, wt)
        return h

    @torch.no_grad()
    def push(self, member: int, masks: bool = False) -> None:
        """Copy member ``member``'s stacked weights (and masks) into its module."""
        for s, slot in enumerate(self.slots):
            module, name = slot[member]
            param, mask = weight_and_mask(module, name)
            param.copy_(self.params[s][member])
            if masks and mask is not None:
                mask.copy_(self.masks[s][member])

    @torch.no_grad()
    def pull(self, member: int) -> None:
        """Copy member ``member``'s module weights and masks (possibly new) into the stack."""
        for s, slot in enumerate(self.slots):
            module, name = slot[member]
            param, mask = weight_and_mask(module, name)
            self.params[s][member].copy_(param)
            if mask is None:
                if self.masks[s] is not None:
                    self.masks[s][member].fill_(1.0)
                continue
            if self.masks[s] is None:
                self.masks[s] = torch.ones_like(self.params[s], requires_grad=False)
            self.masks[s][member].copy_(mask)

    def finish(self) -> None:
        """Write every member's weights and masks back and refresh pruned effective weights."""
        for member in range(self.k):
            self.push(member, masks=True)
        for slot in self.slots:
            for module, name in slot:
                refresh_effective_weight(module, name)




def check_architecture(models: Sequence[nn.Module]) -> bool:
    """True if all members can be stacked; raises when they differ in architecture."""
    kinds = {supports(m) for m in models}
    if len(kinds) > 1:
        raise PruneAuditError(
            "members of a population must share one architecture, got "
            f"{sorted({type(m).__name__ for m in models})}"
        )
    names = {type(m).__name__ for m in models}
    if len(names) > 1:
        raise PruneAuditError(f"members of a population must share one architecture, got {names}")
    shapes = {
        tuple(
            (name, pname, tuple(t.shape))
            for name, mod in m.named_modules()
            for pname in PARAM_NAMES
            if isinstance(mod, (nn.Conv2d, nn.Linear))
            and (t := weight_and_mask(mod, pname)[0]) is not None
        )
        for m in models
    }
    if len(shapes) > 1:
        raise PruneAuditError(
            "members of a population must share one architecture (their layer shapes differ)"
        )
    return kinds.pop()


__all__ = ["PARAM_NAMES", "Stack", "check_architecture", "layers", "supports"]
