"""grounded-rag: Grounded Decoding for retrieval-augmented generation."""

from .config import DecodingConfig
from .decoder import GroundedDecoder, load_shared
from .errors import ConfigError, ContextWindowError, GroundedRAGError, GroundedRAGWarning, InputError, ModelLoadError
from .methods import METHODS
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
