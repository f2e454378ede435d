"""A response synthesizer that hands each retrieved node's text *and score* to Grounded Decoding.

The stock synthesizers work too (``GroundedRAG.predict`` finds the retrieved nodes); this one
takes the nodes straight from the query engine, puts the grounding facts (trust, citations,
trace summary) in ``Response.metadata``, and lets you declare the score space explicitly. Node
postprocessors run before it as usual.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from llama_index.core.base.response.schema import RESPONSE_TYPE, Response, StreamingResponse
from llama_index.core.instrumentation import get_dispatcher
from llama_index.core.instrumentation.events.synthesis import SynthesizeEndEvent, SynthesizeStartEvent
from llama_index.core.prompts.mixin import PromptDictType
from llama_index.core.response_synthesizers.base import BaseSynthesizer, QueryTextType
from llama_index.core.schema import NodeWithScore, QueryBundle

from grounded_rag import DecodingConfig, Document, GenerationResult
from grounded_rag.trust import DistanceSpace
from grounded_rag.types import NO_DOCUMENTS_ANSWER, no_documents_metadata

from .base import GroundedRAG, ScoreSpace, grounded_metadata, mark_cited, retriever_space, to_documents  # noqa: F401

dispatcher = get_dispatcher(__name__)


def nodes_to_documents(nodes: Sequence[NodeWithScore], space: DistanceSpace) -> tuple[list[Document], list[float] | None]:
    """Nodes -> grounded_rag Documents and their scores on the trust scale (read in ``space``)."""
    return to_documents(nodes, None, space)


class GroundedSynthesizer(BaseSynthesizer):
    """Synthesize with Grounded Decoding from ``NodeWithScore``s.

    ``score_space`` says what the retriever's scores are: ``exp_l2`` (LlamaIndex's
    ``ChromaVectorStore`` over a default l2 collection: exp(-distance)), ``exp_cosine`` (same over a
    cosine collection), or ``relevance`` (already cosine similarity, e.g. ``SimpleVectorStore``).
    """

    def __init__(
        self,
        llm: GroundedRAG,
        score_space: DistanceSpace = "exp_l2",
        streaming: bool = False,
        decoding: DecodingConfig | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(llm=llm, streaming=streaming, **kwargs)
        self._grounded = llm
        self._space = score_space
        self._decoding = decoding or llm.decoding

    def _get_prompts(self) -> PromptDictType:
        return {}

    def _update_prompts(self, prompts: PromptDictType) -> None:
        return None

    def _settings(self) -> dict[str, Any]:
        return self._decoding.flat()

    # Text-only entry points (no scores available): trust falls back to 1, as documented.
    def get_response(self, query_str: str, text_chunks: Sequence[str], **kwargs: Any) -> Any:
        return self._grounded.complete(query_str, documents=list(text_chunks), **self._settings()).text

    async def aget_response(self, query_str: str, text_chunks: Sequence[str], **kwargs: Any) -> Any:
        return await asyncio.to_thread(self.get_response, query_str, text_chunks, **kwargs)

    @dispatcher.span
    def synthesize(
        self,
        query: QueryTextType,
        nodes: list[NodeWithScore],
        additional_source_nodes: Sequence[NodeWithScore] | None = None,
        **response_kwargs: Any,
    ) -> RESPONSE_TYPE:
        dispatcher.event(SynthesizeStartEvent(query=query))
        response = self._synthesize(query, nodes, additional_source_nodes)
        dispatcher.event(SynthesizeEndEvent(query=query, response=response))
        return response

    def _synthesize(self, query: QueryTextType, nodes: list[NodeWithScore], additional: Sequence[NodeWithScore] | None) -> RESPONSE_TYPE:
        query_str = query.query_str if isinstance(query, QueryBundle) else str(query)
        sources = list(nodes) + list(additional or [])
        if not nodes:
            meta = {**no_documents_metadata(), "cited_node_ids": [], "scores_used": []}
            return Response(NO_DOCUMENTS_ANSWER, source_nodes=sources, metadata=meta)
        docs, scores = nodes_to_documents(nodes, self._space)
        call = {"documents": docs, "scores": scores, **self._settings()}
        if not self._streaming:
            out = self._grounded.complete(query_str, **call)  # emits LlamaIndex's LLM completion events
            return Response(out.text, source_nodes=mark_cited(sources, out.raw, nodes),
                            metadata=self._metadata(out.raw, nodes))
        metadata: dict[str, Any] = {}
        stream = self._grounded.stream_complete(query_str, **call)

        def gen():
            for chunk in stream:
                if chunk.raw is not None:
                    metadata.update(self._metadata(chunk.raw, nodes))
                    sources[:] = mark_cited(sources, chunk.raw, nodes)  # the response holds this list
                if chunk.delta:
                    yield chunk.delta

        return StreamingResponse(gen(), source_nodes=sources, metadata=metadata)

    @dispatcher.span
    async def asynthesize(self, query: QueryTextType, nodes: list[NodeWithScore], additional_source_nodes=None, **kw: Any) -> RESPONSE_TYPE:
        return await asyncio.to_thread(self.synthesize, query, nodes, additional_source_nodes, **kw)

    @staticmethod
    def _metadata(result: GenerationResult, nodes: Sequence[NodeWithScore]) -> dict[str, Any]:
        meta = grounded_metadata(result, nodes)
        meta["scores_used"] = [d.score for d in result.documents]
        return meta
