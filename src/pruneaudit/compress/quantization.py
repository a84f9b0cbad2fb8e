"""Post-training quantization on CPU (no retraining): the three schemes of Study 4.

:func:`quantize` returns a new model and leaves its input untouched; a pruned input is copied
and its pruning made permanent (``prune.remove``) on the copy first, so pruned weights are
exact zeros, which every scheme below keeps exactly zero (0 is representable in each format).
Every quantized model takes the usual float32 normalized images and returns float32 logits, so
:func:`pruneaudit.training.evaluate` works on it unchanged.

``"float16"``
    Every parameter and buffer is stored as float16 (``model.half()``), and the computation
    runs in float16 too: a forward pre-hook casts the input to float16 and a forward hook casts
    the logits back to float32. (torch's CPU kernels for float16 convolutions and matrix
    products may accumulate internally in higher precision.)

``"dynamic_int8"`` (dynamic-range / hybrid int8: int8 weights, float activations between layers)
    * ``nn.Linear`` → ``torch.ao.nn.quantized.dynamic.Linear`` by
      ``torch.ao.quantization.quantize_dynamic`` with ``per_channel_dynamic_qconfig``: weights
      ``qint8``, symmetric per output channel; at run time the input activations of each linear
      layer are quantized to 8 bits with a range measured on the batch, the product is computed
      in int8 and the output is float32.
    * ``nn.Conv2d`` → :class:`Int8WeightConv2d`: weights stored as ``int8``, symmetric per output
      channel (scale = max|w| / 127), dequantized to float32 for the convolution (weight-only).
      PyTorch's dynamic quantization leaves convolutions in float, and its
      ``DynamicQuantizedConv2d`` warns of "poor numerical accuracy ... not recommended", hence
      this small hand-written module. Biases stay float32 (as in every int8 scheme here).
    * Everything else (pooling, ReLU, batch norm) stays float32.

``"static_int8"`` (fixed point: int8 weights *and* activations)
    FX graph mode quantization, ``prepare_fx`` / ``convert_fx`` with
    ``get_default_qconfig_mapping("x86")`` on the x86 (fbgemm) backend: weights ``qint8``
    symmetric per output channel; activations ``quint8`` per tensor (affine, 7-bit range
    ``reduce_range=True`` as the x86 backend requires), their ranges calibrated by histogram
    observers on the first :data:`CALIBRATION_SIZE` (100) examples of the training data. The
    input is quantized once, convolutions, linear layers (fused with their ReLU), pooling and
    the residual additions run on quantized tensors, and the logits are dequantized. Batch norm
    is folded into the preceding convolution. :func:`quantize` sets
    ``torch.backends.quantized.engine`` to ``"x86"`` (torch's default on this platform), which
    the quantized kernels need at run time.

Deprecations (torch 2.14.1), all of which still work and are used here, their warnings silenced
inside :func:`quantize`:

* ``torch.ao.quantization`` (``quantize_dynamic``, ``prepare_fx``, ``convert_fx``) warns that it
  is deprecated in favour of torchao (``quantize_`` and the pt2e flow) and "will be removed in
  2.10"; torchao is not installed here.
* The quantized tensor dtypes themselves (``torch.qint8``, ``torch.quint8``, created by
  ``torch.quantize_per_tensor`` / ``quantize_per_channel``) "are deprecated and will be removed
  in a future PyTorch release" (pytorch issue 184982).
* The x86 observers' ``reduce_range`` argument "will be deprecated in a future release".

When these are removed, the replacement is torchao's int8 weight-only / dynamic / static
configurations; the float16 scheme and :class:`Int8WeightConv2d` use plain tensors and are
unaffected.
"""

from __future__ import annotations

import contextlib
import re
import warnings
from collections.abc import Iterator
from typing import TYPE_CHECKING

import torch
import torch.nn.functional as F
from torch import nn

from pruneaudit.compress.prune import copy_model, remove_reparametrization
from pruneaudit.errors import PruneAuditError, check_choice

if TYPE_CHECKING:
    from pruneaudit.data.datasets import ImageData

SCHEMES: tuple[str, ...] = ("float16", "dynamic_int8", "static_int8")

#: Number of leading training examples used to calibrate the activation ranges of static_int8.
CALIBRATION_SIZE = 100

#: Backend of the fixed-point int8 models (fbgemm kernels with the x86 defaults).
STATIC_BACKEND = "x86"


class Int8WeightConv2d(nn.Module):
    """A ``Conv2d`` whose weight is stored as int8 (symmetric, one scale per output channel).

    ``weight_int8`` (int8 buffer) times ``weight_scale`` (float32, per output channel) is the
    weight; it is dequantized at every forward pass and the convolution runs in float32.
    """

    def __init__(self, conv: nn.Conv2d):
        super().__init__()
        if conv.padding_mode != "zeros":
            raise PruneAuditError(
                f"Int8WeightConv2d supports padding_mode 'zeros' only, got {conv.padding_mode!r}"
            )
        w = conv.weight.detach().float()
        scale = w.abs().amax(dim=tuple(range(1, w.dim()))) / 127.0
        scale = torch.where(scale > 0, scale, torch.ones_like(scale))
        q = torch.round(w / scale.view(-1, *[1] * (w.dim() - 1))).clamp(-127, 127)
        self.register_buffer("weight_int8", q.to(torch.int8))
        self.register_buffer("weight_scale", scale)
        bias = None if conv.bias is None else conv.bias.detach().float().clone()
        self.register_buffer("bias", bias)
        self.stride, self.padding = conv.stride, conv.padding
        self.dilation, self.groups = conv.dilation, conv.groups
        self.in_channels, self.out_channels = conv.in_channels, conv.out_channels

    def dequantized_weight(self) -> torch.Tensor:
        shape = (-1,) + (1,) * (self.weight_int8.dim() - 1)
        return self.weight_int8.float() * self.weight_scale.view(shape)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.conv2d(
            x,
            self.dequantized_weight(),
            self.bias,
            self.stride,
            self.padding,
            self.dilation,
            self.groups,
        )

    def extra_repr(self) -> str:
        return f"{self.in_channels}, {self.out_channels}, weight=int8 per-channel symmetric"


