"""``GroundedRAG``: a LlamaIndex ``CustomLLM`` over Grounded Decoding. The prompt is the question;
documents and scores come with each call (``complete(q, documents=..., scores=...)``)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from llama_index.core.base.llms.types import CompletionResponse, CompletionResponseGen, LLMMetadata
from llama_index.core.llms.callbacks import llm_completion_callback
from llama_index.core.llms.custom import CustomLLM
from pydantic import Field, PrivateAttr

from grounded_rag import DecodingConfig, GenerationResult, GroundedDecoder


@lru_cache(maxsize=4)
def shared_decoder(model: str | None) -> GroundedDecoder:
    return GroundedDecoder.from_pretrained(model)


def result_metadata(result: GenerationResult) -> dict[str, Any]:
    return {
        "trust": result.trust,
        "trust_source": result.trust_source,
        "method": result.method,
        "finish_reason": result.finish_reason,
        "citations": result.citations,
        "trace_summary": result.trace_summary(),
        "dropped_documents": len(result.dropped_documents),
    }


class GroundedRAG(CustomLLM):
    """Grounded Decoding as a LlamaIndex LLM (embedded SmolLM2-135M-Instruct by default)."""

    model: str | None = Field(None, description="packaged alias, .gguf, HF id or folder; None = embedded default")
    decoding: DecodingConfig = Field(default_factory=DecodingConfig)
    _decoder: GroundedDecoder | None = PrivateAttr(None)

    @property
    def decoder(self) -> GroundedDecoder:
        if self._decoder is None:
            self._decoder = shared_decoder(self.model)
        return self._decoder

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
        return CompletionResponse(text=result.text, raw=result.model_dump(), additional_kwargs=result_metadata(result))

    @llm_completion_callback()
    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponseGen:
        config = self._config(kwargs)
        stream = self.decoder.stream_with_result(prompt, kwargs.get("documents") or [], kwargs.get("scores"), config)

        def gen() -> CompletionResponseGen:
            text = ""
            for piece, result in stream:
                text += piece
                if piece or result is not None:
                    extra = result_metadata(result) if result is not None else {}
                    yield CompletionResponse(text=text, delta=piece, additional_kwargs=extra)

        return gen()
