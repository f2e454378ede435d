"""Where a decode step's time goes on llama.cpp: the model's forward for k tokens, with one row of logits or k rows
(the output projection runs once per returned row), against the engine's own steps of standard decoding and the
default (one token per stream, each stream's logits, then the fusion).

``python cookbook/research/llama_step_cost.py [--model gemma3-270m] [--threads 2]`` prints JSON: ``forward`` gives
milliseconds per llama_decode call for k = 1, 3, 8 tokens after a prompt of about 700 tokens (``one_row``: k tokens
of one sequence, the last one's logits, as a prompt's end; ``every_row``: the same with k rows of logits; ``streams``:
k sequences sharing the prompt, one token and its logits each, as a step of k streams), medians of repeated calls in
one context; ``engine`` gives, per method, a step's mean milliseconds in llama_decode and in the fusion over an
answer of 32 tokens. docs/backends.md cites it. Run it on an idle machine: the figures are ratios within one run.

``--requantize Q4_0`` (or ``Q8_0``) measures a copy of the model re-quantized to that type by llama.cpp's own
``llama_model_quantize`` (into a temporary folder): the types llama.cpp has batched x86 kernels for, to tell what the
packaged file's type costs from what the model's size costs.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable

import numpy as np
import torch

from grounded_rag import GroundedDecoder

PASSAGES = ["Project Halcyon is led by Priya Ramanathan, who joined the platform team in 2019 and reports to the CTO.",
            "The Halcyon service is written in Rust; its data pipelines use Python and run nightly on the batch cluster.",
            "Employees get 25 days of paid vacation a year, plus public holidays; unused days carry over until March.",
            "The travel policy caps hotels at 180 euros a night in most cities and asks for receipts within 30 days.",
            "On-call engineers are paid a weekly stipend and may take a day off after a week with night pages."] * 3
QUESTION = "Who leads Project Halcyon, and which language is it written in?"
KS = (1, 3, 8)
REPEATS = 7


def median_ms(call: Callable[[], object], undo: Callable[[], None]) -> float:
    """The median wall time of ``call`` over REPEATS calls (after one unmeasured), ``undo`` after each."""
    times = []
    for _ in range(REPEATS + 1):
        start = time.perf_counter()
        call()
        times.append(1000 * (time.perf_counter() - start))
        undo()
    return round(statistics.median(times[1:]), 2)


def forward_costs(lm, prompt: list[int]) -> dict[str, dict[int, float]]:
    """llama_decode's milliseconds for k tokens after ``prompt`` (prefilled once for k sequences sharing it)."""
    from grounded_rag.backends.batches import Entries, prefix_tree
    from grounded_rag.backends.llama_cpp import ll

    most, at = max(KS), len(prompt)
    out: dict[str, dict[int, float]] = {"one_row": {}, "every_row": {}, "streams": {}}
    with lm.context(most, at + 2 * most) as ctx:
        ctx.run(prefix_tree([prompt] * most, list(range(most)), [[at - 1]] * most)[0])

        def undo() -> None:
            for seq in range(most):
                ll.llama_memory_seq_rm(ctx._memory, seq, at, -1)

        for k in KS:
            tokens = np.asarray(prompt[:k], dtype=np.int32)
            for name, rows in (("one_row", [0] * (k - 1) + [1]), ("every_row", [1] * k)):
                entries = Entries(tokens, np.arange(at, at + k, dtype=np.int32), np.arange(k + 1, dtype=np.int64),
                                  np.zeros(k, dtype=np.int32), np.asarray(rows, dtype=np.int8))
                out[name][k] = median_ms(lambda e=entries: ctx.run(e), undo)
            out["streams"][k] = median_ms(
                lambda: ctx.step(tokens[:1].repeat(k), np.full(k, at, dtype=np.int32), np.arange(k, dtype=np.int32)),
                undo)
    return out


def engine_costs(decoder: GroundedDecoder, methods: list[str]) -> dict[str, dict[str, float]]:
    """Per method, a decode step's mean milliseconds in llama_decode and in the fusion (engine.pick)."""
    import grounded_rag.backends.llama_engine as engine
    from grounded_rag.backends.llama_cpp import Context

    spent = {"llama_decode": [0.0, 0], "fusion": [0.0, 0]}

    def timed(name: str, function: Callable) -> Callable:
        def wrapper(*args, **kwargs):
            start = time.perf_counter()
            result = function(*args, **kwargs)
            spent[name][0] += time.perf_counter() - start
            spent[name][1] += 1
            return result
        return wrapper

    step, pick = Context.step, engine.pick
    Context.step, engine.pick = timed("llama_decode", step), timed("fusion", pick)
    out = {}
    try:
        for method in methods:
            decoder.generate(QUESTION, PASSAGES[:5], method=method, max_new_tokens=32)  # warm
            for value in spent.values():
                value[:] = [0.0, 0]
            decoder.generate(QUESTION, PASSAGES[:5], method=method, max_new_tokens=32, attribute=False)
            out[method] = {name: round(1000 * total / max(count, 1), 2) for name, (total, count) in spent.items()}
    finally:
        Context.step, engine.pick = step, pick
    return out


REQUANTIZE = ("Q4_0", "Q8_0")


def requantized(model: str | None, kind: str, folder: str) -> str:
    """A copy of ``model``'s GGUF file re-quantized to ``kind`` in ``folder`` (llama.cpp's own quantizer)."""
    import llama_cpp

    from grounded_rag.model_files import gguf_source

    source = gguf_source(model)
    if source is None:
        raise SystemExit(f"--requantize needs a GGUF model, not {model!r}")
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = getattr(llama_cpp, f"LLAMA_FTYPE_MOSTLY_{kind}")
    params.allow_requantize = True
    out = f"{folder}/model.{kind}.gguf"
    if llama_cpp.llama_model_quantize(str(source[0]).encode(), out.encode(), params) != 0:
        raise SystemExit(f"llama.cpp could not re-quantize {source[0]} to {kind}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default=None, help="a packaged alias or a .gguf file (default: the packaged model)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--requantize", choices=REQUANTIZE, default=None,
                        help="measure a copy of the model re-quantized to this type")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)  # the engine's llama.cpp threads follow torch's
    with tempfile.TemporaryDirectory() as folder:
        model = args.model
        if args.requantize:
            model = requantized(args.model, args.requantize, folder)
            os.environ["GROUNDED_RAG_CACHE"] = folder  # the copy's tokenizer goes with it, not into the user's cache
        measure(model, args.threads)


def measure(model: str | None, threads: int) -> None:
    decoder = GroundedDecoder.from_pretrained(model, backend="llama_cpp")
    prompt = decoder.model.tokenize(" ".join(PASSAGES) * 3)[:700]
    print(json.dumps({"model": decoder.model.description, "threads": threads, "prompt_tokens": len(prompt),
                      "forward": forward_costs(decoder.model, prompt),
                      "engine": engine_costs(decoder, ["standard", "grounded_contrast"])}, indent=1))


if __name__ == "__main__":
    main()
