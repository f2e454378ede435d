"""The wire format: OpenAI's chat/completions bodies plus the grounded extension, and the turn of a
request into a :class:`Job` for the decoder.

The extension lives in the same JSON body (the ``openai`` client sends it with ``extra_body=``):

- ``documents``: the retrieved passages, each a string or ``{"text", "id", "title", "score", "trusted"}``;
- ``score_space``: what the scores are (``relevance`` = cosine similarity, the default; or a
  vector store's distance: ``l2``, ``cosine``, ``ip``, ``exp_l2``, ``exp_cosine``);
- ``decoding``: any :class:`~grounded_rag.DecodingConfig` field (``method``, ``rho_max``, ``tau_r``,
  ``gamma``, ``b``, ...);
- ``trace``: ``true`` to get the per-token trace in the response.

A request without documents is refused (400): grounded decoding needs evidence, and a silent
ungrounded answer would look grounded to the client.
"""

from __future__ import annotations

import json
import math
import time
import uuid
from typing import Annotated, Any, Literal, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    ValidationError,
    WithJsonSchema,
    field_validator,
)

from ..config import DecodingConfig, explain
from ..menu import MethodName
from ..errors import ConfigError, ContextWindowError, InputError
from ..inputs import documents_and_scores, visible, with_scores
from ..retrieval import Hit
from ..trust import DistanceSpace, is_number
from ..types import Document, GenerationResult
from .settings import ServeSettings
from .worker import Job, Outcome

NO_DOCUMENTS = (
    "no documents were given and this server has no store (grounded-rag serve --store DIR); grounded decoding answers "
    "from retrieved passages: send them in the body as "
    "\"documents\": [{\"text\": ..., \"score\": ...}] (openai client: extra_body={\"documents\": [...]}; "
    "LangChain ChatOpenAI: extra_body=...; LlamaIndex OpenAILike: additional_kwargs={\"extra_body\": ...})"
)


class DocumentIn(BaseModel):
    """One retrieved passage as the client sends it."""

    model_config = ConfigDict(extra="forbid")

    text: StrictStr
    id: StrictStr | StrictInt | None = None  # strict: true would become "1"
    title: StrictStr | None = None
    score: StrictFloat | StrictInt | None = Field(None, allow_inf_nan=False,
                                                  description="retriever score in `score_space` (a number)")
    metadata: dict[str, Any] = Field(default_factory=dict)
    trusted: StrictBool = Field(False, description="the client wrote this passage (Document.trusted), not retrieved")

    @field_validator("score", mode="before")
    @classmethod
    def _fits_a_float(cls, value: Any) -> Any:
        """A whole number past a float's range (1e308) is no score; said here, before the finite check overflows."""
        if isinstance(value, int) and not isinstance(value, bool) and not is_number(value):
            raise ValueError("is a whole number too large for a score; send a number within ±1e308")
        return value

    @field_validator("metadata")
    @classmethod
    def _finite(cls, value: dict[str, Any]) -> dict[str, Any]:
        """Metadata goes back in the response (and the trace), which must be JSON: Python's parser takes NaN and
        Infinity, JSON has neither."""
        def finite(v: Any) -> bool:
            if isinstance(v, float):
                return math.isfinite(v)
            items = v.values() if isinstance(v, dict) else v if isinstance(v, list) else ()
            return all(finite(x) for x in items)

        try:
            ok = finite(value)
        except RecursionError:
            raise ValueError("nests too deeply; send flat values") from None
        if not ok:
            raise ValueError("holds NaN or Infinity, which JSON has no numbers for; send such a value as a string")
        return value


