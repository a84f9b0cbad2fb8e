"""Pruning of the protocol, all through :mod:`torch.nn.utils.prune`.

Techniques (:data:`TECHNIQUES`) act on the prunable parameters of
:func:`pruneaudit.models.prunable_parameters` (every Conv2d and Linear weight). All are
layer-wise except ``global_unstructured`` (L1 over all prunable weights of the network at once).
Structured techniques remove whole slices along ``dim=1``, the *input* axis of a weight
(input channels of a conv weight ``(out, in, kh, kw)``, input features of a linear weight
``(out, in)``), ranked by their L1, L2 or L-infinity norm (``prune.ln_structured`` with
``n = 1, 2, inf``) or at random (``prune.random_structured``).

Amounts and rounding
--------------------
torch's :class:`~torch.nn.utils.prune.PruningContainer` applies each new amount to the entries
(or slices) that are still unpruned: a float amount ``a`` removes ``round(a * remaining)`` of
them, an integer amount removes exactly that many. Passing a fraction straight to torch at each
step would accumulate rounding (a layer with 2 slices left never loses another at 20%:
``round(0.4) = 0``). :func:`prune_to` instead computes, per tensor (or once for the whole network
with ``global_unstructured``), the *integer* number still to remove so that the count pruned so
far is ``round(target * units)``, and hands that integer to torch; the cumulative sparsity after
iteration ``k`` is therefore ``1 - 0.8**k`` up to one unit of rounding per tensor, whatever
happened before. :func:`prune_round` (one round of the iterative protocol) uses :func:`prune_to`.

Layer-wise techniques always keep at least one unit (weight or input slice) per tensor, so that
no layer is disconnected: a first convolution with one input channel is therefore never pruned
by a structured technique (its only slice is kept), and LeNet's second convolution (6 input
channels) keeps ``6 - round(6 * s_k)`` of them, but never fewer than one. Those layers hold few
weights, so the network's sparsity stays close to the target; :func:`layer_sparsity` reports
each layer.
``global_unstructured`` follows torch and may empty a whole layer at high sparsity.

Random techniques draw from torch's global generator inside :func:`torch.random.fork_rng`,
seeded with ``seed``: results are reproducible and the caller's random state is left untouched.

Saving
------
A pruned module holds ``weight_orig`` (a parameter) and ``weight_mask`` (a buffer) instead of
``weight``, so its ``state_dict`` does not load into a fresh model. :func:`pruned_state_dict`
writes the usual keys (``weight`` = the effective, masked weight) plus ``<param>_mask`` boolean
entries, plain tensors that ``torch.load(weights_only=True)`` reads; :func:`load_pruned_state_dict`
restores them (re-creating the masks with ``prune.custom_from_mask``). :func:`masks` and
:func:`apply_masks` move masks between models as plain boolean tensors.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.utils.prune as prune
from torch import nn

from pruneaudit.compress.reparam import (
    MASK_SUFFIX,
    ORIG_SUFFIX,
    is_pruned,
    pruned_tensors,
    pruning_hooks,
    refresh_effective_weight,
)
from pruneaudit.errors import PruneAuditError, check_choice, check_positive_int, check_range
from pruneaudit.models import prunable_parameters

#: The dimension structured techniques prune along: the input axis of conv and linear weights.
STRUCTURED_DIM = 1


@dataclass(frozen=True)
class Technique:
    """A pruning technique: its name, whether it removes whole input slices (``structured``) and
    how it prunes one tensor by an amount (``prune_tensor``, a ``torch.nn.utils.prune``
    function); ``prune_tensor`` is None for a global technique, which ranks all prunable weights
    of the network at once."""

    name: str
    structured: bool
    prune_tensor: Callable[..., object] | None

    @property
    def is_global(self) -> bool:
        return self.prune_tensor is None


def _ln(n: float) -> Callable[..., object]:
    return functools.partial(prune.ln_structured, n=n, dim=STRUCTURED_DIM)


#: The seven techniques of P, one entry each (``torch.nn.utils.prune``).
TECHNIQUE_TABLE: dict[str, Technique] = {
    t.name: t
    for t in (
        Technique("l1_unstructured", False, prune.l1_unstructured),
        Technique("random_unstructured", False, prune.random_unstructured),
        Technique("global_unstructured", False, None),
        Technique("l1_structured", True, _ln(1)),
        Technique("l2_structured", True, _ln(2)),
        Technique("linfty_structured", True, _ln(math.inf)),
        Technique(
            "random_structured",
            True,
            functools.partial(prune.random_structured, dim=STRUCTURED_DIM),
        ),
    )
}
TECHNIQUES: tuple[str, ...] = tuple(TECHNIQUE_TABLE)
TREATMENTS: tuple[str, ...] = ("finetune", "rewind")


# --------------------------------------------------------------------------- schedule


def iteration_sparsity(k: int, rate: float = 0.2) -> float:
    """Cumulative sparsity after ``k`` iterations that each prune ``rate`` of the remaining weights.

    ``1 - (1 - rate)**k``; ``k = 0`` is the dense model.
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 0:
        raise PruneAuditError(f"k must be a non-negative integer, got {k!r}")
    check_range("rate", rate, 0.0, 1.0, lo_open=True, hi_open=True)
    return 1.0 - (1.0 - rate) ** k


