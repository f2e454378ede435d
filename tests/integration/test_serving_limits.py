"""Clients that hold connections or send too often, against a real server on loopback: a connection that never
finishes its request head is closed, a slow one cannot stall a normal one, and a client over the rate limit gets
OpenAI's 429 with Retry-After while /health and other clients still get through."""

from __future__ import annotations

import socket

import httpx
import openai
import pytest

from ..conftest import DOCUMENTS, QUESTION
from .test_serving import local_server

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
