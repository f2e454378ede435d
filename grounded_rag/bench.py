"""``grounded-rag bench``: standard vs adaptive grounded decoding, measured in one run.

Both methods decode the same ~700-token prompt, interleaved repeat by repeat so machine noise
hits both alike; figures are medians and every speed figure is reported as a ratio against the
standard-decoding baseline of the same run. Peak memory is measured in a fresh subprocess per
method, with the peak reset after loading the model (see :func:`generation_memory`):
``memory_ratio`` compares the peaks during generation (weights included, as the paper's figure),
``generation_memory_ratio`` what each generation adds over the loaded model.
``batch8_speedup`` is end to end (prefill included: compute-bound on a CPU, so it scales ~linearly
with the batch); ``batch8_decode_speedup`` is the decode phase alone. ``mixed_batch8_prefill_padded_over_ragged``
compares the two prefill paths on 8 prompts of different lengths (1-5 documents). Every passage is read
in the decode figures; ``relevance_filter_ms`` is the default relevance filter's scoring pass over the
same passages (once per question, before the prefill; nothing per token). ``attribution_over_answer`` is what
citations and the support score (grounded_rag.attribution, on by default) add to answering with the default method,
as a share of the answer's own time (``answer_ms``, relevance filter and decode, ``answer_tokens`` long); with one
passage (``..._one_passage``) the filter does not run, and the passage's question likelihood is read for the support
alone.
"""

from __future__ import annotations

import importlib.util
import json
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Any

import torch

from . import learned_screen
from .config import DecodingConfig
from .decoder import GroundedDecoder
from .engine import RowInputs, decode
from .fusion import log_probs
from .methods import StepInputs, get_method
from .prefill import prefill
from .spans import CopyState, document_tokens
from .taps import build_datastore

QUESTION = "Who designed the metal framework of the Statue of Liberty, and what else did he build?"


def bench_documents() -> list[dict[str, str]]:
    return json.loads(resources.files("grounded_rag.data").joinpath("bench_documents.json").read_text())


def timed_decode(
    decoder: GroundedDecoder, prompts, method_name: str, new_tokens: int, trust, passages: Sequence[str] = ()
) -> tuple[float, float]:
    """(prefill ms, decode ms/step) for one run that never stops early.

    kNN-LM's datastore and an anchored method's document tokens are built from ``passages`` inside the
    timed prefill: they are part of its cost. One ``trust`` per question: every question reads ``passages``.
    """
    method = get_method(method_name)
    config = DecodingConfig(method=method_name, max_new_tokens=new_tokens)
    start = time.perf_counter()
    marks = []
    n = len(trust)
    stores = [build_datastore(decoder.model, decoder.tokenizer, passages)] * n if method.signal == "datastore" else None
    copies = [CopyState.build(decoder.tokenizer, passages) for _ in range(n)] if "copies" in method.needs else None
    tokens = ([c.tokens for c in copies] if copies else [document_tokens(decoder.tokenizer, passages)] * n
              if "document_tokens" in method.needs else None)
    inputs = RowInputs(trust=trust, datastores=stores, document_tokens=tokens, copies=copies)
    for _ in decode(decoder.model, method, prompts, inputs, config, decoder.pad_id, end_ids=decoder.eos_ids):
        marks.append(time.perf_counter())
    prefill_ms = (marks[0] - start) * 1000
    decode_ms = (marks[-1] - marks[0]) * 1000 / max(len(marks) - 1, 1)
    return prefill_ms, decode_ms


def prepared(decoder: GroundedDecoder, method_name: str, template: str, question: str, docs, **settings):
    """Token ids and trust of one request; every passage is read (``relevance_margin=None`` unless given):
    the decode is measured on the same prompt whatever the filter keeps, and the filter on its own."""
    method = get_method(method_name)
    settings.setdefault("relevance_margin", None)
    cfg = DecodingConfig(method=method_name, template=template, **settings)
    req = decoder.prepare(question, docs, None, cfg, method)
    return req.token_ids, req.trust


