"""``GroundedRAG``: a LlamaIndex ``CustomLLM`` over Grounded Decoding.

Used alone, the prompt is the question and documents (nodes, strings or grounded_rag Documents)
come with each call: ``complete(q, documents=nodes)``. Used as ``Settings.llm`` or
``index.as_query_engine(llm=GroundedRAG())``, the stock synthesizers call ``predict(template,
context_str=..., query_str=...)``; this LLM keeps the two apart and decodes the question over the
retrieved nodes (with their scores, read from the retriever that produced them) instead of one
stuffed prompt.
"""

from __future__ import annotations

import asyncio
import contextvars
import warnings
from collections.abc import AsyncGenerator, Sequence
from typing import Any, Literal

from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.base.llms.types import (
    ChatMessage,
    ChatResponse,
    ChatResponseGen,
    CompletionResponse,
    CompletionResponseGen,
    LLMMetadata,
    MessageRole,
)
from llama_index.core.instrumentation import get_dispatcher
from llama_index.core.instrumentation.events.llm import LLMPredictEndEvent, LLMPredictStartEvent
from llama_index.core.llms.callbacks import llm_chat_callback, llm_completion_callback
from llama_index.core.llms.custom import CustomLLM
from llama_index.core.prompts import BasePromptTemplate
from llama_index.core.schema import BaseNode, MetadataMode, NodeWithScore
from llama_index.core.types import TokenAsyncGen, TokenGen
from llama_index_instrumentation.span_handlers import BaseSpanHandler
from pydantic import ConfigDict, Field, ValidationError

from grounded_rag import DecodingConfig, Document, GenerationResult, GroundedDecoder, GroundedRAGWarning, InputError, load_shared
from grounded_rag.attribution import metadata_label, source_metadata
from grounded_rag.config import call_config, describe, with_llm_settings
from grounded_rag.errors import GroundedRAGError
from grounded_rag.inputs import documents_and_scores
from grounded_rag.serving.client import GroundedClient, connect
from grounded_rag.trust import DistanceSpace

dispatcher = get_dispatcher(__name__)

ScoreSpace = DistanceSpace | Literal["auto"]
# A call's own keywords (the rest are DecodingConfig fields); ``score_space`` here is the node scores' distance space
# (they are normalized to cosine before the core sees them), not DecodingConfig's cosine/raw switch.
CALL_KEYWORDS = {"documents", "scores", "score_space", "formatted"}


class PipelineError(GroundedRAGError, RuntimeError):
    """An :class:`InputError` raised inside a LlamaIndex pipeline.

    LlamaIndex's Refine synthesizer catches ``ValueError``/``TypeError`` and answers "Empty
    Response"; this class is neither, so the reason reaches the user."""


# ----------------------------------------------------------------------------- retrieved nodes
# The nodes (and the score space of the store they came from) of the latest retrieval in this
# thread or task: the stock synthesizers pass only their text on, so predict() finds them here.
_RETRIEVED: contextvars.ContextVar[tuple[list[NodeWithScore], DistanceSpace | None] | None] = contextvars.ContextVar(
    "grounded_rag_retrieved", default=None
)


def retriever_space(retriever: Any) -> DistanceSpace | None:
    """What a retriever's node scores are, when its vector store says so; else None."""
    store = getattr(retriever, "_vector_store", None)
    kind = type(store).__name__
    if kind == "SimpleVectorStore":
        return "relevance"  # cosine similarity
    if kind == "ChromaVectorStore":
        collection = getattr(store, "_collection", None)
        meta = getattr(collection, "metadata", None) or {}
        space = meta.get("hnsw:space")
        if space is None:
            config = getattr(collection, "configuration_json", None) or {}
            space = (config.get("hnsw") or {}).get("space")
        space = space or "l2"
        return f"exp_{space}" if space in ("l2", "cosine") else None  # type: ignore[return-value]
    return None


class _SpanHook(BaseSpanHandler[Any]):
    """A span handler that keeps no spans: subclasses act on a span's enter or exit."""

    def span_enter(self, *args: Any, **kwargs: Any) -> None:
        return None

    def span_drop(self, *args: Any, **kwargs: Any) -> None:
        return None

    def span_exit(self, *args: Any, **kwargs: Any) -> None:
        return None

    def new_span(self, *args: Any, **kwargs: Any) -> None:
        return None

    def prepare_to_exit_span(self, *args: Any, **kwargs: Any) -> None:
        return None

    def prepare_to_drop_span(self, *args: Any, **kwargs: Any) -> None:
        return None


