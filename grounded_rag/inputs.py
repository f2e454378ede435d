"""A question and its documents made ready for the engine: validated, scored on one scale, cut to the
context window. Everything here refuses bad input with an :class:`InputError` that says what to do."""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError
from transformers import PreTrainedTokenizerBase

from .config import DecodingConfig, unicode_text
from .errors import ContextWindowError, GroundedRAGWarning, InputError
from .methods import Method
from .prompts import build_prompts, encode
from .types import Document, Prompts

DocumentLike = Document | str | Mapping[str, Any]
DOCUMENT_KEYS = ("text", "title", "id", "score", "metadata", "trusted")  # what a dict may say of its passage
_COSINE_SLACK = 1e-4  # float error of a distance -> similarity conversion (e.g. 1 - (-1e-7))


@dataclass
class Request:
    """One question made ready for the engine."""

    question: str
    documents: list[Document]
    scores: list[float] | None
    prompts: Prompts
    token_ids: list[list[int]]  # one per stream: full, then reference
    trust: float
    numbers: list[int]  # each document's 1-based position in the caller's list (its "Doc k" in the prompt)
    dropped: list[Document] = field(default_factory=list)
    irrelevant: list[Document] = field(default_factory=list)
    # each kept document's question likelihood (grounded_rag.relevance), where the relevance filter scored them
    relevance: list[float] | None = None

    @property
    def trusted(self) -> bool:
        """Every document it reads is the caller's own (:attr:`Document.trusted`): none is retrieved text."""
        return bool(self.documents) and all(d.trusted for d in self.documents)


def as_document(doc: DocumentLike, index: int) -> Document:
    if isinstance(doc, str):
        if not doc.strip():
            raise InputError(f"document {index + 1} is empty; remove empty passages before decoding")
        doc = Document(text=text_input(doc, f"document {index + 1}"))
    elif isinstance(doc, Mapping):
        if not isinstance(doc.get("text"), str) or not doc["text"].strip():
            raise InputError(f"document {index + 1} has no text; every document needs a non-empty 'text'")
        if isinstance(doc.get("score"), bool):
            raise InputError(f"document {index + 1} has score {doc['score']!r}; a score is a number, not a bool")
        if "trusted" in doc and not isinstance(doc["trusted"], bool):
            raise InputError(f"document {index + 1} has trusted={doc['trusted']!r}; pass True (the caller wrote it) "
                             "or False (retrieved text)")
        try:
            doc = Document(**{k: doc[k] for k in DOCUMENT_KEYS if k in doc})
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors(include_url=False))
            raise InputError(f"document {index + 1} is not a valid document ({problems}); "
                             "'text' and 'title' are strings, 'score' a number") from None
    elif not isinstance(doc, Document):
        raise InputError(
            f"document {index + 1} is a {type(doc).__name__}; pass a str, a dict with 'text', or a Document"
        )
    text_input(doc.text, f"document {index + 1}")
    if doc.title is not None:
        text_input(doc.title, f"the title of document {index + 1}")
    return doc


def checked_request(question: Any, documents: Any) -> list[Document]:
    """The question and documents of one request checked (a clear InputError for each mistake), the
    documents as :class:`Document`."""
    if not isinstance(question, str) or not question.strip():
        raise InputError("question is empty; pass the user's question as a non-empty string")
    text_input(question, "the question")
    if isinstance(documents, (str, Document)) or not isinstance(documents, Sequence):
        raise InputError("documents must be a list of passages (str, dict with 'text', or Document)")
    if len(documents) == 0:
        raise InputError(
            "no documents were given; grounded decoding needs at least one retrieved passage "
            "(use method='standard' without retrieval, or check the retriever)"
        )
    return [as_document(d, i) for i, d in enumerate(documents)]


def text_input(value: str, what: str) -> str:
    """``value`` if it is Unicode text, else an InputError naming ``what``."""
    try:
        return unicode_text(value, what)
    except ValueError as exc:
        raise InputError(str(exc)) from None


