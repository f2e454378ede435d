"""The FastAPI app: OpenAI's routes plus the grounded extension, over any backend (the
single-process batcher or a Ray Serve replica)."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any, Protocol

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..config import DecodingConfig
from ..errors import ContextWindowError, InputError
from ..inputs import text_input
from ..retrieval import ChromaStore
from .admission import OverBudget, Overloaded, check_budget
from .discovery import card_fields
from .limits import add_rate_limit, withhold_url_queries
from .middleware import APIKeyMiddleware, BodyLimitMiddleware, InternalErrorMiddleware, error
from .protocol import (
    ChatRequest,
    CompletionRequest,
    GroundedFields,
    TokenizeRequest,
    chat_response,
    check_size,
    completion_response,
    finish_reason,
    grounding,
    new_id,
    require_question,
    retrieves,
    to_job,
    usage,
    validation_message,
)
from .settings import ServeSettings
from .worker import Job, ModelWorker, Outcome

log = logging.getLogger("grounded_rag.serving")


class Backend(Protocol):
    """What the routes need from the model side: its worker (model name, counters, tokenizer),
    and how a job is decoded (batched in-process, or by Ray Serve's ``@serve.batch``)."""

    worker: ModelWorker

    async def generate(self, job: Job) -> Outcome: ...

    async def stream(self, job: Job) -> tuple[int, AsyncIterator[tuple[str, Outcome | None]]]: ...


class ErrorDetail(BaseModel):
    message: str
    type: str
    param: str | None = None
    code: str | None = None


class ErrorBody(BaseModel):
    """OpenAI's error body: what every failure returns."""

    error: ErrorDetail


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorBody, "description": what} for code, what in (
        (400, "bad input: the message names the field and the fix"),
        (401, "a wrong or missing API key (when the server has one), two Authorization headers, a key in the URL"),
        (404, "an unknown model or route"),
        (405, "a method the route does not take"),
        (408, "the request body did not arrive in time"),
        (413, "the request or prompt is over the server's limits (its size, its cost in model work) or the model's "
              "context window"),
        (415, "a body that is not JSON: sent as a form, or compressed"),
        (503, "the queue is full (requests, their cost, or seconds of work); retry after Retry-After seconds"),
    )
}


ANSWER: dict[int | str, dict[str, Any]] = {200: {
    "description": "the answer, with its grounding; with stream=true, server-sent events ending with data: [DONE]",
    "content": {"application/json": {}, "text/event-stream": {}}}}


def create_app(backend: Backend, settings: ServeSettings | None = None,
               base_config: DecodingConfig | None = None) -> FastAPI:
    """The app; ``backend.start()``/``stop()`` (when present) run in its lifespan."""
    settings = settings or ServeSettings()
    app = FastAPI(title="grounded-rag", summary="OpenAI-compatible Grounded Decoding server",
                  lifespan=_lifespan(backend), responses=ERROR_RESPONSES)
    _install_error_handlers(app)
    _add_routes(app, backend, settings, base_config or DecodingConfig())
    withhold_url_queries()  # a key sent as ?api_key=... is refused, and not written to the access log either
    app.add_middleware(InternalErrorMiddleware)  # added first: innermost, right around the routes' own handlers
    app.add_middleware(BodyLimitMiddleware, limit=settings.max_request_bytes, timeout=settings.body_timeout_s)
    add_rate_limit(app, settings, APIKeyMiddleware.OPEN)  # inside the key check: a caller without it is not counted
    if settings.api_key is not None:  # added last: runs first, so no body is read for a caller without the key
        app.add_middleware(APIKeyMiddleware, key=settings.api_key.get_secret_value())
    return app


