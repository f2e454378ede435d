"""What an answer rests on: citations computed by the decoder, a support score, and abstention.

Three readings of the same LM, none of them asked of the model in words (a 135M model never writes "[1]"):

- **copy spans**: where the answer's words are a passage's words, the character spans on both sides;
- **per-passage evidence**: for each answer token and each passage alone, how much reading the passage raises the
  token over the question alone, ``log p(y_t | x, D_k) - log p(y_t | x)`` (nats): which passage an answer word
  comes from when several spell it, and whether a passage raised words it does not spell;
- **question gain**: how much each passage makes the *question* likely, ``mean log p(question | passage) -
  mean log p(question | no passage)`` per question token (the relevance filter's reading, against a baseline). A
  passage about something else does not explain the question, whatever the answer copied from it.

``support`` (0-1) = the share of the answer's new facts (:func:`grounded_words`: its figures and names the question
does not already say) that some passage grounds (spells it; a word none spells, raises its tokens by
``EVIDENCE_NATS``), times
``support_of`` the question gain of the best passage that grounds one: sigmoid(2 x gain), so 0.5 is a passage that
makes the question no likelier than no passage at all, 0.73 half a nat per question token, 0.88 a whole one. An
answer whose support is below ``DecodingConfig.support_threshold`` is withheld and the result says
``DecodingConfig.abstention_text`` instead; a request none of whose passages could reach the threshold is not decoded
(no answer could). docs/citations.md has the validation traces behind each choice.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from transformers import PreTrainedTokenizerBase

from .config import DecodingConfig
from .prompts import build_prompts, encode
from .scoring import continuation_log_probs
from .types import Citation, Document

if TYPE_CHECKING:  # transformers' modeling (2 s, 120 MB to import) is not needed on llama.cpp
    from transformers import PreTrainedModel

CITATION_PATTERN = re.compile(r"\bDoc(?:ument)?s?\s*#?\s*(\d+)|\[(\d+)\]", re.IGNORECASE)


def find_citations(text: str, n_documents: int) -> list[int]:
    """1-based document numbers the model cites in its own words, as ``Doc k`` or ``[k]``, in order of first
    mention."""
    seen: list[int] = []
    for match in CITATION_PATTERN.finditer(text):
        k = int(match.group(1) or match.group(2))
        if 1 <= k <= n_documents and k not in seen:
            seen.append(k)
    return seen


_WORD = re.compile(r"[^\W_]+(?:[.,:'’][^\W_]+)*")  # "1,200", "1.1", "10:00", "it's" are one word each
# Words that say nothing on their own: a span of only these ("of the") is not evidence of anything.
STOPWORDS = frozenset("""
a an the and or but nor of in on at to for from by with as into onto about over under than then that this these
those is are was were be been being am do does did has have had it its itself he she they we you i me him her them
his their our your my not no yes so if what which who whom whose when where why how there here also just only very
now will would can could should may might must shall any some all more most such other each both own same up out
off again once because while during before after above below between through until against among per via s t
answer answers question questions document documents passage passages text based according following provided
information context mentioned states stated says said
""".split())


# A figure spelt in words is the same figure: a passage that says "six months" spells the answer's "6 months".
NUMBER_WORDS = {w: str(n) for n, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen "
    "eighteen nineteen".split())} | {w: str(10 * n) for n, w in enumerate(
        "twenty thirty forty fifty sixty seventy eighty ninety".split(), start=2)}


@dataclass(frozen=True)
class Word:
    start: int
    end: int
    norm: str
    figure: bool = True  # False: a number word inside a compound ("thirty-six"), no figure on its own

    @property
    def content(self) -> bool:
        return self.norm not in STOPWORDS

    @property
    def key(self) -> str:
        """What the word says, for matching an answer's words to a passage's: its figure where it spells one."""
        return NUMBER_WORDS.get(self.norm, self.norm) if self.figure else self.norm


def words(text: str) -> list[Word]:
    """Runs of letters or digits, with their character offsets, case-folded. A number word joined to another by a
    hyphen or a space ("thirty-six", "twenty four") is not read as a figure: its "six" is not the answer's "6"."""
    found = [Word(m.start(), m.end(), m.group().casefold()) for m in _WORD.finditer(text)]
    joined = set()
    for i in range(len(found) - 1):
        a, b = found[i], found[i + 1]
        if a.norm in NUMBER_WORDS and b.norm in NUMBER_WORDS and text[a.end:b.start] in ("-", " "):
            joined |= {i, i + 1}
    return [replace(w, figure=False) if i in joined else w for i, w in enumerate(found)]


