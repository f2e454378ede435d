"""Server settings: one validated object shared by the single-process server and the Ray deployment."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class ServeSettings(BaseModel):
    """How the server batches and what it refuses.

    Requests that arrive within ``batch_window_ms`` of each other join one ``generate_batch`` call
    (a short wait buys a much larger batch: decoding is latency-bound on small models), up to
    ``max_batch_size`` questions and ``max_batch_tokens`` tokens of prompt and answer over both
    streams, so one batch cannot exhaust memory.
    """

    model_config = ConfigDict(extra="forbid")

    model: str | None = Field(None, description="packaged alias, .gguf file, HF id or folder; None = embedded default")
    served_model_name: str | None = Field(None, description="the name clients pass as `model`; default: the model's")
    batch_window_ms: float = Field(15.0, ge=0, le=1000, description="how long the first request waits for others")
    max_batch_size: int = Field(32, ge=1, le=256, description="questions per batched decode")
    max_batch_tokens: int = Field(
        65536, ge=256, description="prompt + new tokens, both streams, summed over one batch"
    )
    max_tokens_limit: int = Field(1024, ge=1, description="largest max_tokens a request may ask for")
    max_documents: int = Field(64, ge=1, description="most documents in one request")
    max_prompt_chars: int = Field(
        200_000, ge=1000, description="question + documents, in characters: refused (413) before tokenizing"
    )
