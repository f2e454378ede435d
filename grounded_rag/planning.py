"""The plan stage: a batch of requests made ready for the engine, each step once for the whole batch.

Normalised (the cheap checks, no model work), screened (grounded_rag.screening; the learned screen judging the batch's
sentences in one call), relevance-filtered (every request's passages scored together in one packed pass;
grounded_rag.relevance), fit to the context window and rendered as matched prompts (grounded_rag.inputs). The
relevance scores are remembered (:class:`RelevanceScores`): a question asked again over the same passages (a tuning
grid, a retried request, the outcome stage's question gains) is not scored again.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .config import DecodingConfig
from .errors import InputError
from .inputs import Request, check_scores, checked_request, fit_context, question_fits, with_scores
from .learned_screen import flagged
from .lm import LM
from .methods import Method
from .prefill import common_prefix_length
from .relevance import question_likelihoods, relevant
from .screening import screen_documents, sentence_texts
from .trust import retrieval_trust
from .types import Document, Prompts, WithheldText

Key = tuple[str, tuple[tuple[str | None, str], ...] | None]


def relevance_key(question: str, docs: Sequence[Document] | None) -> Key:
    """What a relevance scoring depends on: the question and each passage's title and text (``None``: the question's
    baseline, read after no passage)."""
    return question, None if docs is None else tuple((d.title, d.text) for d in docs)


class RelevanceScores:
    """Each (question, passages)'s question likelihoods, the most recent :attr:`SIZE` remembered; safe to share
    between threads (a server's batches)."""

    SIZE = 1024

    def __init__(self) -> None:
        self.known: OrderedDict[Key, list[float]] = OrderedDict()
        self.lock = threading.Lock()

    def score(self, lm: LM, keys: Sequence[Key]) -> list[list[float]]:
        """Each key's scores: the ones not remembered scored together in one packed call, then all remembered."""
        with self.lock:
            known = {k: self.known[k] for k in keys if k in self.known}
        todo = list(dict.fromkeys(k for k in keys if k not in known))
        if todo:
            requests = [(q, None if passages is None else [Document(title=title, text=text) for title, text in passages])
                        for q, passages in todo]
            known.update(zip(todo, question_likelihoods(lm.model, lm.tokenizer, requests, lm.pad_id)))
        with self.lock:
            for key in keys:
                self.known[key] = known[key]
                self.known.move_to_end(key)
            while len(self.known) > self.SIZE:
                self.known.popitem(last=False)
        return [known[k] for k in keys]

    def clear(self) -> None:
        with self.lock:
            self.known.clear()


@dataclass
class Normalised:
    """A request after the cheap checks and before any model work."""

    question: str
    documents: list[Document]
    scores: list[float] | None
    trust: float
    withheld: list[WithheldText] = field(default_factory=list)  # what screening took out of the documents


def plan(lm: LM, relevance: RelevanceScores, requests: Sequence[Mapping[str, Any]], config: DecodingConfig,
         method: Method, raise_errors: bool = True) -> list[Request | InputError]:
    """Every request made ready for the engine. With ``raise_errors`` the first refusal is raised before any model
    work where it can be; without, a refused request has its InputError in its place and the others go on (the
    server's batch of many clients' requests)."""
    normal = _each(lambda i, r: normalise(lm, r, i, config), list(enumerate(requests)), raise_errors)
    if config.screen_instructions:
        normal = screened(normal, config.screen_classifier)
    if config.relevance_margin is not None:  # remembered here, read by fit
        many = [n for n in normal if isinstance(n, Normalised) and len(n.documents) > 1]
        relevance.score(lm, [relevance_key(n.question, n.documents) for n in many]
                        + [relevance_key(n.question, None) for n in many])
    return _each(lambda _, n: n if isinstance(n, InputError) else fit(lm, relevance, n, config, method),
                 list(enumerate(normal)), raise_errors)


def _each(step: Any, items: list[tuple[int, Any]], raise_errors: bool) -> list[Any]:
    """``step(i, item)`` for every item; a refusal raised, or kept in the item's place."""
    out = []
    for i, item in items:
        try:
            out.append(step(i, item))
        except InputError as exc:
            if raise_errors:
                raise
            out.append(exc)
    return out


def normalise(lm: LM, request: Any, index: int, config: DecodingConfig) -> Normalised:
    """A request's question and documents checked, its question known to fit the window (before any passage is
    scored: no choice of passages can make it fit), its scores on the trust scale."""
    if not isinstance(request, Mapping) or "question" not in request or "documents" not in request:
        raise InputError(f"request {index + 1} is not a mapping with 'question' and 'documents' (and optional "
                         "'scores'); pass dicts like {'question': q, 'documents': [...]}")
    question = request["question"]
    docs = checked_request(question, request["documents"])
    question_fits(lm.tokenizer, lm.context_window, question, config)
    scores = check_scores(docs, request.get("scores"), config.score_space)
    return Normalised(question, with_scores(docs, scores), scores,
                      retrieval_trust(scores, config.tau_r, config.gamma, config.b))


def screened(normal: list[Normalised | InputError], learned: bool) -> list[Normalised | InputError]:
    """Every request's passages screened (grounded_rag.screening); with ``learned``, the classifier judges the
    sentences of the whole batch in one call, as the relevance filter scores its passages."""
    live = [n for n in normal if isinstance(n, Normalised)]
    flags = flagged(sentence_texts(d for n in live for d in n.documents if not d.trusted)) if learned else None
    classifier = None if flags is None else lambda _sentences: flags
    out: list[Normalised | InputError] = []
    for n in normal:
        if isinstance(n, Normalised):
            documents, withheld = screen_documents(n.documents, classifier)
            n = replace(n, documents=documents, withheld=withheld)
        out.append(n)
    return out


def fit(lm: LM, relevance: RelevanceScores, n: Normalised, config: DecodingConfig, method: Method) -> Request:
    """The relevant passages (their scores remembered by :func:`plan`) that fit the window, as prompts."""
    keep, likelihoods = relevant_passages(lm, relevance, n.question, n.documents, config)
    irrelevant = [d for i, d in enumerate(n.documents) if i not in keep]
    docs, numbers = [n.documents[i] for i in keep], [i + 1 for i in keep]
    scores = None if n.scores is None else [n.scores[i] for i in keep]
    docs, scores, numbers, dropped, (full, *refs), token_ids = fit_context(
        lm.tokenizer, lm.context_window, n.question, docs, scores, numbers, config, method)
    shared = common_prefix_length(token_ids) if len(token_ids) > 1 else 0
    prompts = Prompts(full=full, reference=refs[0] if refs else None, reference_kind=method.reference,
                      references=refs, reference_kinds=list(method.references), shared_prefix_tokens=shared)
    kept_likelihoods = None if likelihoods is None else [likelihoods[k - 1] for k in numbers]
    return Request(n.question, docs, scores, prompts, token_ids, n.trust, numbers, dropped, irrelevant,
                   kept_likelihoods, n.withheld)


def relevant_passages(lm: LM, relevance: RelevanceScores, question: str, docs: list[Document],
                      config: DecodingConfig) -> tuple[list[int], list[float] | None]:
    """Indices of the passages the question is about (``relevance_margin``; grounded_rag.relevance), and of the
    trusted ones (the caller put them there), in order, with every passage's question likelihood (None where the
    filter did not run). The kept ones keep their numbers in the prompt ("Doc 3" stays the caller's third document)."""
    if config.relevance_margin is None or len(docs) < 2:
        return list(range(len(docs))), None
    scores, (baseline,) = relevance.score(lm, [relevance_key(question, docs), relevance_key(question, None)])
    kept = set(relevant(scores, config.relevance_margin, baseline))
    return [i for i, d in enumerate(docs) if i in kept or d.trusted], scores  # the caller's own always stay


def question_gains(lm: LM, relevance: RelevanceScores, requests: Sequence[Request]) -> list[list[float]]:
    """Per request, each kept passage's question gain: how much reading it makes the question likelier than no
    passage, in nats per question token (grounded_rag.support). The filter's scores are reused; the rest, and each
    question's baseline, are scored in one packed pass."""
    keys = [relevance_key(r.question, r.documents) for r in requests if r.relevance is None]
    keys += [relevance_key(r.question, None) for r in requests]
    scored = dict(zip(keys, relevance.score(lm, keys)))
    out = []
    for r in requests:
        passages = r.relevance if r.relevance is not None else scored[relevance_key(r.question, r.documents)]
        baseline = scored[relevance_key(r.question, None)][0]
        out.append([p - baseline for p in passages])
    return out
