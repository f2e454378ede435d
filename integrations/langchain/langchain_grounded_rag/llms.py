"""``GroundedRAGLLM``: a LangChain ``BaseLLM`` that decodes each question over its documents.

Documents come with the prompt (a :class:`GroundedPromptValue` from
:class:`GroundedPromptTemplate`, the natural LCEL chain) or with the call
(``invoke(q, documents=..., scores=...)``, ``bind(documents=...)``). ``batch`` over prompts with
different documents is one batched decode.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from contextvars import ContextVar
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseLLM, LangSmithParams
from langchain_core.messages import HumanMessage
from langchain_core.outputs import Generation, GenerationChunk, LLMResult
from langchain_core.prompt_values import ChatPromptValue, PromptValue
from pydantic import ConfigDict, Field, ValidationError

from grounded_rag import DecodingConfig, Document, GroundedDecoder, InputError
from grounded_rag.config import describe, with_llm_settings
from grounded_rag.serving.client import GroundedClient
from grounded_rag.trust import DistanceSpace

from ._common import (  # noqa: F401
    DECODING_FIELDS,
    SCORE_KEYS,
    configured,
    configured_batch,
    count_tokens,
    decode,
    decoder_for,
    fingerprint,
    ls_params,
    make_config,
    to_documents,
)
from .prompts import grounded_payload

PER_PROMPT = "_grounded_per_prompt"  # internal keyword: one (documents, scores) per prompt

# The per-call documents' fingerprint, visible to ``_identifying_params`` (and so to LangChain's
# LLM-cache key) for exactly the duration of one generate call, in this thread or task only.
_CALL_FINGERPRINT: ContextVar[str | None] = ContextVar("grounded_rag_call_fingerprint", default=None)

NO_DOCUMENTS = (
    "no documents reached the grounded model; pass the retriever's Documents through GroundedPromptTemplate "
    '({"context": retriever, "question": RunnablePassthrough()} | GroundedPromptTemplate() | llm), '
    "or call it with documents= (llm.bind(documents=docs)), or use create_grounded_rag_chain(retriever, llm); "
    "with create_retrieval_chain, build the answering step with langchain_grounded_rag.create_stuff_documents_chain"
)


def split_prompt(prompt: PromptValue | str) -> tuple[str, list[Any] | None]:
    """(question, documents or None) from a prompt value: a GroundedPromptValue carries both; a
    chat prompt's question is its last human message (never ``"Human: ..."``)."""
    if isinstance(prompt, str):
        return prompt, None
    if isinstance(prompt, ChatPromptValue):
        payload = grounded_payload(list(prompt.messages))
        if payload is not None:
            return payload["question"], [Document(**d) for d in payload["documents"]]
        humans = [m for m in prompt.messages if isinstance(m, HumanMessage)]
        if humans:
            return humans[-1].text, None
    return prompt.to_string(), None


