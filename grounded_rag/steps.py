"""What a decoding method is: its reference streams, one fuse rule called with one :class:`StepInputs`, and the
post-fusion steps after it. The rules themselves live with their methods (grounded_rag.methods, grounded_rag.baselines).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import torch

from .prompts import Reference
from .spans import DocumentSpans
from .taps import Signal


@dataclass(frozen=True)
class StepFusion:
    log_q: torch.Tensor
    conflict: torch.Tensor | None
    rho: torch.Tensor
    eta: torch.Tensor
    reference: torch.Tensor | None = None  # the reference log-probs actually used, when the method picks one
    # a post step that copies spans only from where it decides: the rows whose answer starts copying a span of its
    # documents at this step's token, and those that stop copying here ([rows] bool; the engine's span state)
    span_from: torch.Tensor | None = None
    span_left: torch.Tensor | None = None


Schedule = Callable[[float, torch.Tensor, torch.Tensor], torch.Tensor]
# Per-row inputs a method may need besides the streams' log-probs; the engine builds only those a method names.
Need = Literal["document_tokens", "question_tokens", "copies", "word_breaks", "end_ids", "trusted", "spans"]


@dataclass(frozen=True)
class StepInputs:
    """Everything one fusion step reads, for the rows still decoding (one call signature for every rule and step).

    ``lp_ref`` is the reference: [rows, V] for one reference stream (or DoLa's premature layers [rows, k, V], or
    kNN-LM's datastore distribution), [rows, k, V] for k reference streams in ``Method.references`` order. The rest
    is present where the method needs it (:attr:`Method.needs`) and None elsewhere."""

    lp_full: torch.Tensor  # [rows, V] float32
    lp_ref: torch.Tensor | None
    trust: torch.Tensor  # [rows] r(x, D)
    config: Any  # the DecodingConfig
    begun: bool = True  # the answer has a token already
    doc_tokens: torch.Tensor | None = None  # [rows, V] bool: tokens the row's documents contain
    question_tokens: torch.Tensor | None = None  # [rows, V] bool: tokens the row's question contains
    words: torch.Tensor | None = None  # [rows, V] bool: tokens that finish a word the answer copies from a document
    breaks: torch.Tensor | None = None  # [rows, V] bool: tokens that would break off a copied word the answer is inside
    ends: torch.Tensor | None = None  # [V] bool: the tokens that end an answer
    trusted: torch.Tensor | None = None  # [rows] bool: the caller wrote all the row's documents; None: no row
    spans: Sequence[DocumentSpans] | None = None  # each row's document spans (extractive answers; read-only here)


FuseRule = Callable[[StepInputs], StepFusion]


@dataclass(frozen=True)
class PostStep:
    """A transform applied after fusion (the end rule, whole-word finishing, the extractive mask), in list order."""

    name: str
    apply: Callable[[StepFusion, StepInputs], StepFusion]
    needs: frozenset[Need] = frozenset()


@dataclass(frozen=True)
class Method:
    """A decoding method: its reference streams, one fusion rule, and the steps applied after it."""

    name: str
    references: tuple[Reference, ...]  # prompt streams besides the full one: "retrieval", "query"
    description: str
    fuse: FuseRule
    signal: Signal = "none"  # what the engine feeds as the reference besides a second prompt stream
    post: tuple[PostStep, ...] = ()
    reads: frozenset[Need] = frozenset()  # what ``fuse`` reads of :class:`StepInputs` besides the log-probs

    @property
    def reference(self) -> Reference:
        """The first reference stream's kind ("none" for single-stream methods)."""
        return self.references[0] if self.references else "none"

    @property
    def streams(self) -> int:
        return 1 + len(self.references)

    @property
    def needs(self) -> frozenset[Need]:
        """The per-row inputs the engine must build for this method."""
        return self.reads.union(*(step.needs for step in self.post))

    def step(self, x: StepInputs, extra: Sequence[PostStep] = ()) -> StepFusion:
        """One fused step: the rule, then every post-fusion step (the method's, then ``extra``)."""
        fused = self.fuse(x)
        for post in (*self.post, *extra):
            fused = post.apply(fused, x)
        return fused
