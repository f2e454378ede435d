"""LangChain integration for grounded-rag."""

from .chains import NO_DOCUMENTS_ANSWER, create_grounded_rag_chain
from .llms import GroundedRAGLLM
from .retrievers import PackagedMiniLMEmbeddings, ScoredRetriever

__all__ = ["NO_DOCUMENTS_ANSWER", "GroundedRAGLLM", "PackagedMiniLMEmbeddings", "ScoredRetriever", "create_grounded_rag_chain"]