class _RetrievalRecorder(_SpanHook):
    """Records each retriever's result in a context variable."""

    def span_exit(self, id_: str, bound_args: Any, instance: Any = None, result: Any = None, **kwargs: Any) -> None:
        if isinstance(instance, BaseRetriever) and isinstance(result, list):
            nodes = [n for n in result if isinstance(n, NodeWithScore)]
            _RETRIEVED.set((nodes, retriever_space(instance)))


# ----------------------------------------------------------------------------- what the answer cites
CITED_KEYS = ("cited", "cited_spans")  # what mark_cited adds to a source node's metadata (never sent to a model)
SPAN_FIELDS = {"answer_start", "answer_end", "start", "end", "quote", "kind"}  # a Citation's fields a node keeps


def _and_cited(excluded: Sequence[str]) -> list[str]:
    return [*excluded, *(k for k in CITED_KEYS if k not in excluded)]


def mark_cited(sources: Sequence[NodeWithScore], result: GenerationResult, read: Sequence[Any]) -> list[NodeWithScore]:
    """The response's source nodes, each a copy whose metadata says whether the answer cites it (``cited``) and
    which answer spans rest on which of its spans (``cited_spans``); the index's own nodes are left as they were.
    ``read`` are the nodes the answer was decoded from, in order: a citation's ``document`` is its 1-based place
    there."""
    ids = [(n.node if isinstance(n, NodeWithScore) else n).node_id for n in read if isinstance(n, (NodeWithScore, BaseNode))]
    out = []
    for item in sources:
        number = ids.index(item.node.node_id) + 1 if item.node.node_id in ids else None
        spans = [c.model_dump(include=SPAN_FIELDS) for c in result.citations if c.document == number]
        node = item.node.model_copy(deep=False)
        node.metadata = {**item.node.metadata, "cited": bool(spans), "cited_spans": spans}
        node.excluded_llm_metadata_keys = _and_cited(item.node.excluded_llm_metadata_keys)
        node.excluded_embed_metadata_keys = _and_cited(item.node.excluded_embed_metadata_keys)
        out.append(NodeWithScore(node=node, score=item.score))
    return out


def grounded_metadata(result: GenerationResult, read: Sequence[Any]) -> dict[str, Any]:
    """The result's grounding facts for a LlamaIndex ``Response.metadata``, with the cited nodes' ids."""
    meta = result.metadata()
    nodes = [n.node if isinstance(n, NodeWithScore) else n for n in read]
    meta["cited_node_ids"] = [nodes[k - 1].node_id for k in meta["cited_documents"]
                              if k <= len(nodes) and isinstance(nodes[k - 1], BaseNode)]
    return meta


class _Answered:
    """The grounded answer a stock synthesizer's ``predict``/``stream`` gave and the nodes it read, until the response
    it becomes is known (a streamed answer is complete only after the synthesizer has returned its response)."""

    def __init__(self, read: Sequence[Any]) -> None:
        self.read: list[Any] = list(read)
        self.result: GenerationResult | None = None
        self.response: Any = None

    def finish(self, result: GenerationResult) -> None:
        self.result = result
        if self.response is not None:
            self.annotate(self.response)

    def annotate(self, response: Any) -> None:
        """The response's metadata gets the citations, support and abstention; its source nodes are marked."""
        if self.result is None:
            self.response = response  # streaming: done when the last token is
            return
        if isinstance(getattr(response, "metadata", None), dict):
            response.metadata.update(grounded_metadata(self.result, self.read))
        else:
            response.metadata = grounded_metadata(self.result, self.read)
        response.source_nodes[:] = mark_cited(response.source_nodes, self.result, self.read)


class _Synthesis:
    """One synthesis: made when it starts, so that an answer given in a worker thread (``apredict``) reaches it through
    the copied context; a streamed one is still waiting for its answer when the synthesizer returns, and the answer
    (decoded as the response is read) finds its response here."""

    def __init__(self) -> None:
        self.open = True
        self.answered: _Answered | None = None
        self.response: Any = None  # a streamed response waiting for its answer


_SYNTHESIS: contextvars.ContextVar[_Synthesis | None] = contextvars.ContextVar("grounded_rag_synthesis", default=None)


