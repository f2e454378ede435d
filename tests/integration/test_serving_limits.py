"""Clients that hold connections, send too often or too much, or leave, against a real server on loopback: a
connection that never finishes its request head is closed, a slow one cannot stall a normal one, a client over the
rate limit gets OpenAI's 429 with Retry-After while /health and other clients still get through, a full queue answers
503, a megabyte in any field is refused, and a client that leaves frees the model thread at the next token."""

from __future__ import annotations

import asyncio
import json
import socket
import time

import httpx
import openai
import pytest

from grounded_rag import DecodingConfig

from ..conftest import DOCUMENTS, QUESTION
from .test_serving import SETTINGS, chat_body, local_server

GENEROUS_S = 300  # how long a test waits for the server to act: an upper bound, not a timing


def closed_by_server(sock: socket.socket) -> bool:
    """Whether the server closes the connection (an empty read) before GENEROUS_S."""
    sock.settimeout(GENEROUS_S)
    try:
        while sock.recv(4096):
            pass
        return True
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True


def test_connections_that_never_finish_their_head_are_closed(decoder):
    with local_server(decoder, header_timeout_s=1.0, idle_timeout_s=1.0) as (url, _):
        port = int(url.rsplit(":", 1)[1])
        silent = socket.create_connection(("127.0.0.1", port))  # opens, sends nothing
        trickle = socket.create_connection(("127.0.0.1", port))
        trickle.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n")  # a head begun, never finished
        reply = httpx.post(f"{url}/v1/chat/completions", timeout=GENEROUS_S, json={
            "model": decoder.name, "max_tokens": 2, "messages": [{"role": "user", "content": QUESTION}],
            "documents": DOCUMENTS})
        assert reply.status_code == 200  # served while the two are held open
        assert closed_by_server(silent) and closed_by_server(trickle)
        with httpx.Client(base_url=url, timeout=GENEROUS_S) as client:  # keep-alive: one connection, two requests
            assert client.get("/health").status_code == 200
            assert client.get("/health").status_code == 200
        silent.close()
        trickle.close()


def test_a_client_over_the_rate_limit_gets_429_with_retry_after(decoder):
    with local_server(decoder, rate_limit="2/minute") as (url, _):
        client = openai.OpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0)
        ask = dict(model=decoder.name, max_tokens=2, messages=[{"role": "user", "content": QUESTION}],
                   extra_body={"documents": DOCUMENTS})
        client.chat.completions.create(**ask)
        client.chat.completions.create(**ask)
        with pytest.raises(openai.RateLimitError, match="limit of 2 per 1 minute") as caught:
            client.chat.completions.create(**ask)
        response = caught.value.response
        assert response.json()["error"]["code"] == "rate_limit_exceeded"
        assert 0 < int(response.headers["retry-after"]) <= 60
        assert httpx.get(f"{url}/health", timeout=GENEROUS_S).status_code == 200  # load balancers are not limited
        assert httpx.get(f"{url}/health", timeout=GENEROUS_S).status_code == 200
        assert httpx.get(f"{url}/health", timeout=GENEROUS_S).status_code == 200


def test_a_malformed_rate_limit_is_refused_with_the_form_to_use():
    from grounded_rag.serving.settings import ServeSettings

    with pytest.raises(ValueError, match="e.g. '60/minute'"):
        ServeSettings(rate_limit="sixty a minute")
    for none_allowed in ("0/minute", "10/second;0/hour"):  # would answer every request with 429, for ever
        with pytest.raises(ValueError, match="allows no request at all"):
            ServeSettings(rate_limit=none_allowed)
    with pytest.raises(ValueError, match="the API key is empty"):
        ServeSettings(api_key="")


