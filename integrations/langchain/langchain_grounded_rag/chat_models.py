"""``ChatGroundedRAG``: Grounded Decoding as a LangChain chat model.

The question is the last human message; the documents arrive with it (a
:class:`GroundedPromptValue` from :class:`GroundedPromptTemplate`) or per call
(``invoke(messages, documents=...)``, ``bind(documents=...)``). The model's own chat template
renders the prompt. Messages with no documents are answered by standard decoding of the whole
conversation, with a :class:`GroundedRAGWarning` that names how to ground them.
"""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LangSmithParams
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage, SystemMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import RunnableConfig
from pydantic import ConfigDict, Field, ValidationError

from grounded_rag import DecodingConfig, Document, GenerationResult, GroundedDecoder, GroundedRAGWarning, InputError
from grounded_rag.config import describe, with_llm_settings
from grounded_rag.serving.client import GroundedClient
from grounded_rag.trust import DistanceSpace
from grounded_rag.types import NO_DOCUMENTS_ANSWER, no_documents_metadata

from ._common import (
    DECODING_FIELDS,
    configured,
    count_tokens,
    decode,
    decoder_for,
    ls_params,
    make_config,
    precompute,
    reset_precomputed,
    to_documents,
    use_precomputed,
)
from .llms import NO_DOCUMENTS
from .prompts import grounded_payload

def _no_documents(kind: type) -> Any:
    """The answer to a question whose retrieval found nothing (``documents=[]``), as the chain and the LlamaIndex
    wrapper give it: a fixed notice, not an ungrounded guess (no documents at all is a plain chat: standard
    decoding, with a warning)."""
    return kind(content=NO_DOCUMENTS_ANSWER, response_metadata={"grounded": True, "model_provider": "grounded_rag",
                                                                **no_documents_metadata()})


UNGROUNDED = "no documents came with these messages, so they were answered by standard decoding (not grounded); " + NO_DOCUMENTS.split("; ", 1)[1]


def _role(message: BaseMessage) -> str:
    return {"human": "user", "ai": "assistant", "system": "system"}.get(message.type, "user")


