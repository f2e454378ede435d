"""The app's ASGI middleware: the API key, the request body's size and pace, and our own bugs, each answered in
OpenAI's error format before (or instead of) the routes."""

from __future__ import annotations

import asyncio
import hmac
import logging

from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

log = logging.getLogger("grounded_rag.serving")


def error(status: int, message: str, kind: str = "invalid_request_error", param: str | None = None,
          code: str | None = None) -> JSONResponse:
    """OpenAI's error body, which every OpenAI client turns into its own exception with this message."""
    return JSONResponse({"error": {"message": message, "type": kind, "param": param, "code": code}}, status_code=status)


class APIKeyMiddleware:
    """Every route but ``/health`` (for load balancers) needs ``Authorization: Bearer KEY``: what the OpenAI clients
    send from their ``api_key``. A wrong or missing key gets OpenAI's 401 before the request body is read; so do two
    Authorization headers (whichever one was read, a proxy that appends its own would be bypassed) and a key sent in
    the URL (URLs are logged: the access log shows it withheld, :class:`~grounded_rag.serving.limits.WithheldQuery`)."""

    OPEN = frozenset({"/health"})
    URL_KEYS = frozenset({b"api_key", b"apikey", b"key", b"token", b"access_token"})

    def __init__(self, app, key: str) -> None:
        self.app, self.expected = app, b"Bearer " + key.encode()

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http" and scope["path"] not in self.OPEN:
            problem = self._problem(scope)
            if problem is not None:
                response = error(401, f"this server needs an API key and {problem}; pass api_key=... to the client "
                                      "(it is sent as Authorization: Bearer KEY)", code="invalid_api_key")
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)

    def _problem(self, scope) -> str | None:
        """What is wrong with the request's key, or None."""
        sent = [v for k, v in scope["headers"] if k == b"authorization"]
        if len(sent) > 1:
            return f"the request sent {len(sent)} Authorization headers; send one"
        in_url = {name.partition(b"=")[0].lower() for name in scope.get("query_string", b"").split(b"&")}
        if in_url & self.URL_KEYS and not sent:
            return "the request sent a key in the URL, where logs and proxies keep it; send it in a header instead"
        given = sent[0] if sent else b""
        scheme, _, credentials = given.partition(b" ")
        if scheme.lower() == b"bearer":  # auth schemes are case-insensitive (RFC 9110): "bearer KEY" is the key
            given = b"Bearer " + credentials.strip()
        if hmac.compare_digest(given, self.expected):
            return None
        return f"the request sent {'a wrong API key' if given else 'no API key'}"


class InternalErrorMiddleware:
    """Our bug, in OpenAI's error format (500), on a connection that stays open. (An ``Exception`` handler would run
    in Starlette's outermost middleware, which re-raises after answering, and uvicorn then drops the keep-alive
    connection without a ``Connection: close``: the client's next request on it fails.) A response already begun
    (a stream) cannot become a 500: the error goes on, and the connection ends."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def sending(message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except Exception as exc:
            if started:
                raise
            log.exception("internal error")
            await error(500, f"internal server error: {type(exc).__name__}: {exc}", kind="server_error")(
                scope, receive, send)


class BodyLimitMiddleware:
    """A request body over ``limit`` bytes gets 413 as soon as its size is known (a declared Content-Length, or the
    bytes counted as they arrive), and one not whole within ``timeout`` seconds of the first read gets 408 (however
    it trickles in): neither is parsed or held on to. (The route's body reading passes the HTTPException on to the
    app's handlers.)"""

    def __init__(self, app, limit: int, timeout: float) -> None:
        self.app, self.limit, self.timeout = app, limit, timeout

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = next((v for k, v in scope["headers"] if k == b"content-length"), b"")
        if declared.isdigit() and int(declared) > self.limit:
            await error(413, self._too_large(int(declared)), code="request_too_large")(scope, receive, send)
            return
        received, whole, deadline = 0, False, None

        async def counted():
            nonlocal received, whole, deadline
            if whole:  # after the body: only a disconnect can come, and the route may wait for it
                return await receive()
            now = asyncio.get_running_loop().time()
            deadline = deadline or now + self.timeout  # the whole body within the timeout, not each of its pieces
            try:
                message = await asyncio.wait_for(receive(), max(0.0, deadline - now))
            except asyncio.TimeoutError:  # the builtin TimeoutError from Python 3.11 on
                raise StarletteHTTPException(408, f"the request body did not arrive within {self.timeout:.0f} s; "
                                                  "send it whole") from None
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                whole = not message.get("more_body", False)
                if received > self.limit:
                    raise StarletteHTTPException(413, self._too_large(received))
            return message

        await self.app(scope, counted, send)

    def _too_large(self, size: int) -> str:
        return (f"the request body has {size} bytes or more, over this server's limit of {self.limit}; send fewer or "
                "shorter documents")
