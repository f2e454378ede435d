"""Research ablations: each is a menu method with one part off, so that an evaluation can tell what each part does.

They are not on the user's menu (``grounded_rag.methods.METHODS``). :func:`register` makes their names valid methods;
the evaluation calls it where it reads ``grounded-rag eval --methods`` (importing this module registers nothing), and
eval runs them beside the menu's methods with the same protocol. ``docs/methods.md`` says what each leaves out;
``docs/method-note.md`` why each part exists.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import partial

import torch

from .. import schedule
from ..fusion import plausible_head
from ..methods import (
    BOTH,
    CONTRAST,
    END_RULE,
    QUERY,
    RET,
    FuseRule,
    Method,
    PmiRule,
    PostStep,
    StepFusion,
    StepInputs,
    arithmetic_rule,
    barycenter,
    register_ablation,
)
from ..spans import DocumentSpans, restrict

# The default (grounded_contrast), one part off each; the names are those the results were published under.
WHOLE_WORDS_OFF = replace(CONTRAST, name="grounded_pmi_anchored", fuse=PmiRule(gated=True, anchored=True),
                          post=(END_RULE,), reads=frozenset({"document_tokens", "trusted"}),
                          description="the default without whole words: its question gate judges each token alone, "
                          "and the answer may stop inside a word it copies (the default before whole words)")


@dataclass(frozen=True)
class EveryRowTrusted:
    """``rule`` reading every row's documents as the caller's own: the question gate off everywhere, replaced by the
    trusted rule (CAD's contrast at ``trusted_beta``, anchored). With ``+screened`` this asks whether withholding the
    sentences that address the model can stand in for the gate, so that statements get the evidence boost in full."""

    rule: FuseRule

    def __call__(self, x: StepInputs) -> StepFusion:
        return self.rule(replace(x, trusted=torch.ones_like(x.trust, dtype=torch.bool)))


def _memory_speaks(fused: StepFusion, x: StepInputs) -> tuple[torch.Tensor, torch.Tensor]:
    """The full stream's top token per row ([rows, 1]) and where it is memory's answer ([rows, 1] bool): the
    question-only stream (``fused.reference``) puts the same token first, and no document contains it."""
    top = x.lp_full.argmax(dim=-1, keepdim=True)
    return top, (top == fused.reference.argmax(dim=-1, keepdim=True)) & ~x.doc_tokens.gather(-1, top)


def memory_veto(fused: StepFusion, x: StepInputs, every_step: bool = False) -> StepFusion:
    """At the answer's first token (``every_step``: at every token), the token memory would say is ruled out where no
    document contains it: the full stream's top token, when the question-only stream (``fused.reference``) has the
    same top token and it is not among the documents' tokens (nor, with ``every_step``, ends the answer). Beside
    "the Eiffel Tower stands in Marseille" the full stream still says " Paris" (0.49) and so does the question alone:
    the evidence term is too weak there to win (docs/results.md, "What it would take"); the veto leaves the
    documents' own words to choose from. At the first token only, memory came back a few tokens later ("The capital
    of the United Kingdom is London."): ``every_step`` asks whether it stays away when it is vetoed wherever it would
    speak."""
    if (x.begun and not every_step) or x.doc_tokens is None or fused.reference is None:
        return fused
    top, veto = _memory_speaks(fused, x)
    if every_step and x.ends is not None:
        veto &= ~x.ends[top]  # ending the answer is no claim from memory
    if not every_step and not bool(veto.any()):  # every_step runs in a captured step: no host sync there
        return fused
    ruled_out = torch.zeros_like(x.doc_tokens).scatter(-1, top, veto)
    scores = fused.log_q.masked_fill(ruled_out, -math.inf)
    alone = ~torch.isfinite(scores).any(dim=-1, keepdim=True)  # it was the fused step's only token: the full stream's
    scores = torch.where(alone, x.lp_full.masked_fill(ruled_out, -math.inf), scores)  # others, not a NaN row
    return replace(fused, log_q=torch.where(veto, torch.log_softmax(scores, dim=-1), fused.log_q))


MEMORY_VETO = PostStep("memory_veto", memory_veto, frozenset({"document_tokens"}))
MEMORY_VETO_EVERY_STEP = PostStep("memory_veto_every_step", partial(memory_veto, every_step=True),
                                  frozenset({"document_tokens", "end_ids"}))


def memory_swap(fused: StepFusion, x: StepInputs, weight: float = 2.0, floor: float = 1e-3,
                evidence: float = 1.0) -> StepFusion:
    """At the answer's first token, where memory would speak (``memory_veto``'s case: the full and the question-only
    stream put first a token no document contains), the documents' token the evidence favours most: among the
    documents' tokens that the full stream gives at least ``floor`` times its top probability and that the documents
    make likelier (PMI(y; D | x) > ``evidence`` nats), the argmax of log p_full + ``weight`` PMI(y; D | x). Vetoing
    memory's token left the full stream's next guess, not the document's answer: beside a counterfactual the
    document's token is far below memory's in the full stream, and the contrast favours it but at the default's
    weight cannot lift it, nor can the plausibility head admit it (docs/results.md, "What it would take"). A larger
    weight and a wider head, at this one token only; without the evidence floor the swap takes words the passages
    barely move ("The"), and memory comes back after them."""
    if x.begun or x.doc_tokens is None or fused.reference is None:
        return fused
    _, memory = _memory_speaks(fused, x)
    if not bool(memory.any()):
        return fused
    pmi = x.lp_full - fused.reference
    head = plausible_head(x.lp_full, floor) & x.doc_tokens & torch.isfinite(fused.reference) & (pmi > evidence)
    scores = (x.lp_full + weight * pmi).masked_fill(~head, -math.inf)
    swap = memory & head.any(dim=-1, keepdim=True)  # no document token in reach: the fused step stands
    return replace(fused, log_q=torch.where(swap, torch.log_softmax(scores, dim=-1), fused.log_q))


MEMORY_SWAP = PostStep("memory_swap", memory_swap, frozenset({"document_tokens"}))


def question_echo(fused: StepFusion, x: StepInputs) -> StepFusion:
    """Once the answer has begun, the step is the full stream's where it restates the question: the full stream's top
    token is also the question-only stream's, is one of the question's tokens (any: "the", "?" too; where both
    streams agree on those the contrasts rarely move them) and is in the documents. The evidence term cannot credit
    the documents with a word the question already predicts (PMI(y; D | x) ~ 0 or below), so it lifts another
    passage's entity over the question's own: over three project paragraphs, "Who leads Project
    Juniper?" became "Project Kestrel is ..." after "Project" (the full stream's " Jun" lost to " K", which the
    question-only stream rules out). The first token is left to the contrasts (an answer that opens by restating
    gives memory its chance later)."""
    if not x.begun or x.question_tokens is None or x.doc_tokens is None or fused.reference is None:
        return fused
    top = x.lp_full.argmax(dim=-1, keepdim=True)
    echo = ((top == fused.reference.argmax(dim=-1, keepdim=True)) & x.question_tokens.gather(-1, top)
            & x.doc_tokens.gather(-1, top))  # [rows, 1]
    return replace(fused, log_q=torch.where(echo, x.lp_full, fused.log_q))


def _span_mask(spans: Sequence[DocumentSpans], shape: torch.Size, device: torch.device, starts: bool = False,
               rows: Sequence[bool] | None = None) -> torch.Tensor:
    """[rows, V] bool: the tokens each row's answer may copy next (``starts``: those a span may open with); only for
    the ``rows`` marked (the rest all False), where given."""
    mask = torch.zeros(shape, dtype=torch.bool, device=device)
    for i, s in enumerate(spans):
        if rows is None or rows[i]:
            mask[i, [t for t in (s.starts() if starts else s.allowed()) if t < shape[-1]]] = True
    return mask


def _against_documents(fused: StepFusion, x: StepInputs, against: float) -> torch.Tensor:
    """``_memory_speaks``, where the fused step would say memory's token too, the documents make it less likely
    (PMI(y; D | x) < -``against``), it does not end the answer and it is not a token of the question: [rows, 1]
    bool. Where the fused step already says something else, the evidence has won there without help (a span opened
    instead was seen to start in an unrelated passage: "Pisa" where the default answered "Lyon is the capital of
    France."). A word of the question is the answer restating it, not memory's answer: after "The" both streams
    said " original" for "Who is the original author of tarnlib?", and the span opened there copied a planted
    code line instead of the author's name."""
    top, memory = _memory_speaks(fused, x)
    memory &= fused.log_q.argmax(dim=-1, keepdim=True) == top
    memory &= (x.lp_full - fused.reference).gather(-1, top) < -against
    memory &= ~x.ends[top] & ~x.question_tokens.gather(-1, top)  # ending the answer, restating: no claim from memory
    return memory


def _evidence_opening(fused: StepFusion, x: StepInputs, cap: float, floor: float, evidence: float) -> torch.Tensor:
    """Scores of the tokens a span may open with, where the documents add more than ``evidence`` nats and the full
    stream gives at least ``floor`` of its top probability: log p_full + min(PMI(y; D | x), ``cap``); -inf
    elsewhere. Uncapped, a token of an unrelated passage that memory rules out wins (" Pluto", PMI 10.7, for the
    capital of Germany beside the Munich passage)."""
    pmi = x.lp_full - fused.reference
    head = (plausible_head(x.lp_full, floor) & _span_mask(x.spans, pmi.shape, pmi.device, starts=True)
            & torch.isfinite(fused.reference) & (pmi > evidence))
    return (x.lp_full + pmi.clamp(max=cap)).masked_fill(~head, -math.inf)


def _inside_spans(log_q: torch.Tensor, x: StepInputs, copying: torch.Tensor) -> torch.Tensor:
    """``log_q`` restricted to each ``copying`` row's span continuations, the span's end tokens (a newline, a stop)
    folded into the answer's end token: the answer ends where the span does."""
    rows = copying[:, 0].nonzero()[:, 0]
    restricted = restrict(log_q[rows], x.lp_full[rows], [x.spans[i] for i in rows.tolist()])
    span_ends = torch.zeros_like(restricted, dtype=torch.bool)
    span_ends[:, [t for t in x.spans[0].ends if t < restricted.shape[-1]]] = True
    mass = torch.logsumexp(restricted.masked_fill(~span_ends, -math.inf), dim=-1)
    restricted = restricted.masked_fill(span_ends, -math.inf)
    restricted[:, int(x.ends.nonzero()[0, 0])] = mass
    return log_q.index_copy(0, rows, restricted)


def memory_extract(fused: StepFusion, x: StepInputs, cap: float = 4.0, floor: float = 1e-3,
                   evidence: float = 2.0, against: float = 0.1) -> StepFusion:
    """Where memory would speak against the documents (the full and the question-only stream put first a token no
    document contains, and the documents make it less likely), the answer copies a span of the documents from there,
    opened by the token the evidence favours (:func:`_evidence_opening`) and continued by the fused step inside the
    span until, at a word's end, the fused step would leave it. Memory speaks where the answer's slot comes ("The
    capital of the United Kingdom is" + " London" beside the Manchester passage), seldom at the first token where
    ``memory_swap`` looked; extractive answers everywhere picked the question's subject ("Russia") and lost true
    answers spelt another way. The row's span state is the engine's (:class:`~grounded_rag.spans.DocumentSpans`):
    this step says where a span starts (``span_from``) and where the answer leaves it (``span_left``)."""
    needed = (x.spans, x.doc_tokens, fused.reference, x.ends, x.question_tokens)
    if any(value is None for value in needed):
        return fused
    copying = torch.tensor([s.engaged for s in x.spans], device=fused.log_q.device).unsqueeze(-1)
    memory = _against_documents(fused, x, against) & ~copying
    log_q, start = fused.log_q, torch.zeros_like(copying)
    if bool(memory.any()):
        scores = _evidence_opening(fused, x, cap, floor, evidence)
        start = memory & torch.isfinite(scores).any(dim=-1, keepdim=True)
        log_q = torch.where(start, torch.log_softmax(scores, dim=-1), log_q)
    left = torch.zeros_like(copying)
    if bool(copying.any()):  # the copying rows' spans only: the rest have none to follow (a mask per row per step)
        allowed = _span_mask(x.spans, log_q.shape, log_q.device, rows=copying[:, 0].tolist())
        word_end = (allowed & x.ends).any(dim=-1, keepdim=True)  # a span's answer may end only where a word does
        left = copying & word_end & ~allowed.gather(-1, log_q.argmax(dim=-1, keepdim=True))
        copying &= ~left
        if bool(copying.any()):
            log_q = _inside_spans(log_q, x, copying)
    return replace(fused, log_q=log_q, span_from=start[:, 0], span_left=left[:, 0])


MEMORY_EXTRACT = PostStep("memory_extract", memory_extract,
                          frozenset({"document_tokens", "question_tokens", "spans", "end_ids"}))

QUESTION_ECHO = PostStep("question_echo", question_echo, frozenset({"document_tokens", "question_tokens"}))

ABLATIONS: tuple[Method, ...] = (
    replace(CONTRAST, name="pmi_words_echo", post=(QUESTION_ECHO, *CONTRAST.post),
            description="the default, except that a step restating the question (both streams' top token, a token of "
            "the question the documents contain) is the full stream's (research: entity substitution)"),
    replace(CONTRAST, name="pmi_words_memory_veto", post=(MEMORY_VETO, *CONTRAST.post),
            description="the default plus a veto: the answer's first token may not be memory's own answer where no "
            "document contains it (research: counterfactuals about facts the model knows)"),
    replace(CONTRAST, name="pmi_words_memory_swap", post=(MEMORY_SWAP, *CONTRAST.post),
            description="the default, except that where the answer's first token would be memory's own answer and no "
            "document contains it, it is the documents' token the evidence favours most, at a weight of 2 over a "
            "wide head (research: counterfactuals about facts the model knows)"),
    replace(CONTRAST, name="pmi_words_memory_extract", post=(*CONTRAST.post, MEMORY_EXTRACT),
            description="the default, except that where it would say memory's own answer, which no document "
            "contains, the question does not spell and the documents make less likely, the answer copies a span of "
            "the documents from there, opened by the word the evidence favours (research: counterfactuals about "
            "facts the model knows)"),
    replace(CONTRAST, name="pmi_words_memory_veto_all", post=(MEMORY_VETO_EVERY_STEP, *CONTRAST.post),
            description="the default plus the memory veto at every token, not only the first (research: "
            "counterfactuals about facts the model knows)"),
    replace(CONTRAST, name="pmi_words_question_lowers",
            fuse=PmiRule(gated=True, anchored=True, copying=True, question_raises="none"),
            description="the default, except that the question term only lowers: it no longer raises a word the "
            "question evokes and the documents do not give (research: counterfactuals about facts the model knows)"),
    replace(CONTRAST, name="pmi_words_question_anchored",
            fuse=PmiRule(gated=True, anchored=True, copying=True, question_raises="documents"),
            description="the default, except that the question term raises only the documents' own words, as the "
            "evidence term does (research: counterfactuals about facts the model knows)"),
    replace(CONTRAST, name="pmi_words_cut", post=(END_RULE,),
            description="the default, except that the answer may end or break off inside a word it copies"),
    replace(CONTRAST, name="pmi_words_untrusting", reads=CONTRAST.reads - {"trusted"},
            description="the default reading every document as retrieved text (Document.trusted ignored)"),
    replace(CONTRAST, name="pmi_words_trusting", fuse=EveryRowTrusted(CONTRAST.fuse),
            description="the default reading every document as the caller's own: no question gate (run it "
            "+screened: sentences that address the model withheld instead)"),
    WHOLE_WORDS_OFF,
    replace(WHOLE_WORDS_OFF, name="pmi_anchored_fused_ends", post=(),
            description="grounded_pmi_anchored whose fused step also decides where the answer ends"),
    replace(WHOLE_WORDS_OFF, name="grounded_pmi_gated", fuse=PmiRule(gated=True), post=(),
            reads=frozenset({"trusted"}),
            description="grounded_pmi_anchored whose documents may raise any token, not only their own"),
    Method("pmi_anchored_ungated", BOTH, "grounded_pmi_anchored without the question gate", PmiRule(anchored=True),
           reads=frozenset({"document_tokens"})),
    Method("grounded_pmi", BOTH, "the two contrasts alone: no question gate, no anchor, no end rule, no trust",
           PmiRule()),
    Method("pmi_static", BOTH, "grounded_pmi with constant weights (no JS gating)", PmiRule(adaptive=False)),
    Method("pmi_evidence_only", BOTH, "grounded_pmi without the question term (b_t = 0)", PmiRule(question=False)),
    Method("pmi_question_only", BOTH, "grounded_pmi without the evidence term (a_t = 0)", PmiRule(evidence=False)),
    Method("pmi_no_head", BOTH, "grounded_pmi without the plausibility head", PmiRule(head=False)),
)
# The paper's method, one part off each.
PAPER_ABLATIONS: tuple[Method, ...] = (
    Method("static", RET, "the paper's method with a constant rho", barycenter(schedule.static)),
    Method("conflict_only", RET, "the paper's method with r(x, D) = 1", barycenter(schedule.conflict_only)),
    Method("trust_only", RET, "the paper's method with c_t = 1", barycenter(schedule.trust_only)),
    Method("arithmetic", RET, "the paper's method mixing probabilities: (1-a) p_full + a p_ret", arithmetic_rule),
    Method("query_only_reference", QUERY, "the paper's method with the question-only stream as reference",
           barycenter(schedule.adaptive)),
)


def register() -> None:
    """Every research ablation becomes a valid ``method`` beside the menu, a variant of the default or (the paper's
    ablations) of ``grounded``. Idempotent: the evaluation calls it wherever it reads a method's name."""
    for method in ABLATIONS:
        register_ablation(method)
    for method in PAPER_ABLATIONS:
        register_ablation(method, of="grounded")
