"""LlamaIndex integration for grounded-rag."""

from .base import GroundedRAG, PipelineError, result_of, to_documents
from .embeddings import packaged_embedding
from .synthesizer import NO_DOCUMENTS_ANSWER, GroundedSynthesizer

__all__ = ["NO_DOCUMENTS_ANSWER", "GroundedRAG", "GroundedSynthesizer", "PipelineError", "packaged_embedding", "result_of",
           "to_documents"]