class _SynthesisRecorder(_SpanHook):
    """Hands a stock synthesizer's response the grounded answer given for it."""

    def span_enter(self, id_: str, bound_args: Any, instance: Any = None, **kwargs: Any) -> None:
        current = _SYNTHESIS.get()
        if current is None or not current.open:  # a synthesis's own inner spans keep it
            _SYNTHESIS.set(_Synthesis())

    def span_exit(self, id_: str, bound_args: Any, instance: Any = None, result: Any = None, **kwargs: Any) -> None:
        synthesis = _SYNTHESIS.get()
        if synthesis is None or not synthesis.open or not hasattr(result, "source_nodes"):
            return
        synthesis.open = False
        if synthesis.answered is not None:
            _SYNTHESIS.set(None)
            synthesis.answered.annotate(result)
        else:
            synthesis.response = result


def _answered(read: Sequence[Any]) -> _Answered:
    """A new answer over ``read``, handed to the synthesis it is for (one in flight, or a streamed response waiting
    for it)."""
    answered = _Answered(read)
    synthesis = _SYNTHESIS.get()
    if synthesis is not None and synthesis.open:
        synthesis.answered = answered
    elif synthesis is not None and synthesis.response is not None:
        answered.response = synthesis.response
        _SYNTHESIS.set(None)
    return answered


def _install_recorder() -> None:
    retriever_dispatcher = get_dispatcher("llama_index.core.base.base_retriever")
    if not any(isinstance(h, _RetrievalRecorder) for h in retriever_dispatcher.span_handlers):
        retriever_dispatcher.add_span_handler(_RetrievalRecorder())
    synthesis = get_dispatcher("llama_index.core.response_synthesizers.base")
    if not any(isinstance(h, _SynthesisRecorder) for h in synthesis.span_handlers):
        synthesis.add_span_handler(_SynthesisRecorder())


# ----------------------------------------------------------------------------- conversion
def _node_text(node: BaseNode, i: int) -> str:
    text = node.get_content(metadata_mode=MetadataMode.NONE)
    if not isinstance(text, str) or not text.strip():
        raise InputError(
            f"node {i + 1} ({type(node).__name__}, id {node.node_id}) has no text; grounded decoding "
            "reads text passages only: filter non-text nodes with a node postprocessor"
        )
    return text


UNDECLARED = ("these nodes carry retriever scores but their scale is unknown; declare it, e.g. "
              "GroundedRAG(score_space='exp_l2') for LlamaIndex's ChromaVectorStore over an l2 collection, "
              "'relevance' for cosine similarities (SimpleVectorStore)")


def to_documents(
    items: Sequence[Any] | None, scores: Sequence[float] | None, space: ScoreSpace
) -> tuple[list[Document], list[float] | None]:
    """Nodes (``NodeWithScore``, ``TextNode``, LlamaIndex ``Document``), strings, dicts or grounded_rag Documents ->
    grounded_rag Documents and scores on the trust scale (the core's
    :func:`~grounded_rag.inputs.documents_and_scores`). Node scores are read in ``space``; with ``"auto"`` a scored
    node is refused, because its store's scale is unknown here."""
    if isinstance(items, (str, BaseNode, NodeWithScore)):
        items = [items]
    return documents_and_scores(items, scores, None if space == "auto" else space, _node_document, UNDECLARED)


def _node_document(item: Any, i: int) -> tuple[Document, float | None, None] | None:
    """A node (scored or not) -> ours and its score, whose scale only the store knows; None for any other item."""
    score = None
    if isinstance(item, NodeWithScore):
        item, score = item.node, item.score
    if not isinstance(item, BaseNode):
        return None
    meta = item.metadata or {}
    title = metadata_label(meta, "title", "file_name")
    return Document(text=_node_text(item, i), title=title, id=item.node_id, metadata=source_metadata(meta)), score, None


def _template_args(prompt: BasePromptTemplate, prompt_args: dict[str, Any]) -> dict[str, Any]:
    base = getattr(prompt, "default_template", prompt)  # SelectorPromptTemplate keeps them there
    return {**(getattr(base, "kwargs", None) or {}), **prompt_args}


def _message_text(message: ChatMessage) -> str:
    return message.content if isinstance(message.content, str) else str(message.content or "")


