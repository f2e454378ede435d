"""Decode steps over a static KV cache, the shape CUDA graphs need (gpt-fast's approach).

The eager engine grows its KV cache, mask and positions by one column per step, so every step launches a few
hundred small kernels from Python: on a GPU that launch overhead, not the weights' bytes, sets the time per token.
A CUDA graph replays a whole step's kernels in one launch, but needs every buffer at a fixed address and shape.
:class:`StaticStep` copies the prefilled cache into a transformers ``StaticCache`` with room for the whole answer and
keeps the tokens, mask and positions in fixed buffers, so each step is the same kernels on the same buffers:

- ``"capture"``: the step captured once into a ``torch.cuda.CUDAGraph`` and replayed;
- ``"eager"``: the same static step without a graph, the reference the CPU tests hold equal to the dynamic cache.

Where the model allows it, the step's forward is :class:`~grounded_rag.fused_step.FusedLlamaStep` (the same function
in fewer, larger kernels) rather than transformers' forward.

A step may also carry a ``tail``: what a greedy decode does with the logits (the method's fusion, its post-fusion
steps, the argmax, the values the trace reads: :class:`~grounded_rag.engine.StepTail`), over per-row buffers of its
own, so the graph replays the whole step and Python only feeds the tokens and the copy trackers' masks in.

A :class:`GraphPool` keeps the steps across decodes, so a graph is captured once per batch size and cache-length
bucket and replayed by every later decode of that size. Rows of finished questions keep decoding (a graph's batch is
fixed); the engine reads only the live rows.
"""

from __future__ import annotations

import warnings
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any, Literal

import torch
from transformers import StaticCache
from transformers.cache_utils import StaticLayer

from .fused_step import CompileUnavailable, FusedLlamaStep, supports
from .prefill import DecodeState, _cache_kwarg

if TYPE_CHECKING:  # transformers' modeling (2 s, 120 MB to import) is not needed on llama.cpp
    from transformers import PreTrainedModel

GraphMode = Literal["eager", "capture"]
GRAPH_MODES: tuple[str, ...] = ("eager", "capture")


def static_ok(model: PreTrainedModel) -> bool:
    """A static step needs plain full-attention layers: a sliding window (Gemma 3) keeps the dynamic cache."""
    return all(type(layer) is StaticLayer for layer in StaticCache(config=model.config, max_cache_len=1).layers)


class StaticStep:
    """One decode step for a fixed number of rows and cache length, over buffers that never move; each decode
    :meth:`load` puts its prefilled state into them, so a captured graph serves every decode of its size."""

    @torch.inference_mode()
    def __init__(self, model: PreTrainedModel, state: DecodeState, length: int, mode: GraphMode,
                 tail: Callable[[torch.Tensor], Any] | None = None, run: Callable[..., Any] | None = None,
                 fused: FusedLlamaStep | None = None) -> None:
        if mode not in GRAPH_MODES:
            raise ValueError(f"unknown graph mode {mode!r}; choose one of {GRAPH_MODES}")
        if state.cache is None or not static_ok(model):
            raise ValueError("a static decode step needs a KV cache of full-attention layers")
        rows = state.attention_mask.shape[0]
        self.model, self.length, self.capacity = model, 0, length
        self.run = model if run is None else run  # the forward: the model, or its torch.compile'd form
        self.fused = fused  # or this forward, which writes the cache at ``column``
        self.cache = StaticCache(config=model.config, max_cache_len=length)
        for layer, source in zip(self.cache.layers, state.cache.layers, strict=True):
            layer.lazy_initialization(source.keys, source.values)
        device = state.attention_mask.device
        self.mask = torch.zeros(rows, length, dtype=torch.long, device=device)
        self.position = torch.zeros(rows, 1, dtype=torch.long, device=device)
        self.tokens = torch.zeros(rows, 1, dtype=torch.long, device=device)
        self.column = torch.zeros(1, dtype=torch.long, device=device)  # where this step writes the cache
        self.tail = tail
        self.outputs: Any = None  # the captured step's output: the logits, or what the tail returns
        self.graph: torch.cuda.CUDAGraph | None = None
        self.busy = False  # a decode holds it (two interleaved decodes of one size must not share buffers)
        self.load(state)
        if mode == "capture":
            self._capture()

    @torch.inference_mode()
    def load(self, state: DecodeState) -> StaticStep:
        """Take a prefilled state: its cache, mask and next positions into the fixed buffers."""
        rows, width = state.attention_mask.shape
        if rows != self.tokens.shape[0] or width >= self.capacity:
            raise ValueError(f"a step for {self.tokens.shape[0]} rows of {self.capacity} tokens cannot take "
                             f"{rows} rows of {width}")
        for layer, source in zip(self.cache.layers, state.cache.layers, strict=True):
            layer.keys[:, :, :width].copy_(source.keys)
            layer.values[:, :, :width].copy_(source.values)
        self.length = width
        self._rewind()
        self.mask.zero_()
        self.mask[:, :width] = state.attention_mask
        self.position.copy_((state.position_ids.max(dim=1).values + 1).unsqueeze(1))
        return self

    def _forward(self) -> Any:
        if self.fused is not None:
            logits = self.fused(self.tokens, self.mask, self.position, self.cache, self.column)
        else:
            out = self.run(input_ids=self.tokens, attention_mask=self.mask, position_ids=self.position,
                           use_cache=True, logits_to_keep=1, **{_cache_kwarg(type(self.model)): self.cache})
            logits = out.logits[:, -1, :]
        return logits if self.tail is None else self.tail(logits)

    def _capture(self) -> None:
        """Warm up on a side stream (cuBLAS handles, lazy buffers), undo the warm-up's cache write, capture."""
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            self._forward()
        torch.cuda.current_stream().wait_stream(stream)
        self._rewind()
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph):
            self.outputs = self._forward()
        self._rewind()  # capturing records the step's kernels without running them; be safe all the same

    def _rewind(self) -> None:
        for layer in self.cache.layers:
            layer.cumulative_length.fill_(self.length)
        self.column.fill_(self.length)

    @torch.inference_mode()
    def __call__(self, tokens: torch.Tensor) -> Any:
        """Append ``tokens`` ([rows]) and return the next logits [rows, V] (a fresh tensor: the graph's own output
        buffer is overwritten by the next step), or with a tail, what it returns (the graph's own buffers: the
        caller copies what it keeps)."""
        if self.length >= self.capacity:
            raise ValueError(f"the static step holds {self.capacity} tokens; the decode ran past them")
        self.tokens.copy_(tokens.unsqueeze(1))
        self.mask[:, self.length] = 1
        if self.fused is not None:  # transformers' forward keeps its own write position
            self.column.fill_(self.length)
        if self.graph is not None:
            self.graph.replay()
            out = self.outputs
        else:
            out = self._forward()
        self.length += 1
        self.position.add_(1)
        return out.clone() if self.tail is None else out