def holds_digit(word: str) -> bool:
    """Whether a word is written with a digit ("90", "v5", "AES-256"): a figure, however the rest of it reads."""
    return any(c.isdigit() for c in word)


def _plain_word(a: Word, b: Word) -> bool:
    """The same content word on both sides, spelt alike and no figure: what a figure in other spelling must stand
    beside to be read as the same figure ("six months", "6 months"; not "one of the", "1 of the")."""
    return a.norm == b.norm and a.content and a.norm not in NUMBER_WORDS and not holds_digit(a.norm)


@dataclass(frozen=True)
class CopySpan:
    """Answer characters ``[start, end)`` spelt word for word by each of ``sources``: (passage index, start, end)."""

    start: int
    end: int
    sources: tuple[tuple[int, int, int], ...]


def copy_spans(answer: str, passages: Sequence[str]) -> list[CopySpan]:
    """The answer cut into its longest runs of words that some passage spells in the same order (case ignored; a
    figure in digits or in words beside a content word both spell: "20 days", "twenty days"), left to right; a run
    of stopwords only is left out. Each span lists every passage place that spells it."""
    said = words(answer)
    texts = [words(p) for p in passages]
    index: dict[str, list[tuple[int, int]]] = {}
    for d, ws in enumerate(texts):
        for j, w in enumerate(ws):
            index.setdefault(w.key, []).append((d, j))
    spans: list[CopySpan] = []
    i = 0
    while i < len(said):
        best, places = 0, []
        for d, j in index.get(said[i].key, ()):
            n = 1
            while i + n < len(said) and j + n < len(texts[d]) and texts[d][j + n].key == said[i + n].key:
                n += 1
            run = list(zip(said[i:i + n], texts[d][j:j + n]))
            other = [m for m, (a, b) in enumerate(run) if a.norm != b.norm]
            if other and not any(_plain_word(a, b) for a, b in run):
                n = other[0]  # a figure in other spelling alone, or beside stopwords only, is no quote: "December 2"
                if n == 0:  # is not the "two" of "two songs"
                    continue
            if n > best:
                best, places = n, [(d, j)]
            elif n == best:
                places.append((d, j))
        if best and any(w.content for w in said[i:i + best]):
            sources = tuple((d, texts[d][j].start, texts[d][j + best - 1].end) for d, j in places)
            spans.append(CopySpan(said[i].start, said[i + best - 1].end, sources))
        i += max(best, 1)
    return spans


def token_offsets(tokenizer: PreTrainedTokenizerBase, token_ids: Sequence[int], text: str) -> list[tuple[int, int]]:
    """Each answer token's character span in ``text`` (the answer as the result shows it: decoded, cut at a stop
    string, stripped); a token past the shown text (cut off by a stop) gets an empty span at its end."""
    raw = tokenizer.decode(list(token_ids), skip_special_tokens=True)
    shift = len(raw) - len(raw.lstrip())  # what the result's strip() took off the front
    out, before = [], 0
    for n in range(1, len(token_ids) + 1):
        after = len(tokenizer.decode(list(token_ids[:n]), skip_special_tokens=True))
        lo, hi = (min(max(x - shift, 0), len(text)) for x in (before, after))
        out.append((lo, max(lo, hi)))
        before = after
    return out


SOURCE_KEYS = ("source", "file_path", "file_name", "url")  # how loaders and vector stores name a passage's origin


