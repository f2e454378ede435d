"""``grounded-rag bench --backend llama_cpp``: the engine on llama.cpp against llama.cpp's own generation, one run.

llama-cpp-python's high-level ``Llama`` (its ``generate``, greedy) decodes the same prompt from the same GGUF file
with the same threads and compute-pass size, interleaved repeat by repeat with ours: standard decoding and the
default method (three streams). Every speed figure is a ratio measured in this run; the absolute figures sit beside
them. ``ask_*`` times a whole ``grounded-rag ask --store`` process over the cookbook's handbook, with its peak
memory against the GGUF file and the KV cache its answer's context holds.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .backends.llama_cpp import N_UBATCH, LlamaCppLM, ll
from .bench import QUESTION, _attribution_figures, _relevance_ms, bench_documents, prepared, timed_decode
from .config import DecodingConfig

HANDBOOK = Path(__file__).resolve().parents[1] / "cookbook" / "data" / "handbook"
HANDBOOK_QUESTION = "Who is the lead of Project Halcyon?"


def own_generation(llm: Any, prompt: Sequence[int], new_tokens: int) -> tuple[float, float, list[int]]:
    """llama-cpp-python's own greedy generation: (prefill ms, ms per later token, tokens). Its KV cache is reset
    first, so the prompt is prefilled every time."""
    llm.reset()
    tokens: list[int] = []
    start = time.perf_counter()
    marks = []
    for token in llm.generate(list(prompt), temp=0.0, top_k=1, top_p=1.0, min_p=0.0, repeat_penalty=1.0):
        marks.append(time.perf_counter())
        tokens.append(int(token))
        if len(tokens) == new_tokens:
            break
    return (marks[0] - start) * 1000, (marks[-1] - marks[0]) * 1000 / max(len(marks) - 1, 1), tokens


def reference_llama(lm: LlamaCppLM, context: int) -> Any:
    """llama-cpp-python's ``Llama`` on the same file, threads and compute-pass size; flash attention off, as ``Llama``
    has it by default and as our contexts run (:class:`~grounded_rag.backends.llama_cpp.Context`)."""
    from llama_cpp import Llama

    return Llama(model_path=str(lm.path), n_ctx=context, n_batch=N_UBATCH, n_ubatch=N_UBATCH, n_threads=lm.threads,
                 n_threads_batch=lm.threads, flash_attn=False, verbose=False)


def kv_bytes_per_cell(lm: LlamaCppLM) -> int:
    """Bytes one KV cell takes (f16 keys and values of every layer), from the GGUF's metadata."""
    def meta(key: str) -> int | None:
        buffer = ctypes_buffer()
        n = ll.llama_model_meta_val_str(lm._model, key.encode(), buffer, len(buffer))
        return int(buffer.value) if n > 0 and buffer.value.isdigit() else None

    arch_buffer = ctypes_buffer()
    ll.llama_model_meta_val_str(lm._model, b"general.architecture", arch_buffer, len(arch_buffer))
    arch = arch_buffer.value.decode()
    heads, kv_heads = ll.llama_model_n_head(lm._model), ll.llama_model_n_head_kv(lm._model)
    key_length = meta(f"{arch}.attention.key_length") or ll.llama_model_n_embd(lm._model) // heads
    value_length = meta(f"{arch}.attention.value_length") or key_length
    return 2 * ll.llama_model_n_layer(lm._model) * kv_heads * (key_length + value_length)


def ctypes_buffer():
    import ctypes

    return ctypes.create_string_buffer(128)


def _medians(runs: dict[str, list[tuple[float, float]]]) -> dict[str, tuple[float, float]]:
    return {k: (statistics.median(p for p, _ in v), statistics.median(d for _, d in v)) for k, v in runs.items()}


