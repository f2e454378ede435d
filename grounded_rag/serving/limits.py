"""What keeps one client from holding the server: a deadline for each request's head on top of uvicorn's own
keep-alive timeout, and per-client rate limits (slowapi). The body's size and pace are checked by the app's
``BodyLimitMiddleware``; the queue's length and cost by the backend's admission. And what the access log keeps of
a URL: no query value (a key sent as ``?api_key=...`` stays out of the log)."""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import parse_qsl, urlencode

import h11
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from slowapi import Limiter
from slowapi.errors import RateLimitExceeded
from slowapi.middleware import SlowAPIASGIMiddleware
from slowapi.util import get_remote_address
from uvicorn.protocols.http.h11_impl import H11Protocol

from .settings import ServeSettings


class HeadTimeoutProtocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline for each request's head. uvicorn closes a connection only when it sits
    idle after a response; one that opens and sends nothing, or trickles its headers a byte at a time, it holds for
    ever. Here a connection whose request head is not complete ``head_timeout`` seconds after it opened (or after the
    previous response) is closed."""

    head_timeout = 10.0

    def connection_made(self, transport: Any) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._responses = 0
        self._arm_head_deadline()

    def on_response_complete(self) -> None:
        self._responses += 1  # first: a pipelined request may be handled inside the call below
        super().on_response_complete()
        self._arm_head_deadline()

    def _arm_head_deadline(self) -> None:
        if not self.transport.is_closing():
            self.loop.call_later(self.head_timeout, self._head_deadline, self._responses)

    def _head_deadline(self, responses: int) -> None:
        """Close the connection if, with no response sent since the deadline was set, the client has still not sent
        a whole request head (h11 still waits for it: the client's state is IDLE)."""
        if responses == self._responses and not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
            self.transport.close()


def head_timeout_protocol(seconds: float) -> type[HeadTimeoutProtocol]:
    """The protocol class for uvicorn's ``http=`` with this deadline."""
    return type("HeadTimeoutProtocol", (HeadTimeoutProtocol,), {"head_timeout": seconds})


def uvicorn_options(settings: ServeSettings) -> dict[str, Any]:
    """uvicorn's settings from ours: the head deadline, the idle keep-alive timeout, the header size limit."""
    return {"http": head_timeout_protocol(settings.header_timeout_s), "timeout_keep_alive": settings.idle_timeout_s,
            "h11_max_incomplete_event_size": 64 * 1024}


def add_rate_limit(app: FastAPI, settings: ServeSettings, open_paths: frozenset[str]) -> None:
    """``settings.rate_limit`` per client address on every route but ``open_paths`` (slowapi; 429 in OpenAI's error
    format with ``Retry-After``). Behind a proxy every client has the proxy's address: limit there instead."""
    if settings.rate_limit is None:
        return
    limiter = Limiter(key_func=get_remote_address, default_limits=[settings.rate_limit], headers_enabled=True)
    app.state.limiter = limiter
    for route in app.routes:
        if getattr(route, "path", None) in open_paths and hasattr(route, "endpoint"):
            limiter.exempt(route.endpoint)

    def too_many(request: Request, exc: RateLimitExceeded) -> JSONResponse:
        response = JSONResponse({"error": {
            "message": f"this client sent more requests than the server's limit of {exc.detail}; retry after the "
                       "Retry-After header's seconds", "type": "rate_limit_error", "param": None,
            "code": "rate_limit_exceeded"}}, status_code=429)
        return limiter._inject_headers(response, request.state.view_rate_limit)  # Retry-After, X-RateLimit-*

    app.add_exception_handler(RateLimitExceeded, too_many)  # type: ignore[arg-type]
    app.add_middleware(SlowAPIASGIMiddleware)


class WithheldQuery(logging.Filter):
    """uvicorn's access log lines with every query value withheld (``/v1/models?api_key=<withheld>``): no route of
    ours takes a query, and the only values a client sends there by mistake are keys."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) >= 3 and isinstance(args[2], str) and "?" in args[2]:
            path, _, query = args[2].partition("?")
            withheld = urlencode([(name, "<withheld>") for name, _ in parse_qsl(query, keep_blank_values=True)],
                                 safe="<>")
            record.args = (*args[:2], f"{path}?{withheld}" if withheld else path, *args[3:])
        return True


def withhold_url_queries() -> None:
    """Install :class:`WithheldQuery` on uvicorn's access log, once (uvicorn's own log configuration keeps a
    logger's filters)."""
    access = logging.getLogger("uvicorn.access")
    if not any(isinstance(f, WithheldQuery) for f in access.filters):
        access.addFilter(WithheldQuery())