def source_metadata(metadata: Mapping[str, Any]) -> dict[str, str]:
    """The entries of a framework document's metadata that say where it came from (what a citation shows)."""
    return {k: label for k in SOURCE_KEYS if (label := metadata_label(metadata, k)) is not None}


def metadata_label(metadata: Mapping[str, Any], *keys: str) -> str | None:
    """The first of ``keys`` whose value names something, as text. Framework metadata is free-form: a title may be
    a number (2024) and a source a ``Path``; other values (lists, dicts, booleans) name nothing."""
    for key in keys:
        value = metadata.get(key)
        if isinstance(value, os.PathLike):
            value = os.fspath(value)
        if isinstance(value, (str, int, float)) and not isinstance(value, bool) and str(value).strip():
            return str(value)
    return None


def source_of(document: Document) -> str | None:
    """Where a passage came from: the first of ``SOURCE_KEYS`` its metadata has."""
    return next(iter(source_metadata(document.metadata).values()), None)


EVIDENCE_NATS = 1.0  # a passage that raises a span's tokens by less than this (mean, nats) is not cited for it


@dataclass
class Answer:
    """One decoded answer and what it was decoded from: the kept passages, in prompt order, with their numbers."""

    question: str
    documents: list[Document]
    numbers: list[int]
    token_ids: list[int]
    text: str
    # log p_full of each answer token as the decode read it (its trace): with one passage, that passage's reading
    full_log_probs: list[float] | None = None
    cut: bool = False  # the decode stopped at its token limit: its last word may be cut off ("Ang", "201")


def scoring_prompts(tokenizer: PreTrainedTokenizerBase, answer: Answer, config: DecodingConfig) -> list[list[int]]:
    """The prompts an answer is scored after: the question alone, then each passage alone (with its caller-side
    number), rendered as the decode's own prompts are (template, system prompt, answer prefix). With one passage its
    prompt is the decode's full prompt, whose reading the decode already made (``Answer.full_log_probs``)."""
    question_only = build_prompts(tokenizer, answer.question, answer.documents, ("query",), config.template,
                                  config.system_prompt, config.answer_prefix, answer.numbers)[1]
    if _read_alone(answer):
        return [encode(tokenizer, question_only)]
    alone = [build_prompts(tokenizer, answer.question, [d], (), config.template, config.system_prompt,
                           config.answer_prefix, [k])[0] for d, k in zip(answer.documents, answer.numbers)]
    return [encode(tokenizer, p) for p in (question_only, *alone)]


def _read_alone(answer: Answer) -> bool:
    """The decode's own full-stream reading is the one passage's reading alone."""
    return len(answer.documents) == 1 and answer.full_log_probs is not None


def passage_evidence(model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, pad_id: int,
                     answers: Sequence[Answer], config: DecodingConfig) -> list[list[list[float]]]:
    """Per answer, per passage, per answer token: ``log p(y_t | x, D_k) - log p(y_t | x)`` in nats. One packed
    scoring pass for the whole batch (:func:`~grounded_rag.scoring.continuation_log_probs`); an empty answer
    gets no rows."""
    pairs, owners = [], []
    for a, answer in enumerate(answers):
        if not answer.token_ids:
            continue
        for p in scoring_prompts(tokenizer, answer, config):
            pairs.append((p, answer.token_ids))
            owners.append(a)
    scored = continuation_log_probs(model, pairs, pad_id) if pairs else []
    rows: dict[int, list[list[float]]] = {}
    for a, lp in zip(owners, scored):
        rows.setdefault(a, []).append(lp.tolist())
    out: list[list[list[float]]] = []
    for a, answer in enumerate(answers):
        if a not in rows:
            out.append([[] for _ in answer.documents])
            continue
        question_only, *alone = rows[a]
        if _read_alone(answer):
            alone = [list(answer.full_log_probs or [])]
        out.append([[x - q for x, q in zip(lp, question_only)] for lp in alone])
    return out