def _speeds(decoder, llm, docs, new_tokens: int, repeats: int) -> tuple[dict[str, tuple[float, float]], bool, int]:
    """Interleaved medians of (prefill ms, ms per token): llama.cpp's own, ours standard, ours the default; and
    whether our standard tokens equal llama.cpp's own greedy ones."""
    default = DecodingConfig().method
    std, _ = prepared(decoder, "standard", "documents_first", QUESTION, docs)
    ours_default, trust = prepared(decoder, default, "documents_first", QUESTION, docs)
    texts = [t for d in docs for t in (d["text"], d.get("title")) if t]
    runs: dict[str, list[tuple[float, float]]] = {"llama_cpp": [], "standard": [], "default": []}
    own_generation(llm, std[0], 4)  # warm-up
    timed_decode(decoder, std, "standard", 4, [1.0])
    timed_decode(decoder, ours_default, default, 4, [trust], texts)
    theirs: list[int] = []
    for _ in range(repeats):
        prefill_ms, step_ms, theirs = own_generation(llm, std[0], new_tokens)
        runs["llama_cpp"].append((prefill_ms, step_ms))
        runs["standard"].append(timed_decode(decoder, std, "standard", new_tokens, [1.0]))
        runs["default"].append(timed_decode(decoder, ours_default, default, new_tokens, [trust], texts))
    return _medians(runs), theirs == standard_tokens(decoder, std, new_tokens), len(std[0])


def standard_tokens(decoder, prompts: Sequence[Sequence[int]], new_tokens: int) -> list[int]:
    """Our engine's greedy standard decoding of one prompt, never stopping early."""
    from .engine import RowInputs, decode
    from .methods import get_method

    config = DecodingConfig(method="standard", max_new_tokens=new_tokens)
    steps = decode(decoder.model, get_method("standard"), prompts, RowInputs(trust=[1.0]), config, decoder.pad_id)
    return [int(step.tokens[0]) for step in steps]


def _batches(decoder, docs, new_tokens: int, rounds: int) -> dict[str, float]:
    """The default method on 8 questions (rotated passages) in one decode against one: tokens/s end to end and in
    the decode steps alone."""
    default = DecodingConfig().method
    texts = [t for d in docs for t in (d["text"], d.get("title")) if t]
    batch = [prepared(decoder, default, "documents_first", QUESTION, docs[i % len(docs):] + docs[: i % len(docs)])
             for i in range(8)]
    one, eight, one_step, eight_step = [], [], [], []
    for _ in range(rounds):
        start = time.perf_counter()
        one_step.append(timed_decode(decoder, batch[0][0], default, new_tokens, [batch[0][1]], texts)[1])
        one.append(time.perf_counter() - start)
        start = time.perf_counter()
        eight_step.append(timed_decode(decoder, [ids for p, _ in batch for ids in p], default, new_tokens,
                                       [t for _, t in batch], texts)[1])
        eight.append(time.perf_counter() - start)
    single, batched = new_tokens / statistics.median(one), 8 * new_tokens / statistics.median(eight)
    return {"default_single_tokens_per_s": round(single, 1), "default_batch8_tokens_per_s": round(batched, 1),
            "batch8_speedup": round(batched / single, 2),
            "batch8_decode_speedup": round(8 * statistics.median(one_step) / statistics.median(eight_step), 2)}


# Runs argv, waits for it, prints its seconds and peak resident KB. The peak must be read by a small parent: a child
# spawned from this process (which holds a model) takes this process's peak as its own when it execs (Linux keeps the
# larger of the old and new address space's high-water marks), so its ru_maxrss here would be ours, not the ask's.
_TIMED_CHILD = """
import os, subprocess, sys, tempfile, time
with tempfile.TemporaryFile() as err:
    start = time.perf_counter()
    child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=err)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status):
        err.seek(0)
        sys.exit(err.read().decode(errors="replace")[-500:] or os.waitstatus_to_exitcode(status))
print(seconds, usage.ru_maxrss)
"""


