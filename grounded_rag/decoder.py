"""``GroundedDecoder``: the public entry point, a thin facade. It loads the model, validates the call's settings and
hands the batch down once (grounded_rag.pipeline: plan → decode → outcome); what a request goes through lives in
those stages, not here."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import torch
from transformers import PreTrainedTokenizerBase

from . import driver, pipeline, planning
from .config import DecodingConfig
from .engine import RowInputs
from .errors import InputError
from .graphs import GraphPool
from .inputs import DocumentLike, Request
from .learned_screen import forget_verdicts
from .lm import LM
from .methods import Method, get_method
from .models import load_model
from .types import GenerationResult

if TYPE_CHECKING:  # transformers' modeling (2 s, 120 MB to import) is not needed on llama.cpp
    from transformers import PreTrainedModel

ENGINE_SWITCHES = ("use_cache", "share_prefix", "ragged", "tree")


class GroundedDecoder:
    """Grounded Decoding over one causal LM (paper Sec. 3): matched streams, fused per token."""

    def __init__(self, model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, name: str = "model") -> None:
        self.lm = LM.of(model, tokenizer, name)
        self.relevance = planning.RelevanceScores()  # a question asked again over the same passages is not rescored

    @classmethod
    def from_pretrained(
        cls, model: str | None = None, device: str | torch.device | None = None, dtype: torch.dtype | None = None,
        backend: str = "auto",
    ) -> GroundedDecoder:
        """Load the embedded default (SmolLM2-135M-Instruct), a packaged alias, a .gguf file, an HF id or folder;
        ``backend`` torch, llama_cpp or auto (llama.cpp for a GGUF on a CPU: grounded_rag.backends)."""
        m, tok, name = load_model(model, device=device, dtype=dtype, backend=backend)
        return cls(m, tok, name)

    # ----------------------------------------------------------------- what callers read of the model
    model = property(lambda self: self.lm.model)
    tokenizer = property(lambda self: self.lm.tokenizer)
    name = property(lambda self: self.lm.name)
    eos_ids = property(lambda self: self.lm.eos_ids)
    pad_id = property(lambda self: self.lm.pad_id)
    context_window = property(lambda self: self.lm.context_window)
    turn_ends = property(lambda self: self.lm.turn_ends)
    linear_layouts = property(lambda self: self.lm.linear_layouts)

    @property
    def graphs(self) -> GraphPool | None:
        return self.lm.graphs

    @graphs.setter
    def graphs(self, pool: GraphPool | None) -> None:
        self.lm.graphs = pool

    # ----------------------------------------------------------------- public API
    def generate(self, question: str, documents: Sequence[DocumentLike], scores: Sequence[float] | None = None,
                 config: DecodingConfig | None = None, **overrides: Any) -> GenerationResult:
        """Answer one question from its documents; ``overrides`` are DecodingConfig fields."""
        return self.generate_batch([{"question": question, "documents": documents, "scores": scores}], config,
                                   **overrides)[0]

    def generate_batch(self, requests: Sequence[Mapping[str, Any]], config: DecodingConfig | None = None,
                       **overrides: Any) -> list[GenerationResult]:
        """Answer many questions in one batched decode (several rows per question for grounded methods).

        Each request is a mapping with ``question``, ``documents`` and optional ``scores``. Engine switches exist for
        checks and benchmarks: ``use_cache=False`` recomputes every step without a KV cache; ``share_prefix=False``
        prefills the streams' prompts separately; ``ragged`` forces the unpadded per-prompt prefill on (the CPU
        default) or off (the padded batch, the GPU default); ``graphs`` turns the static-cache decode
        (:mod:`grounded_rag.graphs`; the GPU default) on or off; ``tree`` the one-pass prefill of each question's
        streams (:func:`~grounded_rag.prefill.prefill`; the GPU default).
        """
        engine = {k: overrides.pop(k) for k in ENGINE_SWITCHES if k in overrides}
        if "graphs" in overrides:
            engine["graphs"] = driver.graph_pool(self.lm, overrides.pop("graphs"))
        cfg = settings(config, overrides)
        method = get_method(cfg.method)
        if not requests:
            return []
        return pipeline.answer_requests(self.lm, self.relevance, requests, cfg, method, **engine)

    def stream(self, question: str, documents: Sequence[DocumentLike], scores: Sequence[float] | None = None,
               config: DecodingConfig | None = None, **overrides: Any) -> Iterator[str]:
        """Yield the answer's text in pieces as tokens are decoded; the pieces join to ``generate``'s text."""
        for piece, _ in self.stream_with_result(question, documents, scores, config, **overrides):
            if piece:
                yield piece

    def stream_with_result(self, question: str, documents: Sequence[DocumentLike],
                           scores: Sequence[float] | None = None, config: DecodingConfig | None = None,
                           **overrides: Any) -> Iterator[tuple[str, GenerationResult | None]]:
        """Like :meth:`stream`, and the last item carries the full result (for integrations)."""
        cfg = settings(config, overrides)
        request = {"question": question, "documents": documents, "scores": scores}
        yield from pipeline.stream_request(self.lm, self.relevance, request, cfg, get_method(cfg.method))

    # ----------------------------------------------------------------- the stages, for servers and evaluations
    def plan(self, requests: Sequence[Mapping[str, Any]], config: DecodingConfig, method: Method,
             raise_errors: bool = True) -> list[Request | InputError]:
        """Every request made ready for the engine (grounded_rag.planning.plan): a server plans its clients'
        requests in one batch, then answers the good ones."""
        return planning.plan(self.lm, self.relevance, requests, config, method, raise_errors)

    def prepare(self, question: str, documents: Sequence[DocumentLike], scores: Sequence[float] | None,
                config: DecodingConfig, method: Method) -> Request:
        """One request through :meth:`plan`."""
        request = {"question": question, "documents": documents, "scores": scores}
        return planning.plan(self.lm, self.relevance, [request], config, method)[0]  # type: ignore[return-value]

    def answer(self, requests: Sequence[Request], config: DecodingConfig, method: Method,
               gone: Callable[[], Sequence[bool]] | None = None, **engine: Any) -> list[GenerationResult]:
        """Planned requests answered in one batched decode (grounded_rag.pipeline.answer)."""
        return pipeline.answer(self.lm, self.relevance, requests, config, method, gone, **engine)

    def stream_answer(self, request: Request, config: DecodingConfig, method: Method
                      ) -> Iterator[tuple[str, GenerationResult | None]]:
        """A planned request's answer in pieces (grounded_rag.pipeline.stream_answer)."""
        return pipeline.stream_answer(self.lm, self.relevance, request, config, method)

    def row_inputs(self, requests: Sequence[Request], method: Method, config: DecodingConfig) -> RowInputs:
        """What the engine needs of a batch besides its prompts (grounded_rag.driver.row_inputs)."""
        return driver.row_inputs(self.lm, requests, method, config)

    def document_tokens(self, requests: Sequence[Request], method: Method) -> list[frozenset[int]] | None:
        """An anchored method's per-question tokens its documents may raise (grounded_rag.driver)."""
        return driver.document_token_sets(self.lm, requests, method)

    def question_gains(self, requests: Sequence[Request]) -> list[list[float]]:
        """Each kept passage's question gain (grounded_rag.planning.question_gains)."""
        return planning.question_gains(self.lm, self.relevance, requests)

    def clear_cache(self) -> None:
        """Forget remembered relevance scores and the screen's verdicts, so a benchmark phase pays for its own."""
        self.relevance.clear()
        forget_verdicts()


def settings(config: DecodingConfig | None, overrides: dict[str, Any]) -> DecodingConfig:
    """The call's settings, validated again: a config edited with ``model_copy(update=...)`` (as framework wrappers
    do) skips pydantic's checks, so it is rebuilt through them here."""
    base = DecodingConfig() if config is None else config
    if isinstance(base, (list, tuple)):
        raise InputError(f"config is a {type(base).__name__}, not a DecodingConfig: generate_batch takes one list "
                         "of requests, each {'question': q, 'documents': [...]}; generate takes the question, then "
                         "its documents")
    if not isinstance(base, DecodingConfig):
        raise InputError(f"config is a {type(base).__name__}; pass a DecodingConfig (or settings as keywords)")
    return base.override(**overrides)


@lru_cache(maxsize=4)
def load_shared(model: str | None = None, backend: str = "auto") -> GroundedDecoder:
    """One loaded decoder per process, model name and backend, shared by every framework wrapper."""
    return GroundedDecoder.from_pretrained(model, backend=backend)
