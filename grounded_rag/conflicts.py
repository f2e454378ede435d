"""Passages that disagree: an answer one kept passage gives and another, read alone, answers otherwise.

A planted FAQ beside the policy it contradicts, a forged citation, an outdated version of the same page: each is a
passage about the question that gives another answer. The decode reads every kept passage at once and follows one of
them; nothing in its answer says another passage says otherwise. So after the answer is decoded, every other kept
passage that is about the question (its question gain at least
:data:`~grounded_rag.relevance.ABOUT_QUESTION_NATS`) and does not spell all of the answer's facts is asked the question
alone (one short decode per passage by the answer's own method, the whole batch's in one call: standard decoding
of the small models misreads a passage alone), and its answer is scored like any answer. Where it is supported (its
support at least the abstention threshold), says what the answer does not and shares none of its facts but what both
passages spell (no figure, where both state figures), the passages disagree: the result lists each such
:class:`~grounded_rag.types.Conflict`, cites the passage that says otherwise, and its support is shared between the
answers (the answer's support times its share of both).
"""

from __future__ import annotations

from collections.abc import Sequence

from .attribution import holds_digit, words
from .support import claims, names_a_fact, not_asked
from .relevance import ABOUT_QUESTION_NATS
from .types import Citation, Conflict, Document, GenerationResult

ALONE_TOKENS = 32  # what a passage read alone may say: a short answer, not an essay


def facts(question: str, text: str) -> set[str]:
    """What an answer claims that the question does not say: its figures and names (its other content words where it
    has none), as the words' keys (a figure in words is its digits)."""
    said = not_asked(question, claims(text, False))
    named = [w for w in said if names_a_fact(text[w.start:w.end])]
    return {w.key for w in (named or said)}


def spelt(document: Document) -> set[str]:
    """The keys of every word a passage (and its title) spells."""
    return {w.key for text in (document.text, document.title or "") for w in words(text)}


def candidates(question: str, result: GenerationResult, gains: Sequence[float]) -> list[int]:
    """The kept passages (their places in ``result.documents``) to ask alone: about the question in their own right
    (``gains``: each one's question gain) and not spelling every one of the answer's facts (a policy that says
    "every 180 days" spells the "every" of "every 90 days", not its 90). None for an answer withheld, with no facts,
    or read from one passage."""
    if result.abstained or len(result.documents) < 2:
        return []
    claimed = facts(question, result.text)
    return [j for j, (doc, gain) in enumerate(zip(result.documents, gains))
            if gain >= ABOUT_QUESTION_NATS and claimed and not claimed <= spelt(doc)]


def disagrees(question: str, answer: str, other: GenerationResult, threshold: float,
              common: frozenset[str] = frozenset()) -> bool:
    """A passage's own answer says something else: it is supported by that passage (``threshold``), states a fact
    the answer does not, and shares none of the answer's, but for ``common`` ground (:func:`common_ground`: "[CS-12]"
    cited by both sides of "AES-256" against "AES-128"); where both state figures, figures decide ("25 MB" against
    "100 MB": the unit they share is not the fact)."""
    theirs, ours = facts(question, other.text), facts(question, answer)
    if (their_figures := _figures(theirs)) and (our_figures := _figures(ours)):
        theirs, ours = their_figures, our_figures
    return (not other.abstained and other.support is not None and other.support >= threshold
            and bool(theirs - ours) and not theirs & ours - common)


def common_ground(result: GenerationResult, j: int) -> frozenset[str]:
    """The words kept passage ``j`` spells that another kept passage spells too: what both sides say, not what they
    disagree on."""
    others = set().union(*(spelt(doc) for k, doc in enumerate(result.documents) if k != j))
    return frozenset(spelt(result.documents[j]) & others)


def _figures(keys: set[str]) -> set[str]:
    return {k for k in keys if holds_digit(k)}


def with_conflicts(result: GenerationResult, question: str, found: Sequence[tuple[int, GenerationResult]]
                   ) -> GenerationResult:
    """``result`` with each disagreeing passage's answer (``found``: its place among the kept passages, and its own
    result) listed as a conflict, the passage cited for the span of the answer it contradicts, and the support
    shared: times the answer's share of the summed supports."""
    if not found:
        return result
    span = _contradicted_span(question, result.text)
    conflicts, cited = [], []
    for j, other in found:
        doc, number = result.documents[j], result.numbers[j]
        quote = _quote_of_facts(question, other)
        conflicts.append(Conflict(document=number, document_id=doc.id, answer=other.text,
                                  quote=quote.quote if quote else "", support=other.support or 0.0))
        cited.append(Citation(answer_start=span[0], answer_end=span[1], document=number, document_id=doc.id,
                              title=doc.title, source=quote.source if quote else None,
                              start=quote.start if quote else None, end=quote.end if quote else None,
                              quote=quote.quote if quote else "", kind="conflict"))
    own = result.support or 0.0
    shared = own * own / (own + sum(c.support for c in conflicts)) if own else 0.0
    citations = sorted([*result.citations, *cited], key=lambda c: (c.answer_start, c.kind == "conflict"))
    return result.model_copy(update={"conflicts": conflicts, "citations": citations, "support": round(shared, 4)})


def _quote_of_facts(question: str, other: GenerationResult) -> Citation | None:
    """The citation of a passage's own answer that holds one of its facts (else its first quote)."""
    theirs = facts(question, other.text)
    quotes = [c for c in other.citations if c.kind == "copy" and c.start is not None]
    holding = [c for c in quotes if {w.key for w in words(other.text[c.answer_start:c.answer_end])} & theirs]
    return next(iter(holding or quotes), None)


def _contradicted_span(question: str, text: str) -> tuple[int, int]:
    """The answer's span another passage contradicts: from its first fact to its last (the whole answer where it
    names none)."""
    claimed = facts(question, text)
    found = [w for w in words(text) if w.key in claimed]
    return (found[0].start, found[-1].end) if found else (0, len(text))