def _add_routes(app: FastAPI, backend: Backend, settings: ServeSettings, base: DecodingConfig) -> None:
    """The OpenAI-compatible routes, /tokenize and /health."""
    store = ChromaStore.open(settings.store) if settings.store is not None else None

    def check_model(req: GroundedFields) -> JSONResponse | None:
        if req.model != backend.worker.model_name:
            return error(404, f"model {req.model!r} is not served here; use model={backend.worker.model_name!r} "
                              "(GET /v1/models lists it)", kind="not_found_error", param="model",
                         code="model_not_found")
        return None

    @app.api_route("/health", methods=["GET", "HEAD"])  # HEAD: what some load balancers' checks send
    async def health() -> dict[str, Any]:
        """Liveness; whether the queue is full ("status": "saturated", with why: the next request gets 503), and how
        this process has batched so far (per replica under Ray)."""
        load = backend.load() if hasattr(backend, "load") else {}
        return {"status": "saturated" if load.get("saturated") else "ok", "model": backend.worker.model_name,
                **backend.worker.stats, **load}

    @app.get("/v1/models")
    async def models() -> dict[str, Any]:
        card = {"id": backend.worker.model_name, "object": "model", "created": 0, "owned_by": "grounded-rag",
                "max_model_len": backend.worker.decoder.context_window}
        card.update(card_fields(settings))  # release, model and store: whether `grounded-rag ask` may use this server
        return {"object": "list", "data": [card]}

    @app.post("/tokenize")
    async def tokenize(req: TokenizeRequest) -> dict[str, Any]:
        """vLLM's ``/tokenize``: the served model's own token ids, for clients that count tokens."""
        if (bad := check_model(req)) is not None:
            return bad  # type: ignore[return-value]
        check_size(req, settings)
        text_input(req.prompt, "prompt")
        tokens = await backend.worker.tokenize(req.prompt, req.add_special_tokens)
        return {"tokens": tokens, "count": len(tokens), "max_model_len": backend.worker.decoder.context_window}

    @app.post("/v1/chat/completions", responses=ANSWER)
    async def chat(req: ChatRequest, request: Request):
        if (bad := check_model(req)) is not None:
            return bad
        job = await _job(req, req.question(), req.system(), base, settings, store, backend.worker)
        if req.stream:
            return await _unless_abandoned(request, _stream_response(backend, req, job, chat=True))
        outcome = await _unless_abandoned(request, backend.generate(job))
        return _with_headers(chat_response(outcome, backend.worker.model_name, req.trace))

    @app.post("/v1/completions", responses=ANSWER)
    async def completions(req: CompletionRequest, request: Request):
        if (bad := check_model(req)) is not None:
            return bad
        job = await _job(req, req.prompt, None, base, settings, store, backend.worker)  # type: ignore[arg-type]
        if req.stream:
            return await _unless_abandoned(request, _stream_response(backend, req, job, chat=False))
        outcome = await _unless_abandoned(request, backend.generate(job))
        return _with_headers(completion_response(outcome, backend.worker.model_name, req.trace))


async def _job(req: GroundedFields, question: str, system: str | None, base: DecodingConfig,
               settings: ServeSettings, store: ChromaStore | None, worker: ModelWorker) -> Job:
    """The request as the decoder's job, with its cost counted and checked against the server's budget (413 over
    it); without documents, on a server with a store, its passages are retrieved first (on the model thread: the
    query embedding is torch work), after the size check and before the rest of validation."""
    if not retrieves(req, settings) or store is None:
        job = to_job(req, question, system, base, settings)
    else:
        check_size(req, settings)
        require_question(question)  # before the search embeds it
        hits = await worker.call(store.search, question, req.retrieve_k or settings.retrieve_k)
        job = to_job(req, question, system, base, settings, retrieved=hits)
    cost = await worker.counter.cost(job)
    check_budget(cost, settings)
    job.cost = cost.total
    return job


class ClientGone(Exception):
    """The client closed the connection before its answer was ready."""


