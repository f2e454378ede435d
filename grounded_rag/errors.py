"""Errors users see. Each message says what was wrong and what to do about it."""


class GroundedRAGError(Exception):
    """Base class for every error this package raises on purpose."""


class InputError(GroundedRAGError, ValueError):
    """A question, document, score or setting the decoder cannot use."""


class ConfigError(InputError):
    """A decoding setting is invalid. ``validation`` keeps pydantic's error so a caller that
    received the settings under another name (a server's ``decoding`` object) can re-explain them."""

    def __init__(self, message: str, validation: Exception | None = None) -> None:
        super().__init__(message)
        self.validation = validation


class ContextWindowError(InputError):
    """The prompt does not fit the model's context window under the configured policy."""


class ModelLoadError(GroundedRAGError, RuntimeError):
    """A model could not be found, verified or loaded."""


class GroundedRAGWarning(UserWarning):
    """Something was changed to make decoding possible (e.g. documents dropped)."""
