"""Extractive answers: keep the answer a verbatim span of one retrieved document.

A small model asked for a short answer often names something no document says (in NQ-Swap
validation, half of the default's wrong answers are not in the passage at all). With
``DecodingConfig(extractive=True)`` every step may only pick a token that continues some span of
the documents' own token ids, or — once the answer has a token — a token that ends it (EOS, a
newline, a stop string). A line break inside a paragraph (a hard-wrapped file) does not end a span: it reads as
the space Markdown renders it as (:func:`unwrap`). Which span, and where it ends, is still the method's choice: the mask
composes with every fusion rule, after fusion and before sampling, like a transformers logits
processor.
"""

from __future__ import annotations

import math
import re
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

import torch
from transformers import PreTrainedTokenizerBase

from .fusion import finite
from .prompts import encode_text

_TEXTS: weakref.WeakKeyDictionary[PreTrainedTokenizerBase, list[str]] = weakref.WeakKeyDictionary()


def vocabulary_texts(tokenizer: PreTrainedTokenizerBase) -> list[str]:
    """Every token id's text on its own (``batch_decode`` of each id), decoded once per tokenizer: through the fast
    tokenizer's own batch decoder where transformers adds nothing to it (several times faster: part of the first
    answer's time)."""
    if tokenizer not in _TEXTS:
        ids = [[i] for i in range(len(tokenizer))]
        backend = getattr(tokenizer, "_tokenizer", None)
        if backend is not None and not getattr(tokenizer, "clean_up_tokenization_spaces", False):
            _TEXTS[tokenizer] = backend.decode_batch(ids, skip_special_tokens=False)
        else:
            _TEXTS[tokenizer] = tokenizer.batch_decode(ids)
    return _TEXTS[tokenizer]


def end_tokens(tokenizer: PreTrainedTokenizerBase, eos_ids: Iterable[int], stops: Sequence[str]) -> frozenset[int]:
    """Token ids that end an extractive answer: EOS, and every token whose text holds a newline or a stop string."""
    marks = ["\n", *(s for s in stops if s)]
    texts = vocabulary_texts(tokenizer)
    return frozenset(eos_ids) | frozenset(i for i, text in enumerate(texts) if any(m in text for m in marks))


_BLOCK = re.compile(r"\s*(?:[-*+]\s|\d{1,9}[.)]\s|#|>|\||```|~~~)")  # a line that starts a Markdown block
_CLOSED = re.compile(r"\s*(?:#|\||```|~~~)")  # a line after which a new block starts


def unwrap(text: str) -> tuple[str, list[int]]:
    """``text`` with each line break inside a paragraph read as one space, as Markdown renders it, and the offsets
    of those spaces. Files are often hard-wrapped, and an answer copied from one must not end where a line
    happens to. A blank line, a heading, a list item, a quote, a table row or a code fence still starts a new
    block, and lines inside a fence stay as they are."""
    lines = text.split("\n")
    out, spaces, fenced = [lines[0]], [], lines[0].lstrip().startswith(("```", "~~~"))
    done = 0  # characters of the output before out[-1]
    for line in lines[1:]:
        if not fenced and out[-1].strip() and line.strip() and not _CLOSED.match(out[-1]) and not _BLOCK.match(line):
            out[-1] = out[-1].rstrip()
            spaces.append(done + len(out[-1]))
            out[-1] += " " + line.lstrip()
        else:
            done += len(out[-1]) + 1
            out.append(line)
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
    return "\n".join(out), spaces


_EDGES: weakref.WeakKeyDictionary[PreTrainedTokenizerBase, tuple[frozenset[int], frozenset[int]]] = (
    weakref.WeakKeyDictionary())


