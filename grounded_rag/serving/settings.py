"""Server settings: one validated object shared by the single-process server and the Ray deployment."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator


class ServeSettings(BaseModel):
    """How the server batches and what it refuses.

    Requests that arrive within ``batch_window_ms`` of each other join one ``generate_batch`` call
    (a short wait buys a much larger batch: decoding is latency-bound on small models), up to
    ``max_batch_size`` questions and ``max_batch_tokens`` tokens of prompt and answer over both
    streams, so one batch cannot exhaust memory.
    """

    model_config = ConfigDict(extra="forbid")

    model: str | None = Field(None, description="packaged alias, .gguf file, HF id or folder; None = embedded default")
    backend: str = Field("auto", pattern="^(auto|torch|llama_cpp)$", description="where the model runs: torch, "
                         "llama_cpp (a GGUF file on llama.cpp) or auto (llama.cpp for a GGUF on a CPU where installed)")
    api_key: SecretStr | None = Field(
        None, description="clients must send it as `Authorization: Bearer KEY` (what OpenAI clients do with api_key)")
    served_model_name: str | None = Field(None, description="the name clients pass as `model`; default: the model's")
    batch_window_ms: float = Field(15.0, ge=0, le=1000, description="how long the first request waits for others")
    max_batch_size: int = Field(32, ge=1, le=256, description="questions per batched decode")
    max_batch_tokens: int = Field(
        65536, ge=256, description="prompt + new tokens, both streams, summed over one batch"
    )
    max_tokens_limit: int = Field(1024, ge=1, description="largest max_tokens a request may ask for")
    max_documents: int = Field(64, ge=1, description="most documents in one request")
    max_prompt_chars: int = Field(
        200_000, ge=1000, description="every text of a request (messages, documents, titles, metadata, ids, stop "
        "strings, settings), in characters: refused (413) before any model work")
    max_request_bytes: int = Field(
        2_000_000, ge=4096, description="a request body's size: refused (413) before it is read whole")
    max_queued: int = Field(
        64, ge=1, description="requests taken and not yet answered (batched and streamed): two rounds of the default "
        "batch; past it: 503 with Retry-After")
    max_request_cost: int = Field(
        65536, ge=256, description="a request's model work, in tokens: its prompt (at most the context window) and "
        "new tokens, each times its streams, plus its passages' relevance pass; over it: 413 before any model work")
    large_request_cost: int = Field(
        8192, ge=1, description="a request costing more runs alone, and smaller requests run between its layers and "
        "its tokens (on a CPU) or before it (on a GPU)")
    max_queued_cost: int | None = Field(
        None, ge=256, description="the cost of every request taken and not yet answered; past it: 503 with "
        "Retry-After; default: twice max_request_cost")
    max_queue_wait_s: float = Field(
        60.0, gt=0, description="the seconds of work the queue may hold, at the pace the server has measured; past "
        "it: 503 with a Retry-After of the excess")
    stream_stall_s: float = Field(
        30.0, gt=0, description="a stream whose client has read nothing for this long while its answer waits to be "
        "sent is stopped (its decoding pauses before that)")
    store: str | None = Field(
        None, description="a folder made by `grounded-rag ingest`: a request without documents is answered from the "
        "passages retrieved from it for its question")
    retrieve_k: int = Field(3, ge=1, le=64, description="with `store`: passages retrieved for a question")
    header_timeout_s: float = Field(
        10.0, gt=0, description="a connection must send a whole request head this many seconds after it opens (or "
        "after its last response), else it is closed")
    idle_timeout_s: float = Field(5.0, gt=0, description="an idle keep-alive connection is closed after this long")
    rate_limit: str | None = Field(
        None, description="requests per client address, e.g. '60/minute' or '10/second;300/hour' (slowapi): "
        "past it, 429 with Retry-After; /health is not limited")
    body_timeout_s: float = Field(
        30.0, gt=0, description="a client must send its request body within this many seconds (else 408)")

    @field_validator("api_key")
    @classmethod
    def _api_key(cls, value: SecretStr | None) -> SecretStr | None:
        """A key clients can send: HTTP headers carry ASCII (the OpenAI clients fail on anything else before they
        send), and a space would split the ``Bearer KEY`` header."""
        if value is not None and not value.get_secret_value():
            raise ValueError("the API key is empty (an unset shell variable?); pass a key, or none for no key")
        if value is not None and not all("!" <= c <= "~" for c in value.get_secret_value()):
            raise ValueError("the API key must be printable ASCII without spaces (it travels in the Authorization "
                             "header, which carries ASCII only); choose another, e.g. from: openssl rand -hex 24")
        return value

    @field_validator("rate_limit")
    @classmethod
    def _rate_limit(cls, value: str | None) -> str | None:
        if value is None:
            return None
        from limits import parse_many

        try:
            limits = parse_many(value)
        except ValueError:
            raise ValueError(f"{value!r} is not a rate limit; write it as slowapi does, e.g. '60/minute' or "
                             "'10/second;300/hour'") from None
        if any(limit.amount < 1 for limit in limits):  # a server that answers every request with 429
            raise ValueError(f"{value!r} allows no request at all; allow at least 1 per period, e.g. '60/minute'")
        return value
