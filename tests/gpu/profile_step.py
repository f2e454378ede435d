"""Where a decode step's and a prefill's time goes on a lent GPU (issue 35): look before optimising.

    python3 tests/gpu/profile_step.py SHAPE [SHAPE ...]

Per shape (random bf16 weights, the packaged tokenizer from $GROUNDED_RAG_GPU_TOKENIZER): one standard decode
step at batch 1 over a static cache: the kernels it launches and their GPU time (the eager static step under the
profiler), against the captured graph's replay time; the decode loop's ms per token around the graph; and the
prefill of standard, ``grounded`` and the default split into its stages (each stage synchronised and timed).
"""

from __future__ import annotations

import collections
import functools
import os
import sys
import time

import torch
from torch.profiler import ProfilerActivity, profile

from grounded_rag import engine, prefill as prefill_mod
from grounded_rag.config import DEFAULT_METHOD
from grounded_rag.decoder import GroundedDecoder
from grounded_rag.graphs import GraphPool, StaticStep
from grounded_rag.models import resolve_model
from grounded_rag.shape_bench import _batch, _passages, decode_times
from grounded_rag.shapes import random_model


DEVICE = os.environ.get("PROFILE_DEVICE", "cuda")  # cpu: a smoke run of the script itself


def sync() -> None:
    if DEVICE == "cuda":
        torch.cuda.synchronize()


def replay_ms(step: StaticStep, tokens: torch.Tensor, n: int = 30) -> float:
    if DEVICE != "cuda":
        return float("nan")
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    step(tokens)
    start.record()
    for _ in range(n):
        step.graph.replay()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / n


def kernel_table(fn, steps: int = 3) -> None:
    fn()
    sync()
    with profile(activities=[ProfilerActivity.CUDA, ProfilerActivity.CPU]) as prof:
        for _ in range(steps):
            fn()
        sync()
    kernels = collections.Counter()
    times = collections.Counter()
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA or DEVICE == "cpu":
            kernels[e.name[:70]] += 1
            times[e.name[:70]] += e.device_time if DEVICE == "cuda" else e.cpu_time
    total = sum(times.values()) / steps / 1000
    print(f"  kernels per step {sum(kernels.values()) / steps:.0f}, GPU time per step {total:.3f} ms")
    for name, t in times.most_common(14):
        print(f"    {t / steps / 1000:7.3f} ms  x{kernels[name] / steps:5.0f}  {name}")


def step_profile(decoder: GroundedDecoder) -> None:
    model = decoder.model
    prompts, _ = _batch(decoder, "standard", 1)
    _, state = prefill_mod.prefill(model, prompts, 1, decoder.pad_id, ragged=False)
    tokens = torch.tensor([decoder.pad_id], device=model.device)
    eager = StaticStep(model, state, 1024, "eager")
    print(" standard step, batch 1, eager static step:")
    kernel_table(lambda: eager(tokens))
    _, state = prefill_mod.prefill(model, prompts, 1, decoder.pad_id, ragged=False)
    captured = StaticStep(model, state, 1024, "capture" if DEVICE == "cuda" else "eager")
    print(f"  graph replay {replay_ms(captured, tokens):.3f} ms")
    for method in ("standard", DEFAULT_METHOD):
        pool = GraphPool("capture" if DEVICE == "cuda" else "eager")
        batch = _batch(decoder, method, 1)
        decode_times(decoder, batch[0], method, 32, batch[1], _passages(), graphs=pool)
        ms = [decode_times(decoder, batch[0], method, 32, batch[1], _passages(), graphs=pool)[2] for _ in range(3)]
        print(f"  {method} decode loop, captured: {min(ms):.3f} ms/token")


STAGES = collections.defaultdict(float)


def timed(name, fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        sync()
        start = time.perf_counter()
        out = fn(*args, **kwargs)
        sync()
        STAGES[name] += (time.perf_counter() - start) * 1000
        return out
    return wrapper


def prefill_profile(decoder: GroundedDecoder) -> None:
    model = decoder.model
    patches = [(prefill_mod, "_trie"), (prefill_mod, "_tree_mask"), (prefill_mod, "_split_tree"),
               (prefill_mod, "_left_pad"), (engine, "step_masks"), (engine, "pick"), (engine, "_step_function")]
    originals = [getattr(m, n) for m, n in patches]
    for (m, n), f in zip(patches, originals, strict=True):
        setattr(m, n, timed(n, f))
    forward = model.forward
    model.forward = timed("model.forward", forward)
    start = engine.Rows.start
    engine.Rows.start = classmethod(timed("Rows.start", start.__func__))
    try:
        for method in ("standard", "grounded", DEFAULT_METHOD):
            batch = _batch(decoder, method, 1)
            for tree in (True, False):
                decode_times(decoder, batch[0], method, 2, batch[1], _passages(), tree=tree)  # warm
                STAGES.clear()
                total = [decode_times(decoder, batch[0], method, 2, batch[1], _passages(), tree=tree)[0]
                         for _ in range(3)]
                parts = ", ".join(f"{k} {v / 3:.2f}" for k, v in sorted(STAGES.items(), key=lambda kv: -kv[1]))
                print(f"  {method:>18} {'tree' if tree else 'padded':>6}: to first token {min(total):.2f} ms; {parts}")
    finally:
        for (m, n), f in zip(patches, originals, strict=True):
            setattr(m, n, f)
        model.forward = forward
        engine.Rows.start = start


def main() -> None:
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(resolve_model(os.environ.get("GROUNDED_RAG_GPU_TOKENIZER", ".gpu/tok"))[0])
    print(torch.cuda.get_device_name() if DEVICE == "cuda" else "cpu", torch.__version__, flush=True)
    for shape in sys.argv[1:]:
        model = random_model(shape, DEVICE, torch.bfloat16 if DEVICE == "cuda" else torch.float32)
        decoder = GroundedDecoder(model, tok, name=shape)
        print(f"== {shape}", flush=True)
        step_profile(decoder)
        prefill_profile(decoder)
        del decoder, model
        if DEVICE == "cuda":
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