def word_edges(tokenizer: PreTrainedTokenizerBase) -> tuple[frozenset[int], frozenset[int]]:
    """The vocabulary's tokens whose text starts with a letter or digit (they continue the word before
    them), and those whose text ends with one (a word may go on after them); decoded once per tokenizer."""
    if tokenizer not in _EDGES:
        texts = vocabulary_texts(tokenizer)
        _EDGES[tokenizer] = (frozenset(i for i, w in enumerate(texts) if w[:1].isalnum()),
                             frozenset(i for i, w in enumerate(texts) if w[-1:].isalnum()))
    return _EDGES[tokenizer]


_OPENERS = frozenset("\"'`\u201c\u2018([{/ \t\n")  # a word after these starts there: '"early":', "(1881)"


def _starts_word(spelt: dict[int, str], seq: Sequence[int], p: int) -> bool:
    """A word starts at ``seq[p]``: after a space, a quote, an opening bracket or a slash; not inside a word
    ("alu" of "Subbarao"), nor after a hyphen or a full stop ("Lamarckism" of "neo-Lamarckism", "S" of "U.S.")."""
    w = spelt[seq[p]]
    return bool(w.startswith(" ") and w.strip()) or (w[:1].isalnum() and p > 0 and spelt[seq[p - 1]][-1:] in _OPENERS)


def _documents(tokenizer: PreTrainedTokenizerBase, texts: Sequence[str]) -> list[tuple[int, list[int]]]:
    """Each text that spells any token, as (its index in ``texts``, its token ids)."""
    # a passage follows "Doc k: " in the prompt, so its words carry their leading space
    return [(i, ids) for i, text in enumerate(texts) if (ids := encode_text(tokenizer, " " + text.strip()))]


def _spellings(tokenizer: PreTrainedTokenizerBase, docs: Sequence[list[int]]
               ) -> tuple[list[list[int]], list[tuple[int, int] | None], frozenset[tuple[int, int]]]:
    """The documents (token ids, as :func:`_documents` encodes them), then each word's variants (see
    :class:`DocumentSpans`) with where each variant continues in its document, and the (sequence, position) pairs
    where a word starts: each document word's first token and each variant's."""
    words = {t: tokenizer.decode([t]) for doc in docs for t in doc}
    variants: dict[int, list[list[int]]] = {}
    sequences: list[list[int]] = list(docs)
    follow: list[tuple[int, int] | None] = [None] * len(docs)
    heads: set[tuple[int, int]] = set()
    for d, doc in enumerate(docs):
        for p, t in enumerate(doc):
            if not _starts_word(words, doc, p):
                continue
            heads.add((d, p))
            if t not in variants:
                bare = words[t].lstrip()
                spellings = {bare, bare[:1].upper() + bare[1:]}  # "the" may open a sentence
                spellings |= {" " + x for x in spellings}
                variants[t] = [ids for x in sorted(spellings) if (ids := encode_text(tokenizer, x)) != [t]]
            for ids in variants[t]:
                heads.add((len(sequences), 0))
                sequences.append(ids)
                follow.append((d, p + 1))
    return sequences, follow, frozenset(heads)


def _after_breaks(tokenizer: PreTrainedTokenizerBase, text: str, spaces: list[int], ids: list[int]) -> list[int]:
    """The positions in ``ids`` (``text`` as :func:`_documents` encodes it) of the tokens that follow an
    :func:`unwrap`-ped line break, found through the tokenizer's character offsets; none where it gives no offsets
    for the same ids."""
    token_ends = _token_ends(tokenizer, " " + text, ids) if spaces else None
    if token_ends is None:
        return []
    firsts = (next((p for p, end in enumerate(token_ends) if end > space + 1), None) for space in spaces)
    return [p for p in firsts if p is not None]


def _token_ends(tokenizer: PreTrainedTokenizerBase, text: str, ids: list[int]) -> list[int] | None:
    try:
        encoded = tokenizer(text, add_special_tokens=False, split_special_tokens=True, return_offsets_mapping=True)
    except NotImplementedError:  # a slow tokenizer
        return None
    return [end for _, end in encoded["offset_mapping"]] if encoded["input_ids"] == ids else None


