"""Retrieval that keeps scores: the stock ``VectorStoreRetriever`` drops them."""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.retrievers import BaseRetriever
from langchain_core.vectorstores import VectorStore
from pydantic import ConfigDict

from grounded_rag.encoders import embed
from grounded_rag.trust import DistanceSpace, normalize_scores


class PackagedMiniLMEmbeddings(Embeddings):
    """The packaged all-MiniLM-L6-v2 (offline, unit-normalized) as LangChain embeddings."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return embed(texts)

    def embed_query(self, text: str) -> list[float]:
        return embed([text])[0]


def chroma_space(vectorstore: VectorStore) -> DistanceSpace:
    """The distance space of a langchain-chroma store's collection (Chroma's default is l2)."""
    collection = getattr(vectorstore, "_collection", None)
    space = None
    if collection is not None:
        space = (collection.metadata or {}).get("hnsw:space")
        if space is None:
            config = getattr(collection, "configuration_json", None) or {}
            space = (config.get("hnsw") or {}).get("space")
    return space or "l2"


class ScoredRetriever(BaseRetriever):
    """Top-k documents with ``metadata["relevance_score"]`` on the trust gate's cosine scale.

    ``space``: the store's distance space, or ``"auto"`` to read it from a Chroma collection.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    vectorstore: VectorStore
    k: int = 4
    space: DistanceSpace | str = "auto"

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        pairs = self.vectorstore.similarity_search_with_score(query, k=kwargs.get("k", self.k))
        space = chroma_space(self.vectorstore) if self.space == "auto" else self.space
        scores = normalize_scores([s for _, s in pairs], space)  # type: ignore[arg-type]
        out = []
        for (doc, _), score in zip(pairs, scores):
            out.append(Document(page_content=doc.page_content, id=doc.id,
                                metadata={**doc.metadata, "relevance_score": score}))
        return out
