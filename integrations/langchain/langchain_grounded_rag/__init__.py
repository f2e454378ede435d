"""LangChain integration for grounded-rag."""

from . import citations as _citations
from .chains import NO_DOCUMENTS_ANSWER, create_grounded_rag_chain, create_stuff_documents_chain
from .chat_models import ChatGroundedRAG
from .llms import GroundedRAGLLM
from .prompts import GroundedPromptTemplate, GroundedPromptValue
from .retrievers import PackagedMiniLMEmbeddings, ScoredRetriever

_citations.register()  # message.content_blocks carries the decoder's citations as LangChain annotations

__all__ = [
    "NO_DOCUMENTS_ANSWER",
    "ChatGroundedRAG",
    "GroundedPromptTemplate",
    "GroundedPromptValue",
    "GroundedRAGLLM",
    "PackagedMiniLMEmbeddings",
    "ScoredRetriever",
    "create_grounded_rag_chain",
    "create_stuff_documents_chain",
]
