"""``grounded-rag bench --shape``: the engine's speed at a named architecture's size, on random weights.

The packaged models are too small to show what a GPU does with a real model; their weights are not needed to time
one. This builds the shape (:mod:`grounded_rag.shapes`) with random weights on the device, pairs it with the packaged
tokenizer, and measures in one run: standard, the paper's method and the default at batch 1 (prefill ms and decode
ms per token, for each decode mode asked: the eager engine and the static-cache steps of :mod:`grounded_rag.graphs`),
the default's tokens/s at larger batches, and Hugging Face ``generate`` on the same prompt as the outside baseline.
Every decode runs to its full length; decode figures are per step after the first (a graph is captured in the first).
"""

from __future__ import annotations

import platform
import statistics
import time
from typing import Any

import torch
import transformers
from transformers import AutoTokenizer

from .bench import QUESTION, bench_documents, prepared
from .config import DecodingConfig
from .menu import DEFAULT_METHOD
from .decoder import GroundedDecoder
from .engine import RowInputs, decode
from .graphs import GraphPool, static_ok
from .methods import get_method
from .models import default_device, default_dtype, resolve_model
from .shapes import random_model
from .spans import CopyState, document_tokens

FORWARD_ONLY = "_forward"  # a decode mode's suffix: the step holds the forward alone, the fusion runs after it
TRANSFORMERS = "_transformers"  # a decode mode's suffix: transformers' forward, not the fused Llama step
COMPILED = "compile"  # the captured step with its forward through torch.compile


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


def decode_times(decoder: GroundedDecoder, prompts, method_name: str, new_tokens: int, trust,
                 passages=(), graphs: GraphPool | None = None, tree: bool | None = None) -> tuple[float, float, float]:
    """(prefill ms, first step ms, ms per later step) of one decode that never stops early (the default's copy
    trackers are built before the clock starts: this times the engine)."""
    method = get_method(method_name)
    config = DecodingConfig(method=method_name, max_new_tokens=new_tokens)
    device = decoder.model.device
    copies = [CopyState.build(decoder.tokenizer, passages) for _ in trust] if "copies" in method.needs else None
    tokens = [document_tokens(decoder.tokenizer, passages)] * len(trust) if "document_tokens" in method.needs else None
    inputs = RowInputs(trust=trust, document_tokens=tokens, copies=copies)
    marks = []
    _sync(device)
    start = time.perf_counter()
    for _ in decode(decoder.model, method, prompts, inputs, config, decoder.pad_id, end_ids=decoder.eos_ids,
                    graphs=graphs, tree=tree, ragged=False if tree is not None else None):
        _sync(device)
        marks.append(time.perf_counter())
    later = (marks[-1] - marks[1]) / max(len(marks) - 2, 1) if len(marks) > 2 else marks[-1] - marks[0]
    return (marks[0] - start) * 1000, (marks[1] - marks[0]) * 1000 if len(marks) > 1 else 0.0, later * 1000


def _capture_ms(decoder: GroundedDecoder, pool: GraphPool, new_tokens: int) -> float:
    """What a size's first decode adds over a later one (the step's buffers and graph), for standard at batch 1."""
    prompts, trust = _batch(decoder, "standard", 1)
    decode_times(decoder, prompts, "standard", new_tokens, trust, graphs=None)  # kernels warm
    first = decode_times(decoder, prompts, "standard", new_tokens, trust, graphs=pool)
    later = decode_times(decoder, prompts, "standard", new_tokens, trust, graphs=pool)
    return (first[0] + first[1]) - (later[0] + later[1])


def _batch(decoder: GroundedDecoder, method: str, size: int) -> tuple[list[list[int]], list[float]]:
    """``size`` questions over rotated passages (prompts of one length, different content), every stream's prompt."""
    docs = bench_documents()
    prompts, trust = [], []
    for i in range(size):
        rotated = docs[i % len(docs):] + docs[: i % len(docs)]
        ids, tr = prepared(decoder, method, "documents_first", QUESTION, rotated)
        prompts += ids
        trust.append(tr)
    return prompts, trust