def _joins(tokenizer: PreTrainedTokenizerBase, sequences: Sequence[Sequence[int]]) -> frozenset[int]:
    """The sequences' tokens that continue the word before them: their text starts with a letter or digit."""
    spelt = {t: tokenizer.decode([t]) for seq in sequences for t in set(seq)}
    return frozenset(t for t, w in spelt.items() if w[:1].isalnum())


def _settle(sequences: Sequence[Sequence[int]], follow: Sequence[tuple[int, int] | None], k: int,
            p: int) -> tuple[int, int]:
    """A variant read to its end continues in its document."""
    after = follow[k]
    return after if p == len(sequences[k]) and after is not None else (k, p)


def document_tokens(tokenizer: PreTrainedTokenizerBase, texts: Sequence[str]) -> frozenset[int]:
    """Every token that spells part of a document: its own token ids and those of each word's variants
    (without the leading space, capitalized; with a space where the word follows punctuation), so an
    answer that opens with "Madrid" or "The", or says " early" of a quoted '"early"', still counts as
    the document's word. The anchored methods let the documents raise only these tokens."""
    docs = [ids for _, ids in _documents(tokenizer, texts)]
    return frozenset(t for seq in _spellings(tokenizer, docs)[0] for t in seq)


@dataclass
class DocumentSpans:
    """One question's documents as token ids, and which of their positions the answer so far matches.

    An answer may start at any token of a document. A word inside a passage is spelt with its
    leading space (" Lyon") but an answer that opens the assistant turn spells it without ("Lyon",
    maybe in other pieces, maybe capitalized), so each such word also gets *variants* (without the
    space, capitalized), which continue in the document after the word; a word after punctuation
    ('"early"', "(1881)") gets them too, with a space. ``sequences`` holds the
    documents, then the variants; ``follow[k]`` says where variant ``k`` continues (``None`` for a
    document). ``live`` holds the ``(sequence, next position)`` pairs whose preceding tokens equal the answer; ``None`` before
    the answer's first token. An answer ends only where a word of the document ends, so "43" is not
    cut to "4" nor "Lynn" to "L" (the model's end-of-answer mass after a first digit often beats the
    next digit's); a token joins the word before it when its text starts with a letter or digit.
    A document is read :func:`unwrap`-ped: ``wraps`` holds the (sequence, position) pairs whose token follows a line
    break inside a paragraph. The model, which reads the passage as written, copies such a break as a newline
    token (one of ``newlines``); there that token's mass goes to the span's next word instead of ending the answer.
    """

    sequences: list[list[int]]
    follow: list[tuple[int, int] | None]
    ends: frozenset[int]
    joins: frozenset[int] = frozenset()  # tokens that continue the word before them ("3" after "4", "on" after "Ly")
    live: list[tuple[int, int]] | None = field(default=None)
    wraps: frozenset[tuple[int, int]] = frozenset()  # positions after a line break inside a paragraph
    newlines: frozenset[int] = frozenset()  # end tokens that spell one line break ("\n", " \n")
    engaged: bool = False  # for a method that copies only from where it decides (span_from): this answer is copying

    @classmethod
    def build(cls, tokenizer: PreTrainedTokenizerBase, texts: Sequence[str], ends: frozenset[int]) -> DocumentSpans:
        unwrapped = [unwrap(t.strip()) for t in texts]
        docs = _documents(tokenizer, [t for t, _ in unwrapped])
        sequences, follow, _ = _spellings(tokenizer, [ids for _, ids in docs])
        wraps = frozenset((d, p) for d, (i, ids) in enumerate(docs)
                          for p in _after_breaks(tokenizer, *unwrapped[i], ids))
        vocabulary = vocabulary_texts(tokenizer)
        newlines = frozenset(t for t in ends if t < len(vocabulary) and vocabulary[t].count("\n") == 1
                             and not vocabulary[t].strip())
        return cls(sequences, follow, ends, _joins(tokenizer, sequences), wraps=wraps, newlines=newlines)

    def starts(self) -> set[int]:
        """The tokens a span may open with: any token of a document, a variant's first."""
        n = len([f for f in self.follow if f is None])
        return {t for doc in self.sequences[:n] for t in doc} | {v[0] for v in self.sequences[n:] if v}

    def allowed(self) -> set[int]:
        if self.live is None:
            return self.starts()
        nexts = {self.sequences[k][p] for k, p in self.live if p < len(self.sequences[k])}
        at_word_end = any(p == len(self.sequences[k]) or self.sequences[k][p] not in self.joins for k, p in self.live)
        ends = self.ends - self.newlines if self.carried() else self.ends
        return nexts | set(ends) if at_word_end or not self.live else nexts

    def carried(self) -> set[int]:
        """The tokens that continue a span past a line break inside a paragraph, where the answer stands at one."""
        return {self.sequences[k][p] for k, p in self.live or () if (k, p) in self.wraps}

    def restart(self) -> None:
        """The answer starts copying a span with its next token (wherever it stands now)."""
        self.engaged, self.live = True, None

    def leave(self) -> None:
        """The answer stops copying: it goes on from here in its own words."""
        self.engaged, self.live = False, []

    def advance(self, token: int) -> None:
        if token in self.ends:
            self.live = []
            return
        if self.live is None:
            starts = [(k, p) for k, seq in enumerate(self.sequences)
                      for p in (range(len(seq)) if self.follow[k] is None else range(min(1, len(seq))))]
        else:
            starts = [(k, p) for k, p in self.live if p < len(self.sequences[k])]
        self.live = [_settle(self.sequences, self.follow, k, p + 1) for k, p in starts if self.sequences[k][p] == token]