def _one_response(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    """One HTTP/1.1 response read off a kept-alive socket (status, headers, body by its Content-Length)."""
    sock.settimeout(GENEROUS_S)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        assert chunk, "the server closed the connection"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
    while len(body) < int(headers["content-length"]):
        body += sock.recv(4096)
    return int(status_line.split()[1]), headers, body


def test_a_bug_answers_openais_500_and_the_connection_stays_open():
    """Our bug (here a route that raises) is OpenAI's 500 on a kept-alive connection that the next request still
    uses: an Exception handler answered too, but uvicorn then dropped the connection without saying so."""
    import json
    import threading

    import uvicorn
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    from grounded_rag.serving.app import InternalErrorMiddleware

    from .test_serving import free_port, wait_healthy

    async def bug(_):
        raise RuntimeError("a bug")

    async def health(_):
        return JSONResponse({"status": "ok"})

    app = Starlette(routes=[Route("/bug", bug), Route("/health", health)], middleware=[Middleware(InternalErrorMiddleware)])
    port = free_port()
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="critical"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    try:
        wait_healthy(f"http://127.0.0.1:{port}")
        with socket.create_connection(("127.0.0.1", port)) as sock:
            sock.sendall(b"GET /bug HTTP/1.1\r\nHost: x\r\n\r\n")
            status, headers, body = _one_response(sock)
            assert status == 500 and headers.get("connection") != "close"
            assert json.loads(body)["error"] == {"message": "internal server error: RuntimeError: a bug",
                                                 "type": "server_error", "param": None, "code": None}
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")  # the same connection
            assert _one_response(sock)[0] == 200
    finally:
        srv.should_exit = True
        thread.join(timeout=30)


def test_a_full_queue_answers_503_and_an_abandoned_request_costs_no_decoding(decoder):
    """With one request waiting (a long batch window holds it), the next gets 503 with Retry-After at once; a client
    that gives up while its request waits is dropped before the batch decodes, and the server goes on serving."""
    with local_server(decoder, batch_window_ms=1000, max_queued=1, max_tokens_limit=64) as (url, backend):
        async def both():
            async with httpx.AsyncClient(timeout=60) as http:
                first = asyncio.ensure_future(http.post(f"{url}/v1/chat/completions", json=chat_body(decoder)))
                await asyncio.sleep(0.3)  # the first one waits in the batch window
                second = await http.post(f"{url}/v1/chat/completions", json=chat_body(decoder))
                return await first, second

        first, second = asyncio.run(both())
        assert first.status_code == 200
        assert second.status_code == 503 and second.headers["retry-after"] == "1"
        assert "1 requests wait for the model, this server's limit (max_queued)" in second.json()["error"]["message"]

        decoded = backend.worker.stats["batched_requests"]
        with pytest.raises(httpx.ReadTimeout):  # gives up inside the batch window
            httpx.post(f"{url}/v1/chat/completions", json=chat_body(decoder), timeout=0.4)
        time.sleep(2.0)  # the window closes; the batcher finds the request abandoned
        assert backend.worker.stats["batched_requests"] == decoded, "an abandoned request was decoded"
        ok = httpx.post(f"{url}/v1/chat/completions", json=chat_body(decoder), timeout=120)
        assert ok.status_code == 200 and backend.worker.stats["batched_requests"] == decoded + 1


def test_an_abandoned_stream_whose_answer_is_held_stops_decoding(decoder):
    """With abstention on (the default) a streamed answer is held until it is known to stand, so nothing is sent
    while it decodes; a client that leaves then must still free the model thread at the next token, not after
    max_tokens of decoding that nobody reads."""
    question, documents, limit = "Write a long story about the tower.", ["The tower is in Rome. " * 20], 60
    alone = decoder.generate(question, documents, config=DecodingConfig(max_new_tokens=limit))
    assert alone.finish_reason == "length" and not alone.abstained  # unread, it would decode all 60 tokens
    forwards = []
    hook = decoder.model.register_forward_hook(lambda *_: forwards.append(1))
    try:
        with local_server(decoder) as (url, _):
            body = {"model": decoder.name, "stream": True, "max_tokens": limit, "documents": documents,
                    "messages": [{"role": "user", "content": question}]}
            with httpx.stream("POST", f"{url}/v1/chat/completions", json=body, timeout=120) as r:
                assert r.status_code == 200 and next(r.iter_lines()).startswith("data:")
            seen = -1
            while seen != len(forwards):  # until the model thread has stopped
                seen = len(forwards)
                time.sleep(2.0)
            assert len(forwards) < limit // 2, f"{len(forwards)} forward passes after the client left"
            ok = httpx.post(f"{url}/v1/chat/completions", json=chat_body(decoder), timeout=120)
            assert ok.status_code == 200
    finally:
        hook.remove()


def test_a_request_abandoned_while_it_decodes_leaves_the_batch(decoder):
    """A non-streamed request whose client leaves mid-decode stops decoding at the next token (its row leaves the
    batch), instead of holding the model thread for max_tokens nobody will read."""
    import http.client

    question, documents, limit = "Write a long story about the tower.", ["The tower is in Rome. " * 20], 60
    forwards = []
    hook = decoder.model.register_forward_hook(lambda *_: forwards.append(1))
    try:
        with local_server(decoder) as (url, _):
            body = json.dumps({"model": decoder.name, "max_tokens": limit, "documents": documents,
                               "decoding": {"support_threshold": None},
                               "messages": [{"role": "user", "content": question}]})
            conn = http.client.HTTPConnection(url.removeprefix("http://"), timeout=120)
            conn.request("POST", "/v1/chat/completions", body=body, headers={"content-type": "application/json"})
            deadline = time.monotonic() + 300
            while len(forwards) < 10 and time.monotonic() < deadline:  # prefill done, a few tokens decoded
                time.sleep(0.05)
            conn.sock.close()
            seen = -1
            while seen != len(forwards):  # until the model thread has stopped
                seen = len(forwards)
                time.sleep(2.0)
            assert len(forwards) < limit // 2 + 10, f"{len(forwards)} forward passes; the full answer takes {limit}+"
            ok = httpx.post(f"{url}/v1/chat/completions", json=chat_body(decoder), timeout=120)
            assert ok.status_code == 200
    finally:
        hook.remove()


def test_a_megabyte_in_any_field_is_refused_beside_a_normal_request(decoder):
    """The load test's hostile phase: 1 MB of text in the system message, the question, a document, a title, the
    metadata or the stop strings, sent at once beside a normal request: each refused with 413, the normal request
    answered exactly as alone (its timings are the load test's report, not asserted here)."""
    from grounded_rag.serving.loadtest import _hostile, make_requests

    with local_server(decoder, **SETTINGS) as (url, _):
        report = asyncio.run(_hostile(url, decoder.name, make_requests(1)[0], 4))
    assert report["normal_answer_unchanged"], report
    assert {k: v["status"] for k, v in report["refused"].items()} == dict.fromkeys(
        ["system message", "question", "document", "title", "metadata", "stop strings"], 413), report
