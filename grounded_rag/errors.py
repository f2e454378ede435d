"""Errors users see. Each message says what was wrong and what to do about it."""


class GroundedRAGError(Exception):
    """Base class for every error this package raises on purpose."""


class InputError(GroundedRAGError, ValueError):
    """A question, document, score or setting the decoder cannot use."""


class ContextWindowError(InputError):
    """The prompt does not fit the model's context window under the configured policy."""


class ModelLoadError(GroundedRAGError, RuntimeError):
    """A model could not be found, verified or loaded."""


class GroundedRAGWarning(UserWarning):
    """Something was changed to make decoding possible (e.g. documents dropped)."""