class GroundedFields(BaseModel):
    """The grounded extension, common to both endpoints."""

    model_config = ConfigDict(extra="forbid")

    model: StrictStr
    documents: list[StrictStr | DocumentIn] | None = None
    score_space: DistanceSpace = "relevance"
    retrieve_k: StrictInt | None = Field(None, ge=1, le=64, description="without documents, on a server started with "
                                   "--store: how many passages to retrieve for the question (default: the server's)")
    decoding: dict[str, Any] = Field(default_factory=dict, description="DecodingConfig fields")
    trace: StrictBool = False
    # OpenAI sampling fields, mapped onto DecodingConfig
    # strict: a wrong type is refused (400 naming the field), never converted ("2" → 2, true → 1, "yes" → true)
    max_tokens: StrictInt | None = Field(None, ge=1)
    max_completion_tokens: StrictInt | None = Field(None, ge=1)
    temperature: StrictFloat | None = Field(None, ge=0, le=2, allow_inf_nan=False)
    top_p: StrictFloat | None = Field(None, gt=0, le=1, allow_inf_nan=False)
    stop: StrictStr | list[StrictStr] | None = None
    seed: StrictInt | None = None
    stream: StrictBool = False
    stream_options: dict[str, Any] | None = None
    # OpenAI fields accepted only at their neutral value (we cannot honour anything else)
    n: StrictInt = 1
    presence_penalty: StrictFloat = Field(0.0, allow_inf_nan=False)
    frequency_penalty: StrictFloat = Field(0.0, allow_inf_nan=False)
    logprobs: StrictBool | StrictInt | None = None
    logit_bias: dict[str, float] | None = None
    user: StrictStr | None = None

    def unsupported(self) -> str | None:
        if self.n != 1:
            return "n must be 1: the server returns one answer per request"
        if self.presence_penalty or self.frequency_penalty:
            return "presence_penalty and frequency_penalty are not supported; leave them at 0"
        if self.logprobs:
            return "logprobs are not returned; ask for the grounded per-token trace with \"trace\": true"
        if self.logit_bias:
            return "logit_bias is not supported"
        return None


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")

    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: StrictStr | list[dict[str, Any]] | None = None

    def text(self) -> str:
        if isinstance(self.content, list):
            parts = []
            for part in self.content:
                if part.get("type") != "text":
                    raise InputError(f"message content part of type {part.get('type')!r} is not supported; send text")
                if not isinstance(part.get("text"), str):
                    raise InputError(f"a text content part's 'text' is {type(part.get('text')).__name__}; send a "
                                     "string")
                parts.append(part["text"])
            return "\n".join(parts)  # as vLLM joins them: "Where is" + "the tower?" is not "Where isthe tower?"
        return self.content or ""


class ChatRequest(GroundedFields):
    """``POST /v1/chat/completions``: the question is the last user message; a system message, if
    any, replaces the default system prompt. Earlier turns are not part of the grounded prompt."""

    messages: list[ChatMessage] = Field(min_length=1)
    tools: list[Any] | None = None
    tool_choice: Any = None
    response_format: dict[str, Any] | None = None
    parallel_tool_calls: StrictBool | None = None

    def unsupported(self) -> str | None:
        if self.tools:
            return "tools are not supported by the grounded server"
        if self.response_format and self.response_format.get("type") not in (None, "text"):
            return "response_format other than text is not supported"
        return super().unsupported()

    def question(self) -> str:
        users = [m for m in self.messages if m.role == "user"]
        if not users:
            raise InputError("messages contain no user message; the last user message is the question")
        return users[-1].text()

    def system(self) -> str | None:
        systems = [m.text() for m in self.messages if m.role in ("system", "developer")]
        return "\n".join(systems) if systems else None


class TokenizeRequest(BaseModel):
    """``POST /tokenize`` (vLLM's shape): count tokens with the served model's tokenizer."""

    model_config = ConfigDict(extra="forbid")

    model: StrictStr
    prompt: StrictStr
    add_special_tokens: StrictBool = True


class CompletionRequest(GroundedFields):
    """``POST /v1/completions``: the prompt is the question."""

    # one prompt, as a string or a one-item list: said in the schema, checked (with the fix named) by _one_prompt
    prompt: StrictStr | Annotated[list[StrictStr], WithJsonSchema(
        {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 1})]
    echo: StrictBool = False
    suffix: StrictStr | None = None
    best_of: StrictInt | None = None

    @field_validator("prompt")
    @classmethod
    def _one_prompt(cls, value: str | list[str]) -> str:
        if isinstance(value, list):
            if len(value) != 1:
                raise ValueError("send one prompt per request (batching happens on the server)")
            value = value[0]
        return value

    def unsupported(self) -> str | None:
        if self.echo or self.suffix or (self.best_of not in (None, 1)):
            return "echo, suffix and best_of are not supported"
        return super().unsupported()


