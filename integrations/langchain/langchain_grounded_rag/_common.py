"""What the LLM, the chat model and the prompt share: turning LangChain's documents (with their
scores) into grounded_rag's, checking call keywords, and pre-computing one batched decode."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from contextvars import ContextVar
from typing import Any

from langchain_core.documents import Document as LCDocument

from grounded_rag import DecodingConfig, Document, GenerationResult, GroundedDecoder, InputError, load_shared
from grounded_rag.attribution import metadata_label, source_metadata
from grounded_rag.config import call_config, settings_fields
from grounded_rag.inputs import documents_and_scores
from grounded_rag.serving.client import GroundedClient, connect
from grounded_rag.trust import DistanceSpace

SCORE_KEYS = ("relevance_score", "score")
CALL_KEYWORDS = {"documents", "scores", "score_space"}
# DecodingConfig fields a call may override; ``score_space`` there is the wrapper's distance space (the
# scores are normalized to cosine before the core sees them), not DecodingConfig's cosine/raw switch.
DECODING_FIELDS = [k for k in settings_fields() if k not in CALL_KEYWORDS]


def decoder_for(model: str | None, base_url: str | None) -> GroundedDecoder | GroundedClient:
    """The in-process decoder (loaded once per process and model), or a client of the server at
    ``base_url`` with the same interface."""
    return connect(base_url, model) if base_url else load_shared(model)


def count_tokens(decoder: GroundedDecoder | GroundedClient, text: str) -> list[int]:
    """Token ids from the model's own tokenizer: in-process, or the server's ``/tokenize``."""
    if isinstance(decoder, GroundedClient):
        return decoder.count_tokens(text)
    return decoder.tokenizer.encode(text, add_special_tokens=False)


def configured(config: Any, kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """``kwargs`` plus the decoding settings of ``with_config(configurable={"rho_max": 16})``
    (explicit keywords win). Only DecodingConfig fields are taken: other configurable keys belong to
    other runnables (LangGraph's ``thread_id``, a ``configurable_fields`` id)."""
    conf = (config.get("configurable") or {}) if isinstance(config, Mapping) else {}
    return {**{k: v for k, v in conf.items() if k in DECODING_FIELDS}, **kwargs}


def configured_batch(config: Any, n: int, kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """One batched decode's keywords: the inputs' configurable decoding settings must agree."""
    merged = [configured(c, {}) for c in (config if isinstance(config, list) else [config] * n)]
    if any(m != merged[0] for m in merged):
        raise InputError("the batch's inputs carry different configurable decoding settings; batch the inputs of "
                         "each setting separately")
    return {**(merged[0] if merged else {}), **kwargs}


PAIRS_NEED_A_SPACE = ("(Document, score) pairs carry the vector store's raw scores, whose scale differs by store; "
                      "declare it with score_space= ('l2' for Chroma's default collection, 'cosine', 'ip', or "
                      "'relevance' for cosine similarities)")


def to_documents(
    documents: Sequence[Any] | None, scores: Sequence[float] | None, space: DistanceSpace | None = None
) -> tuple[list[Document], list[float] | None]:
    """LangChain Documents (score in ``metadata["relevance_score"]``), ``(Document, score)`` tuples
    from ``similarity_search_with_score``, strings, dicts or grounded_rag Documents -> ours + scores
    on the trust scale (the core's :func:`~grounded_rag.inputs.documents_and_scores`).

    Metadata scores are read as relevance (what :class:`ScoredRetriever` writes) unless ``space``
    says otherwise; tuple scores are raw store output and need ``space``."""
    return documents_and_scores(documents, scores, space, _langchain_document, PAIRS_NEED_A_SPACE)


def _langchain_document(doc: Any, i: int) -> tuple[Document, Any, DistanceSpace] | None:
    """A LangChain Document -> ours, its metadata score (a relevance) or None; None for any other item."""
    if not isinstance(doc, LCDocument):
        return None
    if not doc.page_content.strip():
        raise InputError(f"document {i + 1} (id {doc.id}) has empty page_content; drop empty documents "
                         "before decoding (e.g. filter the retriever's output)")
    meta = dict(doc.metadata)
    score = next((meta[k] for k in SCORE_KEYS if meta.get(k) is not None), None)
    return (Document(text=doc.page_content, title=metadata_label(meta, "title"),
                     id=doc.id or metadata_label(meta, "id", "source"), metadata=source_metadata(meta)),
            score, "relevance")


def fingerprint(documents: Sequence[Document], scores: Sequence[float] | None) -> str:
    # every field that changes the answer: a trusted passage is decoded without the guards against retrieved text
    payload = json.dumps([[d.text, d.title, d.id, d.score, d.trusted] for d in documents] + [list(scores or [])],
                         sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()


def make_config(base: DecodingConfig, stop: Sequence[str] | None, kwargs: Mapping[str, Any],
                extra_keywords: set[str] = frozenset()) -> DecodingConfig:  # type: ignore[assignment]
    """The call's DecodingConfig: ``base`` with per-call fields; unknown keywords are refused."""
    return call_config(base, dict(kwargs), frozenset(CALL_KEYWORDS | set(extra_keywords)), list(stop or []))


# ----------------------------------------------------------------------------- one batched decode
# ``batch`` pre-computes every input's answer in one ``generate_batch`` and parks the results
# here; the per-input runs that LangChain then makes (with their callbacks and traces) pick them up.
_PRECOMPUTED: ContextVar[dict[str, GenerationResult] | None] = ContextVar("grounded_rag_precomputed", default=None)


def request_key(question: str, docs: Sequence[Document], scores: Sequence[float] | None, config: DecodingConfig) -> str:
    return fingerprint(docs, scores) + hashlib.sha256((question + config.model_dump_json()).encode()).hexdigest()


def decode(decoder: GroundedDecoder | GroundedClient, requests: list[tuple[str, list[Document], list[float] | None]],
           config: DecodingConfig) -> list[GenerationResult]:
    """Answers for ``requests``, from a batch's pre-computed results where present, else one batched decode."""
    ready = _PRECOMPUTED.get() or {}
    keys = [request_key(q, d, s, config) for q, d, s in requests]
    todo = [i for i, k in enumerate(keys) if k not in ready]
    fresh = decoder.generate_batch(
        [{"question": requests[i][0], "documents": requests[i][1], "scores": requests[i][2]} for i in todo], config
    ) if todo else []
    found = dict(zip(todo, fresh))
    return [found[i] if i in found else ready[k] for i, k in enumerate(keys)]


def precompute(decoder: GroundedDecoder | GroundedClient, requests: list[tuple[str, list[Document], list[float] | None, DecodingConfig]]
               ) -> dict[str, GenerationResult]:
    """Decode all grounded requests of a batch at once (one batched decode per config)."""
    by_config: dict[str, list[int]] = {}
    for i, (_, _, _, config) in enumerate(requests):
        by_config.setdefault(config.model_dump_json(), []).append(i)
    ready: dict[str, GenerationResult] = dict(_PRECOMPUTED.get() or {})
    for indices in by_config.values():
        config = requests[indices[0]][3]
        results = decoder.generate_batch(
            [{"question": requests[i][0], "documents": requests[i][1], "scores": requests[i][2]} for i in indices], config
        )
        for i, r in zip(indices, results):
            ready[request_key(requests[i][0], requests[i][1], requests[i][2], config)] = r
    return ready


def use_precomputed(ready: dict[str, GenerationResult] | None) -> Any:
    """Make ``ready`` visible to this context's decodes; returns the token for :func:`reset_precomputed`."""
    return None if ready is None else _PRECOMPUTED.set(ready)


def reset_precomputed(token: Any) -> None:
    if token is not None:
        _PRECOMPUTED.reset(token)


def ls_params(model: str | None, model_type: str, config: DecodingConfig) -> dict[str, Any]:
    """LangSmith's standard params for a call decoded with ``config`` (shared by the LLM and the chat model)."""
    params: dict[str, Any] = {"ls_provider": "grounded_rag", "ls_model_name": model or "smollm2-135m-instruct",
                              "ls_model_type": model_type, "ls_temperature": config.temperature,
                              "ls_max_tokens": config.max_new_tokens}
    if config.stop:
        params["ls_stop"] = config.stop
    return params