# --------------------------------------------------------------------------- inspection


def _effective(module: nn.Module, name: str) -> torch.Tensor:
    """The weight the forward pass uses: ``orig * mask`` when pruned (never a stale copy)."""
    pruned = pruned_tensors(module, name)
    if pruned is not None:
        orig, mask = pruned
        return orig.detach() * mask
    return getattr(module, name).detach()


def _named_targets(model: nn.Module) -> list[tuple[str, nn.Module, str]]:
    """``(qualified name, module, param)`` for each prunable parameter, in module order."""
    names = {id(m): n for n, m in model.named_modules()}
    out = []
    for module, param in prunable_parameters(model):
        prefix = names[id(module)]
        out.append((f"{prefix}.{param}" if prefix else param, module, param))
    return out


def sparsity(model: nn.Module) -> float:
    """True fraction of zero entries among all prunable weights (effective weights)."""
    zeros = total = 0
    for _, module, param in _named_targets(model):
        w = _effective(module, param)
        zeros += int((w == 0).sum())
        total += w.numel()
    if total == 0:
        raise PruneAuditError(f"{type(model).__name__} has no prunable parameters")
    return zeros / total


def layer_sparsity(model: nn.Module) -> dict[str, float]:
    """Fraction of zero entries of each prunable weight, keyed by ``"<module>.weight"``."""
    out = {}
    for key, module, param in _named_targets(model):
        w = _effective(module, param)
        out[key] = int((w == 0).sum()) / w.numel()
    return out


def masks(model: nn.Module) -> dict[str, torch.Tensor]:
    """Boolean keep-masks (``True`` = kept) of the prunable weights, keyed ``"<module>.weight"``.

    Unpruned weights get an all-``True`` mask, so every prunable parameter has an entry.
    """
    out = {}
    for key, module, param in _named_targets(model):
        if is_pruned(module, param):
            out[key] = pruned_tensors(module, param)[1].detach().bool().clone()
        else:
            out[key] = torch.ones_like(getattr(module, param), dtype=torch.bool)
    return out


def apply_masks(model: nn.Module, keep: Mapping[str, torch.Tensor]) -> nn.Module:
    """Prune ``model`` in place with the given keep-masks (as returned by :func:`masks`).

    Each mask multiplies any mask already present (``prune.custom_from_mask``). Keys must be
    prunable parameters of ``model`` and shapes must match; nothing changes otherwise.
    """
    targets = {key: (m, p) for key, m, p in _named_targets(model)}
    for key, mask in keep.items():
        if key not in targets:
            raise PruneAuditError(
                f"mask {key!r} names no prunable parameter; accepted: {', '.join(targets)}"
            )
        module, param = targets[key]
        shape = tuple(_effective(module, param).shape)
        if tuple(mask.shape) != shape:
            raise PruneAuditError(f"mask {key!r} has shape {tuple(mask.shape)}, expected {shape}")
    for key, mask in keep.items():
        module, param = targets[key]
        prune.custom_from_mask(module, param, mask.to(torch.bool))
    return model


def copy_model(model: nn.Module) -> nn.Module:
    """A deep copy of ``model`` that also works for pruned models.

    A pruned module's ``weight`` attribute is recomputed as ``weight_orig * mask`` before each
    forward pass; after a forward pass with gradients on it is a non-leaf tensor, which
    ``copy.deepcopy`` refuses. It is detached first (the next forward pass recomputes it anyway).
    """
    for _, module, param in _named_targets(model):
        if is_pruned(module, param):
            setattr(module, param, getattr(module, param).detach())
    return copy.deepcopy(model)


