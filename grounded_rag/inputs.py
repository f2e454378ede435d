"""A question and its documents made ready for the engine: validated, scored on one scale, cut to the
context window. Everything here refuses bad input with an :class:`InputError` that says what to do."""

from __future__ import annotations

import math
import unicodedata
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from .config import DecodingConfig, unicode_text
from .errors import ContextWindowError, GroundedRAGWarning, InputError
from .prompts import build_prompts, encode, encode_text
from .trust import DistanceSpace, is_number, normalize_scores
from .types import Document, Prompts, WithheldText

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

    from .methods import Method

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
    withheld: list[WithheldText] = field(default_factory=list)  # sentences screening took out (grounded_rag.screening)

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
        unknown = [str(k) for k in doc if k not in DOCUMENT_KEYS]
        if unknown:  # a misspelt 'scor' would silently drop the score
            raise InputError(f"document {index + 1} has key(s) {', '.join(map(repr, unknown))}; a document dict "
                             f"takes {', '.join(DOCUMENT_KEYS)}")
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
    if not visible(doc.text):  # a question of these is refused as empty; a passage of them is no passage either
        raise InputError(f"document {index + 1} is empty (only whitespace, control or invisible characters); remove "
                         "empty passages before decoding")
    text_input(doc.text, f"document {index + 1}")
    if doc.title is not None:
        text_input(doc.title, f"the title of document {index + 1}")
    if isinstance(doc.id, str):  # ids and metadata come back in citations: they must encode as UTF-8 too
        text_input(doc.id, f"the id of document {index + 1}")
    _metadata_text(doc.metadata, f"the metadata of document {index + 1}")
    return doc


def _metadata_text(value: Any, where: str) -> None:
    """Every string in metadata, keys and nested values too, is Unicode text: it goes back in citations and traces,
    which must encode as UTF-8 (a lone surrogate found only then would fail after the decoding)."""
    if isinstance(value, str):
        text_input(value, where)
    elif isinstance(value, Mapping):
        for key, inner in value.items():
            if isinstance(key, str):
                text_input(key, f"a key of {where}")
            _metadata_text(inner, f"{where}, {key!r}" if isinstance(key, str) else where)
    elif isinstance(value, (list, tuple)):
        for inner in value:
            _metadata_text(inner, where)


# A framework's own document type -> (Document, its score or None, the scale that score is on without a declared
# score_space, or None where only a declaration can say); None for an item that is not that type.
Converter = Callable[[Any, int], "tuple[Document, float | None, DistanceSpace | None] | None"]


def documents_and_scores(items: Sequence[Any] | None, scores: Sequence[float] | None = None,
                         space: DistanceSpace | None = None, convert: Converter | None = None,
                         undeclared: str = "") -> tuple[list[Document], list[float] | None]:
    """Every accepted shape of retrieved documents -> core Documents and their scores on the trust scale (None: no
    scores): the one normaliser the wrappers, the server and the client call.

    An item is a str, a dict with 'text', a :class:`Document`, a ``(document, score)`` pair of these (a vector store's
    raw score), or whatever ``convert`` takes (LangChain Documents, LlamaIndex nodes). ``scores`` (already on the trust
    scale) win over the documents' own. Otherwise each own score is read in ``space`` where it is declared, else in
    its item's own scale (a Document's or dict's score, a LangChain metadata relevance: cosine similarity); a score
    whose scale nobody says is refused with ``undeclared``. All or none of the documents must carry one."""
    if isinstance(items, (str, bytes, Mapping, BaseModel)) or (items is not None and not isinstance(items, Iterable)):
        raise InputError(f"documents is one {type(items).__name__}, not a list of them: pass [the passage] (a str "
                         "would otherwise become one document per character)")
    if scores is not None:
        _check_scores_shape(scores)
    docs: list[Document] = []
    raw: list[tuple[float, DistanceSpace | None] | None] = []
    for i, item in enumerate(items or []):
        doc, score, scale = _one_document(item, i, convert)
        docs.append(doc)
        if score is not None and not is_number(score):
            raise InputError(f"document {i + 1} has the score {score!r}; a score must be a number")
        raw.append(None if score is None else (float(score), space or scale))
    if scores is not None:
        if len(scores) != len(docs):
            raise InputError(f"got {len(scores)} scores for {len(docs)} documents; pass one score per document")
        return docs, check_scores(docs, list(scores), "raw")  # type: ignore[return-value]
    if all(r is None for r in raw):
        return docs, None
    if any(r is None for r in raw):
        missing = [i + 1 for i, r in enumerate(raw) if r is None]
        raise InputError(f"documents {missing} have no score while others do; give every document a score or none")
    return docs, [_on_trust_scale(i, value, scale, undeclared) for i, (value, scale) in enumerate(raw)]  # type: ignore[misc]


