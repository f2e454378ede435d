"""Serving like infrastructure, against a real server on loopback (the packaged model, real clients): every request's
cost is known before the model runs and one over the budget gets 413 naming the limit; a small request overtakes a
large one (it runs between the large one's layers and tokens) and both answers stay what they are alone; a flood
gets answers or 503 with Retry-After, never a hang, and /health says when the queue is full; a stream nobody reads
neither holds the model thread nor decodes to its end. Budgets are set small here, so that a few short documents
make a "large" request: the suite stays fast on a CPU. Nothing here times the server: it asserts order and counts."""

from __future__ import annotations

import asyncio
import logging
import threading

import httpx
import openai
import pytest

from grounded_rag import DecodingConfig, Document
from grounded_rag.serving import ServeSettings
from grounded_rag.serving.worker import Job, LocalBackend

from ..conftest import DOCUMENTS, QUESTION
from .test_serving import chat_body, free_port, local_server, wait_healthy

GENEROUS_S = 600  # how long a client waits: an upper bound on a loaded machine, not a timing
LARGE_DOCS = [f"Report {i}. " + " ".join(f"The committee reviewed item {i}.{j} of the harbour budget and noted "
                                        f"its cost." for j in range(10)) for i in range(6)]
LARGE_QUESTION = "What did the committee review?"
SMALL = dict(large_request_cost=2000)  # the six reports (about 5,000 tokens of work) are large; three passages not


class Forwards:
    """Counts the model's forward passes (a hook on the shared decoder's model, removed on exit)."""

    def __init__(self, decoder) -> None:
        self.model, self.count = decoder.model, 0

    def __enter__(self) -> Forwards:
        self.handle = self.model.register_forward_hook(self._seen)
        return self

    def _seen(self, *_) -> None:
        self.count += 1

    def __exit__(self, *_) -> None:
        self.handle.remove()


async def _until(condition, timeout: float = GENEROUS_S) -> None:
    """Wait for ``condition()`` (polled), or fail."""
    for _ in range(int(timeout / 0.05)):
        if condition():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the condition never held")


def test_a_small_request_overtakes_a_large_one_and_both_answer_as_alone(decoder):
    """The stall of issue 70: a large request (many long documents) held the model thread for its whole run and a
    4-token request waited behind it. Now the small one runs between the large one's layers and tokens: it is
    answered while the large one still decodes, and neither answer changes (greedy, token for token)."""
    large = chat_body(decoder, documents=LARGE_DOCS, max_tokens=24,
                      messages=[{"role": "user", "content": LARGE_QUESTION}])
    small = chat_body(decoder, max_tokens=4)
    want_large = decoder.generate(LARGE_QUESTION, LARGE_DOCS, max_new_tokens=24).text
    want_small = decoder.generate(QUESTION, [d["text"] for d in small["documents"]],
                                  scores=[d["score"] for d in small["documents"]], max_new_tokens=4).text
    decoder.clear_cache()  # the large request pays for its own relevance pass, as it would on a fresh server
    with local_server(decoder, **SMALL) as (url, backend), Forwards(decoder) as forwards:
        async def both():
            async with httpx.AsyncClient(base_url=url, timeout=GENEROUS_S) as http:
                big = asyncio.ensure_future(http.post("/v1/chat/completions", json=large))
                await _until(lambda: forwards.count > 0)  # the large one is on the model thread
                answered = await http.post("/v1/chat/completions", json=small)
                return answered, big.done(), await big

        answered, large_done_first, big = asyncio.run(both())
        assert answered.status_code == 200 and big.status_code == 200
        assert not large_done_first, "the small request waited for the large one"
        assert backend.load()["overtook"] >= 1
        assert answered.json()["choices"][0]["message"]["content"] == want_small
        assert big.json()["choices"][0]["message"]["content"] == want_large