def remove_reparametrization(model: nn.Module) -> nn.Module:
    """Make pruning permanent in place (``prune.remove``): plain ``weight`` with zeros, no masks."""
    for _, module, param in _named_targets(model):
        if is_pruned(module, param):
            prune.remove(module, param)
    return model


# --------------------------------------------------------------------------- pruning


def _check_technique(technique: str) -> Technique:
    return TECHNIQUE_TABLE[check_choice("pruning technique", technique, TECHNIQUES)]


def _units(module: nn.Module, param: str, structured: bool) -> tuple[int, int]:
    """(total units, units already pruned) of one tensor: entries, or slices along dim 1."""
    w = _effective(module, param)
    pruned = pruned_tensors(module, param)
    mask = torch.ones_like(w, dtype=torch.bool) if pruned is None else pruned[1].bool()
    if not structured:
        return mask.numel(), int((~mask).sum())
    other = [d for d in range(mask.dim()) if d != STRUCTURED_DIM]
    kept = mask.any(dim=other) if other else mask
    return kept.numel(), int((~kept).sum())


def _global(model: nn.Module, amount: int | float) -> None:
    params = [(m, p) for _, m, p in _named_targets(model)]
    prune.global_unstructured(params, pruning_method=prune.L1Unstructured, amount=amount)


@contextlib.contextmanager
def _seeded(seed: int, model: nn.Module | None = None) -> Iterator[None]:
    """Seed torch's global generators inside ``fork_rng``: the caller's state is restored.

    The CPU generator always; also the generators of the CUDA devices ``model`` lives on (its
    random masks are drawn there). Models live on the CPU between training stages (see
    :mod:`pruneaudit.training.device`), so pruning draws the same masks whatever the device.
    """
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise PruneAuditError(f"seed must be a non-negative integer, got {seed!r}")
    cuda = [] if model is None else sorted(
        {t.device.index or 0 for t in model.parameters() if t.device.type == "cuda"}
    )
    with torch.random.fork_rng(devices=cuda):
        torch.manual_seed(seed)
        yield


def prune_to(model: nn.Module, technique: str, target: float, seed: int = 0) -> nn.Module:
    """Prune in place until ``round(target * units)`` units are pruned (never un-pruning).

    Units are weights (unstructured) or input slices (structured), counted per tensor for
    layer-wise techniques (keeping at least one unit per tensor) and over the whole network for
    ``global_unstructured``. The integer still to remove is passed to torch, which removes it
    from the remaining units. Returns ``model``.
    """
    entry = _check_technique(technique)
    check_range("target", target, 0.0, 1.0, hi_open=True)
    with _seeded(seed, model):
        if entry.is_global:
            counts = [_units(m, p, False) for _, m, p in _named_targets(model)]
            total, done = sum(c[0] for c in counts), sum(c[1] for c in counts)
            _global(model, max(0, round(target * total) - done))
        else:
            for _, module, param in _named_targets(model):
                total, done = _units(module, param, entry.structured)
                goal = min(round(target * total), total - 1)
                entry.prune_tensor(module, param, amount=max(0, goal - done))
    return model


# --------------------------------------------------------------------------- rewind


def _standard_key(name: str, pruned_params: set[str]) -> str:
    """``conv.weight_orig`` -> ``conv.weight`` for pruned parameters; other names unchanged."""
    if name.endswith(ORIG_SUFFIX) and name[: -len(ORIG_SUFFIX)] in pruned_params:
        return name[: -len(ORIG_SUFFIX)]
    return name


def _pruned_keys(model: nn.Module) -> set[str]:
    out = set()
    for mod_name, module in model.named_modules():
        for name in pruning_hooks(module):
            out.add(f"{mod_name}.{name}" if mod_name else name)
    return out


def _state_tensors(model: nn.Module) -> dict[str, torch.Tensor]:
    """Parameters (``weight_orig`` under the name ``weight``) and buffers except masks."""
    pruned = _pruned_keys(model)
    out = {_standard_key(n, pruned): p for n, p in model.named_parameters()}
    mask_keys = {k + MASK_SUFFIX for k in pruned}
    out.update({n: b for n, b in model.named_buffers() if n not in mask_keys})
    return out