def restrict(log_q: torch.Tensor, lp_full: torch.Tensor, spans: Sequence[DocumentSpans]) -> torch.Tensor:
    """The fused log-distribution restricted to each row's span continuations, renormalized.

    Where the method gives every allowed token zero mass (a plausibility head can), the full
    stream's own distribution ranks them instead, so a row never ends up with nothing to pick."""
    allowed = torch.zeros_like(log_q, dtype=torch.bool)
    carries = []
    for i, s in enumerate(spans):
        ids = [t for t in s.allowed() if t < log_q.shape[-1]]
        allowed[i, ids] = True
        carried = [t for t in s.carried() if t < log_q.shape[-1]]
        newlines = [t for t in s.newlines if t < log_q.shape[-1]]
        if carried and newlines:
            carries.append((i, carried, newlines))
    if carries:  # a copied line break goes on with the span's next word (:class:`DocumentSpans`)
        log_q = log_q.clone()
        for i, carried, newlines in carries:
            log_q[i, carried] = torch.logaddexp(log_q[i, carried], torch.logsumexp(log_q[i, newlines], dim=-1))
    return _drop(log_q, lp_full, ~allowed)


def _drop(log_q: torch.Tensor, lp_full: torch.Tensor, dropped: torch.Tensor) -> torch.Tensor:
    """``log_q`` without the ``dropped`` tokens, renormalized; a row left with no mass ranks the rest by the
    full stream's own distribution instead."""
    masked = log_q.masked_fill(dropped, -math.inf)
    empty = ~finite(masked).any(dim=-1, keepdim=True)
    masked = torch.where(empty, lp_full.masked_fill(dropped, -math.inf), masked)
    return torch.log_softmax(masked, dim=-1)


def finish_words(log_q: torch.Tensor, lp_full: torch.Tensor, breaks: torch.Tensor) -> torch.Tensor:
    """``log_q`` without the tokens that would break off a word the answer is copying (``breaks``: [rows, V]
    bool, :func:`~grounded_rag.rows.word_breaks`), renormalized in those rows; the rest bit for bit. As in
    :func:`restrict`, a row the method left no word piece ranks them by the full stream instead."""
    return torch.where(breaks.any(dim=-1, keepdim=True), _drop(log_q, lp_full, breaks), log_q)