class ChatGroundedRAG(BaseChatModel):
    """Grounded Decoding as a LangChain chat model (embedded SmolLM2-135M-Instruct by default).

    ``temperature``, ``max_tokens`` and ``stop`` (LangChain's standard parameters) override the
    matching ``decoding`` fields when set. ``timeout`` and ``max_retries`` are accepted for
    interface compatibility; a local model has neither network timeouts nor retries. A grounded
    answer reads the last human message and its documents (earlier turns are not decoded); a
    SystemMessage replaces ``decoding.system_prompt``.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid", populate_by_name=True)

    model: str | None = Field(None, description="packaged alias, .gguf, HF id or folder; None = embedded default")
    decoding: DecodingConfig = Field(default_factory=DecodingConfig)
    score_space: DistanceSpace | None = Field(None, description="scale of (Document, score) pairs' scores")
    base_url: str | None = Field(None, description="a running `grounded-rag serve` to call instead of loading the model")
    temperature: float | None = None
    max_tokens: int | None = Field(None, alias="max_new_tokens")
    streaming: bool = Field(False, description="invoke() streams internally (LangChain core reads this field)")
    stop: list[str] | None = Field(None, alias="stop_sequences")
    timeout: float | None = None
    max_retries: int | None = None

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise InputError(f"invalid ChatGroundedRAG settings: {describe(exc)}") from None
        self._base_config()  # temperature / max_tokens / stop checked now, not at the first call

    @property
    def decoder(self) -> GroundedDecoder | GroundedClient:
        return decoder_for(self.model, self.base_url)

    @property
    def _llm_type(self) -> str:
        return "grounded-rag-chat"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model": self.model or "default", **({"base_url": self.base_url} if self.base_url else {}),
                **self._base_config().flat(mode="json")}

    def _base_config(self) -> DecodingConfig:
        return with_llm_settings(self.decoding, self.temperature, self.max_tokens, self.stop)

    def _config(self, stop: list[str] | None, kwargs: dict[str, Any], system: str | None = None) -> DecodingConfig:
        config = make_config(self._base_config(), stop, kwargs)
        return config.model_copy(update={"system_prompt": system}) if system else config

    def _get_ls_params(self, stop: list[str] | None = None, **kwargs: Any) -> LangSmithParams:
        config = self._config(stop, {k: v for k, v in kwargs.items() if k in DECODING_FIELDS})
        return LangSmithParams(**ls_params(kwargs.get("model") or self.model, "chat", config))

    def get_token_ids(self, text: str) -> list[int]:
        """The model's own tokenizer (offline, or the server's), not LangChain's GPT-2 fallback."""
        return count_tokens(self.decoder, text)

    def get_num_tokens_from_messages(self, messages: list[BaseMessage], tools: Sequence | None = None) -> int:
        """Tokens of the messages rendered with the model's own chat template (through a server:
        the messages' text without the template's few control tokens)."""
        decoder = self.decoder
        if isinstance(decoder, GroundedClient):
            return len(decoder.count_tokens("\n".join(m.text for m in messages)))
        chat = [{"role": _role(m), "content": m.text} for m in messages]
        return len(self.decoder.tokenizer.apply_chat_template(chat, add_generation_prompt=True, tokenize=True, return_dict=False))

    # ---------------------------------------------------------------- messages -> request
    def _request(self, messages: list[BaseMessage], stop: list[str] | None, kwargs: dict[str, Any]
                 ) -> tuple[str, list[Document], list[float] | None, DecodingConfig]:
        """(question, documents, scores, config); documents empty when none came."""
        systems = [m.text for m in messages if isinstance(m, SystemMessage) and m.text.strip()]
        payload = grounded_payload(messages)
        if payload is not None:
            question, docs, scores = payload["question"], [Document(**d) for d in payload["documents"]], None
        else:
            humans = [m for m in messages if isinstance(m, HumanMessage)]
            if not humans:
                raise InputError("no human message; the last human message is the question")
            question = humans[-1].text
            docs, scores = to_documents(kwargs.get("documents"), kwargs.get("scores"),
                                        kwargs.get("score_space", self.score_space))
        return question, docs, scores, self._config(stop, kwargs, systems[-1] if systems else None)

    def _standard(self, messages: list[BaseMessage], config: DecodingConfig) -> str:
        """No documents: the model's own chat template over the whole conversation, plain decoding."""
        decoder = self.decoder
        if isinstance(decoder, GroundedClient):  # a grounded server refuses questions without evidence
            raise InputError("no documents came with these messages, and the server at base_url answers only "
                             "grounded requests; " + NO_DOCUMENTS.split("; ", 1)[1])
        warnings.warn(UNGROUNDED, GroundedRAGWarning, stacklevel=4)
        tok, lm = decoder.tokenizer, decoder.model
        chat = [{"role": _role(m), "content": m.text} for m in messages]
        enc = tok.apply_chat_template(chat, add_generation_prompt=True, return_tensors="pt", return_dict=True)
        enc = {k: v.to(lm.device) for k, v in enc.items()}
        sampling = {"do_sample": True, "temperature": config.temperature, "top_p": config.top_p,
                    "top_k": config.top_k or None} if not config.greedy else {"do_sample": False}
        out = lm.generate(**enc, max_new_tokens=config.max_new_tokens, pad_token_id=self.decoder.pad_id, **sampling)
        text = tok.decode(out[0, enc["input_ids"].shape[1]:], skip_special_tokens=True)
        cut = min((text.find(s) for s in config.stop if s in text), default=-1)
        return (text[:cut] if cut >= 0 else text).strip()

    @staticmethod
    def _message(result: GenerationResult | str) -> AIMessage:
        if isinstance(result, str):
            return AIMessage(content=result, response_metadata={"grounded": False, "model_provider": "grounded_rag"})
        usage = {"input_tokens": result.prompt_tokens, "output_tokens": len(result.token_ids),
                 "total_tokens": result.prompt_tokens + len(result.token_ids)}
        return AIMessage(content=result.text, response_metadata={"grounded": True, "model_provider": "grounded_rag",
                                                                 **result.metadata()},
                         usage_metadata=usage)

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> ChatResult:
        question, docs, scores, config = self._request(messages, stop, kwargs)
        if not docs and kwargs.get("documents") is not None:  # a retrieval that found nothing: no guess either
            return ChatResult(generations=[ChatGeneration(message=_no_documents(AIMessage))])
        if not docs:
            return ChatResult(generations=[ChatGeneration(message=self._message(self._standard(messages, config)))])
        [result] = decode(self.decoder, [(question, docs, scores)], config)
        return ChatResult(generations=[ChatGeneration(message=self._message(result), generation_info=result.metadata())])

    def _stream(self, messages: list[BaseMessage], stop: list[str] | None = None,
                run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        question, docs, scores, config = self._request(messages, stop, kwargs)
        if not docs and kwargs.get("documents") is not None:
            yield ChatGenerationChunk(message=_no_documents(AIMessageChunk))
            return
        if not docs:
            text = self._standard(messages, config)
            yield ChatGenerationChunk(message=AIMessageChunk(content=text, response_metadata={"grounded": False}))
            return
        for piece, result in self.decoder.stream_with_result(question, docs, scores, config):
            meta = {"grounded": True, "model_provider": "grounded_rag", **result.metadata()} if result else {}
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=piece, response_metadata=meta))
            if run_manager is not None and piece:
                run_manager.on_llm_new_token(piece, chunk=chunk)
            if piece or result is not None:
                yield chunk

    # ---------------------------------------------------------------- one batched decode
    def _precompute(self, inputs: list[Any], per_input: list[dict[str, Any]]) -> Any:
        requests = []
        for item, kwargs in zip(inputs, per_input):
            try:
                messages = self._convert_input(item).to_messages()
                question, docs, scores, config = self._request(messages, kwargs.get("stop"), kwargs)
            except InputError:
                continue  # the per-input run raises it with its callbacks in place
            if docs:
                requests.append((question, docs, scores, config))
        return precompute(self.decoder, requests) if len(requests) > 1 else None

    @staticmethod
    def _per_input(inputs: list[Any], config: Any, kwargs: dict[str, Any]) -> list[dict[str, Any]]:
        configs = config if isinstance(config, list) else [config] * len(inputs)
        return [configured(c, kwargs) for c in configs]

    # with_config(configurable={"rho_max": 16}) reaches the decoder as per-call settings (batch runs
    # invoke per input, so each input's own config counts)
    def invoke(self, input: Any, config: RunnableConfig | None = None, *, stop: list[str] | None = None,
               **kwargs: Any) -> AIMessage:
        return super().invoke(input, config, stop=stop, **configured(config, kwargs))

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, *, stop: list[str] | None = None,
                      **kwargs: Any) -> AIMessage:
        return await super().ainvoke(input, config, stop=stop, **configured(config, kwargs))

    def stream(self, input: Any, config: RunnableConfig | None = None, *, stop: list[str] | None = None,
               **kwargs: Any) -> Iterator[AIMessageChunk]:
        return super().stream(input, config, stop=stop, **configured(config, kwargs))

    def astream(self, input: Any, config: RunnableConfig | None = None, *, stop: list[str] | None = None,
                **kwargs: Any) -> Any:
        return super().astream(input, config, stop=stop, **configured(config, kwargs))

    # (The results are keyed by question, documents, scores and settings, so an input whose run
    # differs from what was pre-computed simply decodes on its own.)

    def batch(self, inputs: list[Any], config: RunnableConfig | list[RunnableConfig] | None = None, *,
              return_exceptions: bool = False, **kwargs: Any) -> list[Any]:
        """One batched decode for all inputs (different documents each), then LangChain's usual
        per-input runs (callbacks, tracing) read their answers from it."""
        token = use_precomputed(self._precompute(inputs, self._per_input(inputs, config, kwargs)))
        try:
            return super().batch(inputs, config, return_exceptions=return_exceptions, **kwargs)
        finally:
            reset_precomputed(token)

    async def abatch(self, inputs: list[Any], config: RunnableConfig | list[RunnableConfig] | None = None, *,
                     return_exceptions: bool = False, **kwargs: Any) -> list[Any]:
        token = use_precomputed(await asyncio.to_thread(self._precompute, inputs,
                                                         self._per_input(inputs, config, kwargs)))
        try:
            return await super().abatch(inputs, config, return_exceptions=return_exceptions, **kwargs)
        finally:
            reset_precomputed(token)

    # ---------------------------------------------------------------- unsupported
    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Any:
        raise NotImplementedError(
            "ChatGroundedRAG does not call tools: grounded decoding answers a question from retrieved documents. "
            "Use it as the answering model of a RAG chain, and a tool-calling chat model for agents."
        )

    def with_structured_output(self, schema: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            "ChatGroundedRAG has no structured output: it decodes free text grounded in documents. "
            "Parse its text with an output parser (e.g. PydanticOutputParser), or use a chat model with "
            "structured output support for extraction."
        )