def snapshot(model: nn.Module) -> dict[str, torch.Tensor]:
    """Copies of all parameters and buffers under their standard names (masks excluded).

    For a pruned parameter the copy is of ``weight_orig`` (the values under the mask), so a
    snapshot taken before or after pruning has the same keys.
    """
    return {k: v.detach().clone() for k, v in _state_tensors(model).items()}


def rewind(model: nn.Module, init_snapshot: Mapping[str, torch.Tensor]) -> nn.Module:
    """Reset every parameter and buffer to ``init_snapshot`` in place, keeping the masks.

    Pruned weights get ``weight_orig <- init`` (so surviving entries equal their initial values
    exactly and pruned ones stay zero); biases and buffers (e.g. batch-norm statistics) are reset
    too, as in the lottery-ticket procedure. Keys and shapes must match; nothing changes otherwise.
    """
    current = _state_tensors(model)
    missing = sorted(set(current) - set(init_snapshot))
    extra = sorted(set(init_snapshot) - set(current))
    if missing or extra:
        raise PruneAuditError(
            f"snapshot does not match the model: missing {missing}, extra {extra}"
        )
    for key, tensor in current.items():
        if tensor.shape != init_snapshot[key].shape:
            raise PruneAuditError(
                f"snapshot entry {key!r} has shape {tuple(init_snapshot[key].shape)}, "
                f"expected {tuple(tensor.shape)}"
            )
    with torch.no_grad():
        for key, tensor in current.items():
            tensor.copy_(init_snapshot[key])
    for _, module, param in _named_targets(model):
        refresh_effective_weight(module, param)
    return model


# --------------------------------------------------------------------------- save / load


def pruned_state_dict(model: nn.Module) -> dict[str, torch.Tensor]:
    """A state dict with the usual keys plus boolean ``<param>_mask`` entries for pruned weights.

    ``weight`` holds the effective (masked) weight. All values are plain tensors, so the dict
    round-trips through ``torch.save`` / ``torch.load(weights_only=True)``.
    """
    pruned = _pruned_keys(model)
    state: dict[str, torch.Tensor] = {}
    for key, tensor in model.state_dict().items():
        if key.endswith(MASK_SUFFIX) and key[: -len(MASK_SUFFIX)] in pruned:
            continue
        std = _standard_key(key, pruned)
        state[std] = tensor.detach().clone()
    for key in pruned:
        module_name, _, param = key.rpartition(".")
        module = model.get_submodule(module_name)
        mask = pruned_tensors(module, param)[1].detach()
        state[key] = (state[key] * mask).to(state[key].dtype)
        state[key + MASK_SUFFIX] = mask.bool().clone()
    return state


def load_pruned_state_dict(model: nn.Module, state: Mapping[str, torch.Tensor]) -> nn.Module:
    """Load a :func:`pruned_state_dict` into ``model`` (pruned or not) in place; returns it.

    Existing pruning of ``model`` is replaced by the masks in ``state``. The keys are checked
    against ``model`` first (and the load done on a copy), so a mismatch changes nothing.
    """
    mask_entries = {k[: -len(MASK_SUFFIX)]: v for k, v in state.items() if k.endswith(MASK_SUFFIX)}
    plain = {k: v for k, v in state.items() if not k.endswith(MASK_SUFFIX)}
    trial = remove_reparametrization(copy_model(model))
    try:
        trial.load_state_dict(plain, strict=True)
        apply_masks(trial, mask_entries)
    except RuntimeError as err:
        raise PruneAuditError(f"state does not fit {type(model).__name__}: {err}") from None
    remove_reparametrization(model)
    model.load_state_dict(plain, strict=True)
    apply_masks(model, mask_entries)
    return model


# --------------------------------------------------------------------------- procedures


def _derived_seed(seed: int, k: int) -> int:
    return int(np.random.SeedSequence([seed, k]).generate_state(1)[0])


def prune_round(
    model: nn.Module,
    technique: str,
    treatment: str,
    k: int,
    init: Mapping[str, torch.Tensor],
    *,
    seed: int = 0,
    rate: float = 0.2,
) -> nn.Module:
    """Round ``k`` of the iterative protocol before retraining, in place: prune to the cumulative
    sparsity :func:`iteration_sparsity` ``(k, rate)`` with :func:`prune_to`, then, for
    ``"rewind"``, reset the weights to ``init`` (a :func:`snapshot` taken before training).
    Random techniques draw from a seed derived from ``(seed, k)``. Returns ``model``."""
    check_choice("weight treatment", treatment, TREATMENTS)
    check_positive_int("k", k)
    prune_to(model, technique, iteration_sparsity(k, rate), seed=_derived_seed(seed, k))
    if treatment == "rewind":
        rewind(model, init)
    return model