def check_scores(docs: list[Document], scores: Sequence[float] | None, space: str = "cosine") -> list[float] | None:
    """The scores to gate on: one finite number per document, on the declared scale."""
    if scores is None:
        given = [d.score for d in docs]
        if all(s is None for s in given):
            return None
        if any(s is None for s in given):
            missing = [i + 1 for i, s in enumerate(given) if s is None]
            raise InputError(
                f"documents {missing} have no score while others do; give every document a score or none"
            )
        scores = given  # type: ignore[assignment]
    if isinstance(scores, (str, bytes)) or not isinstance(scores, Iterable):
        raise InputError(f"scores is a {type(scores).__name__}; pass a list with one number per document")
    scores = list(scores)
    if len(scores) != len(docs):
        raise InputError(f"got {len(scores)} scores for {len(docs)} documents; pass one score per document")
    for i, s in enumerate(scores):
        if isinstance(s, bool) or not isinstance(s, (int, float)) or not math.isfinite(s):
            raise InputError(f"score {i + 1} is {s!r}; scores must be finite numbers (normalize distances first)")
        if space == "cosine" and not -1 - _COSINE_SLACK <= s <= 1 + _COSINE_SLACK:
            raise InputError(
                f"score {i + 1} is {s!r}, outside [-1, 1], the cosine-similarity scale the trust gate reads; "
                "map vector-store distances with grounded_rag.normalize_scores(values, space), or set "
                "score_space='raw' for raw retriever scores (e.g. inner products) and calibrate b with "
                "calibrate_bias_from_retrievals"
            )
    return [float(s) for s in scores]


def fit_context(tokenizer: PreTrainedTokenizerBase, context_window: int, question: str, docs: list[Document],
                scores: list[float] | None, numbers: list[int], config: DecodingConfig, method: Method):
    """Drop the lowest-scored documents (last ones without scores) until every stream's prompt fits.

    Returns the kept documents, scores and numbers, the dropped documents, the prompts and their token ids."""
    dropped: list[Document] = []
    docs, scores, numbers = list(docs), (list(scores) if scores is not None else None), list(numbers)
    budget = context_window - config.max_new_tokens
    if budget <= 0:
        raise ContextWindowError(
            f"max_new_tokens={config.max_new_tokens} leaves no room for the prompt in the model's context "
            f"window of {context_window} tokens; set max_new_tokens well below {context_window}"
        )
    while True:
        prompts = build_prompts(tokenizer, question, docs, method.references, config.template,
                                config.system_prompt, config.answer_prefix, numbers)
        token_ids = [encode(tokenizer, p) for p in prompts]
        longest = max(len(ids) for ids in token_ids)
        if longest <= budget:
            break
        if config.overflow == "error" or len(docs) == 1:
            fix = (
                "; shorten the question or documents, lower max_new_tokens, or set overflow='truncate' to drop "
                "the lowest-scored documents"
                if config.overflow == "error" and len(docs) > 1
                else "; split long documents into passages (e.g. grounded-rag ingest --chunk-chars 800, or "
                "grounded_rag.retrieval.chunk_text), shorten the question, or lower max_new_tokens"
            )
            raise ContextWindowError(
                f"the prompt needs {longest} tokens plus max_new_tokens={config.max_new_tokens}, but the "
                f"model's context window is {context_window}"
                + (" even with a single document" if len(docs) == 1 else "")
                + fix
            )
        drop = min(range(len(docs)), key=lambda i: scores[i]) if scores is not None else len(docs) - 1
        dropped.append(docs.pop(drop))
        numbers.pop(drop)
        if scores is not None:
            scores.pop(drop)
    if dropped:
        warnings.warn(
            f"dropped {len(dropped)} document(s) with the lowest scores to fit the context window "
            f"of {context_window} tokens",
            GroundedRAGWarning,
            stacklevel=5,
        )
    return docs, scores, numbers, dropped, prompts, token_ids
