"""The FastAPI app: OpenAI's routes plus the grounded extension, over any backend (the
single-process batcher or a Ray Serve replica)."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Protocol

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..config import DecodingConfig
from ..errors import ContextWindowError, InputError
from .protocol import (
    ChatRequest,
    CompletionRequest,
    GroundedFields,
    TokenizeRequest,
    chat_response,
    completion_response,
    finish_reason,
    grounding,
    new_id,
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


def error(status: int, message: str, kind: str = "invalid_request_error", param: str | None = None,
          code: str | None = None) -> JSONResponse:
    """OpenAI's error body, which every OpenAI client turns into its own exception with this message."""
    return JSONResponse({"error": {"message": message, "type": kind, "param": param, "code": code}}, status_code=status)


def create_app(backend: Backend, settings: ServeSettings | None = None,
               base_config: DecodingConfig | None = None) -> FastAPI:
    """The app; ``backend.start()``/``stop()`` (when present) run in its lifespan."""
    settings = settings or ServeSettings()
    base = base_config or DecodingConfig()

    app = FastAPI(title="grounded-rag", summary="OpenAI-compatible Grounded Decoding server",
                  lifespan=_lifespan(backend))
    _install_error_handlers(app)

    def check_model(req: GroundedFields) -> JSONResponse | None:
        if req.model != backend.worker.model_name:
            return error(404, f"model {req.model!r} is not served here; use model={backend.worker.model_name!r} "
                              "(GET /v1/models lists it)", kind="not_found_error", param="model",
                         code="model_not_found")
        return None

    @app.get("/health")
    async def health() -> dict[str, Any]:
        """Liveness, and how this process has batched so far (per replica under Ray)."""
        return {"status": "ok", "model": backend.worker.model_name, **backend.worker.stats}

    @app.get("/v1/models")
    async def models() -> dict[str, Any]:
        return {"object": "list", "data": [{"id": backend.worker.model_name, "object": "model", "created": 0,
                                            "owned_by": "grounded-rag",
                                            "max_model_len": backend.worker.decoder.context_window}]}

    @app.post("/tokenize")
    async def tokenize(req: TokenizeRequest) -> dict[str, Any]:
        """vLLM's ``/tokenize``: the served model's own token ids, for clients that count tokens."""
        if (bad := check_model(req)) is not None:
            return bad  # type: ignore[return-value]
        if len(req.prompt) > settings.max_prompt_chars:
            raise ContextWindowError(f"the prompt has {len(req.prompt)} characters, over this server's limit of "
                                     f"{settings.max_prompt_chars}")
        tokens = await backend.worker.tokenize(req.prompt, req.add_special_tokens)
        return {"tokens": tokens, "count": len(tokens), "max_model_len": backend.worker.decoder.context_window}

    @app.post("/v1/chat/completions")
    async def chat(req: ChatRequest):
        if (bad := check_model(req)) is not None:
            return bad
        job = to_job(req, req.question(), req.system(), base, settings)
        if req.stream:
            return await _stream_response(backend, req, job, chat=True)
        return _with_headers(chat_response(await backend.generate(job), backend.worker.model_name, req.trace))

    @app.post("/v1/completions")
    async def completions(req: CompletionRequest):
        if (bad := check_model(req)) is not None:
            return bad
        job = to_job(req, req.prompt, None, base, settings)  # type: ignore[arg-type]
        if req.stream:
            return await _stream_response(backend, req, job, chat=False)
        return _with_headers(completion_response(await backend.generate(job), backend.worker.model_name, req.trace))

    return app


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
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        errors = exc.errors()
        if any(e.get("type") == "json_invalid" for e in errors):
            where = errors[0].get("ctx", {}).get("error", "")
            return error(400, f"the request body is not valid JSON ({where}); send a JSON object", code="invalid_json")
        parts = []
        for e in errors:
            loc = ".".join(str(x) for x in e["loc"] if x != "body")
            parts.append(f"{loc}: {e['msg']}" if loc else e["msg"])
        return error(400, "invalid request: " + "; ".join(parts))

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        return error(exc.status_code, str(exc.detail), kind="not_found_error" if exc.status_code == 404 else
                     "invalid_request_error")

    @app.exception_handler(ContextWindowError)
    async def _too_long(_: Request, exc: ContextWindowError) -> JSONResponse:
        return error(413, str(exc), code="context_length_exceeded")

    @app.exception_handler(InputError)
    async def _bad_input(_: Request, exc: InputError) -> JSONResponse:
        return error(400, str(exc))

    @app.exception_handler(ValidationError)
    async def _bad_model(_: Request, exc: ValidationError) -> JSONResponse:
        return error(400, "invalid request: " + validation_message(exc))

    @app.exception_handler(Exception)
    async def _internal(_: Request, exc: Exception) -> JSONResponse:
        log.exception("internal error")
        return error(500, f"internal server error: {type(exc).__name__}: {exc}", kind="server_error")


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
    })


async def _stream_response(backend: Backend, req: GroundedFields, job: Job, chat: bool) -> StreamingResponse:
    """Server-sent events in OpenAI's chunk format, ending with ``data: [DONE]``.

    Validation and the context-window check run before the first byte, so they are still 4xx.
    The last content chunk carries ``finish_reason`` and ``grounding``; a usage chunk follows when
    ``stream_options.include_usage`` is set."""
    prompt_tokens, pieces = await backend.stream(job)
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
        except Exception as exc:  # noqa: BLE001 - headers are sent: report in-band, as OpenAI does
            log.exception("stream failed")
            yield f"data: {json.dumps({'error': {'message': str(exc), 'type': 'server_error'}})}\n\n"
        finally:
            await pieces.aclose()  # type: ignore[attr-defined]
        yield "data: [DONE]\n\n"

    return StreamingResponse(events(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