class GradualPruner:
    """Gradual magnitude pruning during training (Zhu & Gupta 2017), usable as ``step_hook``.

    Target at step ``t``: ``s_t = s_f + (s_i - s_f) * (1 - (t - t0) / (n * dt))**3`` for
    ``t0 <= t <= t0 + n * dt = end_step``, 0 before ``begin_step`` (``t0``) and ``s_f`` after.
    The masks are updated at ``begin_step`` and every ``frequency`` steps after it, and at
    ``end_step``. ``technique`` is ``"l1_unstructured"`` (per layer) or ``"global_unstructured"``.

    With ``regrow=True`` (default) each update recomputes the masks from the magnitudes of all
    underlying weights (``weight_orig``), as the TensorFlow model-pruning library does: a weight
    pruned earlier keeps its value (the mask stops its gradient) and comes back if it outranks
    a surviving weight later. With ``regrow=False`` the masks only grow (:func:`prune_to`).
    """

    def __init__(
        self,
        target_sparsity: float,
        begin_step: int,
        end_step: int,
        frequency: int,
        technique: str = "l1_unstructured",
        initial_sparsity: float = 0.0,
        regrow: bool = True,
    ):
        check_range("target_sparsity", target_sparsity, 0.0, 1.0, hi_open=True)
        check_range("initial_sparsity", initial_sparsity, 0.0, target_sparsity)
        check_choice(
            "gradual pruning technique", technique, ("l1_unstructured", "global_unstructured")
        )
        if isinstance(begin_step, bool) or not isinstance(begin_step, int) or begin_step < 0:
            raise PruneAuditError(f"begin_step must be a non-negative integer, got {begin_step!r}")
        if not isinstance(end_step, int) or isinstance(end_step, bool) or end_step <= begin_step:
            raise PruneAuditError(
                f"end_step must be an integer > begin_step={begin_step}, got {end_step!r}"
            )
        check_positive_int("frequency", frequency)
        self.target_sparsity = float(target_sparsity)
        self.initial_sparsity = float(initial_sparsity)
        self.begin_step, self.end_step, self.frequency = begin_step, end_step, frequency
        self.technique = technique
        self.regrow = bool(regrow)

    def schedule(self, step: int) -> float:
        """Target sparsity at ``step`` (the cubic schedule, clamped outside the window)."""
        if step < self.begin_step:
            return 0.0
        if step >= self.end_step:
            return self.target_sparsity
        frac = (step - self.begin_step) / (self.end_step - self.begin_step)
        s_i, s_f = self.initial_sparsity, self.target_sparsity
        return s_f + (s_i - s_f) * (1.0 - frac) ** 3

    def acts_at(self, step: int) -> bool:
        """Whether the masks change at ``step`` (so a
        :class:`~pruneaudit.training.ScheduledHook`)."""
        if step < self.begin_step or step > self.end_step:
            return False
        return step == self.end_step or (step - self.begin_step) % self.frequency == 0

    def __call__(self, model: nn.Module, step: int) -> None:
        if not self.acts_at(step):
            return
        target = self.schedule(step)
        if not self.regrow:
            prune_to(model, self.technique, target)
            return
        targets = _named_targets(model)
        for _, module, param in targets:
            if not is_pruned(module, param):
                prune.identity(module, param)
        origs = [pruned_tensors(m, p)[0].detach() for _, m, p in targets]
        if TECHNIQUE_TABLE[self.technique].is_global:
            flat = torch.cat([o.flatten() for o in origs])
            keep = prune.L1Unstructured(round(target * flat.numel())).compute_mask(
                flat, torch.ones_like(flat)
            )
            new = [
                k.view_as(o)
                for k, o in zip(keep.split([o.numel() for o in origs]), origs, strict=True)
            ]
        else:
            new = [
                prune.L1Unstructured(min(round(target * o.numel()), o.numel() - 1)).compute_mask(
                    o, torch.ones_like(o)
                )
                for o in origs
            ]
        with torch.no_grad():
            for (_, module, param), mask in zip(targets, new, strict=True):
                pruned_tensors(module, param)[1].copy_(mask)
                refresh_effective_weight(module, param)
