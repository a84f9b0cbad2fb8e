"""Where computation runs: the device setting resolved to a ``torch.device``, data placement,
the float precision choice on CUDA, and the environment recorded with every stored run.

The setting (``auto``, ``cpu``, ``cuda``, ``cuda:N``) is the argument, else
``$PRUNEAUDIT_DEVICE``, else ``auto`` (:func:`pruneaudit.config.device_setting`; the trainers
pass their runtime's, :meth:`pruneaudit.runtime.Runtime.device_setting`);
``auto`` is the first CUDA device when one is available, else the CPU.

Placement: the trainers and evaluators move a run's images and labels to the device once
(:func:`on_device` keeps one device copy per tensor for as long as the CPU tensor lives) and
the model only for the duration of the call: models live on the CPU between stages, so pruning,
checkpoints and int8 quantization see CPU tensors whatever the device. The random draws (data
order, augmentation) are always made by CPU generators, so a run draws the same numbers on every
device and only float arithmetic differs.

Precision on CUDA (:func:`full_precision`): TF32 is switched off for matrix products and cuDNN
convolutions while pruneaudit trains or evaluates, and restored afterwards. TF32 rounds inputs to
a 10-bit mantissa; the audits compare per-example predictions of dense and compressed models, and
a population trained as one stacked computation must match K separate runs within float32
tolerance (as on the CPU), which TF32 rounding would exceed. LeNet-size models are bound by
kernel launches rather than arithmetic, so the expected cost of full float32 is small; this has
not been measured here (no GPU was available when it was written).

Mixed precision (:func:`autocast`): the setting ``precision``
(:meth:`pruneaudit.runtime.Runtime.precision_setting`: ``fp32``, the default, or ``bf16``) runs the
forward pass of training under bfloat16 autocast on CUDA; parameters, gradients, the loss and the
SGD update stay float32, and evaluation is float32 in both. ``bf16`` is refused on the CPU (one
error naming the fix): CPU autocast to bfloat16 is slower than float32 on CPUs without bfloat16
units (the project's CPU among them) and would only add a second arithmetic to keep equal. TF32
stays off either way.
"""

from __future__ import annotations

import contextlib
import copy
import platform
import weakref
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import torch

from pruneaudit import __version__, config
from pruneaudit.errors import PruneAuditError

if TYPE_CHECKING:
    from pruneaudit.data.datasets import ImageData


def resolve_device(value: str | torch.device | None = None) -> torch.device:
    """The ``torch.device`` of a device setting (default: ``$PRUNEAUDIT_DEVICE``, else
    ``auto``; :func:`pruneaudit.config.device_setting`).

    ``auto``: ``cuda`` when ``torch.cuda.is_available()``, else ``cpu``. ``cuda`` or ``cuda:N``
    without CUDA (or N out of range) is a :class:`~pruneaudit.errors.PruneAuditError` naming the
    fix.
    """
    if isinstance(value, torch.device):
        value = str(value)
    setting = config.device_setting(value)
    if setting == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if setting == "cpu":
        return torch.device("cpu")
    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    index = int(setting.partition(":")[2] or 0)
    if index >= count:
        raise PruneAuditError(
            f"device {setting!r} asked for, but this machine has {count} CUDA device(s); "
            f"use device='auto' or 'cpu' (or set ${config.DEVICE_ENV})"
        )
    return torch.device(setting)


#: id(CPU tensor) -> {device string: the tensor's copy on that device}
_COPIES: dict[int, dict[str, torch.Tensor]] = {}


def to_device(tensor: torch.Tensor, device: torch.device) -> torch.Tensor:
    """``tensor`` on ``device``, copied at most once per device while ``tensor`` lives."""
    if tensor.device == device:
        return tensor
    key = id(tensor)
    copies = _COPIES.get(key)
    if copies is None:
        copies = _COPIES[key] = {}
        weakref.finalize(tensor, _COPIES.pop, key, None)
    if str(device) not in copies:
        copies[str(device)] = tensor.to(device)
    return copies[str(device)]


def on_device(data: ImageData, device: torch.device) -> ImageData:
    """``data`` with its images and labels on ``device`` (the same object on its own device)."""
    if data.images.device == device and data.labels.device == device:
        return data
    moved = copy.copy(data)  # no re-validation: the tensors were checked on the CPU
    object.__setattr__(moved, "images", to_device(data.images, device))
    object.__setattr__(moved, "labels", to_device(data.labels, device))
    return moved


@contextlib.contextmanager
def full_precision(device: torch.device) -> Iterator[None]:
    """On CUDA: no TF32 in matmuls and cuDNN convolutions inside the block (see module doc)."""
    if device.type != "cuda":
        yield
        return
    before = (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    try:
        yield
    finally:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = before


def autocast(precision: str | None, device: torch.device) -> contextlib.AbstractContextManager:
    """The context of a training step in ``precision`` (default: ``$PRUNEAUDIT_PRECISION``,
    else ``fp32``) on ``device``:
    nothing for ``fp32``; bfloat16 autocast for ``bf16`` on CUDA (without autocast's weight
    cache, which CUDA graph capture does not allow). ``bf16`` on the CPU raises."""
    setting = config.precision_setting(precision)
    if setting == "fp32":
        return contextlib.nullcontext()
    if device.type != "cuda":
        raise PruneAuditError(
            f"precision {setting!r} (bfloat16 autocast) runs on CUDA only, and the device is "
            f"{device}; use precision='fp32' on the CPU (or unset ${config.PRECISION_ENV})"
        )
    return torch.autocast("cuda", dtype=torch.bfloat16, cache_enabled=False)


def is_quantized(model: torch.nn.Module) -> bool:
    """Whether ``model`` holds torch int8 modules or tensors (their kernels run on the CPU)."""
    for module in model.modules():
        if type(module).__module__.startswith(("torch.ao.nn.quantized", "torch.nn.quantized")):
            return True
        if any(t.dtype in (torch.int8, torch.qint8, torch.quint8) for t in module.buffers(False)):
            return True
    return False


def model_device(model: torch.nn.Module) -> torch.device:
    """The device of ``model``'s first parameter or buffer (the CPU for a model without any)."""
    for tensor in (*model.parameters(), *model.buffers()):
        return tensor.device
    return torch.device("cpu")


def environment(
    device: str | torch.device | None = None, precision: str | None = None
) -> dict[str, Any]:
    """What a stored run records about where it was made: device type and name, precision,
    versions.

    ``device`` and ``precision`` None resolve the environment's settings (the runs pass their
    runtime's). ``tf32`` is False: :func:`full_precision`.
    """
    dev = resolve_device(device)
    name = torch.cuda.get_device_name(dev) if dev.type == "cuda" else platform.processor()
    import numpy

    return {
        "device": dev.type,
        "device_name": name or platform.machine(),
        "tf32": False,
        "precision": config.precision_setting(precision),
        "torch": torch.__version__,
        "cuda": torch.version.cuda if dev.type == "cuda" else None,
        "cudnn": torch.backends.cudnn.version() if dev.type == "cuda" else None,
        "numpy": numpy.__version__,
        "python": platform.python_version(),
        "pruneaudit": __version__,
    }


def cuda_devices() -> int:
    """Number of CUDA devices (0 without CUDA)."""
    return torch.cuda.device_count() if torch.cuda.is_available() else 0