UNORDERED = (str, bytes, set, frozenset, Mapping)  # iterable, but not scores in the documents' order


def with_scores(docs: list[Document], scores: Sequence[float] | None) -> list[Document]:
    """``docs``, each carrying its score (results and requests say every document's score, however it was
    passed); unchanged without scores."""
    return docs if scores is None else [d.model_copy(update={"score": s}) for d, s in zip(docs, scores)]


def _one_document(item: Any, i: int, convert: Converter | None) -> tuple[Document, Any, DistanceSpace | None]:
    """One item -> (Document, its raw score or None, the scale of that score if known)."""
    if isinstance(item, tuple) and len(item) == 2:
        inner, score = item
        if not is_number(score):
            raise InputError(f"document {i + 1}: the score of a (document, score) pair is {score!r}; use a number")
        doc, _, _ = _one_document(inner, i, convert)
        return doc, score, None  # a store's raw output: only a declared score_space says its scale
    got = convert(item, i) if convert is not None else None
    if got is not None:
        return got
    if isinstance(item, Document):
        return item, item.score, "relevance"
    if isinstance(item, (str, Mapping)):
        doc = as_document(item, i)
        return doc, doc.score, "relevance"
    raise InputError(f"document {i + 1} is a {type(item).__name__}; pass a str, a dict with 'text', a Document, a "
                     "(document, score) pair, or the framework's own documents")


def _on_trust_scale(i: int, value: float, scale: DistanceSpace | None, undeclared: str) -> float:
    if scale is None:
        raise InputError(undeclared or "these documents carry scores whose scale is unknown; declare it with "
                         "score_space= ('l2', 'cosine', 'ip', 'exp_l2', 'exp_cosine', or 'relevance' for cosine "
                         "similarities)")
    try:
        [score] = normalize_scores([value], scale)
    except ValueError as exc:
        raise InputError(f"score {i + 1}: {exc}; check score_space=") from None
    if not -1.0 - _COSINE_SLACK <= score <= 1.0 + _COSINE_SLACK:
        raise InputError(f"score {i + 1} is {value!r}, read as {scale!r} a cosine similarity of {score:.4g}, outside "
                         "the cosine range [-1, 1]; declare "
                         "the space the scores are in with score_space= (l2, cosine, ip, exp_l2, exp_cosine or "
                         "relevance) or normalize them first with grounded_rag.normalize_scores")
    return score


def visible(text: str) -> bool:
    """Whether ``text`` holds a character a reader sees: not only whitespace, control characters (NUL, escape
    sequences) and invisible ones (zero-width spaces, a byte-order mark, soft hyphens), which make no question."""
    return any(not ch.isspace() and unicodedata.category(ch) not in ("Cc", "Cf") for ch in text)


def checked_request(question: Any, documents: Any) -> list[Document]:
    """The question and documents of one request checked (a clear InputError for each mistake), the
    documents as :class:`Document`."""
    if not isinstance(question, str):
        raise InputError(f"question is a {type(question).__name__}; pass the user's question as a string")
    if not visible(question):
        raise InputError("question is empty (or only whitespace, control or invisible characters); pass the user's "
                         "question as a non-empty string")
    text_input(question, "the question")
    if isinstance(documents, (str, Document)) or not isinstance(documents, Sequence):
        raise InputError("documents must be a list of passages (str, dict with 'text', or Document)")
    if len(documents) == 0:
        raise InputError(
            "no documents were given; every method answers from at least one passage: pass the retrieved passages as "
            "a non-empty list (on the command line: --doc TEXT or --store DIR), or check the retriever"
        )
    return [as_document(d, i) for i, d in enumerate(documents)]