async def _unless_abandoned(request: Request, work):
    """``work``'s result, unless the client disconnects first: then it is cancelled (a request still queued costs
    no decoding; a stream not yet begun is skipped) and ClientGone is raised, answered with nothing."""
    task = asyncio.ensure_future(work)

    async def watch() -> None:
        while not await request.is_disconnected():
            await asyncio.sleep(0.25)

    watcher = asyncio.ensure_future(watch())
    try:
        await asyncio.wait({task, watcher}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        watcher.cancel()
    if not task.done():
        task.cancel()
        raise ClientGone
    return task.result()


def _lifespan(backend: Backend):
    """``backend.start()``/``stop()`` (when present) around the app's life."""

    @asynccontextmanager
    async def lifespan(_: FastAPI):
        if hasattr(backend, "start"):
            await backend.start()
        try:
            yield
        finally:
            if hasattr(backend, "stop"):
                await backend.stop()

    return lifespan


def _install_error_handlers(app: FastAPI) -> None:
    """Every failure in OpenAI's error format: 400 for bad input, 413 over the window, 500 only for our bugs."""
    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = exc.errors()
        if any(e.get("type") == "json_invalid" for e in errors):
            where = errors[0].get("ctx", {}).get("error", "")
            return error(400, f"the request body is not valid JSON ({where}); send a JSON object", code="invalid_json")
        if any(tuple(e["loc"]) == ("body",) for e in errors):  # the body as a whole: no object came
            return _not_an_object(request, errors)
        parts, fields = [], []
        for e in errors:
            loc = ".".join(str(x) for x in e["loc"] if x != "body")
            parts.append(f"{loc}: {e['msg']}" if loc else e["msg"])
            fields.append(next((str(x) for x in e["loc"] if x != "body"), None))
        # OpenAI names the field in "param": the request's top-level field, where the errors share one
        param = fields[0] if fields and None not in fields and len(set(fields)) == 1 else None
        return error(400, "invalid request: " + "; ".join(parts), param=param)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.detail == UNREADABLE_BODY:  # FastAPI: json.loads failed other than by a JSONDecodeError
            return _unreadable(request)
        response = error(exc.status_code, str(exc.detail), kind="not_found_error" if exc.status_code == 404 else
                         "invalid_request_error")
        response.headers.update(exc.headers or {})  # a 405's Allow, say
        return response

    @app.exception_handler(ContextWindowError)
    async def _too_long(_: Request, exc: ContextWindowError) -> JSONResponse:
        return error(413, str(exc), code="context_length_exceeded")

    @app.exception_handler(OverBudget)
    async def _over_budget(_: Request, exc: OverBudget) -> JSONResponse:
        return error(413, str(exc), code="request_too_costly")

    @app.exception_handler(InputError)
    async def _bad_input(_: Request, exc: InputError) -> JSONResponse:
        return error(400, str(exc))

    @app.exception_handler(ValidationError)
    async def _bad_model(_: Request, exc: ValidationError) -> JSONResponse:
        return error(400, "invalid request: " + validation_message(exc))

    @app.exception_handler(Overloaded)
    async def _busy(_: Request, exc: Overloaded) -> JSONResponse:
        response = error(503, str(exc), kind="server_busy", code="overloaded")
        response.headers["Retry-After"] = str(exc.retry_after)
        return response

    @app.exception_handler(ClientGone)
    async def _gone(_: Request, exc: ClientGone) -> JSONResponse:
        return error(499, "the client closed the connection", code="client_closed_request")  # nobody reads it


UNREADABLE_BODY = "There was an error parsing the body"


def _unreadable(request: Request) -> JSONResponse:
    """A body that is not JSON text at all: compressed, not UTF-8, or nested deeper than the parser goes."""
    encoding = request.headers.get("content-encoding", "identity").strip().lower()
    if encoding not in ("", "identity"):
        return error(415, f"Content-Encoding {encoding!r} is not supported; send the JSON body uncompressed",
                     code="unsupported_content_encoding")
    return error(400, "the request body could not be read as JSON (not UTF-8 text, nested too deeply, or a number "
                      "of more than 4300 digits); send a JSON object", code="invalid_json")


def _not_an_object(request: Request, errors: Sequence[dict[str, Any]]) -> JSONResponse:
    """The body is not a JSON object: sent as a form (``curl -d`` without a Content-Type header), or JSON of another
    kind (an array, a string)."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    sent = isinstance(errors[0].get("input"), bytes)  # JSON was not read: the header did not say JSON
    if sent or (kind and kind != "application/json" and not kind.endswith("+json")):
        came = f"as {kind!r}" if kind else "without a Content-Type"
        return error(415, f"the request body must be JSON sent with Content-Type: application/json (this one came "
                          f"{came}); with curl, add -H 'Content-Type: application/json'",
                     code="unsupported_media_type")
    given = type(errors[0].get("input")).__name__
    shown = {"list": "an array", "str": "a string", "int": "a number", "float": "a number", "bool": "a boolean",
             "NoneType": "empty (or null)"}.get(given, given)
    return error(400, f"the request body must be a JSON object with the request's fields, not {shown}",
                 code="invalid_json")


def _with_headers(body: dict[str, Any]) -> JSONResponse:
    """The body, and trust and citations as headers too: clients that drop unknown body fields
    (LangChain's ChatOpenAI) still expose headers (``include_response_headers=True``)."""
    g = body["grounding"]
    return JSONResponse(body, headers={
        "x-grounding-trust": f"{g['trust']:.6f}",
        "x-grounding-method": g["method"],
        "x-grounding-citations": ",".join(str(k) for k in g["cited_documents"]),
        "x-grounding-support": "" if g["support"] is None else f"{g['support']:.4f}",
        "x-grounding-abstained": "true" if g["abstained"] else "false",
        "x-grounding-quoted": "true" if g.get("quoted") else "false",
        "x-grounding-insisted": "true" if g.get("insisted") else "false",
        "x-grounding-conflict": "true" if g.get("conflict") else "false",
    })


async def _stream_response(backend: Backend, req: GroundedFields, job: Job, chat: bool) -> StreamingResponse:
    """Server-sent events in OpenAI's chunk format, ending with ``data: [DONE]``.

    Validation and the context-window check run before the first byte, so they are still 4xx.
    The last content chunk carries ``finish_reason`` and ``grounding``; a usage chunk follows when
    ``stream_options.include_usage`` is set."""
    _, pieces = await backend.stream(job)  # the usage chunk counts the outcome's own prompt tokens
    rid, created, model = new_id("chatcmpl" if chat else "cmpl"), int(time.time()), backend.worker.model_name
    include_usage = bool((req.stream_options or {}).get("include_usage"))

    def chunk(text: str | None, finish: str | None = None, extra: dict[str, Any] | None = None,
              first: bool = False) -> str:
        if chat:
            delta: dict[str, Any] = {"role": "assistant", "content": ""} if first else {}
            if text:
                delta["content"] = text
            choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
            body = {"id": rid, "object": "chat.completion.chunk", "created": created, "model": model,
                    "choices": [choice]}
        else:
            choice = {"index": 0, "text": text or "", "logprobs": None, "finish_reason": finish}
            body = {"id": rid, "object": "text_completion", "created": created, "model": model,
                    "choices": [choice]}
        body.update(extra or {})
        return f"data: {json.dumps(body)}\n\n"

    async def events() -> AsyncIterator[str]:
        if chat:
            yield chunk(None, first=True)
        try:
            async for piece, outcome in pieces:
                if outcome is None:
                    yield chunk(piece)
                    continue
                if piece:
                    yield chunk(piece)
                yield chunk(None, finish_reason(outcome.result), {"grounding": grounding(outcome.result, req.trace)})
                if include_usage:
                    body = {"id": rid, "object": "chat.completion.chunk" if chat else "text_completion",
                            "created": created, "model": model, "choices": [], "usage": usage(outcome)}
                    yield f"data: {json.dumps(body)}\n\n"
        except Exception as exc:  # headers are sent: report in-band, as OpenAI does
            log.exception("stream failed")
            yield f"data: {json.dumps({'error': {'message': str(exc), 'type': 'server_error'}})}\n\n"
        finally:
            await pieces.aclose()  # type: ignore[attr-defined]
        yield "data: [DONE]\n\n"

    return StreamingResponse(events(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