def to_job(req: GroundedFields, question: str, system: str | None, base: DecodingConfig,
           settings: ServeSettings, retrieved: list[Hit] | None = None) -> Job:
    """Validate the grounded part and build the decoder's input (``retrieved``: the passages the server's store
    gave for a request without documents); raises InputError with the fix."""
    check_size(req, settings)
    problem = req.unsupported()
    if problem:
        raise InputError(problem)
    docs = _retrieved(retrieved) if retrieved is not None else _documents(req, question, settings)
    config = _config(req, system, base, settings.max_tokens_limit)
    require_question(question)
    return Job(question=question, documents=docs, config=config, trace=req.trace)


def require_question(question: str) -> None:
    """A question a reader can see (:func:`~grounded_rag.inputs.visible`), said in the wire's terms."""
    if not visible(question):
        raise InputError("the question is empty; send it as the last user message (chat) or the prompt (completions)")


def check_size(req: BaseModel, settings: ServeSettings) -> None:
    """One budget over every text of the request (messages, system prompt, documents with their titles, ids and
    metadata, stop strings, settings), checked before any tokenizer or model sees it, so no field is a way around it
    and a refused request costs no model time."""
    try:
        chars = len(json.dumps(req.model_dump(mode="json", exclude_defaults=True), ensure_ascii=False))
    except (ValueError, RecursionError):  # pydantic's "Maximum serialization depth exceeded"
        raise InputError("the request nests its JSON too deeply (arrays or objects hundreds of levels down in a "
                         "free-form field such as metadata or decoding); send flat values") from None
    if chars > settings.max_prompt_chars:
        raise ContextWindowError(f"the request holds {chars} characters of text, over this server's limit of "
                                 f"{settings.max_prompt_chars}; send fewer or shorter documents or messages")


def retrieves(req: GroundedFields, settings: ServeSettings) -> bool:
    """Whether the request's passages come from the server's store: it sent none, and the server has one."""
    if req.retrieve_k is not None and req.documents:
        raise InputError("retrieve_k asks the server's store for passages; this request sends its own documents: "
                         "drop one of the two")
    if req.retrieve_k is not None and settings.store is None:
        raise InputError("retrieve_k needs a server started with --store DIR; this one has no store: send documents")
    return not req.documents and settings.store is not None


def _retrieved(hits: list[Hit]) -> list[Document]:
    """The store's passages for the question, each with its cosine similarity as its score (what ``ask --store``
    gives the decoder)."""
    if not hits:
        raise InputError("this server's store holds no passages; add some with grounded-rag ingest FILES --store DIR")
    return with_scores(*documents_and_scores([h.document for h in hits], [h.score for h in hits]))


def _documents(req: GroundedFields, question: str, settings: ServeSettings) -> list[Document]:
    """The request's documents as the core's, scores on the trust scale; within the server's limits."""
    if not req.documents:
        raise InputError(NO_DOCUMENTS)
    if len(req.documents) > settings.max_documents:
        raise InputError(f"{len(req.documents)} documents exceed this server's limit of {settings.max_documents}; "
                         "send the top-ranked ones")
    for i, d in enumerate(req.documents):
        if not (d if isinstance(d, str) else d.text).strip():
            raise InputError(f"documents[{i}] has empty text; drop empty passages before sending")
    items = [d if isinstance(d, str) else {**d.model_dump(exclude_none=True), **({"id": str(d.id)} if d.id is not None
                                                                                  else {})} for d in req.documents]
    return with_scores(*documents_and_scores(items, None, req.score_space))  # type: ignore[arg-type]