def text_input(value: str, what: str) -> str:
    """``value`` if it is Unicode text, else an InputError naming ``what``."""
    try:
        return unicode_text(value, what)
    except ValueError as exc:
        raise InputError(str(exc)) from None


def _check_scores_shape(scores: object) -> None:
    """Scores are a list of numbers; a config passed where they go (``generate(q, docs, config)``: the third argument
    is the scores) is said as such, not counted as one score per field."""
    if isinstance(scores, BaseModel):
        raise InputError(f"scores is a {type(scores).__name__}: the argument after the documents is their scores; "
                         "pass settings as config=DecodingConfig(...) or as keywords (extractive=True)")
    if isinstance(scores, UNORDERED) or not isinstance(scores, Iterable):
        raise InputError(f"scores is a {type(scores).__name__}; pass a list with one number per document")


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
    _check_scores_shape(scores)
    scores = list(scores)
    if len(scores) != len(docs):
        raise InputError(f"got {len(scores)} scores for {len(docs)} documents; pass one score per document")
    for i, s in enumerate(scores):
        if not is_number(s) or not math.isfinite(s):
            raise InputError(f"score {i + 1} is {s!r}; scores must be finite numbers (normalize distances first)")
        if space == "cosine" and not -1 - _COSINE_SLACK <= s <= 1 + _COSINE_SLACK:
            raise InputError(
                f"score {i + 1} is {s!r}, outside [-1, 1], the cosine-similarity scale the trust gate reads; "
                "map vector-store distances with grounded_rag.normalize_scores(values, space), or set "
                "score_space='raw' (--score-space raw on the command line) for raw retriever scores (e.g. inner "
                "products) and calibrate b with calibrate_bias_from_retrievals"
            )
    return [float(s) for s in scores]


def question_fits(tokenizer: PreTrainedTokenizerBase, context_window: int, question: str, config: DecodingConfig) -> int:
    """The question's tokens, or a ContextWindowError when the question alone leaves no room in the window: checked
    before any passage is scored or read, since no choice of passages can make it fit."""
    budget = context_window - config.max_new_tokens
    if budget <= 0:
        raise ContextWindowError(
            f"max_new_tokens={config.max_new_tokens} leaves no room for the prompt in the model's context "
            f"window of {context_window} tokens; set max_new_tokens well below {context_window}"
        )
    tokens = len(encode_text(tokenizer, question))
    if tokens > budget:
        raise ContextWindowError(
            f"the question alone has {tokens} tokens, more than the {budget} the model's context window of "
            f"{context_window} leaves beside max_new_tokens={config.max_new_tokens}; shorten the question")
    return tokens


def fit_context(tokenizer: PreTrainedTokenizerBase, context_window: int, question: str, docs: list[Document],
                scores: list[float] | None, numbers: list[int], config: DecodingConfig, method: Method):
    """Drop the lowest-scored documents (last ones without scores) until every stream's prompt fits.

    Returns the kept documents, scores and numbers, the dropped documents, the prompts and their token ids."""
    dropped: list[Document] = []
    docs, scores, numbers = list(docs), (list(scores) if scores is not None else None), list(numbers)
    question_tokens = question_fits(tokenizer, context_window, question, config)  # also: max_new_tokens leaves room
    budget = context_window - config.max_new_tokens
    # each passage's own tokens, counted once: a request far over the window sheds passages without re-encoding
    # every stream's prompt for each one (the template's own tokens are not counted, so this never drops too many)
    sizes = [len(encode_text(tokenizer, d.text)) + len(encode_text(tokenizer, d.title or "")) for d in docs]
    while len(docs) > 1 and question_tokens + sum(sizes) - 2 * len(docs) > budget and config.overflow != "error":
        drop = min(range(len(docs)), key=lambda i: scores[i]) if scores is not None else len(docs) - 1
        dropped.append(docs.pop(drop))
        numbers.pop(drop)
        sizes.pop(drop)
        if scores is not None:
            scores.pop(drop)
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
                "grounded_rag.sources.chunk_text), shorten the question, or lower max_new_tokens"
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
