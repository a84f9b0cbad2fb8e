"""torch's pruning reparametrization, read in one place.

``torch.nn.utils.prune`` replaces a pruned parameter ``weight`` by a parameter ``weight_orig``,
a buffer ``weight_mask`` and a forward pre-hook (a :class:`~torch.nn.utils.prune.BasePruningMethod`,
or a :class:`~torch.nn.utils.prune.PruningContainer` once the tensor is pruned again) that sets
the plain attribute ``weight = weight_orig * weight_mask`` before each forward pass. torch offers
:func:`~torch.nn.utils.prune.is_pruned` for a whole module but no public way to ask which
tensors are pruned or to recompute the attribute; the functions here are the only code of the
package that reads the private ``_forward_pre_hooks`` and ``_tensor_name`` for that (a torch
upgrade that changes them is fixed here).
"""

from __future__ import annotations

import torch
import torch.nn.utils.prune as prune
from torch import nn

#: Suffixes torch gives the trained tensor and the mask of a pruned parameter.
ORIG_SUFFIX = "_orig"
MASK_SUFFIX = "_mask"


def pruning_hooks(module: nn.Module) -> dict[str, prune.BasePruningMethod]:
    """torch's pruning hook of each pruned tensor of ``module`` (not of its children), keyed by
    the tensor's name (``"weight"``); empty when nothing of ``module`` is pruned."""
    return {
        hook._tensor_name: hook
        for hook in module._forward_pre_hooks.values()
        if isinstance(hook, prune.BasePruningMethod)
    }


def is_pruned(module: nn.Module, name: str) -> bool:
    """Whether the tensor ``name`` of ``module`` is pruned (reparametrized by torch)."""
    return name in pruning_hooks(module)


def pruned_tensors(module: nn.Module, name: str) -> tuple[nn.Parameter, torch.Tensor] | None:
    """``(<name>_orig, <name>_mask)`` of a pruned tensor (the trained parameter and its mask, not
    copies); None when ``name`` is not pruned."""
    if not is_pruned(module, name):
        return None
    return getattr(module, name + ORIG_SUFFIX), getattr(module, name + MASK_SUFFIX)


def refresh_effective_weight(module: nn.Module, name: str) -> None:
    """Recompute the effective attribute ``name`` (``orig * mask``) after ``<name>_orig`` or the
    mask changed, as torch's hook would at the next forward pass; nothing if not pruned."""
    hook = pruning_hooks(module).get(name)
    if hook is not None:
        setattr(module, name, hook.apply_mask(module))


def weight_and_mask(
    module: nn.Module, name: str
) -> tuple[torch.Tensor | None, torch.Tensor | None]:
    """(the tensor training updates, its mask or None) of ``module``'s tensor ``name``: for a
    pruned tensor ``<name>_orig`` and ``<name>_mask`` (the tensors themselves, not copies), else
    the plain attribute (None when ``module`` has none) and None."""
    pruned = pruned_tensors(module, name)
    if pruned is not None:
        return pruned
    return getattr(module, name, None), None


def mask_of(module: nn.Module, name: str) -> torch.Tensor | None:
    """The mask of ``module``'s pruned tensor ``name`` (not a copy); None when not pruned."""
    return weight_and_mask(module, name)[1]
