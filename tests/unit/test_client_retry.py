"""A busy server's 503 (or 429) with Retry-After is waited out and retried by the client, as OpenAI's client does,
a bounded number of times; other errors are not retried. A small HTTP server on loopback plays the busy server
(saturating the real one on demand would make the test depend on the machine's speed)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from grounded_rag.serving.client import GroundedClient, ServerError

CARD = {"object": "list", "data": [{"id": "m", "object": "model"}]}


def serve(replies: list[tuple[int, dict[str, str]]]) -> Iterator[tuple[str, list[str]]]:
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            seen.append(self.path)
            status, headers = replies.pop(0) if replies else (200, {})
            body = json.dumps(CARD if status == 200 else {"error": {"message": "the server is busy"}}).encode()
            self.send_response(status)
            for k, v in {**headers, "Content-Type": "application/json"}.items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()


@pytest.mark.parametrize("status", [503, 429])
def test_a_busy_server_is_retried_after_its_retry_after(status):
    for url, seen in serve([(status, {"Retry-After": "1"}), (status, {"Retry-After": "0"})]):
        client = GroundedClient(url)
        assert client.name == "m" and len(seen) == 3


def test_retries_are_bounded_and_the_last_refusal_is_reported():
    for url, seen in serve([(503, {"Retry-After": "0"})] * 5):
        with pytest.raises(ServerError, match="503.*busy"):
            GroundedClient(url, max_retries=2).name
        assert len(seen) == 3


@pytest.mark.parametrize("status,headers", [(503, {}), (500, {"Retry-After": "0"})])
def test_no_retry_without_a_retry_after_or_for_a_failure(status, headers):
    for url, seen in serve([(status, headers)]):
        with pytest.raises(ServerError):
            GroundedClient(url).name
        assert len(seen) == 1
