"""Two decode-time speedups for small batches, measured by ``grounded-rag bench``.

1. ``ReservedLayer``: a KV-cache layer with spare capacity. transformers' ``DynamicLayer`` re-concatenates the whole
   cache every step (a copy that grows with the prompt and doubles with two streams); this layer writes the new step
   into reserved room and returns views.
2. ``small_row_linears``: a decode step runs every linear layer on a few rows (streams × questions). Which matmul
   layout is fastest for that depends on the machine: on one torch 2.13 CPU build ``(W @ x.T).T`` beat ``F.linear``
   several times over for the vocabulary projection, on another host it lost as badly (docs/results.md, "Speed").
   So each (weight shape, row count) is timed once per process, at its first use, and the other layout is taken only
   where it is clearly faster. Results are equal up to float rounding.
"""

from __future__ import annotations

import time
import types
from typing import TYPE_CHECKING

import torch
from transformers import DynamicCache
from transformers.cache_utils import DynamicLayer

if TYPE_CHECKING:  # transformers' modeling (2 s, 120 MB to import) is not needed on llama.cpp
    from transformers import PreTrainedModel


class ReservedLayer(DynamicLayer):
    """DynamicLayer whose keys/values are views into a buffer with room for ``reserve`` more tokens."""

    def __init__(self, reserve: int = 64) -> None:
        super().__init__()
        self.reserve = reserve
        self._k: torch.Tensor | None = None
        self._v: torch.Tensor | None = None
        self._length = 0

    @classmethod
    def holding(cls, keys: torch.Tensor, values: torch.Tensor, length: int) -> ReservedLayer:
        """A layer over buffers already filled up to ``length`` (their room past it is the reserve)."""
        layer = cls(keys.shape[-2] - length)
        layer.lazy_initialization(keys, values)
        layer._k, layer._v, layer._length = keys, values, length
        layer.keys, layer.values = keys[..., :length, :], values[..., :length, :]
        return layer

    def _grow(self, needed: int) -> None:
        capacity = self._k.shape[-2] if self._k is not None else 0
        if needed <= capacity:
            return
        keys, values = self.keys, self.values
        shape_k = (*keys.shape[:-2], needed + self.reserve, keys.shape[-1])
        shape_v = (*values.shape[:-2], needed + self.reserve, values.shape[-1])
        self._k = keys.new_empty(shape_k)
        self._v = values.new_empty(shape_v)
        self._k[..., : keys.shape[-2], :] = keys
        self._v[..., : values.shape[-2], :] = values

    def update(self, key_states: torch.Tensor, value_states: torch.Tensor, *args, **kwargs):
        if not self.is_initialized:
            self.lazy_initialization(key_states, value_states)
            self.keys = key_states.new_empty((*key_states.shape[:-2], 0, key_states.shape[-1]))
            self.values = value_states.new_empty((*value_states.shape[:-2], 0, value_states.shape[-1]))
        end = self._length + key_states.shape[-2]
        self._grow(end)
        self._k[..., self._length : end, :] = key_states
        self._v[..., self._length : end, :] = value_states
        self._length = end
        self.keys, self.values = self._k[..., :end, :], self._v[..., :end, :]
        return self.keys, self.values

    def batch_select_indices(self, indices: torch.Tensor) -> None:
        """Keep only these rows (finished questions leave the batch); the reserved room is kept."""
        if self._length:
            self._k, self._v = self._k[indices], self._v[indices]
            self.keys, self.values = self._k[..., : self._length, :], self._v[..., : self._length, :]

    def batch_repeat_interleave(self, repeats: int) -> None:
        if self._length:
            self.keys = self.keys.repeat_interleave(repeats, dim=0)
            self.values = self.values.repeat_interleave(repeats, dim=0)
            self._k = self._v = None
            self._grow(self._length)
            self.keys, self.values = self._k[..., : self._length, :], self._v[..., : self._length, :]


def make_cache(model: PreTrainedModel, reserve: int) -> DynamicCache:
    """A DynamicCache for ``model`` whose full-attention layers reserve room for ``reserve`` tokens."""
    cache = DynamicCache(config=model.config)
    cache.layers = [ReservedLayer(reserve) if type(layer) is DynamicLayer else layer for layer in cache.layers]
    return cache


SMALL_ROWS = (2, 16)  # a decode step's rows; one row (standard decoding's) stays on F.linear, the reference
CLEAR_WIN = 1.2  # the other layout only where F.linear takes 1.2 times its time or more: no flip-flopping on a tie


def _transposed(weight: torch.Tensor, bias: torch.Tensor | None, flat: torch.Tensor) -> torch.Tensor:
    out = (weight @ flat.t()).t()
    return out if bias is None else out + bias


def _best_seconds(run, budget: float = 0.005) -> float:
    """The fastest of at least three timed calls, more while they take under ``budget`` seconds in all (a layer's
    matmul on a few rows takes a tenth of a millisecond: one sample is noise)."""
    run()  # the first call sets up kernels: not timed
    best, spent, calls = float("inf"), 0.0, 0
    while calls < 3 or spent < budget:
        start = time.perf_counter()
        run()
        took = time.perf_counter() - start
        best, spent, calls = min(best, took), spent + took, calls + 1
    return best


class SmallRowLayouts:
    """For each (weight shape, row count) in ``SMALL_ROWS``: whether ``(W @ x.T).T`` runs it clearly faster than
    ``F.linear`` on this machine, timed on the first call of that kind and remembered for the process."""

    def __init__(self) -> None:
        self.transposed: dict[tuple[int, int, int], bool] = {}
        self.active = True  # False: F.linear everywhere (the reference; the bench's comparison)

    def use_transposed(self, weight: torch.Tensor, bias: torch.Tensor | None, flat: torch.Tensor) -> bool:
        rows = flat.shape[0]
        if not self.active or not SMALL_ROWS[0] <= rows <= SMALL_ROWS[1]:
            return False
        key = (*weight.shape, rows)
        if key not in self.transposed:
            linear = _best_seconds(lambda: torch.nn.functional.linear(flat, weight, bias))
            other = _best_seconds(lambda: _transposed(weight, bias, flat))
            self.transposed[key] = other * CLEAR_WIN <= linear
        return self.transposed[key]


def _small_row_forward(self: torch.nn.Linear, x: torch.Tensor) -> torch.Tensor:
    flat = x.reshape(-1, x.shape[-1])
    # a model moved to a GPU after loading keeps F.linear there (the timing is a CPU's)
    if x.device.type == "cpu" and self._small_row_layouts.use_transposed(self.weight, self.bias, flat):
        return _transposed(self.weight, self.bias, flat).reshape(*x.shape[:-1], -1)
    return torch.nn.functional.linear(x, self.weight, self.bias)


def small_row_linears(model: PreTrainedModel, layouts: SmallRowLayouts | None = None) -> SmallRowLayouts:
    """Route the CPU linear layers of ``model`` (in place) through :class:`SmallRowLayouts`, which their layers of one
    shape share. Returns it (its ``transposed`` says what was chosen). GPU layers are left alone."""
    layouts = layouts or SmallRowLayouts()
    for module in model.modules():
        if type(module) is torch.nn.Linear and module.weight.device.type == "cpu":
            module._small_row_layouts = layouts
            module.forward = types.MethodType(_small_row_forward, module)
    return layouts
