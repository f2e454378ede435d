"""``GroundedRAG``: a LlamaIndex ``CustomLLM`` over Grounded Decoding. The prompt is the question;
documents and scores come with each call (``complete(q, documents=..., scores=...)``)."""

from __future__ import annotations

from typing import Any

from llama_index.core.base.llms.types import CompletionResponse, CompletionResponseGen, LLMMetadata
from llama_index.core.llms.callbacks import llm_completion_callback
from llama_index.core.llms.custom import CustomLLM
from pydantic import Field

from grounded_rag import DecodingConfig, GroundedDecoder, load_shared


class GroundedRAG(CustomLLM):
    """Grounded Decoding as a LlamaIndex LLM (embedded SmolLM2-135M-Instruct by default)."""

    model: str | None = Field(None, description="packaged alias, .gguf, HF id or folder; None = embedded default")
    decoding: DecodingConfig = Field(default_factory=DecodingConfig)

    @property
    def decoder(self) -> GroundedDecoder:
        return load_shared(self.model)  # cached: one loaded model per process and name

    @classmethod
    def class_name(cls) -> str:
        return "GroundedRAG"

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(
            context_window=self.decoder.context_window,
            num_output=self.decoding.max_new_tokens,
            model_name=self.decoder.name,
            is_chat_model=False,
        )

    def _config(self, kwargs: dict[str, Any]) -> DecodingConfig:
        return self.decoding.model_copy(update={k: kwargs[k] for k in DecodingConfig.model_fields if k in kwargs})

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        result = self.decoder.generate(prompt, kwargs.get("documents") or [], kwargs.get("scores"), self._config(kwargs))
        return CompletionResponse(text=result.text, raw=result.model_dump(), additional_kwargs=result.metadata())

    @llm_completion_callback()
    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponseGen:
        config = self._config(kwargs)
        stream = self.decoder.stream_with_result(prompt, kwargs.get("documents") or [], kwargs.get("scores"), config)

        def gen() -> CompletionResponseGen:
            text = ""
            for piece, result in stream:
                text += piece
                if piece or result is not None:
                    extra = result.metadata() if result is not None else {}
                    yield CompletionResponse(text=text, delta=piece, additional_kwargs=extra)

        return gen()