def ask_figures(decoder, model: str | None = None) -> dict[str, Any]:
    """A whole ``grounded-rag ask --store`` process on llama.cpp over the cookbook's handbook (ingested first, not
    timed; asked once before, which makes the tokenizer's cache): its seconds and peak resident memory, and the
    bound the peak is held to: the GGUF file, the KV cache of the context the same answer takes here, and 400 MB."""
    from .retrieval import ChromaStore

    cli = [sys.executable, "-m", "grounded_rag.cli"]
    model_args = ["--model", model] if model else []
    with tempfile.TemporaryDirectory() as tmp:
        store = str(Path(tmp) / "store")
        subprocess.run([*cli, "ingest", str(HANDBOOK), "--store", store], capture_output=True, check=True)
        ask = [*cli, "ask", HANDBOOK_QUESTION, "--store", store, "--local", "--no-sources", "--backend", "llama_cpp",
               *model_args]
        subprocess.run(ask, capture_output=True, check=True)
        measured = subprocess.run([sys.executable, "-c", _TIMED_CHILD, *ask], capture_output=True, text=True)
        if measured.returncode != 0:
            raise RuntimeError(f"grounded-rag ask exited with {measured.returncode}: {measured.stderr[-500:]}")
        seconds, peak_kb = (float(v) for v in measured.stdout.split())
        hits = ChromaStore.open(store).search(HANDBOOK_QUESTION, k=3)
    lm: LlamaCppLM = decoder.model
    for ctx in list(lm._idle):  # only the answer's own context counts
        ctx.close()
    lm._idle.clear()
    decoder.generate(HANDBOOK_QUESTION, [h.document for h in hits])
    cells = max((c.cells for c in lm._idle), default=0)
    budget = (lm.path.stat().st_size + cells * kv_bytes_per_cell(lm)) / 2**20 + 400
    peak = peak_kb / 1024
    return {"ask_process_s": round(seconds, 2), "ask_peak_mb": round(peak, 1), "ask_kv_cells": cells,
            "ask_peak_budget_mb": round(budget, 1), "ask_peak_within_budget": peak <= budget}


def run_llama_benchmark(decoder, model: str | None, new_tokens: int = 32, repeats: int = 5) -> dict[str, Any]:
    lm: LlamaCppLM = decoder.model
    docs = bench_documents()
    llm = reference_llama(lm, 4096)
    med, equal, prompt_tokens = _speeds(decoder, llm, docs, new_tokens, repeats)
    del llm
    own, std, default = med["llama_cpp"], med["standard"], med["default"]
    rounds = max(2, repeats // 2)
    report: dict[str, Any] = {
        "model": decoder.name, "backend": "llama_cpp", "gguf": lm.path.name, "gguf_mb": round(lm.path.stat().st_size / 2**20, 1),
        "llama_cpp_python": __import__("llama_cpp").__version__, "threads": lm.threads,
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "prompt_tokens": prompt_tokens, "new_tokens": new_tokens, "repeats": repeats,
        "standard_over_llama_cpp_decode": round(std[1] / own[1], 3),
        "standard_over_llama_cpp_prefill": round(std[0] / own[0], 3),
        "default_method": DecodingConfig().method,
        "default_decode_ratio": round(default[1] / std[1], 3),
        "default_prefill_ratio": round(default[0] / std[0], 3),
        "standard_tokens_equal_llama_cpp": equal,
        "llama_cpp_decode_ms_per_token": round(own[1], 2), "llama_cpp_prefill_ms": round(own[0], 1),
        "standard_decode_ms_per_token": round(std[1], 2), "standard_prefill_ms": round(std[0], 1),
        "default_decode_ms_per_token": round(default[1], 2), "default_prefill_ms": round(default[0], 1),
        **_batches(decoder, docs, new_tokens, rounds),
        "relevance_filter_ms": round(statistics.median(_relevance_ms(decoder, docs) for _ in range(rounds)), 1),
        **_attribution_figures(decoder, docs, new_tokens, rounds),
    }
    report.update(ask_figures(decoder, model))
    return report