class GroundedRAGLLM(BaseLLM):
    """Grounded Decoding as a LangChain LLM.

    The prompt is the user's question. Documents come with a :class:`GroundedPromptValue` or per
    call as ``documents=[...]`` (LangChain ``Document``s carrying ``metadata["relevance_score"]``,
    ``(Document, score)`` pairs with ``score_space``, or strings) with optional ``scores=[...]``.
    ``generation_info`` carries the retrieval trust, a per-token trace summary and the cited ids.
    ``temperature`` and ``max_tokens`` (LangChain's standard parameters) override the matching ``decoding`` fields
    when set, as on :class:`ChatGroundedRAG`.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid", populate_by_name=True)

    model: str | None = Field(None, description="packaged alias, .gguf, HF id or folder; None = embedded default")
    decoding: DecodingConfig = Field(default_factory=DecodingConfig)
    score_space: DistanceSpace | None = Field(None, description="scale of (Document, score) pairs' scores")
    base_url: str | None = Field(None, description="a running `grounded-rag serve` to call instead of loading the model")
    temperature: float | None = None
    max_tokens: int | None = Field(None, alias="max_new_tokens")

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise InputError(f"invalid {type(self).__name__} settings: {describe(exc)}") from None
        self._base_config()  # temperature / max_tokens checked now, not at the first call

    def _base_config(self) -> DecodingConfig:
        return with_llm_settings(self.decoding, self.temperature, self.max_tokens, None)

    @property
    def decoder(self) -> GroundedDecoder | GroundedClient:
        return decoder_for(self.model, self.base_url)  # cached: one model (or client) per process and name

    @property
    def _llm_type(self) -> str:
        return "grounded-rag"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        params: dict[str, Any] = {"model": self.model or "default", **self._base_config().flat(mode="json")}
        if self.base_url:
            params["base_url"] = self.base_url
        call = _CALL_FINGERPRINT.get()
        if call is not None:
            params["documents_fingerprint"] = call
        return params

    def _get_ls_params(self, stop: list[str] | None = None, **kwargs: Any) -> LangSmithParams:
        config = self._config(stop, {k: v for k, v in kwargs.items() if k in DECODING_FIELDS})
        return LangSmithParams(**ls_params(kwargs.get("model") or self.model, "llm", config))

    def get_token_ids(self, text: str) -> list[int]:
        """The model's own tokenizer (offline, or the server's), not LangChain's GPT-2 fallback."""
        return count_tokens(self.decoder, text)

    def _config(self, stop: list[str] | None, kwargs: dict[str, Any]) -> DecodingConfig:
        return make_config(self._base_config(), stop, kwargs, {PER_PROMPT})

    def _requests(self, prompts: list[str], kwargs: dict[str, Any]) -> list[tuple[str, list[Document], list[float] | None]]:
        per_prompt = kwargs.get(PER_PROMPT)
        space = kwargs.get("score_space", self.score_space)
        out = []
        for i, prompt in enumerate(prompts):
            given = per_prompt[i] if per_prompt is not None and per_prompt[i] is not None else None
            if given is not None:
                docs, scores = to_documents(given, None, space)
            else:
                docs, scores = to_documents(kwargs.get("documents"), kwargs.get("scores"), space)
            if not docs:
                raise InputError(NO_DOCUMENTS)
            out.append((prompt, docs, scores))
        return out

    # ---------------------------------------------------------------- prompt values
    def _unpack(self, prompts: Sequence[PromptValue], kwargs: dict[str, Any]) -> tuple[list[str], dict[str, Any]]:
        split = [split_prompt(p) for p in prompts]
        if any(docs is not None for _, docs in split):
            kwargs = {**kwargs, PER_PROMPT: [docs for _, docs in split]}
        return [q for q, _ in split], kwargs

    def generate_prompt(self, prompts: list[PromptValue], stop: list[str] | None = None, callbacks: Any = None,
                        **kwargs: Any) -> LLMResult:
        questions, kwargs = self._unpack(prompts, kwargs)
        return self.generate(questions, stop=stop, callbacks=callbacks, **kwargs)

    async def agenerate_prompt(self, prompts: list[PromptValue], stop: list[str] | None = None, callbacks: Any = None,
                               **kwargs: Any) -> LLMResult:
        questions, kwargs = self._unpack(prompts, kwargs)
        return await self.agenerate(questions, stop=stop, callbacks=callbacks, **kwargs)

    # with_config(configurable={"rho_max": 16}) reaches the decoder as per-call settings
    def invoke(self, input: Any, config: Any = None, *, stop: list[str] | None = None, **kwargs: Any) -> str:
        return super().invoke(input, config, stop=stop, **configured(config, kwargs))

    async def ainvoke(self, input: Any, config: Any = None, *, stop: list[str] | None = None, **kwargs: Any) -> str:
        return await super().ainvoke(input, config, stop=stop, **configured(config, kwargs))

    def batch(self, inputs: list[Any], config: Any = None, *, return_exceptions: bool = False, **kwargs: Any) -> list[str]:
        return super().batch(inputs, config, return_exceptions=return_exceptions,
                             **configured_batch(config, len(inputs), kwargs))

    async def abatch(self, inputs: list[Any], config: Any = None, *, return_exceptions: bool = False,
                     **kwargs: Any) -> list[str]:
        return await super().abatch(inputs, config, return_exceptions=return_exceptions,
                                    **configured_batch(config, len(inputs), kwargs))

    def stream(self, input: Any, config: Any = None, *, stop: list[str] | None = None, **kwargs: Any) -> Iterator[str]:
        questions, kwargs = self._unpack([self._convert_input(input)], configured(config, kwargs))
        return super().stream(questions[0], config, stop=stop, **kwargs)

    def astream(self, input: Any, config: Any = None, *, stop: list[str] | None = None, **kwargs: Any) -> AsyncIterator[str]:
        questions, kwargs = self._unpack([self._convert_input(input)], configured(config, kwargs))
        return super().astream(questions[0], config, stop=stop, **kwargs)

    # LangChain keys its LLM cache on the prompt and _identifying_params only; per-call documents
    # would be ignored and a cached answer over other documents returned. Fingerprint them in.
    def _fingerprint(self, prompts: list[str], kwargs: dict[str, Any]) -> str:
        try:
            requests = self._requests(prompts, kwargs)
        except InputError:
            return ""  # _generate raises the same error with the run's callbacks in place
        return fingerprint([d for _, docs, _ in requests for d in docs],
                           [s for _, _, scores in requests for s in (scores or [])] or None)

    def generate(self, prompts: list[str], stop: list[str] | None = None, callbacks: Any = None, **kwargs: Any) -> LLMResult:
        token = _CALL_FINGERPRINT.set(self._fingerprint(prompts, kwargs))
        try:
            return super().generate(prompts, stop=stop, callbacks=callbacks, **kwargs)
        finally:
            _CALL_FINGERPRINT.reset(token)

    async def agenerate(self, prompts: list[str], stop: list[str] | None = None, callbacks: Any = None, **kwargs: Any) -> LLMResult:
        token = _CALL_FINGERPRINT.set(self._fingerprint(prompts, kwargs))
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
        config = self._config(stop, kwargs)
        results = decode(self.decoder, self._requests(prompts, kwargs), config)  # all prompts in one batched decode
        return LLMResult(generations=[[Generation(text=r.text, generation_info=r.metadata())] for r in results])

    def _stream(
        self,
        prompt: str,
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[GenerationChunk]:
        config = self._config(stop, kwargs)
        [(question, docs, scores)] = self._requests([prompt], kwargs)
        for piece, result in self.decoder.stream_with_result(question, docs, scores, config):
            chunk = GenerationChunk(text=piece, generation_info=result.metadata() if result else None)
            if run_manager is not None and piece:
                run_manager.on_llm_new_token(piece, chunk=chunk)
            if piece or result is not None:
                yield chunk

    # _agenerate / _astream: BaseLLM's defaults run _generate / each _stream step in an executor
    # thread, so decoding never blocks the event loop (tested in integration tests).