def _fusion_ms(decoder: GroundedDecoder, prompts, reps: int = 200) -> float:
    method = get_method("grounded")
    logits, _ = prefill(decoder.model, prompts, 2, decoder.pad_id)
    config = DecodingConfig()
    trust = torch.ones(1, device=decoder.model.device)
    logp = log_probs(logits).view(1, 2, -1)
    method.step(StepInputs(logp[:, 0], logp[:, 1], trust, config))
    start = time.perf_counter()
    for _ in range(reps):
        lp = log_probs(logits).view(1, 2, -1)
        method.step(StepInputs(lp[:, 0], lp[:, 1], trust, config))
    return (time.perf_counter() - start) * 1000 / reps


def _mixed_prefill_ms(decoder: GroundedDecoder, docs, ragged: bool) -> float:
    """Prefill of 8 grounded questions with 1..5 documents each (prompts of different lengths)."""
    batch = [prepared(decoder, "grounded", "documents_first", QUESTION, docs[: 1 + i % len(docs)]) for i in range(8)]
    start = time.perf_counter()
    prefill(decoder.model, [ids for p, _ in batch for ids in p], 2, decoder.pad_id, ragged=ragged)
    return (time.perf_counter() - start) * 1000


def _attribution_ms(decoder: GroundedDecoder, docs, new_tokens: int, repeats: int) -> tuple[float, float, int]:
    """Medians of (ms to answer with the default, ms to answer and attribute it), interleaved, and the answer's
    tokens: the same decode (the relevance filter included, its cache cleared each time), once without and once
    with citations and the support score (grounded_rag.attribution)."""
    plain, attributed = [], []
    for _ in range(repeats):
        for attribute, times in ((False, plain), (True, attributed)):
            decoder.clear_cache()
            start = time.perf_counter()
            result = decoder.generate(QUESTION, docs, max_new_tokens=new_tokens, attribute=attribute,
                                      support_threshold=None)
            times.append((time.perf_counter() - start) * 1000)
    return statistics.median(plain), statistics.median(attributed), len(result.token_ids)


def _relevance_ms(decoder: GroundedDecoder, docs) -> float:
    """The relevance filter's scoring pass over the benchmark's passages, with nothing remembered (the learned
    screen, whose verdicts are forgotten with the scores, is not timed here)."""
    decoder.clear_cache()
    config = DecodingConfig(screen_classifier=False)
    start = time.perf_counter()
    decoder.plan([{"question": QUESTION, "documents": docs}], config, get_method(config.method))
    return (time.perf_counter() - start) * 1000


def _status_mb(field: str) -> float | None:
    """A ``/proc/self/status`` figure (VmRSS, VmHWM) in MB; None off Linux."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def generation_memory(model: str | None, method: str, new_tokens: int, question: str = QUESTION,
                      documents: Sequence[dict[str, str]] | None = None, system_prompt: str | None = None,
                      backend: str = "auto") -> dict[str, float]:
    """Memory of one generation in this process, apart from loading the model.

    Loading peaks above the loaded state (conversion buffers) and the first forward pages in the
    memory-mapped weights; either would hide the second stream's KV cache. So the peak is reset
    after loading and a one-token warm-up: ``torch.cuda.reset_peak_memory_stats`` on a GPU,
    ``/proc/self/clear_refs`` (Linux's peak-RSS reset) on a CPU. Returns ``loaded_mb`` (resident
    then), ``peak_mb`` (peak during the generation) and ``extra_mb`` (their difference).
    """
    decoder = GroundedDecoder.from_pretrained(model, backend=backend)
    settings = {"system_prompt": system_prompt} if system_prompt else {}
    decoder.generate("Warm-up.", ["Warm-up."], method="standard", max_new_tokens=1)  # pages the weights in
    learned_screen.warm()  # the screen's encoder, loaded before the peak is reset as a server loads it before serving
    cuda = decoder.model.device.type == "cuda"
    if cuda:
        torch.cuda.synchronize()
        loaded = torch.cuda.memory_allocated() / 2**20
        torch.cuda.reset_peak_memory_stats()
    else:
        loaded = _status_mb("VmRSS")
        try:
            with open("/proc/self/clear_refs", "w") as f:
                f.write("5")
        except OSError:
            loaded = None
    decoder.generate(question, documents if documents is not None else bench_documents(), method=method,
                     max_new_tokens=new_tokens, relevance_margin=None, **settings)
    if cuda:
        peak = torch.cuda.max_memory_allocated() / 2**20
    elif loaded is not None:
        peak = _status_mb("VmHWM")
    else:  # no peak reset here (macOS): the process's max RSS, loading included
        import resource

        scale = 2**20 if sys.platform == "darwin" else 2**10
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / scale
        loaded = peak
    return {"loaded_mb": loaded, "peak_mb": peak, "extra_mb": peak - loaded}


def memory_in_subprocess(model: str | None, method: str, new_tokens: int, question: str = QUESTION,
                         documents: Sequence[dict[str, str]] | None = None, system_prompt: str | None = None,
                         backend: str = "auto") -> dict[str, float]:
    """:func:`generation_memory` in a fresh subprocess, so one method's allocations cannot hide in another's."""
    args = json.dumps([model, method, new_tokens, question, documents, system_prompt, backend])
    code = ("import json,sys\nfrom grounded_rag.bench import generation_memory\n"
            "print(json.dumps(generation_memory(*json.loads(sys.argv[1]))))\n")
    out = subprocess.run([sys.executable, "-c", code, args], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"the memory measurement for method {method!r} failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


_IN_PROCESS = """
import json, statistics, sys, time
from grounded_rag import GroundedDecoder
from grounded_rag.retrieval import ChromaStore
model, store_dir, question, runs, backend = json.loads(sys.argv[1])
t0 = time.perf_counter()
decoder = GroundedDecoder.from_pretrained(model, backend=backend)
store = ChromaStore.open(store_dir)
t1 = time.perf_counter()
times = []
for _ in range(1 + runs):
    decoder.clear_cache()  # the second answer scores its passages again, as a new question would
    start = time.perf_counter()
    hits = store.search(question, k=3)
    decoder.generate(question, [h.document for h in hits])
    times.append(time.perf_counter() - start)