def _tokens_in(offsets: Sequence[tuple[int, int]], start: int, end: int) -> list[int]:
    return [t for t, (lo, hi) in enumerate(offsets) if hi > start and lo < end]


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def _raised(strength: float | None) -> float:
    return strength if strength is not None and strength >= EVIDENCE_NATS else 0.0


def cite(answer: Answer, evidence: Sequence[Sequence[float]], offsets: Sequence[tuple[int, int]],
         gains: Sequence[float]) -> list[Citation]:
    """The answer's citations, left to right. A span a passage spells is cited to that passage ("copy"; where
    several spell it, to the one whose reading raises the span's tokens most, by ``EVIDENCE_NATS`` at least, else
    the one most about the question). A run of content words no passage spells (or a whole answer without content
    words: "Yes.") is cited to the passage that raises its tokens most, if by at least ``EVIDENCE_NATS``
    ("evidence")."""
    text = answer.text
    passages = [d.text for d in answer.documents]
    out: list[tuple[int, int, int, int | None, int | None, str, float | None]] = []
    last: dict[int, int] = {}  # where the answer's last quote of each passage ended
    for span in copy_spans(text, passages):
        tokens = _tokens_in(offsets, span.start, span.end)
        strength = {d: _mean([evidence[d][t] for t in tokens]) if tokens and evidence[d] else None
                    for d, _, _ in span.sources}
        # Of a word the passage spells twice, the place nearest the answer's last quote of it ("lasts six «months»"
        # after "probation period", not "first three «months»" above it); the first place where none came before.
        # A raise below EVIDENCE_NATS is no reading at all: between such places, the passage most about the question.
        d, lo, hi = max(span.sources, key=lambda s: (_raised(strength[s[0]]), gains[s[0]], -s[0],
                                                     -abs(s[1] - last.get(s[0], 0))))
        last[d] = hi
        out.append((span.start, span.end, d, lo, hi, "copy", strength[d]))
    covered = [(s, e) for s, e, *_ in out]
    loose = [w for w in words(text) if w.content and not any(s <= w.start < e for s, e in covered)]
    runs: list[tuple[int, int]] = []
    for w in loose:  # consecutive uncovered content words form one run
        between = text[runs[-1][1]:w.start] if runs else ""
        if runs and not _WORD.search(between):
            runs[-1] = (runs[-1][0], w.end)
        else:
            runs.append((w.start, w.end))
    if not words(text) or not any(w.content for w in words(text)):
        runs = [(0, len(text))] if text.strip() else []
    for start, end in runs:
        tokens = _tokens_in(offsets, start, end)
        if not tokens or not evidence or not any(evidence):
            continue
        strength = [_mean([row[t] for t in tokens]) if row else -math.inf for row in evidence]
        d = max(range(len(strength)), key=lambda k: (strength[k], gains[k]))
        if strength[d] >= EVIDENCE_NATS:
            out.append((start, end, d, None, None, "evidence", strength[d]))
    out.sort(key=lambda c: c[0])
    return [_citation(answer, *c) for c in out]


def _citation(answer: Answer, start: int, end: int, d: int, lo: int | None, hi: int | None, kind: str,
              strength: float | None) -> Citation:
    doc = answer.documents[d]
    return Citation(answer_start=start, answer_end=end, document=answer.numbers[d], document_id=doc.id,
                    title=doc.title, source=source_of(doc), start=lo, end=hi,
                    quote=doc.text[lo:hi] if lo is not None else "", kind=kind,  # type: ignore[arg-type]
                    evidence=None if strength is None else round(strength, 4))


def model_citations(answer: Answer, cited: Sequence[int]) -> list[Citation]:
    """The "[k]" / "Doc k" marks the model wrote, as citations of the mark itself (no passage span)."""
    out = []
    for match in CITATION_PATTERN.finditer(answer.text):
        k = int(match.group(1) or match.group(2))
        if k in cited and k in answer.numbers:
            doc = answer.documents[answer.numbers.index(k)]
            out.append(Citation(answer_start=match.start(), answer_end=match.end(), document=k, document_id=doc.id,
                                title=doc.title, source=source_of(doc), kind="model"))
    return out