def _passages() -> list[str]:
    return [t for d in bench_documents() for t in (d["text"], d.get("title")) if t]


def method_times(decoder: GroundedDecoder, new_tokens: int, repeats: int, graphs: GraphPool | None) -> dict[str, Any]:
    """Medians of prefill and decode per method at batch 1, interleaved repeat by repeat."""
    methods = {"standard": "standard", "grounded": "grounded", "default": DEFAULT_METHOD}
    batches = {k: _batch(decoder, m, 1) for k, m in methods.items()}
    runs: dict[str, list[tuple[float, float, float]]] = {k: [] for k in methods}
    for k, m in methods.items():  # warm-up: kernels, allocator, each size's graph captured
        decode_times(decoder, batches[k][0], m, new_tokens, batches[k][1], _passages(), graphs)
    for _ in range(repeats):
        for k, m in methods.items():
            runs[k].append(decode_times(decoder, batches[k][0], m, new_tokens, batches[k][1], _passages(), graphs))
    out: dict[str, Any] = {}
    for k, values in runs.items():
        out[f"{k}_prefill_ms"] = round(statistics.median(v[0] for v in values), 2)
        out[f"{k}_first_step_ms"] = round(statistics.median(v[1] for v in values), 2)
        out[f"{k}_decode_ms_per_token"] = round(statistics.median(v[2] for v in values), 3)
    for k in ("grounded", "default"):
        out[f"{k}_decode_over_standard"] = round(out[f"{k}_decode_ms_per_token"] / out["standard_decode_ms_per_token"], 3)
        out[f"{k}_prefill_over_standard"] = round(out[f"{k}_prefill_ms"] / out["standard_prefill_ms"], 3)
    return out


def prefill_times(decoder: GroundedDecoder, repeats: int) -> dict[str, Any]:
    """Prefill ms per method at batch 1, the padded passes against the one-pass tree (:mod:`grounded_rag.prefill`)."""
    methods = {"standard": "standard", "grounded": "grounded", "default": DEFAULT_METHOD}
    batches = {k: _batch(decoder, m, 1) for k, m in methods.items()}
    runs: dict[str, list[float]] = {}
    for r in range(repeats + 1):  # the first round warms up
        for k, m in methods.items():
            for tree in (False, True):
                ms = decode_times(decoder, batches[k][0], m, 2, batches[k][1], _passages(), tree=tree)[0]
                if r:
                    runs.setdefault(f"{k}_{'tree' if tree else 'padded'}", []).append(ms)
    out = {f"{k}_prefill_ms": round(statistics.median(v), 2) for k, v in runs.items()}
    for k in ("grounded", "default"):
        for how in ("padded", "tree"):
            out[f"{k}_{how}_over_standard"] = round(out[f"{k}_{how}_prefill_ms"] / out["standard_tree_prefill_ms"], 3)
    return out


def batch_scaling(decoder: GroundedDecoder, sizes, new_tokens: int, graphs: GraphPool | None) -> dict[str, Any]:
    """The default's decode tokens/s (all questions' tokens over the decode steps' time) at each batch size."""
    out: dict[str, Any] = {}
    for size in sizes:
        prompts, trust = _batch(decoder, DEFAULT_METHOD, size)
        decode_times(decoder, prompts, DEFAULT_METHOD, new_tokens, trust, _passages(), graphs)  # warm-up, capture
        prefill_ms, _, step_ms = decode_times(decoder, prompts, DEFAULT_METHOD, new_tokens, trust, _passages(), graphs)
        out[f"batch{size}_decode_tokens_per_s"] = round(size * 1000 / step_ms, 1)
        out[f"batch{size}_prefill_ms"] = round(prefill_ms, 1)
    first, last = sizes[0], sizes[-1]
    out[f"batch{last}_over_batch{first}"] = round(
        out[f"batch{last}_decode_tokens_per_s"] / out[f"batch{first}_decode_tokens_per_s"], 2)
    return out