print(json.dumps({"load_s": t1 - t0, "first_s": times[0], "warm_s": statistics.median(times[1:])}))
"""


def first_answer_figures(model: str | None, docs: Sequence[dict[str, str]], question: str = QUESTION,
                         runs: int = 1, backend: str = "auto") -> dict[str, float]:
    """Seconds from typing ``grounded-rag ask --store`` to its answer (a whole process), next to what the same answer
    costs inside a process: loading the model and store, then one search and ``generate`` (the first call, then warm
    ones). Each in a fresh process, after an ingest of the benchmark passages. Then the same ``ask`` through a running
    ``grounded-rag serve --store`` (which has answered another question first, as a server that has been up a while
    has): the process imports neither torch nor the model. With ``runs`` > 1, each time is the median of that many
    (whole processes, warm answers, served asks): on a shared machine one sample can be a second off."""
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for i, d in enumerate(docs):
            path = Path(tmp) / f"doc{i}.md"
            path.write_text(d["text"], encoding="utf-8")
            files.append(str(path))
        store = str(Path(tmp) / "store")
        cli = [sys.executable, "-m", "grounded_rag.cli"]
        subprocess.run([*cli, "ingest", *files, "--store", store], capture_output=True, check=True)
        model_args = (["--model", model] if model else []) + ["--backend", backend]
        ask = [*cli, "ask", question, "--store", store, "--no-sources", *model_args]
        process_s = _median_seconds(lambda: subprocess.run([*ask, "--local"], capture_output=True, check=True), runs)
        out = subprocess.run([sys.executable, "-c", _IN_PROCESS, json.dumps([model, store, question, runs, backend])],
                             capture_output=True, text=True, check=True)
        if importlib.util.find_spec("fastapi") is None:  # no 'serve' extra: no server to ask through
            return _first_answer_report(process_s, json.loads(out.stdout.strip().splitlines()[-1]), None)
        with running_server(cli, store, model_args) as url:
            subprocess.run([*cli, "ask", "What is the statue made of?", "--store", store, "--server", url,
                            *model_args], capture_output=True, check=True)
            served_s = _median_seconds(lambda: subprocess.run([*ask, "--server", url], capture_output=True,
                                                              check=True), runs)
    return _first_answer_report(process_s, json.loads(out.stdout.strip().splitlines()[-1]), served_s)


def _first_answer_report(process_s: float, inside: dict[str, float], served_s: float | None) -> dict[str, float]:
    base = inside["load_s"] + inside["warm_s"]
    report = {"ask_process_s": round(process_s, 2), "model_load_s": round(inside["load_s"], 2),
              "generate_first_s": round(inside["first_s"], 2), "generate_warm_s": round(inside["warm_s"], 2),
              "ask_over_load_plus_generate": round(process_s / base, 2)}
    if served_s is not None:
        report.update(ask_served_s=round(served_s, 2), ask_served_over_load_plus_generate=round(served_s / base, 2))
    return report


def _seconds(work: Callable[[], Any]) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def _median_seconds(work: Callable[[], Any], runs: int) -> float:
    return statistics.median(_seconds(work) for _ in range(runs))


@contextmanager
def running_server(cli: list[str], store: str, model_args: list[str]) -> Iterator[str]:
    """``grounded-rag serve --store`` on a free loopback port, until the block ends; yields its URL."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryFile() as log:  # not a pipe: a server writing to a full pipe nobody reads would stall
        proc = subprocess.Popen([*cli, "serve", "--store", store, "--port", str(port), "--log-level", "warning",
                                 *model_args], stdout=log, stderr=log)
        try:
            yield _when_healthy(proc, url, log)
        finally:
            proc.terminate()
            proc.wait(timeout=60)


