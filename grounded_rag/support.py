"""How well the passages support an answer (0-1), and the words it is judged on.

An answer is supported where the passages ground its new facts (its figures and names the question does not say:
:func:`grounded_words`), where the passage that grounds them is about the question (its question gain,
:mod:`grounded_rag.attribution`), and where the sentence that states them speaks to what was asked
(:func:`question_coverage`: the share of the question's words that sentence, its heading and its passage's title
spell). The last is what tells "this passage answers this question" from "this passage is about the subject": the
meal allowance's sentence does not say "hotel", a street number's sentence does not say "people", and a project the
passages never name is named by no sentence. ``support`` = covered x sigmoid(2 x gain) x coverage ** COVERAGE_POWER.
An answer whose support is below ``DecodingConfig.support_threshold`` is withheld. docs/citations.md has the
validation rows behind each choice.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from .attribution import (
    EVIDENCE_NATS,
    NUMBER_WORDS,
    Answer,
    Word,
    _mean,
    _tokens_in,
    copy_spans,
    holds_digit,
    words,
)

def sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


def support_of(gain: float) -> float:
    """A passage's question gain (nats per question token) on the 0-1 support scale."""
    return sigmoid(2.0 * gain)


def names_a_fact(word: str) -> bool:
    """A figure or a name: the word holds a digit, is a number word or starts with a capital ("1955", "six",
    "Drasin", "TripDesk")."""
    folded = word.casefold()  # "one" is more often a pronoun ("one of the landmarks") than a figure
    return holds_digit(word) or (folded in NUMBER_WORDS and folded != "one") or word[:1].isupper()


def not_asked(question: str, said: Sequence[Word]) -> list[Word]:
    """The words the question does not already say, nor nearly (the same first four letters: an answer that
    misspells the question's name adds nothing)."""
    asked = {x for w in words(question) for x in (w.norm, w.key)}  # "2 dollar" asks the answer's "two"
    stems = {w[:4] for w in asked if len(w) >= 4 and w.isalpha()}  # "Clara" repeats the question's "Clarita"
    return [w for w in said
            if w.key not in asked and not (len(w.norm) >= 4 and w.norm.isalpha() and w.norm[:4] in stems)]


def claims(text: str, cut: bool) -> list[Word]:
    """The text's content words, less a last word the token limit ``cut`` off (a fragment is not a claim)."""
    said = [w for w in words(text) if w.content]
    return said[:-1] if cut and said and said[-1].end == len(text) else said


def says_more_than(question: str, text: str, cut: bool = False) -> bool:
    """The text has a content word the question does not say: it tells something. A quote that restates the
    question ("The Red Planet" for "Which planet is known as the Red Planet?") does not; nor does a last word the
    token limit ``cut`` off (it may be a fragment)."""
    return bool(not_asked(question, claims(text, cut)))


def grounded_words(answer: Answer, evidence: Sequence[Sequence[float]], offsets: Sequence[tuple[int, int]]
                   ) -> tuple[list[Word], dict[int, set[int]]]:
    """The words an answer's support is judged on, and for each of them the passages that ground it.

    The words are its new facts: its content words the question does not already say, nor nearly (the same first
    four letters: an answer that misspells the question's name adds nothing), only its figures and names where it
    has any (the words around them may paraphrase). An answer that only restates the question ("The Eiffel" cut by a
    stop string) is judged on its content words; one without any ("Yes.") on none; a last word cut off by the token
    limit is not judged. The passages that spell a word ground it (a figure in digits or in words beside a content
    word both spell: "six months" spells "6 months"); a word no passage spells is grounded by those that raise its
    tokens by at least ``EVIDENCE_NATS`` on average ("weekly" where the passage says "every week"), as :func:`cite`
    cites a run none spells. Reading any passage raises words of another one (a passage about the VPN raises
    "cafeteria", spelt by the passage about lunch, 5 nats over the question alone), so a raise does not count where
    a passage spells the word. A name must be spelt: a passage that says "lumenfold" raises an invented
    "LumenFox" too."""
    said = claims(answer.text, answer.cut)
    new = not_asked(answer.question, said)
    judged = [w for w in new if names_a_fact(answer.text[w.start:w.end])] or new or said
    spelt = [{w.norm for w in words(d.text)} for d in answer.documents]
    quoted = copy_spans(answer.text, [d.text for d in answer.documents])  # where "20 days" is "twenty days"
    grounds: dict[int, set[int]] = {}
    for i, w in enumerate(judged):
        tokens = _tokens_in(offsets, w.start, w.end)
        name = not holds_digit(w.norm) and answer.text[w.start:w.start + 1].isupper()
        grounds[i] = {d for d in range(len(answer.documents)) if w.norm in spelt[d]} | \
            {d for span in quoted if span.start <= w.start < span.end for d, _, _ in span.sources} or \
            {d for d in range(len(answer.documents))
             if not name and tokens and evidence[d] and _mean([evidence[d][t] for t in tokens]) >= EVIDENCE_NATS}
    return judged, grounds


