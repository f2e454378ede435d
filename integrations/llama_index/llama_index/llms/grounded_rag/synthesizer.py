"""A response synthesizer that hands each retrieved node's text *and score* to Grounded Decoding.

LlamaIndex's stock synthesizers pass only text chunks to the LLM, so the retriever's scores never
reach the trust gate; this one keeps them. Node postprocessors run before it as usual.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from llama_index.core.base.response.schema import RESPONSE_TYPE, Response, StreamingResponse
from llama_index.core.prompts.mixin import PromptDictType
from llama_index.core.response_synthesizers.base import BaseSynthesizer, QueryTextType
from llama_index.core.schema import MetadataMode, NodeWithScore, QueryBundle, TextNode

from grounded_rag import DecodingConfig, Document, InputError
from grounded_rag.trust import DistanceSpace, normalize_scores

from .base import GroundedRAG

NO_DOCUMENTS_ANSWER = "No documents were retrieved for this question, so no grounded answer can be given."


def nodes_to_documents(nodes: Sequence[NodeWithScore], space: DistanceSpace) -> tuple[list[Document], list[float] | None]:
    docs = []
    for i, n in enumerate(nodes):
        if not isinstance(n.node, TextNode) or not n.node.get_content(metadata_mode=MetadataMode.NONE).strip():
            raise InputError(
                f"node {i + 1} ({type(n.node).__name__}, id {n.node.node_id}) has no text; grounded decoding "
                "reads text passages only: filter non-text nodes with a node postprocessor"
            )
        meta = n.node.metadata or {}
        title = meta.get("title") or meta.get("file_name")
        docs.append(Document(text=n.node.get_content(metadata_mode=MetadataMode.NONE), title=title, id=n.node.node_id))
    raw = [n.score for n in nodes]
    if all(s is None for s in raw):
        return docs, None
    if any(s is None for s in raw):
        missing = [i + 1 for i, s in enumerate(raw) if s is None]
        raise InputError(f"nodes {missing} have no score while others do; a retriever must score all nodes or none")
    return docs, normalize_scores([float(s) for s in raw], space)


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

    # Text-only entry points (no scores available): trust falls back to 1, as documented.
    def get_response(self, query_str: str, text_chunks: Sequence[str], **kwargs: Any) -> Any:
        return self._grounded.decoder.generate(query_str, list(text_chunks), None, self._decoding).text

    async def aget_response(self, query_str: str, text_chunks: Sequence[str], **kwargs: Any) -> Any:
        return await asyncio.to_thread(self.get_response, query_str, text_chunks, **kwargs)

    def synthesize(
        self,
        query: QueryTextType,
        nodes: list[NodeWithScore],
        additional_source_nodes: Sequence[NodeWithScore] | None = None,
        **response_kwargs: Any,
    ) -> RESPONSE_TYPE:
        query_str = query.query_str if isinstance(query, QueryBundle) else str(query)
        sources = list(nodes) + list(additional_source_nodes or [])
        if not nodes:
            meta = {"trust": 0.0, "citations": [], "fallback": "no documents retrieved: answer not grounded"}
            return Response(NO_DOCUMENTS_ANSWER, source_nodes=sources, metadata=meta)
        docs, scores = nodes_to_documents(nodes, self._space)
        decoder = self._grounded.decoder
        if not self._streaming:
            result = decoder.generate(query_str, docs, scores, self._decoding)
            return Response(result.text, source_nodes=sources, metadata=self._metadata(result, nodes))
        metadata: dict[str, Any] = {}
        stream = decoder.stream_with_result(query_str, docs, scores, self._decoding)

        def gen():
            for piece, result in stream:
                if result is not None:
                    metadata.update(self._metadata(result, nodes))
                if piece:
                    yield piece

        return StreamingResponse(gen(), source_nodes=sources, metadata=metadata)

    async def asynthesize(self, query: QueryTextType, nodes: list[NodeWithScore], additional_source_nodes=None, **kw: Any) -> RESPONSE_TYPE:
        return await asyncio.to_thread(self.synthesize, query, nodes, additional_source_nodes, **kw)

    @staticmethod
    def _metadata(result, nodes: Sequence[NodeWithScore]) -> dict[str, Any]:
        meta = result.metadata()
        meta["cited_node_ids"] = [nodes[k - 1].node.node_id for k in result.citations]
        meta["scores_used"] = [d.score for d in result.documents]
        return meta
