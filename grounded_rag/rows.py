"""Per-question state of a decode: what the caller gives each question (:class:`RowInputs`) and its one owner while
the questions decode (:class:`Rows`: trust, sampling generators, copy and span trackers, document-token masks,
trust declarations, selected and advanced as a whole), with the vocabulary masks built from them."""

from __future__ import annotations

import functools
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import torch

from .config import DecodingConfig
from .methods import Method
from .steps import StepFusion, StepInputs
from .sampling import make_generators
from .spans import CopyState, DocumentSpans
from .taps import Datastore


@dataclass
class RowInputs:
    """What each question of a batch brings besides its prompts, one entry per question. A method reads only what
    it needs (:attr:`~grounded_rag.methods.Method.needs`); :meth:`GroundedDecoder.row_inputs` builds them."""

    trust: Sequence[float]
    datastores: Sequence[Datastore] | None = None  # kNN-LM: each question's passages
    spans: Sequence[DocumentSpans] | None = None  # extractive answers
    document_tokens: Sequence[Collection[int]] | None = None  # the tokens an anchored rule's documents may raise
    question_tokens: Sequence[Collection[int]] | None = None  # the tokens each question spells
    copies: Sequence[CopyState] | None = None  # which document spans each answer copies (fresh: decoding advances them)
    trusted: Sequence[bool] | None = None  # the caller wrote all the question's documents (Document.trusted)


def token_masks(token_sets: Sequence[Collection[int]] | None, vocab: int, device: torch.device) -> torch.Tensor | None:
    """One row per question: True at the token ids of its set (ids past the logits' width are dropped)."""
    if token_sets is None:
        return None
    mask = torch.zeros(len(token_sets), vocab, dtype=torch.bool, device=device)
    pairs = [(i, t) for i, ids in enumerate(token_sets) for t in ids if 0 <= t < vocab]
    if pairs:  # one write for every row (a decode step builds these; on a GPU each write is a launch)
        mask[tuple(torch.tensor(pairs, device=device).T)] = True
    return mask


@functools.lru_cache(maxsize=16)
def vocab_mask(tokens: frozenset[int], vocab: int, device: torch.device) -> torch.Tensor:
    """[V] bool, True at ``tokens``: kept per token set, since a decode's fixed masks repeat across decodes (the
    vocabulary's word pieces are most of it: building them took longer than a GPU's prefill of a short prompt).
    Shared: read it, never write into it."""
    return token_masks([tokens], vocab, device)[0]  # type: ignore[index]


def word_masks(copies: Sequence[CopyState], vocab: int, device: torch.device) -> torch.Tensor:
    """[rows, V] bool: the tokens that finish a word each row's answer is copying from a document (a token
    continuing a copied span whose text starts with a letter or digit: "4" after "2", "alu" after "Subbar")."""
    return token_masks([c.follows() & c.joins for c in copies], vocab, device)  # type: ignore[return-value]


def word_breaks(copies: Sequence[CopyState], pieces: torch.Tensor) -> torch.Tensor:
    """[rows, V] bool: where a row's answer stopped inside every document word it is copying ("2" of "27",
    :attr:`CopyState.inside`), the tokens that would break the word off (the end of the answer, a newline, a
    space, punctuation: everything but ``pieces``, the tokens that continue a word); nothing in the other rows."""
    inside = torch.tensor([c.inside for c in copies], dtype=torch.bool, device=pieces.device)
    return inside.unsqueeze(-1) & ~pieces