# ----------------------------------------------------------------------------- the LLM
class GroundedRAG(CustomLLM):
    """Grounded Decoding as a LlamaIndex LLM (embedded SmolLM2-135M-Instruct by default).

    ``score_space``: the scale of node scores passed to ``complete``/``chat`` (``"auto"``: inside a
    query or chat engine, read from the retriever's vector store; Chroma and the default
    in-memory store are known). Chat history is not decoded: each turn answers the latest user
    message over its documents.
    """

    model_config = ConfigDict(extra="forbid")  # a mistyped setting (rho_mx=16) must not pass silently

    model: str | None = Field(None, description="packaged alias, .gguf, HF id or folder; None = embedded default")
    decoding: DecodingConfig = Field(default_factory=DecodingConfig)
    score_space: ScoreSpace = Field("auto", description="scale of node scores: a DistanceSpace, or auto")
    base_url: str | None = Field(None, description="a running `grounded-rag serve` to call instead of loading the model")
    # The settings every LlamaIndex LLM takes; they override the same fields of ``decoding``.
    temperature: float | None = Field(None, description="sampling temperature; 0 = greedy (decoding.temperature)")
    max_tokens: int | None = Field(None, description="new tokens per answer (decoding.max_new_tokens)")
    context_window: int | None = Field(None, gt=0, description="tokens the prompt helper may fill; default: the model's")

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
            self.decoding = with_llm_settings(self.decoding, self.temperature, self.max_tokens)
        except (ValidationError, GroundedRAGError) as exc:
            detail = describe(exc) if isinstance(exc, ValidationError) else str(exc)
            raise InputError(f"invalid GroundedRAG settings: {detail}") from None

    def model_post_init(self, __context: Any) -> None:
        super().model_post_init(__context)
        _install_recorder()

    @property
    def decoder(self) -> GroundedDecoder | GroundedClient:
        """The in-process decoder (one per process and model), or a client of the server at ``base_url``."""
        return connect(self.base_url, self.model) if self.base_url else load_shared(self.model)

    @classmethod
    def class_name(cls) -> str:
        return "GroundedRAG"

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(
            context_window=self.context_window or self.decoder.context_window,
            num_output=self.decoding.max_new_tokens,
            model_name=self.decoder.name,
            is_chat_model=False,
            system_role=MessageRole.SYSTEM,
        )

    # ------------------------------------------------------------------ settings
    def _config(self, kwargs: dict[str, Any]) -> DecodingConfig:
        return call_config(self.decoding, kwargs, frozenset(CALL_KEYWORDS))

    def _inputs(self, kwargs: dict[str, Any]) -> tuple[list[Document], list[float] | None, DecodingConfig]:
        config = self._config(kwargs)
        docs, scores = to_documents(kwargs.get("documents"), kwargs.get("scores"), kwargs.get("score_space", self.score_space))
        if not docs:
            raise InputError(
                "GroundedRAG got no documents; pass them with complete(q, documents=nodes), or use it "
                "in a query engine (index.as_query_engine(llm=GroundedRAG())) so the retrieved nodes are used"
            )
        return docs, scores, config

    # ------------------------------------------------------------------ completion
    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        docs, scores, config = self._inputs(kwargs)
        result = self.decoder.generate(prompt, docs, scores, config)
        return CompletionResponse(text=result.text, raw=result, additional_kwargs=result.metadata())

    @llm_completion_callback()
    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponseGen:
        docs, scores, config = self._inputs(kwargs)
        stream = self.decoder.stream_with_result(prompt, docs, scores, config)

        def gen() -> CompletionResponseGen:
            text = ""
            for piece, result in stream:
                text += piece
                if piece or result is not None:
                    extra = result.metadata() if result is not None else {}
                    yield CompletionResponse(text=text, delta=piece, raw=result, additional_kwargs=extra)

        return gen()

    # ------------------------------------------------------------------ chat
    def _chat_inputs(self, messages: Sequence[ChatMessage], kwargs: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        users = [m for m in messages if m.role == MessageRole.USER and _message_text(m).strip()]
        if not users:
            raise InputError("chat got no user message; the last user message is the question")
        question = _message_text(users[-1])
        if kwargs.get("documents") is None:
            context = "\n".join(_message_text(m) for m in messages)
            kwargs = {**kwargs, **self._retrieved_for(context)}
        return question, kwargs

    @llm_chat_callback()
    def chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        question, kwargs = self._chat_inputs(messages, kwargs)
        out = self.complete(question, formatted=True, **kwargs)
        return ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT, content=out.text), raw=out.raw,
                            additional_kwargs=out.additional_kwargs)

    @llm_chat_callback()
    def stream_chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponseGen:
        question, kwargs = self._chat_inputs(messages, kwargs)
        stream = self.stream_complete(question, formatted=True, **kwargs)

        def gen() -> ChatResponseGen:
            for c in stream:
                yield ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT, content=c.text), delta=c.delta,
                                   raw=c.raw, additional_kwargs=c.additional_kwargs)

        return gen()

    # ------------------------------------------------------------------ stock synthesizers
    def _retrieved_for(self, context: str) -> dict[str, Any]:
        """The latest retrieval's nodes whose text is in ``context``, with their score space."""
        recorded = _RETRIEVED.get()
        if recorded is None:
            return {}
        nodes, space = recorded
        texts = [n.node.get_content(metadata_mode=MetadataMode.NONE) for n in nodes]
        used = [n for n, t in zip(nodes, texts) if isinstance(t, str) and t.strip() and t in context]
        if not used:
            return {}
        if self.score_space != "auto":
            space = self.score_space
        if any(n.score is None for n in used):
            return {"documents": [n.node for n in used]}
        if space is None:
            warnings.warn(
                "the retriever's score scale is unknown, so its scores are not used (trust fixed to 1); "
                "declare it with GroundedRAG(score_space=...)", GroundedRAGWarning, stacklevel=4)
            return {"documents": [n.node for n in used]}
        return {"documents": used, "score_space": space}

    def _grounded_call(self, prompt: BasePromptTemplate, prompt_args: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
        """(question, complete() keywords) when the prompt is a synthesizer's context + query."""
        args = _template_args(prompt, prompt_args)
        if "context_str" not in args or "query_str" not in args:
            return None
        context = str(args["context_str"])
        found = self._retrieved_for(context)
        if not found:
            warnings.warn(
                "the context reached GroundedRAG as text only (no retrieved nodes found for it): it is decoded "
                "as one document without scores; use a retriever-backed engine or GroundedSynthesizer to keep "
                "scores", GroundedRAGWarning, stacklevel=4)
            found = {"documents": [context]}
        return str(args["query_str"]), found

    @dispatcher.span
    def predict(self, prompt: BasePromptTemplate, **prompt_args: Any) -> str:
        call = self._grounded_call(prompt, prompt_args)
        if call is None:
            return super().predict(prompt, **prompt_args)
        dispatcher.event(LLMPredictStartEvent(template=prompt, template_args=prompt_args))
        try:
            out = self.complete(call[0], formatted=True, **call[1])
        except InputError as exc:
            raise PipelineError(str(exc)) from exc
        _answered(call[1]["documents"]).finish(out.raw)  # the response gets the last call's citations, as refine's
        dispatcher.event(LLMPredictEndEvent(output=out.text))
        return out.text

    @dispatcher.span
    def stream(self, prompt: BasePromptTemplate, **prompt_args: Any) -> TokenGen:
        call = self._grounded_call(prompt, prompt_args)
        if call is None:
            return super().stream(prompt, **prompt_args)
        dispatcher.event(LLMPredictStartEvent(template=prompt, template_args=prompt_args))
        try:
            responses = self.stream_complete(call[0], formatted=True, **call[1])
        except InputError as exc:
            raise PipelineError(str(exc)) from exc
        answered = _answered(call[1]["documents"])

        def tokens() -> TokenGen:
            text = ""
            for r in responses:
                text = r.text
                if r.raw is not None:
                    answered.finish(r.raw)
                if r.delta:
                    yield r.delta
            dispatcher.event(LLMPredictEndEvent(output=text))

        return tokens()

    @dispatcher.span
    async def apredict(self, prompt: BasePromptTemplate, **prompt_args: Any) -> str:
        # asyncio.to_thread copies the context: the recorded retrieval travels into the worker thread.
        return await asyncio.to_thread(self.predict, prompt, **prompt_args)

    @dispatcher.span
    async def astream(self, prompt: BasePromptTemplate, **prompt_args: Any) -> TokenAsyncGen:
        tokens = await asyncio.to_thread(self.stream, prompt, **prompt_args)
        done = object()

        async def gen() -> AsyncGenerator[str, None]:
            while (piece := await asyncio.to_thread(next, tokens, done)) is not done:
                yield piece  # type: ignore[misc]

        return gen()


def result_of(response: CompletionResponse | ChatResponse) -> GenerationResult:
    """The full grounded result behind a response (trace, documents, prompts)."""
    return response.raw