@dataclass
class CopyState:
    """Which document spans the answer is copying right now, for a method that lets the rest of a copied word
    through its question gate (``grounded_contrast``).

    Unlike :class:`DocumentSpans` (an extractive answer is one span from its first token) the answer may
    leave a span and start another anywhere: after a token no live span continues, the live spans are
    every place the documents spell that token. :meth:`follows` is empty before the answer's first token.
    :attr:`inside` says the answer stopped inside every document word it copies from that word's start ("2" of
    "27"); ``grounded_contrast`` may not end or break off the answer there.
    """

    sequences: list[list[int]]
    follow: list[tuple[int, int] | None]
    joins: frozenset[int]
    starts: dict[int, list[tuple[int, int]]]  # token -> the (sequence, position) pairs a span may start at
    pieces: frozenset[int] = frozenset()  # the vocabulary's tokens that continue a word (:func:`word_edges`)
    tails: frozenset[int] = frozenset()  # the vocabulary's tokens after which a word may go on
    heads: frozenset[tuple[int, int]] = frozenset()  # the (sequence, position) pairs where a document word starts
    live: list[tuple[int, int]] = field(default_factory=list)
    aligned: list[bool] = field(default_factory=list)  # per live span: it copies the answer's last word from its start
    last: int | None = None  # the answer's last token
    inside: bool = False  # the answer stopped inside every document word it copies from the word's start ("2" of "27")

    @classmethod
    def build(cls, tokenizer: PreTrainedTokenizerBase, texts: Sequence[str]) -> CopyState:
        sequences, follow, heads = _spellings(tokenizer, [ids for _, ids in _documents(tokenizer, texts)])
        starts: dict[int, list[tuple[int, int]]] = {}
        for k, seq in enumerate(sequences):  # a document at any token, a variant only from its start
            for p in range(len(seq)) if follow[k] is None else range(min(1, len(seq))):
                starts.setdefault(seq[p], []).append((k, p))
        pieces, tails = word_edges(tokenizer)
        joins = frozenset(t for seq in sequences for t in seq) & pieces  # :func:`_joins`, from the decoded vocabulary
        return cls(sequences, follow, joins, starts, pieces, tails, heads)

    def fresh(self) -> CopyState:
        """The same documents, before the answer's first token."""
        return replace(self, live=[], aligned=[], last=None, inside=False)

    @property
    def tokens(self) -> frozenset[int]:
        """Every token that spells part of a document: :func:`document_tokens` of the same texts."""
        return frozenset(t for seq in self.sequences for t in seq)

    def follows(self) -> set[int]:
        """The tokens that continue a span the answer is copying."""
        return {self.sequences[k][p] for k, p in self.live if p < len(self.sequences[k])}

    def advance(self, token: int) -> None:
        joined = token in self.pieces and self.last in self.tails  # the token goes on with the answer's last word
        matched = [i for i, (k, p) in enumerate(self.live) if p < len(self.sequences[k]) and self.sequences[k][p] == token]
        if matched:  # a span that copied the word from its start still does; a word starting here starts at a head
            spans = [(self.live[i], self.aligned[i] if joined else self.live[i] in self.heads) for i in matched]
        else:  # a span that starts inside the answer's word does not copy that word
            spans = [(kp, not joined and kp in self.heads) for kp in self.starts.get(token, [])]
        self.live = [_settle(self.sequences, self.follow, k, p + 1) for (k, p), _ in spans]
        self.aligned = [a for _, a in spans]
        self.last = token
        words = [(k, p) for (k, p), a in zip(self.live, self.aligned) if a]
        self.inside = token in self.tails and bool(words) and all(
            p < len(self.sequences[k]) and self.sequences[k][p] in self.joins for k, p in words)