def _to_half(_module: nn.Module, args: tuple) -> tuple:
    return tuple(a.to(torch.float16) if torch.is_tensor(a) else a for a in args)


def _to_float(_module: nn.Module, _args: tuple, output: torch.Tensor) -> torch.Tensor:
    return output.float()


def _float16(model: nn.Module) -> nn.Module:
    model.half()
    model.register_forward_pre_hook(_to_half)
    model.register_forward_hook(_to_float)
    return model


def _replace_convs(module: nn.Module) -> None:
    for name, child in module.named_children():
        if type(child) is nn.Conv2d:
            setattr(module, name, Int8WeightConv2d(child))
        else:
            _replace_convs(child)


_DEPRECATION_NOTICES = (
    "torch.ao.quantization is deprecated",
    "torch.quantize_per_tensor, torch.quantize_per_channel",
    "Please use quant_min and quant_max",
)


@contextlib.contextmanager
def _quiet_deprecations() -> Iterator[None]:
    """Silence the deprecation notices listed in the module docstring (and only those)."""
    with warnings.catch_warnings():
        for message in _DEPRECATION_NOTICES:
            warnings.filterwarnings("ignore", message=re.escape(message))
        yield


def _dynamic_int8(model: nn.Module) -> nn.Module:
    from torch.ao.quantization import per_channel_dynamic_qconfig, quantize_dynamic

    with _quiet_deprecations():
        model = quantize_dynamic(model, {nn.Linear: per_channel_dynamic_qconfig}, dtype=torch.qint8)
    _replace_convs(model)
    return model


def calibration_batch(calibration: ImageData, size: int = CALIBRATION_SIZE) -> torch.Tensor:
    """The first ``size`` examples of ``calibration``, normalized as in training (float32)."""
    from pruneaudit.data.augment import normalize

    if len(calibration) < size:
        raise PruneAuditError(
            f"static_int8 calibrates on the first {size} training examples; "
            f"{calibration.name!r} has only {len(calibration)}"
        )
    return normalize(calibration.images[:size], calibration.spec)


def _static_int8(model: nn.Module, calibration: ImageData) -> nn.Module:
    from torch.ao.quantization import get_default_qconfig_mapping
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx

    x = calibration_batch(calibration)
    torch.backends.quantized.engine = STATIC_BACKEND
    with _quiet_deprecations():
        prepared = prepare_fx(
            model, get_default_qconfig_mapping(STATIC_BACKEND), example_inputs=(x[:1],)
        )
        with torch.inference_mode():
            prepared(x)
        return convert_fx(prepared)


def quantize(model: nn.Module, scheme: str, calibration: ImageData | None = None) -> nn.Module:
    """A post-training quantized copy of ``model`` (in eval mode, on CPU); see the module docs.

    ``calibration`` (the training data; its first 100 examples are used) is required by
    ``"static_int8"`` and ignored by the other schemes. ``model`` is not modified.
    """
    check_choice("quantization scheme", scheme, SCHEMES)
    if scheme == "static_int8" and calibration is None:
        raise PruneAuditError(
            "static_int8 needs calibration data: pass the training ImageData as calibration"
        )
    copy = remove_reparametrization(copy_model(model)).cpu().eval()
    for p in copy.parameters():
        p.requires_grad_(False)
    if scheme == "float16":
        return _float16(copy)
    if scheme == "dynamic_int8":
        return _dynamic_int8(copy)
    return _static_int8(copy, calibration)


def _dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def quantized_layers(model: nn.Module) -> dict[str, str]:
    """``{module name: "<layer type>:<weight dtype>"}`` for every module that holds a weight.

    The layer type is torch's display name (``Conv2d``, ``DynamicQuantizedLinear``,
    ``QuantizedConvReLU2d``, ``Int8WeightConv2d``, ...); the dtype is that of the stored weight
    (``float32``, ``float16``, ``int8``, ``qint8``). Packed-parameter holders are not listed.
    """
    out = {}
    for name, module in model.named_modules():
        if isinstance(module, Int8WeightConv2d):
            dtype = module.weight_int8.dtype
        else:
            weight = getattr(module, "weight", None)
            if callable(weight) and not isinstance(weight, torch.Tensor):
                weight = weight()  # quantized modules expose their weight through a method
            if not isinstance(weight, torch.Tensor):
                continue
            dtype = weight.dtype
        out[name] = f"{module._get_name()}:{_dtype_name(dtype)}"
    return out