@dataclass
class Rows:
    """The per-question state of one decode, owned here alone: built from :class:`RowInputs` for what the method
    needs, advanced with each step's tokens, and narrowed to the questions still decoding."""

    questions: list[int]  # which question of the batch each row is
    trust: torch.Tensor  # [n]
    generators: list[torch.Generator] | None
    datastores: list[Datastore] | None
    spans: list[DocumentSpans] | None
    copies: list[CopyState] | None
    doc_tokens: torch.Tensor | None  # [n, V] bool
    trusted: torch.Tensor | None  # [n] bool; None: no question's documents are all the caller's
    question_tokens: torch.Tensor | None = None  # [n, V] bool

    @classmethod
    def start(cls, method: Method, inputs: RowInputs, config: DecodingConfig, vocab: int,
              device: torch.device) -> Rows:
        n, needs = len(inputs.trust), method.needs
        per_question = (("document_tokens", "set of document tokens"), ("question_tokens", "set of question tokens"),
                        ("copies", "copy state"))
        for name, what in per_question:
            given = getattr(inputs, name)
            if name in needs and (given is None or len(given) != n):
                raise ValueError(f"{method.name} needs one {what} per question (GroundedDecoder.row_inputs builds "
                                 "them)")
        if inputs.trusted is not None and len(inputs.trusted) != n:
            raise ValueError(f"got {len(inputs.trusted)} trusted flags for {n} questions; pass one per question")
        trusted = inputs.trusted if "trusted" in needs and inputs.trusted is not None and any(inputs.trusted) else None
        return cls(
            questions=list(range(n)),
            trust=torch.tensor(list(inputs.trust), dtype=torch.float32, device=device),
            generators=make_generators(config, n, device),
            datastores=list(inputs.datastores) if inputs.datastores is not None else None,
            spans=list(inputs.spans) if inputs.spans is not None else None,
            copies=list(inputs.copies) if "copies" in needs else None,
            doc_tokens=token_masks(inputs.document_tokens, vocab, device) if "document_tokens" in needs else None,
            trusted=None if trusted is None else torch.tensor([bool(t) for t in trusted], device=device),
            question_tokens=token_masks(inputs.question_tokens, vocab, device) if "question_tokens" in needs else None,
        )

    def advance(self, tokens: Sequence[int], fusion: StepFusion | None = None) -> None:
        """Each row's span and copy trackers take the row's new token (a span starting or left there first, where
        the step says so: ``StepFusion.span_from``, ``span_left``)."""
        if self.spans is not None and fusion is not None:
            for flags, act in ((fusion.span_left, DocumentSpans.leave), (fusion.span_from, DocumentSpans.restart)):
                for tracker, flag in zip(self.spans, [] if flags is None else flags.tolist()):
                    if flag:
                        act(tracker)
        for trackers in (self.spans, self.copies):
            for tracker, token in zip(trackers or [], tokens):
                tracker.advance(token)

    def select(self, keep: Sequence[int]) -> None:
        """Only the rows ``keep`` (positions in the current rows), every field alike."""
        def pick(items):
            return None if items is None else [items[j] for j in keep]

        self.questions, self.generators = pick(self.questions), pick(self.generators)
        self.datastores, self.spans, self.copies = pick(self.datastores), pick(self.spans), pick(self.copies)
        self.trust = self.trust[list(keep)]
        self.doc_tokens = None if self.doc_tokens is None else self.doc_tokens[list(keep)]
        self.trusted = None if self.trusted is None else self.trusted[list(keep)]
        self.question_tokens = None if self.question_tokens is None else self.question_tokens[list(keep)]

    def inputs(self, lp_full: torch.Tensor, lp_ref: torch.Tensor | None, config: DecodingConfig, begun: bool,
               ends: torch.Tensor | None, pieces: torch.Tensor | None) -> StepInputs:
        """This step's :class:`StepInputs` for the rows."""
        vocab, device = lp_full.shape[-1], lp_full.device
        return StepInputs(
            lp_full, lp_ref, self.trust, config, begun=begun, doc_tokens=self.doc_tokens,
            words=None if self.copies is None else word_masks(self.copies, vocab, device),
            breaks=None if self.copies is None or pieces is None or not any(c.inside for c in self.copies)
            else word_breaks(self.copies, pieces),  # None where no row stopped inside a word: nothing to finish
            ends=ends, trusted=self.trusted, spans=self.spans, question_tokens=self.question_tokens,
        )
