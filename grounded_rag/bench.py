"""``grounded-rag bench``: standard vs adaptive grounded decoding, measured in one run.

Both methods decode the same ~700-token prompt, interleaved repeat by repeat so machine noise
hits both alike; figures are medians and every speed figure is reported as a ratio against the
standard-decoding baseline of the same run. Peak memory is measured in a fresh subprocess per
method (the process's max RSS) so one method's allocations cannot hide in the other's.
``batch8_speedup`` is end to end (prefill included: compute-bound on a CPU, so it scales ~linearly
with the batch); ``batch8_decode_speedup`` is the decode phase alone. ``mixed_batch8_prefill_padded_over_ragged``
compares the two prefill paths on 8 prompts of different lengths (1-5 documents).
"""

from __future__ import annotations

import json
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from importlib import resources
from typing import Any

import torch

from .config import DecodingConfig
from .decoder import GroundedDecoder
from .engine import decode, prefill
from .fusion import log_probs
from .methods import get_method
from .taps import build_datastore

QUESTION = "Who designed the metal framework of the Statue of Liberty, and what else did he build?"


def bench_documents() -> list[dict[str, str]]:
    return json.loads(resources.files("grounded_rag.data").joinpath("bench_documents.json").read_text())


def timed_decode(
    decoder: GroundedDecoder, prompts, method_name: str, new_tokens: int, trust, passages: Sequence[str] = ()
) -> tuple[float, float]:
    """(prefill ms, decode ms/step) for one run that never stops early.

    kNN-LM's datastore is built from ``passages`` inside the timed prefill: it is part of its cost.
    """
    method = get_method(method_name)
    config = DecodingConfig(method=method_name, max_new_tokens=new_tokens)
    start = time.perf_counter()
    marks = []
    stores = [build_datastore(decoder.model, decoder.tokenizer, passages)] if method.signal == "datastore" else None
    for _ in decode(decoder.model, method, prompts, trust, config, decoder.pad_id, datastores=stores):
        marks.append(time.perf_counter())
    prefill_ms = (marks[0] - start) * 1000
    decode_ms = (marks[-1] - marks[0]) * 1000 / max(len(marks) - 1, 1)
    return prefill_ms, decode_ms


def prepared(decoder: GroundedDecoder, method_name: str, template: str, question: str, docs, **settings):
    method = get_method(method_name)
    cfg = DecodingConfig(method=method_name, template=template, **settings)
    req = decoder.prepare(question, docs, None, cfg, method)
    return req.token_ids, req.trust


def _fusion_ms(decoder: GroundedDecoder, prompts, reps: int = 200) -> float:
    method = get_method("grounded")
    logits, _ = prefill(decoder.model, prompts, 2, decoder.pad_id)
    config = DecodingConfig()
    trust = torch.ones(1, device=decoder.model.device)
    logp = log_probs(logits).view(1, 2, -1)
    method.fuse(logp[:, 0], logp[:, 1], trust, config)
    start = time.perf_counter()
    for _ in range(reps):
        lp = log_probs(logits).view(1, 2, -1)
        method.fuse(lp[:, 0], lp[:, 1], trust, config)
    return (time.perf_counter() - start) * 1000 / reps


def _mixed_prefill_ms(decoder: GroundedDecoder, docs, ragged: bool) -> float:
    """Prefill of 8 grounded questions with 1..5 documents each (prompts of different lengths)."""
    batch = [prepared(decoder, "grounded", "documents_first", QUESTION, docs[: 1 + i % len(docs)]) for i in range(8)]
    start = time.perf_counter()
    prefill(decoder.model, [ids for p, _ in batch for ids in p], 2, decoder.pad_id, ragged=ragged)
    return (time.perf_counter() - start) * 1000