@torch.inference_mode()
def hf_generate_ms(decoder: GroundedDecoder, prompt: list[int], new_tokens: int, repeats: int) -> float:
    """Hugging Face ``generate`` (greedy, its default cache) on the same prompt: ms per token after the first, the
    median gap between its steps inside one call (the difference of two calls' times, on a shared CPU, could be
    noise, even below zero), the fastest of ``repeats`` calls."""
    ids = torch.tensor([prompt], device=decoder.model.device)
    settings = {"do_sample": False, "pad_token_id": decoder.pad_id, "eos_token_id": None}

    def run() -> float:
        stamps: list[float] = []

        def stamp(_input_ids: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:  # called once per step
            _sync(ids.device)
            stamps.append(time.perf_counter())
            return scores

        decoder.model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=new_tokens,
                               min_new_tokens=new_tokens, logits_processor=[stamp], **settings)
        gaps = sorted(b - a for a, b in zip(stamps, stamps[1:]))
        return gaps[len(gaps) // 2]

    run()
    return min(run() for _ in range(repeats)) * 1000


def _pool(mode: str) -> GraphPool:
    """A decode mode's pool: ``eager``/``capture``, then ``_transformers`` and/or ``_forward``; or ``compile``."""
    base = mode.removesuffix(FORWARD_ONLY).removesuffix(TRANSFORMERS)
    return GraphPool("capture" if mode == COMPILED else base, fuse=not mode.endswith(FORWARD_ONLY),  # type: ignore[arg-type]
                     compiled=mode == COMPILED, fused_forward=TRANSFORMERS not in mode)


def shape_benchmark(shape: str, new_tokens: int = 32, repeats: int = 3, batches=(1, 8, 32),
                    graphs: tuple[str | None, ...] = (None,), device: str | None = None,
                    tokenizer: str | None = None) -> dict[str, Any]:
    """The figures above for one shape; ``graphs``: the decode modes to time (None: the eager engine)."""
    device_ = torch.device(device) if device else default_device()
    tok = AutoTokenizer.from_pretrained(resolve_model(tokenizer)[0])
    model = random_model(shape, device_, default_dtype(device_))
    decoder = GroundedDecoder(model, tok, name=f"{shape} (random weights)")
    report: dict[str, Any] = {
        "shape": shape, "device": str(device_), "dtype": str(model.dtype),
        "card": torch.cuda.get_device_name(device_) if device_.type == "cuda" else platform.processor() or "cpu",
        "torch": torch.__version__, "transformers": transformers.__version__,
        "parameters_m": round(sum(p.numel() for p in model.parameters()) / 1e6, 1),
        "prompt_tokens": len(_batch(decoder, "standard", 1)[0][0]), "new_tokens": new_tokens,
    }
    for mode in graphs:
        name = mode or "dynamic"
        if mode is not None and not static_ok(model):
            report[name] = "not available: the shape has sliding-window layers"
            continue
        try:
            pool = None if mode is None else _pool(mode)
            capture = _capture_ms(decoder, pool, new_tokens) if pool is not None else None
            report[name] = method_times(decoder, new_tokens, repeats, pool)
            report[name].update(batch_scaling(decoder, batches, new_tokens, pool))
            if capture is not None:
                report[name]["first_decode_extra_ms"] = round(capture, 1)
        except (RuntimeError, ValueError) as exc:  # a mode that fails on this machine is reported, not fatal
            report[name] = {"error": f"{type(exc).__name__}: {exc}"[:2000]}
    report["prefill"] = prefill_times(decoder, repeats)
    report["hf_generate_decode_ms_per_token"] = round(
        hf_generate_ms(decoder, _batch(decoder, "standard", 1)[0][0], new_tokens, repeats), 3)
    return report