def test_a_request_over_the_budget_gets_413_naming_the_limit_and_the_flag(decoder):
    """Its cost is counted before any model work (prompt tokens x streams + new tokens x streams + the relevance
    pass) and refused with 413; one under it is answered."""
    with local_server(decoder, max_request_cost=3000) as (url, backend):
        client = openai.OpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0)
        with pytest.raises(openai.APIStatusError) as caught:
            client.chat.completions.create(model=decoder.name, messages=[{"role": "user", "content": LARGE_QUESTION}],
                                           max_tokens=8, extra_body={"documents": LARGE_DOCS})
        assert caught.value.status_code == 413
        message = caught.value.response.json()["error"]["message"]
        assert "over this server's limit of 3000 a request" in message and "--max-request-cost" in message
        assert "prompt tokens x 3 streams + 8 new tokens x 3 streams" in message, message
        assert caught.value.response.json()["error"]["code"] == "request_too_costly"
        assert backend.worker.stats["batched_requests"] == 0, "a refused request cost no model work"
        ok = client.chat.completions.create(model=decoder.name, messages=[{"role": "user", "content": QUESTION}],
                                            max_tokens=4, extra_body={"documents": DOCUMENTS})
        assert ok.choices[0].message.content


def test_a_flood_is_answered_or_refused_with_retry_after_and_health_says_saturated(decoder):
    """More requests than the queue holds, at once: each gets its answer or a 503 with Retry-After (none hangs,
    none is a 500), /health says "saturated" while the queue is full and "ok" once it drains; a second large request
    beyond the queue's cost gets 503 too (the first is taken: the queue was empty)."""
    settings = dict(max_queued=3, batch_window_ms=50, max_batch_size=2, **SMALL)
    with local_server(decoder, **settings) as (url, backend):
        async def flood():
            async with httpx.AsyncClient(base_url=url, timeout=GENEROUS_S) as http:
                sent = [asyncio.ensure_future(http.post("/v1/chat/completions", json=chat_body(decoder)))
                        for _ in range(10)]
                await _until(lambda: backend.admission.count >= 3)
                health = (await http.get("/health")).json()
                return await asyncio.gather(*sent), health

        replies, health = asyncio.run(flood())
        assert health["status"] == "saturated" and "this server's limit (max_queued)" in health["saturated"], health
        statuses = sorted(r.status_code for r in replies)
        assert set(statuses) == {200, 503} and statuses.count(200) >= 3, statuses
        for refused in (r for r in replies if r.status_code == 503):
            assert 1 <= int(refused.headers["retry-after"]) <= 60
            assert refused.json()["error"]["code"] == "overloaded"
        after = httpx.get(f"{url}/health", timeout=GENEROUS_S).json()
        assert after["status"] == "ok" and after["queued"] == 0 and after["queued_cost"] == 0, after
        assert after["refused_busy"] == statuses.count(503)

    large = chat_body(decoder, documents=LARGE_DOCS, max_tokens=4,
                      messages=[{"role": "user", "content": LARGE_QUESTION}])
    with local_server(decoder, max_queued_cost=3000, **SMALL) as (url, backend):  # under one large request's cost
        async def two_large():
            async with httpx.AsyncClient(base_url=url, timeout=GENEROUS_S) as http:
                first = asyncio.ensure_future(http.post("/v1/chat/completions", json=large))
                await _until(lambda: backend.admission.count == 1)
                return await http.post("/v1/chat/completions", json=large), await first

        second, first = asyncio.run(two_large())
        assert first.status_code == 200 and second.status_code == 503, second.text
        assert "this server's limit of 3000" in second.json()["error"]["message"], second.json()


def test_a_stream_nobody_reads_pauses_then_stops_and_batches_run_meanwhile(decoder):
    """A stream whose client reads nothing was decoded to its end while others waited. Its decoding now pauses once
    it runs far ahead of its reader, a request sent meanwhile is answered, and after stream_stall_s the stream is
    stopped: the model thread is free and the stream never decoded its max_tokens."""
    limit = 150
    stream_job = Job("Write a long story about the tower.", [Document(text="The tower is in Rome. " * 10)],
                     DecodingConfig(max_new_tokens=limit, support_threshold=None, stop=[]))
    normal = Job(QUESTION, [Document(text=t) for t in DOCUMENTS], DecodingConfig(max_new_tokens=4))

    async def scenario(backend: LocalBackend, forwards: Forwards):
        await backend.start()
        try:
            _, pieces = await backend.stream(stream_job)  # nobody reads it
            answered = await backend.generate(normal)
            await _until(lambda: backend.worker.stats["streams_stopped"] == 1)
            return answered, backend.admission.count, await pieces.__anext__()
        finally:
            await backend.stop()

    with Forwards(decoder) as forwards:
        backend = LocalBackend(decoder, ServeSettings(stream_stall_s=1.0))
        try:
            answered, queued, _ = asyncio.run(scenario(backend, forwards))
        except Exception as exc:  # the first piece read after the stop: the pieces before it, then the error
            raise AssertionError("the stream's iterator failed before its unread pieces") from exc
    assert answered.result.text
    assert forwards.count < limit, f"{forwards.count} forward passes: the unread stream decoded to its end"
    assert queued == 0, "the stopped stream left the queue"