@dataclass(frozen=True)
class SupportParts:
    """What support multiplies: the share of the answer's judged words the passages ground, the best grounding
    passage's question gain, and the question's coverage by the sentences stating them."""

    covered: float
    gain: float
    coverage: float

    def support(self, power: float | None = None) -> float:
        """Their product, the coverage to ``power`` (default ``COVERAGE_POWER``; other powers: the choice of it)."""
        power = COVERAGE_POWER if power is None else power
        return self.covered * support_of(self.gain) * self.coverage ** power


def support_parts(answer: Answer, evidence: Sequence[Sequence[float]], offsets: Sequence[tuple[int, int]],
                  gains: Sequence[float]) -> SupportParts | None:
    """The parts of :func:`support`; None where nothing grounds the answer (support 0). An answer without content
    words ("Yes.") is judged whole: the best passage that raises its tokens by ``EVIDENCE_NATS``."""
    new, grounds = grounded_words(answer, evidence, offsets)
    coverage = 1.0
    if new:
        grounding = set().union(*grounds.values())
        covered = sum(bool(g) for g in grounds.values()) / len(new)
        coverage = question_coverage(answer.question, fact_contexts(answer, new, grounds))
    else:
        tokens = list(range(len(answer.token_ids)))
        grounding = {d for d, row in enumerate(evidence) if row and _mean([row[t] for t in tokens]) >= EVIDENCE_NATS}
        covered = 1.0
    if not grounding:
        return None
    return SupportParts(covered, max(gains[d] for d in grounding), coverage)


def support(answer: Answer, evidence: Sequence[Sequence[float]], offsets: Sequence[tuple[int, int]],
            gains: Sequence[float]) -> float:
    """How well the passages support the answer, 0-1: the share of its judged words they ground (see
    :func:`grounded_words`: its new facts) times how much the best passage grounding one is about the question
    (``support_of`` its question gain) times how much of the question the sentences stating them speak to
    (:func:`question_coverage`), to ``COVERAGE_POWER``. 0 where nothing grounds it."""
    parts = support_parts(answer, evidence, offsets, gains)
    return 0.0 if parts is None else round(parts.support(), 4)


# Words that frame a question rather than name what it asks about ("how many", "what kind of", "the name of").
QUESTION_FRAME = frozenset("many much long often kind kinds type types name named called number amount".split())
COVERAGE_POWER = 0.5  # how hard a question word the answer's sentence leaves out weighs: chosen on validation rows
_SENTENCE_END = re.compile(r"(?<=[.?!])\s+|\n+")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+)$", re.MULTILINE)


def question_words(question: str) -> list[Word]:
    """The question's words that say what it asks about: its content words, less the frame ("how many", "kind")."""
    return [w for w in words(question) if w.content and w.norm not in QUESTION_FRAME]


def sentence_context(text: str, title: str | None, position: int) -> str:
    """What states the fact at ``position`` of a passage: its sentence (or line), the nearest markdown heading above
    it, and the passage's title."""
    start = max((m.end() for m in _SENTENCE_END.finditer(text, 0, position)), default=0)
    found = _SENTENCE_END.search(text, position)
    end = found.start() if found else len(text)
    heading = [m.group(1) for m in _HEADING.finditer(text, 0, start)]
    return " ".join(part for part in (title, heading[-1] if heading else None, text[start:end]) if part)


def fact_contexts(answer: Answer, judged: Sequence[Word], grounds: dict[int, set[int]]) -> list[list[str]]:
    """For each judged word, the contexts (:func:`sentence_context`) in which its grounding passages spell it: where
    a copy span quotes it, the quoted place; else every place the passage spells the word."""
    quoted = copy_spans(answer.text, [d.text for d in answer.documents])
    out = []
    for i, w in enumerate(judged):
        places = {(d, lo) for span in quoted if span.start <= w.start < span.end for d, lo, _ in span.sources
                  if d in grounds.get(i, ())}
        if not places:
            places = {(d, x.start) for d in grounds.get(i, ()) for x in words(answer.documents[d].text)
                      if x.key == w.key}
        out.append([sentence_context(answer.documents[d].text, answer.documents[d].title, lo)
                    for d, lo in sorted(places)])
    return out


def question_coverage(question: str, contexts: Sequence[Sequence[str]]) -> float:
    """The share of the question's words (:func:`question_words`) that the answer's facts' contexts spell, each fact
    read in its context that spells most of them (the same word, or nearly: the first four letters). 1 where the
    question has no such word or no fact was placed."""
    asked = question_words(question)
    placed = [c for c in contexts if c]
    if not asked or not placed:
        return 1.0
    best = [min(c, key=lambda text: len(not_asked(text, asked))) for c in placed]
    missing = not_asked(" ".join(best), asked)
    return 1.0 - len(missing) / len(asked)
