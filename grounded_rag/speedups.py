"""A decode-time speedup for small batches, measured by ``grounded-rag bench``.

``ReservedLayer``: a KV-cache layer with spare capacity. transformers' ``DynamicLayer`` re-concatenates the whole
cache every step (a copy that grows with the prompt and doubles with two streams); this layer writes the new step into
reserved room and returns views. (A second one, routing 2-16-row matmuls through ``(W @ x.T).T``, was faster than
``F.linear`` on older torch CPU builds and is slower on current ones: ``F.linear`` it is; docs/results.md, "Speed".)
"""

from __future__ import annotations

import torch
from transformers import DynamicCache, PreTrainedModel
from transformers.cache_utils import DynamicLayer


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