def test_a_normal_request_is_answered_while_an_unread_stream_decodes(decoder):
    """Over HTTP: a client opens a stream and reads nothing past its headers; a normal request sent then is answered
    between the stream's tokens, while the stream still decodes."""
    body = {"model": decoder.name, "stream": True, "max_tokens": 80, "documents": ["The tower is in Rome. " * 10],
            "decoding": {"support_threshold": None}, "messages": [{"role": "user", "content": "Write a long story."}]}
    with local_server(decoder) as (url, backend), Forwards(decoder) as forwards:
        with httpx.stream("POST", f"{url}/v1/chat/completions", json=body, timeout=GENEROUS_S) as unread:
            assert unread.status_code == 200
            ok = httpx.post(f"{url}/v1/chat/completions", json=chat_body(decoder), timeout=GENEROUS_S)
            at_answer = forwards.count
            assert ok.status_code == 200
            for _ in unread.iter_lines():  # now read it: it was still decoding
                pass
        assert forwards.count > at_answer and backend.load()["overtook"] >= 1


class _Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def test_keys_come_in_one_header_and_never_reach_the_access_log(decoder):
    """Two Authorization headers were read as the first (a proxy that appends its own would be bypassed); a key in
    the URL was refused but written to the access log. Both are refused now, and the log shows no query value."""
    import uvicorn

    from grounded_rag.serving import create_app

    settings = ServeSettings(api_key="s3cret-key")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = uvicorn.Server(uvicorn.Config(create_app(LocalBackend(decoder, settings), settings), host="127.0.0.1",
                                           port=port, log_level="info"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    access, lines = logging.getLogger("uvicorn.access"), _Lines()
    try:
        wait_healthy(url)
        access.addHandler(lines)
        two = httpx.get(f"{url}/v1/models", headers=[("Authorization", "Bearer wrong"),
                                                     ("Authorization", "Bearer s3cret-key")], timeout=GENEROUS_S)
        assert two.status_code == 401 and "sent 2 Authorization headers; send one" in two.json()["error"]["message"]
        in_url = httpx.get(f"{url}/v1/models?api_key=s3cret-key", timeout=GENEROUS_S)
        assert in_url.status_code == 401 and "a key in the URL" in in_url.json()["error"]["message"]
        assert httpx.get(f"{url}/v1/models", headers={"Authorization": "Bearer s3cret-key"},
                         timeout=GENEROUS_S).status_code == 200
    finally:
        access.removeHandler(lines)
        server.should_exit = True
        thread.join(timeout=30)
    assert any("/v1/models?api_key=<withheld>" in line for line in lines.lines), lines.lines
    assert not any("s3cret" in line for line in lines.lines), lines.lines


def test_the_load_test_reports_small_requests_beside_a_large_one_and_a_flood(decoder):
    """The load test's fairness and flood scenarios (their figures are in docs/serving.md, not asserted here): each
    small request answered, its p50/p95 alone and beside the large one; every flood request answered or refused with
    Retry-After, none left hanging."""
    from grounded_rag.serving.loadtest import _fairness, _flood, _small_body, large_request, make_requests

    smalls = [_small_body(decoder.name, r, 4) for r in make_requests(2)]
    with local_server(decoder, **SMALL) as (url, _):
        fair = asyncio.run(_fairness(url, decoder.name, smalls, large_request(decoder.name, 6, 800, 8),
                                     decoder.clear_cache))
    assert fair["large"]["status"] == 200 and fair["small_beside_large"]["p95_ms"] > 0, fair
    assert set(fair["small_alone"]) == {"p50_ms", "p95_ms"} and fair["overtook"] >= 1, fair
    with local_server(decoder, max_queued=2, max_batch_size=2, **SMALL) as (url, _):
        flood = asyncio.run(_flood(url, [_small_body(decoder.name, r, 4) for r in make_requests(6)], 0.3, GENEROUS_S))
    assert set(flood["outcomes"]) <= {"200", "503"} and flood["outcomes"].get("200", 0) >= 2, flood
    assert flood["refused"]["with_retry_after"] == flood["outcomes"].get("503", 0), flood
