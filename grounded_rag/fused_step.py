"""One decode step's forward for Llama-architecture models in fewer, larger kernels, for the static step's graph.

Captured in a CUDA graph, transformers' forward of one decode step replays about 50 kernels per layer (the RMSNorm
as seven, the rotary embedding as a dozen, the static cache's position bookkeeping in every layer). At batch 1 those
small kernels, not the weights' bytes, set much of a step's time. :class:`FusedLlamaStep` computes the same function:

- the q, k and v projections as one matrix product and the MLP's gate and up as one (the model's own weights,
  concatenated once; its Linear layers then hold views of them, so no memory is added and transformers' own forward,
  which prefill still runs, reads the same numbers);
- a residual add with the RMSNorm after it, the rotary embedding of q and k, and SiLU(gate)·up each as one small
  function that runs compiled on a GPU (``torch.compile`` fuses each into one kernel or two) and as written on a CPU,
  where the tests hold this forward to transformers';
- attention over the static cache with each key-value head's query heads as its query rows, so grouped-query
  attention reads the cache without repeating it, and one cache column written per step for every layer.

It applies to transformers' Llama layers without biases and with a static rotary embedding (Llama, SmolLM2); other
models keep transformers' forward in the static step.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch
import torch.nn.functional as F
from transformers import StaticCache

if TYPE_CHECKING:  # transformers' modeling (2 s, 120 MB to import) is not needed on llama.cpp
    from transformers import PreTrainedModel

_ROPE_TYPES = {"default", "linear", "llama3"}  # rotary embeddings that depend on the positions alone


class CompileUnavailable(RuntimeError):
    """``torch.compile`` does not work on this machine (no C compiler, no Triton, an unsupported device)."""


def supports(model: PreTrainedModel) -> bool:
    """Transformers' Llama layers, no biases, SiLU, a rotary embedding that depends on the positions alone."""
    inner = getattr(model, "model", None)
    if model.config.model_type != "llama" or inner is None or not hasattr(inner, "layers"):
        return False
    if getattr(inner.rotary_emb, "rope_type", None) not in _ROPE_TYPES or model.config.hidden_act != "silu":
        return False
    linears = [m for layer in inner.layers for m in (layer.self_attn.q_proj, layer.self_attn.k_proj,
                                                      layer.self_attn.v_proj, layer.self_attn.o_proj,
                                                      layer.mlp.gate_proj, layer.mlp.up_proj, layer.mlp.down_proj)]
    return all(m.bias is None for m in linears) and getattr(model.get_output_embeddings(), "bias", None) is None


def norm(hidden: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    """Transformers' LlamaRMSNorm, rounding where it rounds (to the input's dtype before the weight)."""
    x = hidden.float()
    x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)
    return weight * x.to(hidden.dtype)


def add_norm(hidden: torch.Tensor, delta: torch.Tensor, weight: torch.Tensor, eps: float
             ) -> tuple[torch.Tensor, torch.Tensor]:
    """The residual stream after ``delta`` is added, and its RMSNorm."""
    hidden = hidden + delta
    return hidden, norm(hidden, weight, eps)


