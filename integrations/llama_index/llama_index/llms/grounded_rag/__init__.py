"""LlamaIndex integration for grounded-rag."""

from .base import GroundedRAG
from .embeddings import packaged_embedding
from .synthesizer import NO_DOCUMENTS_ANSWER, GroundedSynthesizer

__all__ = ["NO_DOCUMENTS_ANSWER", "GroundedRAG", "GroundedSynthesizer", "packaged_embedding"]
