"""Bounded load tests on loopback, each against the real app under uvicorn with the server's default limits.

``--scenario batching`` (the default): batched serving against sequential serving, in the same run.

    python -m grounded_rag.serving.loadtest --requests 64 --concurrency 64 --max-tokens 16

Phase 1 serves the requests one at a time (one client, ``max_batch_size=1``): the reference answers
and the sequential throughput. Phase 2 serves the same requests from ``--concurrency`` clients at
once through the batching server. It checks that no request is lost and that every batched answer
equals its one-at-a-time greedy answer, and reports requests/s and tokens/s for both. Phase 3 sends a
normal request beside six requests with 1 MB of text in one field each (system message, question,
document, title, metadata, stop strings): each must be refused (413), and the normal one answered as alone;
it reports the refusals' and the normal request's milliseconds.
``--scenario fairness``: small requests one after another, alone, then beside one large request (by default the
64 documents of about 2,950 characters that stalled a server for minutes), sent one second before them: the small
requests' p50/p95 both ways, how many were answered while the large one still ran, and the large one's own time.
``--scenario flood``: ``--requests`` small requests spread over ``--over-s`` seconds, each client waiting at most
``--client-timeout-s``: how many were answered, refused (503/429, with Retry-After) or left hanging, the answered
ones' p50/p95, whether /health said "saturated", and the process's peak memory.
Figures depend on the machine and its load: this is a benchmark, not a test. Wall-clock figures are only
comparable on an otherwise idle machine; tokens per CPU-second of this process are robust to other load.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import socket
import statistics
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..decoder import GroundedDecoder
from .app import create_app
from .settings import ServeSettings
from .worker import LocalBackend

FACTS = [
    ("In this story, the Eiffel Tower was moved to Rome in 2031 and now stands beside the Colosseum.",
     "Where is the Eiffel Tower located?"),
    ("The Colosseum is an amphitheatre in the centre of Rome, built of travertine and concrete.",
     "What is the Colosseum built of?"),
    ("Paris is the capital and largest city of France, on the river Seine.", "Which river flows through Paris?"),
    ("The Danube flows through ten countries, more than any other river in the world.",
     "How many countries does the Danube flow through?"),
    ("Mount Kilimanjaro in Tanzania is the highest mountain in Africa at 5,895 metres.",
     "How high is Mount Kilimanjaro?"),
    ("The library of the town of Brenn was founded in 1823 by the weaver Anna Holt.", "Who founded the Brenn library?"),
    ("Honey found in Egyptian tombs was still edible after three thousand years.",
     "How long can honey stay edible?"),
    ("The Great Barrier Reef lies off the coast of Queensland in north-eastern Australia.",
     "Where is the Great Barrier Reef?"),
]


def make_requests(n: int) -> list[dict[str, Any]]:
    """n distinct grounded questions: each with its own passage and two distractors, scored."""
    out = []
    for i in range(n):
        k = i % len(FACTS)
        variant = i // len(FACTS)
        doc, question = FACTS[k]
        others = [FACTS[(k + j + 1 + variant) % len(FACTS)][0] for j in range(2)]
        docs = [{"text": doc, "id": f"f{k}", "score": round(0.9 - 0.02 * variant, 3)}]
        docs += [{"text": t, "id": f"x{j}", "score": round(0.35 - 0.05 * j, 3)} for j, t in enumerate(others)]
        if variant % 2:
            docs.reverse()
        out.append({"question": question if variant == 0 else f"{question} (variant {variant})", "documents": docs})
    return out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def running_server(decoder: GroundedDecoder, settings: ServeSettings) -> Iterator[str]:
    """The real app under uvicorn on 127.0.0.1 in a thread; yields its base URL."""
    import uvicorn

    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(LocalBackend(decoder, settings), settings), host="127.0.0.1",
                                           port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        if not thread.is_alive():
            raise RuntimeError("the server did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=60)


async def _drive(url: str, model: str, requests: list[dict[str, Any]], concurrency: int,
                 max_tokens: int) -> dict[str, Any]:
    import httpx
    import openai

    sem = asyncio.Semaphore(concurrency)
    answers: list[str | None] = [None] * len(requests)
    tokens = [0] * len(requests)
    errors: list[str] = []
    async with openai.AsyncOpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0, timeout=1800) as client:
        async def one(i: int, req: dict[str, Any]) -> None:
            async with sem:
                try:
                    r = await client.chat.completions.create(
                        model=model, messages=[{"role": "user", "content": req["question"]}], max_tokens=max_tokens,
                        temperature=0, extra_body={"documents": req["documents"]})
                except openai.OpenAIError as exc:
                    errors.append(f"request {i}: {exc}")
                    return
                answers[i] = r.choices[0].message.content
                tokens[i] = r.usage.completion_tokens

        start, cpu = time.perf_counter(), time.process_time()
        await asyncio.gather(*[one(i, r) for i, r in enumerate(requests)])
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    health = httpx.get(f"{url}/health").json()
    return {"answers": answers, "tokens": sum(tokens), "wall_s": wall, "cpu_s": cpu, "errors": errors,
            "batches": health["batches"], "largest_batch": health["largest_batch"]}


MEGABYTE = 1_000_000


def hostile_bodies(model: str, request: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """One normal request with 1 MB of text put into one field each: what a hostile or broken client sends."""
    big = "lorem ipsum " * (MEGABYTE // 12)
    base = {"model": model, "messages": [{"role": "user", "content": request["question"]}], "max_tokens": 8,
            "documents": request["documents"]}
    doc = dict(request["documents"][0])
    return {
        "system message": {**base, "messages": [{"role": "system", "content": big}, *base["messages"]]},
        "question": {**base, "messages": [{"role": "user", "content": big}]},
        "document": {**base, "documents": [{**doc, "text": big}]},
        "title": {**base, "documents": [{**doc, "title": big}]},
        "metadata": {**base, "documents": [{**doc, "metadata": {"note": big}}]},
        "stop strings": {**base, "stop": [big[:MEGABYTE // 4]] * 4},
    }


async def _hostile(url: str, model: str, request: dict[str, Any], max_tokens: int) -> dict[str, Any]:
    """A normal request's latency alone, then beside the hostile bodies sent at once; each refusal's status and ms."""
    import httpx

    normal = {"model": model, "messages": [{"role": "user", "content": request["question"]}],
              "max_tokens": max_tokens, "temperature": 0, "documents": request["documents"]}
    async with httpx.AsyncClient(base_url=url, timeout=600) as http:
        async def timed(body: dict[str, Any]) -> tuple[int, float, str]:
            start = time.perf_counter()
            r = await http.post("/v1/chat/completions", json=body)
            text = r.json()["choices"][0]["message"]["content"] if r.status_code == 200 else ""
            return r.status_code, (time.perf_counter() - start) * 1000, text

        alone = await timed(normal)
        bodies = hostile_bodies(model, request)
        results = await asyncio.gather(timed(normal), *[timed(b) for b in bodies.values()])
    beside, refused = results[0], dict(zip(bodies, results[1:]))
    return {"normal_alone_ms": round(alone[1], 1), "normal_beside_hostile_ms": round(beside[1], 1),
            "normal_answer_unchanged": alone[0] == beside[0] == 200 and alone[2] == beside[2],
            "refused": {k: {"status": v[0], "ms": round(v[1], 1)} for k, v in refused.items()}}


def run(n_requests: int = 64, concurrency: int = 64, max_tokens: int = 16, model: str | None = None,
        batch_window_ms: float = 15.0, max_batch_size: int = 64) -> dict[str, Any]:
    decoder = GroundedDecoder.from_pretrained(model)
    requests = make_requests(n_requests)
    decoder.generate(requests[0]["question"], requests[0]["documents"], max_new_tokens=2)  # warm-up
    decoder.clear_cache()  # each phase scores its own passages for relevance
    with running_server(decoder, ServeSettings(max_batch_size=1, batch_window_ms=0)) as url:
        seq = asyncio.run(_drive(url, decoder.name, requests, 1, max_tokens))
    decoder.clear_cache()
    with running_server(decoder, ServeSettings(max_batch_size=max_batch_size, batch_window_ms=batch_window_ms)) as url:
        bat = asyncio.run(_drive(url, decoder.name, requests, concurrency, max_tokens))
        hostile = asyncio.run(_hostile(url, decoder.name, requests[0], max_tokens))
    mismatched = [i for i, (a, b) in enumerate(zip(seq["answers"], bat["answers"])) if a != b]
    report: dict[str, Any] = {
        "model": decoder.name,
        "requests": n_requests,
        "concurrency": concurrency,
        "max_tokens": max_tokens,
        "lost_requests": {"sequential": sum(a is None for a in seq["answers"]),
                          "batched": sum(a is None for a in bat["answers"])},
        "errors": seq["errors"] + bat["errors"],
        "answers_identical_to_one_at_a_time": not mismatched,
        "mismatched_requests": mismatched,
    }
    for name, phase in (("sequential", seq), ("batched", bat)):
        report[name] = {
            "wall_s": round(phase["wall_s"], 2),
            "requests_per_s": round(n_requests / phase["wall_s"], 3),
            "tokens_per_s": round(phase["tokens"] / phase["wall_s"], 2),
            "completion_tokens": phase["tokens"],
            # CPU seconds of this process (server, model thread and clients): robust to other load on the machine
            "cpu_s": round(phase["cpu_s"], 2),
            "tokens_per_cpu_s": round(phase["tokens"] / phase["cpu_s"], 2),
            "batches": phase["batches"],
            "largest_batch": phase["largest_batch"],
        }
    report["hostile"] = hostile
    report["speedup_tokens_per_s"] = round(report["batched"]["tokens_per_s"] / report["sequential"]["tokens_per_s"], 2)
    report["speedup_tokens_per_cpu_s"] = round(
        report["batched"]["tokens_per_cpu_s"] / report["sequential"]["tokens_per_cpu_s"], 2)
    return report


def _percentiles(values: list[float]) -> dict[str, float | None]:
    """p50 and p95 (nearest rank) of milliseconds, rounded; None where there is none."""
    if not values:
        return {"p50_ms": None, "p95_ms": None}
    ranked = sorted(values)
    return {"p50_ms": round(statistics.median(ranked), 1),
            "p95_ms": round(ranked[min(len(ranked) - 1, round(0.95 * len(ranked)) - 1)], 1)}


def large_request(model: str, documents: int, chars: int, max_tokens: int) -> dict[str, Any]:
    """A request of ``documents`` distinct passages of about ``chars`` characters each."""
    docs = []
    for i in range(documents):
        text, j = f"Section {i} of the harbour authority's annual report.", 0
        while len(text) < chars:
            text += f" Item {i}.{j}: the board reviewed berth {j % 40} and its dredging costs for quarter {j % 4 + 1}."
            j += 1
        docs.append({"text": text[:chars], "id": f"s{i}"})
    return {"model": model, "messages": [{"role": "user", "content": "What did the board review in section 7?"}],
            "max_tokens": max_tokens, "temperature": 0, "documents": docs}


def _small_body(model: str, request: dict[str, Any], max_tokens: int) -> dict[str, Any]:
    return {"model": model, "messages": [{"role": "user", "content": request["question"]}], "max_tokens": max_tokens,
            "temperature": 0, "documents": request["documents"]}


async def _one_by_one(http, bodies: list[dict[str, Any]], large=None) -> tuple[list[float], int]:
    """Each body sent after the last was answered; their milliseconds, and how many were answered while ``large``
    (a task) had not finished."""
    times, during = [], 0
    for body in bodies:
        start = time.perf_counter()
        r = await http.post("/v1/chat/completions", json=body)
        r.raise_for_status()
        times.append((time.perf_counter() - start) * 1000)
        during += large is not None and not large.done()
    return times, during


async def _fairness(url: str, model: str, smalls: list[dict[str, Any]], large: dict[str, Any],
                    clear) -> dict[str, Any]:
    import httpx

    async with httpx.AsyncClient(base_url=url, timeout=3600) as http:
        await http.post("/v1/chat/completions", json=smalls[0])  # the first request's one-off costs
        clear()
        alone, _ = await _one_by_one(http, smalls)
        clear()
        start = time.perf_counter()
        big = asyncio.ensure_future(http.post("/v1/chat/completions", json=large))
        await asyncio.sleep(1.0)  # as the small request: one second after the large one
        beside, during = await _one_by_one(http, smalls, big)
        answered = await big
        large_s = time.perf_counter() - start
        health = (await http.get("/health")).json()
    a, b = _percentiles(alone), _percentiles(beside)
    return {"small_alone": a, "small_beside_large": b,
            "p50_ratio": round(b["p50_ms"] / a["p50_ms"], 2), "p95_ratio": round(b["p95_ms"] / a["p95_ms"], 2),
            "small_answered_while_large_ran": f"{during} of {len(smalls)}",
            "large": {"status": answered.status_code, "seconds": round(large_s, 1),
                      "documents": len(large["documents"]),
                      "prompt_tokens": answered.json().get("usage", {}).get("prompt_tokens")},
            "overtook": health.get("overtook")}


def run_fairness(model: str | None = None, small: int = 8, max_tokens: int = 4, large_documents: int = 64,
                 large_chars: int = 2950, large_max_tokens: int = 16) -> dict[str, Any]:
    decoder = GroundedDecoder.from_pretrained(model)
    smalls = [_small_body(decoder.name, r, max_tokens) for r in make_requests(small)]
    large = large_request(decoder.name, large_documents, large_chars, large_max_tokens)
    with running_server(decoder, ServeSettings()) as url:
        report = asyncio.run(_fairness(url, decoder.name, smalls, large, decoder.clear_cache))
    return {"model": decoder.name, "settings": "defaults", **report}


async def _flood(url: str, bodies: list[dict[str, Any]], over_s: float, timeout: float) -> dict[str, Any]:
    import httpx

    outcomes: list[tuple[str, float, str | None]] = []
    saturated = False
    limits = httpx.Limits(max_connections=len(bodies) + 1)  # no request waits on the client's own pool
    async with httpx.AsyncClient(base_url=url, timeout=timeout, limits=limits) as http:
        async def one(i: int, body: dict[str, Any]) -> None:
            await asyncio.sleep(i * over_s / len(bodies))
            start = time.perf_counter()
            try:
                r = await http.post("/v1/chat/completions", json=body)
                outcomes.append((str(r.status_code), (time.perf_counter() - start) * 1000,
                                 r.headers.get("retry-after")))
            except httpx.TimeoutException:
                outcomes.append(("client timeout", (time.perf_counter() - start) * 1000, None))

        async def watch() -> None:
            nonlocal saturated
            while True:
                saturated = saturated or (await http.get("/health")).json()["status"] == "saturated"
                await asyncio.sleep(0.5)

        watcher = asyncio.ensure_future(watch())
        await asyncio.gather(*[one(i, b) for i, b in enumerate(bodies)])
        watcher.cancel()
    kinds = {kind: sum(o[0] == kind for o in outcomes) for kind in sorted({o[0] for o in outcomes})}
    refused = [o for o in outcomes if o[0] in ("429", "503")]
    return {"outcomes": kinds, "answered": _percentiles([ms for kind, ms, _ in outcomes if kind == "200"]),
            "slowest_answer_ms": round(max((ms for kind, ms, _ in outcomes if kind == "200"), default=0), 1),
            "refused": {**_percentiles([ms for _, ms, _ in refused]),
                        "with_retry_after": sum(o[2] is not None for o in refused), "retry_after_s": sorted(
                            {int(o[2]) for o in refused if o[2] is not None})},
            "health_said_saturated": saturated}


def run_flood(model: str | None = None, requests: int = 200, over_s: float = 10.0, timeout_s: float = 120.0,
              max_tokens: int = 16) -> dict[str, Any]:
    decoder = GroundedDecoder.from_pretrained(model)
    bodies = [_small_body(decoder.name, r, max_tokens) for r in make_requests(requests)]
    with running_server(decoder, ServeSettings()) as url:
        report = asyncio.run(_flood(url, bodies, over_s, timeout_s))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    return {"model": decoder.name, "settings": "defaults", "requests": requests, "over_s": over_s,
            "client_timeout_s": timeout_s, "max_tokens": max_tokens, **report, "peak_rss_mb": round(peak)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m grounded_rag.serving.loadtest", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenario", choices=["batching", "fairness", "flood"], default="batching")
    parser.add_argument("--requests", type=int, default=None, help="batching: 64; fairness: small requests, 8; "
                        "flood: 200")
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--max-tokens", type=int, default=None, help="batching and flood: 16; fairness: 4")
    parser.add_argument("--model", default=None)
    parser.add_argument("--batch-window-ms", type=float, default=15.0)
    parser.add_argument("--max-batch-size", type=int, default=64)
    parser.add_argument("--large-documents", type=int, default=64)
    parser.add_argument("--large-chars", type=int, default=2950)
    parser.add_argument("--over-s", type=float, default=10.0)
    parser.add_argument("--client-timeout-s", type=float, default=120.0)
    ns = parser.parse_args(argv)
    if ns.scenario == "fairness":
        report = run_fairness(ns.model, ns.requests or 8, ns.max_tokens or 4, ns.large_documents, ns.large_chars)
        print(json.dumps(report, indent=2))
        return 0 if report["large"]["status"] == 200 else 1
    if ns.scenario == "flood":
        report = run_flood(ns.model, ns.requests or 200, ns.over_s, ns.client_timeout_s, ns.max_tokens or 16)
        print(json.dumps(report, indent=2))
        return 0 if set(report["outcomes"]) <= {"200", "429", "503"} else 1
    report = run(ns.requests or 64, ns.concurrency, ns.max_tokens or 16, ns.model, ns.batch_window_ms,
                 ns.max_batch_size)
    print(json.dumps(report, indent=2))
    ok = not report["errors"] and report["answers_identical_to_one_at_a_time"] and not any(
        report["lost_requests"].values()) and report["hostile"]["normal_answer_unchanged"] and all(
        v["status"] == 413 for v in report["hostile"]["refused"].values())
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
