"""What a request is to the server's worker once it is read (a :class:`Job`), and what comes back (an
:class:`Outcome`): the worker, the admission control and the routes all speak of these."""

from __future__ import annotations

from dataclasses import dataclass

from ..config import DecodingConfig
from ..types import Document, GenerationResult


@dataclass(eq=False)
class Job:
    """One request made ready for the decoder."""

    question: str
    documents: list[Document]
    config: DecodingConfig
    trace: bool = False
    cost: int = 0  # tokens of model work (serving.admission), counted before the model runs

    @property
    def key(self) -> str:
        """Requests decode together only under the same config (one fusion rule, one stop list per batch)."""
        return self.config.model_dump_json()


@dataclass
class Outcome:
    result: GenerationResult
    prompt_tokens: int  # tokens of the full prompt (the reference stream's are not billed)