def _rotate_half(x: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def rotate(q: torch.Tensor, k: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor
           ) -> tuple[torch.Tensor, torch.Tensor]:
    """The rotary embedding of q [rows, kv heads, groups, dim] and k [rows, kv heads, 1, dim] (cos, sin: [rows, 1,
    dim]), as transformers' ``apply_rotary_pos_emb``."""
    cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
    return q * cos + _rotate_half(q) * sin, k * cos + _rotate_half(k) * sin


def silu_mul(gate_up: torch.Tensor) -> torch.Tensor:
    gate, up = gate_up.chunk(2, dim=-1)
    return F.silu(gate) * up


@torch.no_grad()
def _concatenated(*linears: torch.nn.Linear) -> torch.Tensor:
    """The Linear layers' weights as one matrix; each layer then holds its rows as a view (made once per model)."""
    first = linears[0].weight
    fused = getattr(linears[0], "_grounded_fused", None)
    if fused is not None and first.data_ptr() == fused.data_ptr() and all(
            getattr(m, "_grounded_fused", None) is fused for m in linears):
        return fused
    fused = torch.cat([m.weight for m in linears])
    offset = 0
    for m in linears:
        rows = m.weight.shape[0]
        m.weight = torch.nn.Parameter(fused[offset : offset + rows], requires_grad=m.weight.requires_grad)
        m._grounded_fused = fused
        offset += rows
    return fused


@dataclass
class _Layer:
    qkv: torch.Tensor  # [(heads + 2 kv heads) * dim, hidden]
    split: tuple[int, int, int]
    o: torch.Tensor
    gate_up: torch.Tensor  # [2 * intermediate, hidden]
    down: torch.Tensor
    post_norm: torch.Tensor  # the RMSNorm after attention
    next_norm: torch.Tensor  # the next layer's input RMSNorm, or the final one
    eps: tuple[float, float]
    scaling: float


class FusedLlamaStep:
    """``step(tokens [rows, 1], mask [rows, L], position [rows, 1], cache, column [1])`` → the next logits [rows, V],
    writing the step's keys and values at ``column`` of every layer of the static ``cache``."""

    def __init__(self, model: PreTrainedModel, compiled: bool | None = None) -> None:
        if not supports(model):
            raise ValueError(f"{type(model).__name__} is not a Llama model without biases; use its own forward")
        inner, config = model.model, model.config
        self.model = model  # held, so a pool's id(model) key cannot come to name another model
        self.embed, self.rotary, self.head = inner.embed_tokens, inner.rotary_emb, model.get_output_embeddings()
        self.heads, self.kv_heads = config.num_attention_heads, config.num_key_value_heads
        self.dim = inner.layers[0].self_attn.head_dim
        self.first_norm = (inner.layers[0].input_layernorm.weight, inner.layers[0].input_layernorm.variance_epsilon)
        self.layers = []
        for i, layer in enumerate(inner.layers):
            attn, mlp = layer.self_attn, layer.mlp
            following = inner.layers[i + 1].input_layernorm if i + 1 < len(inner.layers) else inner.norm
            self.layers.append(_Layer(
                _concatenated(attn.q_proj, attn.k_proj, attn.v_proj),
                (attn.q_proj.weight.shape[0], attn.k_proj.weight.shape[0], attn.v_proj.weight.shape[0]),
                attn.o_proj.weight, _concatenated(mlp.gate_proj, mlp.up_proj), mlp.down_proj.weight,
                layer.post_attention_layernorm.weight, following.weight,
                (layer.post_attention_layernorm.variance_epsilon, following.variance_epsilon), attn.scaling))
        compiled = model.device.type == "cuda" if compiled is None else compiled
        wrap: Callable[[Callable], Callable] = (
            (lambda f: torch.compile(f, dynamic=True, fullgraph=True)) if compiled else (lambda f: f))
        self.norm, self.add_norm, self.rotate, self.silu_mul = (wrap(f) for f in (norm, add_norm, rotate, silu_mul))
        if compiled:
            self._compile_now(model)

    @torch.inference_mode()
    def _compile_now(self, model: PreTrainedModel) -> None:
        """One step of two rows over a small static cache, so the compile runs now: a machine that cannot compile
        says so here (:class:`CompileUnavailable`), before a CUDA graph is captured around the step. Two rows, in
        inference mode, as the decodes run: their compiled code is reused."""
        rows, device = 2, model.device
        cache = StaticCache(config=model.config, max_cache_len=4)
        empty = torch.zeros(rows, self.kv_heads, 0, self.dim, dtype=model.dtype, device=device)
        for layer in cache.layers:
            layer.lazy_initialization(empty, empty)
        long = {"dtype": torch.long, "device": device}
        try:
            self(torch.zeros(rows, 1, **long), torch.ones(rows, 4, **long), torch.zeros(rows, 1, **long), cache,
                 torch.zeros(1, **long))
        except (torch._dynamo.exc.TorchDynamoException, RuntimeError, OSError) as exc:
            cause = next((line for line in str(exc).splitlines() if line.strip()), type(exc).__name__)
            raise CompileUnavailable(f"torch.compile failed on this machine: {cause}") from exc

    def __call__(self, tokens: torch.Tensor, mask: torch.Tensor, position: torch.Tensor, cache: StaticCache,
                 column: torch.Tensor) -> torch.Tensor:
        rows = tokens.shape[0]
        hidden = self.embed(tokens)
        cos, sin = self.rotary(hidden, position_ids=position)
        attend = mask.bool()[:, None, None, :]
        x = self.norm(hidden, *self.first_norm)
        for layer, cached in zip(self.layers, cache.layers, strict=True):
            q, k, v = F.linear(x, layer.qkv).split(layer.split, dim=-1)
            q = q.reshape(rows, self.kv_heads, self.heads // self.kv_heads, self.dim)  # a kv head's queries as rows
            k = k.reshape(rows, 1, self.kv_heads, self.dim).transpose(1, 2)
            v = v.reshape(rows, 1, self.kv_heads, self.dim).transpose(1, 2)
            q, k = self.rotate(q, k, cos, sin)
            cached.keys.index_copy_(2, column, k)
            cached.values.index_copy_(2, column, v)
            out = F.scaled_dot_product_attention(q, cached.keys, cached.values, attn_mask=attend, scale=layer.scaling)
            hidden, x = self.add_norm(hidden, F.linear(out.reshape(rows, 1, -1), layer.o), layer.post_norm,
                                      layer.eps[0])
            hidden, x = self.add_norm(hidden, F.linear(self.silu_mul(F.linear(x, layer.gate_up)), layer.down),
                                      layer.next_norm, layer.eps[1])
        return F.linear(x[:, -1], self.head.weight)
