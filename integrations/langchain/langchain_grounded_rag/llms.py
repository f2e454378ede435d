"""``GroundedRAGLLM``: a LangChain ``BaseLLM`` whose prompt is the question and whose documents and
retriever scores arrive with each call (``invoke(q, documents=..., scores=...)``, ``bind(...)``)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping, Sequence
from contextvars import ContextVar
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.documents import Document as LCDocument
from langchain_core.language_models import BaseLLM
from langchain_core.outputs import Generation, GenerationChunk, LLMResult
from pydantic import ConfigDict, Field

from grounded_rag import DecodingConfig, Document, GroundedDecoder, load_shared

SCORE_KEYS = ("relevance_score", "score")

# The per-call documents' fingerprint, visible to ``_identifying_params`` (and so to LangChain's
# LLM-cache key) for exactly the duration of one generate call, in this thread or task only.
_CALL_FINGERPRINT: ContextVar[str | None] = ContextVar("grounded_rag_call_fingerprint", default=None)


def to_documents(documents: Sequence[Any] | None, scores: Sequence[float] | None) -> tuple[list[Document], list[float] | None]:
    """LangChain Documents (score in metadata), strings or grounded_rag Documents -> ours + scores."""
    out: list[Document] = []
    for i, doc in enumerate(documents or []):
        if isinstance(doc, LCDocument):
            meta = dict(doc.metadata)
            score = next((meta[k] for k in SCORE_KEYS if meta.get(k) is not None), None)
            out.append(Document(text=doc.page_content, title=meta.get("title") or None,
                                id=doc.id or meta.get("id") or meta.get("source"), score=score, metadata={}))
        elif isinstance(doc, Document):
            out.append(doc)
        elif isinstance(doc, str):
            out.append(Document(text=doc))
        elif isinstance(doc, Mapping):
            out.append(Document(**doc))
        else:
            raise TypeError(f"document {i + 1} is a {type(doc).__name__}; pass LangChain Documents or strings")
    return out, (list(scores) if scores is not None else None)


def fingerprint(documents: Sequence[Document], scores: Sequence[float] | None) -> str:
    payload = json.dumps([[d.text, d.title, d.id, d.score] for d in documents] + [list(scores or [])], sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()


class GroundedRAGLLM(BaseLLM):
    """Grounded Decoding as a LangChain LLM.

    The prompt is the user's question. Documents come per call as ``documents=[...]`` (LangChain
    ``Document``s carrying ``metadata["relevance_score"]``, or strings) with optional ``scores=[...]``.
    ``generation_info`` carries the retrieval trust, a per-token trace summary and the cited ids.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    model: str | None = Field(None, description="packaged alias, .gguf, HF id or folder; None = embedded default")
    decoding: DecodingConfig = Field(default_factory=DecodingConfig)

    @property
    def decoder(self) -> GroundedDecoder:
        return load_shared(self.model)  # cached: one loaded model per process and name

    @property
    def _llm_type(self) -> str:
        return "grounded-rag"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        params: dict[str, Any] = {"model": self.model or "default", **self.decoding.model_dump(mode="json")}
        call = _CALL_FINGERPRINT.get()
        if call is not None:
            params["documents_fingerprint"] = call
        return params

    def _config(self, stop: list[str] | None, kwargs: dict[str, Any]) -> DecodingConfig:
        overrides = {k: kwargs[k] for k in DecodingConfig.model_fields if k in kwargs}
        stops = list(dict.fromkeys([*self.decoding.stop, *(stop or []), *overrides.pop("stop", [])]))
        return self.decoding.model_copy(update={**overrides, "stop": stops})

    # LangChain keys its LLM cache on the prompt and _identifying_params only; per-call documents
    # would be ignored and a cached answer over other documents returned. Fingerprint them in.
    def generate(self, prompts: list[str], stop: list[str] | None = None, callbacks: Any = None, **kwargs: Any) -> LLMResult:
        docs, scores = to_documents(kwargs.get("documents"), kwargs.get("scores"))
        token = _CALL_FINGERPRINT.set(fingerprint(docs, scores))
        try:
            return super().generate(prompts, stop=stop, callbacks=callbacks, **kwargs)
        finally:
            _CALL_FINGERPRINT.reset(token)

    async def agenerate(self, prompts: list[str], stop: list[str] | None = None, callbacks: Any = None, **kwargs: Any) -> LLMResult:
        docs, scores = to_documents(kwargs.get("documents"), kwargs.get("scores"))
        token = _CALL_FINGERPRINT.set(fingerprint(docs, scores))
        try:
            return await super().agenerate(prompts, stop=stop, callbacks=callbacks, **kwargs)
        finally:
            _CALL_FINGERPRINT.reset(token)

    def _generate(
        self,
        prompts: list[str],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> LLMResult:
        docs, scores = to_documents(kwargs.get("documents"), kwargs.get("scores"))
        config = self._config(stop, kwargs)
        requests = [{"question": p, "documents": docs, "scores": scores} for p in prompts]
        results = self.decoder.generate_batch(requests, config)  # all prompts in one batched decode
        return LLMResult(generations=[[Generation(text=r.text, generation_info=r.metadata())] for r in results])

    def _stream(
        self,
        prompt: str,
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[GenerationChunk]:
        docs, scores = to_documents(kwargs.get("documents"), kwargs.get("scores"))
        config = self._config(stop, kwargs)
        for piece, result in self.decoder.stream_with_result(prompt, docs, scores, config):
            chunk = GenerationChunk(text=piece, generation_info=result.metadata() if result else None)
            if run_manager is not None and piece:
                run_manager.on_llm_new_token(piece, chunk=chunk)
            if piece or result is not None:
                yield chunk

    # _agenerate / _astream: BaseLLM's defaults run _generate / each _stream step in an executor
    # thread, so decoding never blocks the event loop (tested in integration tests).