class GraphPool:
    """Static steps kept across decodes, one per (rows, cache length rounded up to ``bucket``): a graph is captured
    the first time a size is decoded and replayed by every later decode of that size. The ``keep`` most recently
    used sizes stay (each holds a KV cache of its size). A step is lent to one decode at a time: the decode sets
    ``busy = False`` when it ends."""

    def __init__(self, mode: GraphMode = "capture", bucket: int = 256, keep: int = 4, fuse: bool = True,
                 compiled: bool = False, fused_forward: bool = True, compile_fused: bool | None = None) -> None:
        if mode not in GRAPH_MODES:
            raise ValueError(f"unknown graph mode {mode!r}; choose one of {GRAPH_MODES}")
        self.mode, self.bucket, self.keep = mode, bucket, keep
        self.fuse = fuse  # a greedy step's fusion inside the step (False: the forward alone, for comparison)
        # the step's forward through torch.compile (one compile per model, every size: dynamic shapes), which fuses
        # the layers' elementwise kernels; the graph then replays fewer, larger kernels
        self.compiled = compiled
        # Llama models' forward in fewer kernels (FusedLlamaStep); False: transformers' forward, for comparison
        self.fused_forward = fused_forward and not compiled
        self.compile_fused = compile_fused  # the fused step's functions through torch.compile (None: on a GPU)
        self.runs: dict[int, Callable[..., Any]] = {}
        self.forwards: dict[int, FusedLlamaStep] = {}
        self.steps: OrderedDict[tuple[int, int, int, Hashable], StaticStep] = OrderedDict()

    def step(self, model: PreTrainedModel, state: DecodeState, new_tokens: int,
             tail: Callable[[], Callable[[torch.Tensor], Any]] | None = None, tail_key: Hashable = None) -> StaticStep:
        """A step for ``state``'s size, loaded with it; ``tail`` makes the tail a new step captures (steps with tails
        of different ``tail_key`` are different steps: a graph bakes its method and settings in)."""
        rows, width = state.attention_mask.shape
        length = -(-(width + new_tokens) // self.bucket) * self.bucket
        key = (id(model), rows, length, tail_key if tail is not None else None)
        if key in self.steps and self.steps[key].busy:  # another decode of this size is still running
            return StaticStep(model, state, length, self.mode, tail() if tail is not None else None, self._run(model),
                              self._fused(model))
        if key in self.steps:
            self.steps.move_to_end(key)
            step = self.steps[key].load(state)
        else:
            while len(self.steps) >= self.keep:
                self.steps.popitem(last=False)
            step = self.steps[key] = StaticStep(model, state, length, self.mode, tail() if tail is not None else None,
                                                self._run(model), self._fused(model))
        step.busy = True  # until the decode releases it
        return step

    def _fused(self, model: PreTrainedModel) -> FusedLlamaStep | None:
        if not (self.fused_forward and supports(model)):
            return None
        if id(model) not in self.forwards:
            try:
                self.forwards[id(model)] = FusedLlamaStep(model, self.compile_fused)
            except CompileUnavailable as exc:  # a slim image without a C compiler still serves, a little slower
                self.fused_forward = False
                warnings.warn(f"{exc}; decoding with transformers' forward in the CUDA graphs instead of the fused "
                              "step (slower per token). Install a C compiler (and Triton) for the fused step, or pass "
                              "GraphPool(fused_forward=False) to skip it.", RuntimeWarning, stacklevel=2)
                return None
        return self.forwards[id(model)]

    def _run(self, model: PreTrainedModel) -> Callable[..., Any] | None:
        if not self.compiled:
            return None
        if id(model) not in self.runs:
            self.runs[id(model)] = torch.compile(model, dynamic=True)
        return self.runs[id(model)]