def peak_memory_mb(model: str | None, method: str, new_tokens: int) -> float:
    code = (
        "import json,resource,sys,torch\n"
        "from grounded_rag import GroundedDecoder\n"
        "from grounded_rag.bench import bench_documents, QUESTION\n"
        f"d=GroundedDecoder.from_pretrained({model!r})\n"
        f"d.generate(QUESTION, bench_documents(), method={method!r}, max_new_tokens={new_tokens})\n"
        "print(json.dumps(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss/1024))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def run_benchmark(model: str | None = None, new_tokens: int = 32, repeats: int = 5) -> dict[str, Any]:
    decoder = GroundedDecoder.from_pretrained(model)
    docs = bench_documents()
    std_prompts, _ = prepared(decoder, "standard", "documents_first", QUESTION, docs)
    gd_prompts, trust = prepared(decoder, "grounded", "documents_first", QUESTION, docs)
    gd_paper_prompts, _ = prepared(decoder, "grounded", "paper", QUESTION, docs)

    runs: dict[str, list[tuple[float, float]]] = {"standard": [], "grounded": [], "grounded_paper": []}
    timed_decode(decoder, std_prompts, "standard", 4, [1.0])  # warm-up
    timed_decode(decoder, gd_prompts, "grounded", 4, [trust])
    for _ in range(repeats):
        runs["standard"].append(timed_decode(decoder, std_prompts, "standard", new_tokens, [1.0]))
        runs["grounded"].append(timed_decode(decoder, gd_prompts, "grounded", new_tokens, [trust]))
        runs["grounded_paper"].append(timed_decode(decoder, gd_paper_prompts, "grounded", new_tokens, [trust]))
    med = {k: (statistics.median(p for p, _ in v), statistics.median(d for _, d in v)) for k, v in runs.items()}

    # Batch throughput: 8 different questions (rotated documents) in one batched decode vs one.
    batch = []
    for i in range(8):
        rotated = docs[i % len(docs):] + docs[: i % len(docs)]
        batch.append(prepared(decoder, "grounded", "documents_first", QUESTION, rotated))
    single_times, batch_times, single_step, batch_step = [], [], [], []
    for _ in range(max(2, repeats // 2)):
        t = time.perf_counter()
        single_step.append(timed_decode(decoder, batch[0][0], "grounded", new_tokens, [batch[0][1]])[1])
        single_times.append(time.perf_counter() - t)
        t = time.perf_counter()
        batch_step.append(timed_decode(decoder, [ids for p, _ in batch for ids in p], "grounded", new_tokens,
                                        [tr for _, tr in batch])[1])
        batch_times.append(time.perf_counter() - t)
    single_tps = new_tokens / statistics.median(single_times)
    batch_tps = 8 * new_tokens / statistics.median(batch_times)
    decode_speedup = 8 * statistics.median(single_step) / statistics.median(batch_step)

    padded_ms, ragged_ms = [], []
    for _ in range(max(2, repeats // 2)):
        padded_ms.append(_mixed_prefill_ms(decoder, docs, ragged=False))
        ragged_ms.append(_mixed_prefill_ms(decoder, docs, ragged=True))

    mem_std = peak_memory_mb(model, "standard", new_tokens)
    mem_gd = peak_memory_mb(model, "grounded", new_tokens)
    return {
        "model": decoder.name,
        "device": str(decoder.model.device),
        "dtype": str(decoder.model.dtype),
        "machine": f"{platform.machine()} {platform.processor() or platform.system()}, torch threads={torch.get_num_threads()}",
        "prompt_tokens": len(std_prompts[0]),
        "new_tokens": new_tokens,
        "repeats": repeats,
        "prefill_ratio": round(med["grounded"][0] / med["standard"][0], 3),
        "prefill_ratio_paper_template": round(med["grounded_paper"][0] / med["standard"][0], 3),
        "decode_ratio": round(med["grounded"][1] / med["standard"][1], 3),
        "fusion_ms_per_token": round(_fusion_ms(decoder, gd_prompts), 3),
        "memory_ratio": round(mem_gd / mem_std, 3),
        "batch8_speedup": round(batch_tps / single_tps, 2),
        "batch8_decode_speedup": round(decode_speedup, 2),
        "mixed_batch8_prefill_padded_over_ragged": round(statistics.median(padded_ms) / statistics.median(ragged_ms), 2),
        "standard_prefill_ms": round(med["standard"][0], 1),
        "grounded_prefill_ms": round(med["grounded"][0], 1),
        "grounded_paper_template_prefill_ms": round(med["grounded_paper"][0], 1),
        "standard_decode_ms_per_token": round(med["standard"][1], 2),
        "grounded_decode_ms_per_token": round(med["grounded"][1], 2),
        "standard_peak_mb": round(mem_std, 1),
        "grounded_peak_mb": round(mem_gd, 1),
        "grounded_single_tokens_per_s": round(single_tps, 1),
        "grounded_batch8_tokens_per_s": round(batch_tps, 1),
    }
