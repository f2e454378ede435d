"""grounded-rag: Grounded Decoding for retrieval-augmented generation."""

from typing import TYPE_CHECKING, Any

from .process import short_thread_waits

short_thread_waits()  # before anything imports torch: OpenMP reads it once, when it starts

from .config import DecodingConfig
from .errors import ConfigError, ContextWindowError, GroundedRAGError, GroundedRAGWarning, InputError, ModelLoadError
from .trust import calibrate_bias, calibrate_bias_from_retrievals, normalize_scores, retrieval_trust
from .types import Document, GenerationResult, TraceStep

__all__ = [
    "METHODS",
    "ContextWindowError",
    "DecodingConfig",
    "Document",
    "GenerationResult",
    "GroundedDecoder",
    "GroundedRAGError",
    "GroundedRAGWarning",
    "ConfigError",
    "InputError",
    "ModelLoadError",
    "TraceStep",
    "calibrate_bias",
    "load_shared",
    "calibrate_bias_from_retrievals",
    "normalize_scores",
    "retrieval_trust",
]
__version__ = "0.1.0"

if TYPE_CHECKING:
    from .decoder import GroundedDecoder, load_shared
    from .methods import METHODS


def __getattr__(name: str) -> Any:
    """The decoder and the method registry import torch and transformers (seconds): only when asked for, so the
    CLI's other commands, ``ask`` through a running server, and the HTTP client start without them."""
    if name in ("GroundedDecoder", "load_shared"):
        from . import decoder

        return getattr(decoder, name)
    if name == "METHODS":
        from .methods import METHODS

        return METHODS
    raise AttributeError(f"module 'grounded_rag' has no attribute {name!r}")