def _config(req: GroundedFields, system: str | None, base: DecodingConfig, max_tokens_limit: int) -> DecodingConfig:
    """The server's config with the request's ``decoding`` and OpenAI fields (each set once), on the menu."""
    fields = dict(req.decoding)
    given = {key: f"decoding.{key}" for key, value in fields.items() if value is not None}
    openai_fields = (  # (setting, the field as the client named it, its value)
        ("max_new_tokens", "max_tokens", req.max_tokens),
        ("max_new_tokens", "max_completion_tokens", req.max_completion_tokens),
        ("temperature", "temperature", req.temperature),
        ("top_p", "top_p", req.top_p),
        ("stop", "stop", [req.stop] if isinstance(req.stop, str) else req.stop),
        ("seed", "seed", req.seed),
        ("system_prompt", "system message", system),
    )
    for key, name, value in openai_fields:
        if value is None:
            continue
        # a null under decoding is a setting left unset, as a null OpenAI field is (clients send whole dicts)
        if key in given and fields[key] != value:
            raise InputError(f"{_said(given[key], fields[key])} and {_said(name, value)} differ: {key} is set twice "
                             "with different values; set it once")
        fields[key], given[key] = value, name
    try:
        config = base.override(**fields)
    except ConfigError as exc:  # name the fields as the client sent them: decoding.<setting>
        raise InputError(explain(exc.validation, prefix="decoding") if exc.validation else str(exc)) from None
    if config.method not in get_args(MethodName):  # a research ablation registered in this process
        raise InputError(f"decoding.method={config.method!r} is a research ablation, not a method this server offers; "
                         f"choose one of {', '.join(get_args(MethodName))}")
    if config.max_new_tokens > max_tokens_limit:
        raise InputError(f"max_tokens={config.max_new_tokens} exceeds this server's limit of {max_tokens_limit}")
    return config


def _said(name: str, value: Any) -> str:
    """A field as an error names it: with its value where that is short (not a whole system message)."""
    shown = repr(value)
    return f"{name}={shown}" if len(shown) <= 40 else name


def validation_message(exc: ValidationError, prefix: str = "") -> str:
    """pydantic's errors as one line a client can act on: ``field.path: what is wrong``."""
    parts = []
    for err in exc.errors():
        loc = ".".join(str(x) for x in err["loc"] if x != "body")
        loc = f"{prefix}.{loc}" if prefix and loc else (loc or prefix)
        parts.append(f"{loc}: {err['msg']}" if loc else err["msg"])
    return "; ".join(parts)


# ----------------------------------------------------------------- responses
def finish_reason(result: GenerationResult) -> str:
    return "length" if result.finish_reason == "length" else "stop"


def grounding(result: GenerationResult, with_trace: bool) -> dict[str, Any]:
    """The grounded facts of one answer: trust, citations, the documents used, and on request the
    audit: per-token trace, token ids, the rendered prompts and the documents' text (enough for
    :class:`~grounded_rag.serving.client.GroundedClient` to rebuild the whole result)."""
    out = result.metadata()
    out["grounded"] = result.method != "standard"
    fields = {"id", "title", "score", "trusted"} | ({"text", "metadata"} if with_trace else set())
    out["documents"] = [d.model_dump(include=fields) for d in result.documents]
    out["dropped_document_ids"] = [d.id for d in result.dropped_documents]
    out["irrelevant_document_ids"] = [d.id for d in result.irrelevant_documents]
    out["document_numbers"] = result.document_numbers
    if with_trace:
        out["dropped_documents"] = [d.model_dump(include=fields) for d in result.dropped_documents]
        out["irrelevant_documents"] = [d.model_dump(include=fields) for d in result.irrelevant_documents]
        out["trace"] = [s.model_dump(mode="json") for s in result.trace]
        out["token_ids"] = result.token_ids
        out["prompts"] = result.prompts.model_dump()
        out["prompt_tokens"] = result.prompt_tokens
    return out


def usage(outcome: Outcome) -> dict[str, int]:
    completion = len(outcome.result.token_ids)
    return {"prompt_tokens": outcome.prompt_tokens, "completion_tokens": completion,
            "total_tokens": outcome.prompt_tokens + completion}


def new_id(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:24]}"


def chat_response(outcome: Outcome, model: str, with_trace: bool) -> dict[str, Any]:
    r = outcome.result
    return {
        "id": new_id("chatcmpl"),
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": r.text}, "logprobs": None,
                     "finish_reason": finish_reason(r)}],
        "usage": usage(outcome),
        "grounding": grounding(r, with_trace),
    }


def completion_response(outcome: Outcome, model: str, with_trace: bool) -> dict[str, Any]:
    r = outcome.result
    return {
        "id": new_id("cmpl"),
        "object": "text_completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "text": r.text, "logprobs": None, "finish_reason": finish_reason(r)}],
        "usage": usage(outcome),
        "grounding": grounding(r, with_trace),
    }