def _when_healthy(proc: subprocess.Popen, url: str, log: Any) -> str:
    """``url`` once the server there answers /health; the server's log in the error if it exits first."""
    import httpx

    deadline = time.monotonic() + 300
    while True:
        if proc.poll() is not None:
            log.seek(0)
            raise RuntimeError(f"grounded-rag serve exited: {log.read().decode(errors='replace')[-2000:]}")
        try:
            if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                return url
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError("grounded-rag serve did not start within 300 s")
        time.sleep(0.5)


def run_benchmark(decoder: GroundedDecoder, model: str | None, new_tokens: int = 32, repeats: int = 5
                  ) -> dict[str, Any]:
    """The torch engine's figures (a model on llama.cpp has its own: llama_bench)."""
    docs = bench_documents()
    default = DecodingConfig().method  # the method users get from ask / the wrappers / the server
    med, std_prompts, gd_prompts = _method_medians(decoder, docs, default, new_tokens, repeats)

    single_tps, batch_tps, decode_speedup = _batch_throughput(decoder, docs, new_tokens, max(2, repeats // 2))

    padded_ms, ragged_ms = [], []
    for _ in range(max(2, repeats // 2)):
        padded_ms.append(_mixed_prefill_ms(decoder, docs, ragged=False))
        ragged_ms.append(_mixed_prefill_ms(decoder, docs, ragged=True))

    relevance_ms = statistics.median(_relevance_ms(decoder, docs) for _ in range(max(2, repeats // 2)))
    attribution = _attribution_figures(decoder, docs, new_tokens, max(2, repeats // 2))
    mem_std = memory_in_subprocess(model, "standard", new_tokens, backend="torch")
    mem_gd = memory_in_subprocess(model, "grounded", new_tokens, backend="torch")
    first_answer = first_answer_figures(model, docs, runs=3, backend="torch")
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
        "default_method": default,
        "default_prefill_ratio": round(med["default"][0] / med["standard"][0], 3),
        "default_decode_ratio": round(med["default"][1] / med["standard"][1], 3),
        "default_decode_ratio_f_linear_only": round(med["default_f_linear"][1] / med["standard"][1], 3),
        "small_row_layouts_transposed": sorted(f"{o}x{i}@{r}" for (o, i, r), t in
                                               decoder.linear_layouts.transposed.items() if t),
        "fusion_ms_per_token": round(_fusion_ms(decoder, gd_prompts), 3),
        "relevance_filter_ms": round(relevance_ms, 1),
        "relevance_filter_over_standard_prefill": round(relevance_ms / med["standard"][0], 2),
        **attribution,
        **first_answer,
        "memory_ratio": round(mem_gd["peak_mb"] / mem_std["peak_mb"], 3),
        "generation_memory_ratio": round(mem_gd["extra_mb"] / max(mem_std["extra_mb"], 1e-9), 2),
        "batch8_speedup": round(batch_tps / single_tps, 2),
        "batch8_decode_speedup": round(decode_speedup, 2),
        "mixed_batch8_prefill_padded_over_ragged": round(statistics.median(padded_ms) / statistics.median(ragged_ms), 2),
        "standard_prefill_ms": round(med["standard"][0], 1),
        "grounded_prefill_ms": round(med["grounded"][0], 1),
        "grounded_paper_template_prefill_ms": round(med["grounded_paper"][0], 1),
        "standard_decode_ms_per_token": round(med["standard"][1], 2),
        "grounded_decode_ms_per_token": round(med["grounded"][1], 2),
        "loaded_mb": round(mem_std["loaded_mb"], 1),
        "standard_peak_mb": round(mem_std["peak_mb"], 1),
        "grounded_peak_mb": round(mem_gd["peak_mb"], 1),
        "standard_generation_extra_mb": round(mem_std["extra_mb"], 1),
        "grounded_generation_extra_mb": round(mem_gd["extra_mb"], 1),
        "grounded_single_tokens_per_s": round(single_tps, 1),
        "grounded_batch8_tokens_per_s": round(batch_tps, 1),
    }


def _batch_throughput(decoder: GroundedDecoder, docs: list[dict[str, str]], new_tokens: int,
                      rounds: int) -> tuple[float, float, float]:
    """8 different questions (rotated documents) in one batched decode vs one: tokens/s single and batched, and
    the decode-step speedup."""
    batch = []
    for i in range(8):
        rotated = docs[i % len(docs):] + docs[: i % len(docs)]
        batch.append(prepared(decoder, "grounded", "documents_first", QUESTION, rotated))
    single_times, batch_times, single_step, batch_step = [], [], [], []
    for _ in range(rounds):
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
    return single_tps, batch_tps, decode_speedup


def _attribution_figures(decoder: GroundedDecoder, docs: list[dict[str, str]], new_tokens: int,
                         rounds: int) -> dict[str, Any]:
    """Citations and support as a ratio to decoding the answer, over all passages and over one."""
    answer_ms, attributed_ms, answer_tokens = _attribution_ms(decoder, docs, new_tokens, rounds)
    one_ms, one_attributed_ms, _ = _attribution_ms(decoder, docs[:1], new_tokens, rounds)
    return {
        "answer_ms": round(answer_ms, 1),
        "answer_tokens": answer_tokens,
        "attribution_ms": round(attributed_ms - answer_ms, 1),
        "attribution_over_answer": round((attributed_ms - answer_ms) / answer_ms, 3),
        "attribution_over_answer_one_passage": round((one_attributed_ms - one_ms) / one_ms, 3),
    }


def _method_medians(decoder: GroundedDecoder, docs: list[dict[str, str]], default: str, new_tokens: int,
                    repeats: int) -> tuple[dict[str, tuple[float, float]], list[list[int]], list[list[int]]]:
    """Median (prefill ms, decode ms per token) per method, interleaved so that machine noise hits all alike; and
    the standard and grounded prompts the other figures reuse."""
    std_prompts, _ = prepared(decoder, "standard", "documents_first", QUESTION, docs)
    gd_prompts, trust = prepared(decoder, "grounded", "documents_first", QUESTION, docs)
    gd_paper_prompts, _ = prepared(decoder, "grounded", "paper", QUESTION, docs)
    default_prompts, _ = prepared(decoder, default, "documents_first", QUESTION, docs)
    texts = [t for d in docs for t in (d["text"], d.get("title")) if t]

    runs: dict[str, list[tuple[float, float]]] = {
        k: [] for k in ("standard", "grounded", "grounded_paper", "default", "default_f_linear")}
    timed_decode(decoder, std_prompts, "standard", 4, [1.0])  # warm-up
    timed_decode(decoder, gd_prompts, "grounded", 4, [trust])
    timed_decode(decoder, default_prompts, default, 4, [trust], texts)
    for _ in range(repeats):
        runs["standard"].append(timed_decode(decoder, std_prompts, "standard", new_tokens, [1.0]))
        runs["grounded"].append(timed_decode(decoder, gd_prompts, "grounded", new_tokens, [trust]))
        runs["grounded_paper"].append(timed_decode(decoder, gd_paper_prompts, "grounded", new_tokens, [trust]))
        runs["default"].append(timed_decode(decoder, default_prompts, default, new_tokens, [trust], texts))
        decoder.linear_layouts.active = False  # the same with F.linear for every row count: what the layouts save
        try:
            runs["default_f_linear"].append(timed_decode(decoder, default_prompts, default, new_tokens, [trust], texts))
        finally:
            decoder.linear_layouts.active = True
    med = {k: (statistics.median(p for p, _ in v), statistics.median(d for _, d in v)) for k, v in runs.items()}
    return med, std_prompts, gd_prompts
