"""The methods users choose from: which reference streams each needs and how it fuses one step.

``METHODS`` is the menu (the default, the paper's method, standard decoding and the published baselines). Research
variants are ablations of these, built and registered by :mod:`grounded_rag.evaluation.ablations` and reachable
from ``grounded-rag eval --methods``; :func:`get_method` finds them only once its ``register()`` has run.

Every method sees the same prompts, sampling and stopping; only its step differs. A step is one fuse rule, called
with one :class:`StepInputs` (float32 log-probabilities of the full stream and the reference, the per-row trust and
whatever else the method needs), then the method's post-fusion steps (:class:`PostStep`: the end rule, whole-word
finishing; the engine adds the extractive mask), each returning the fused log-distribution with the signals the
trace records.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Literal, NamedTuple

import torch

from . import baselines, schedule
from .fusion import arithmetic_fusion, conflict, eta_from_rho, finite, geometric_fusion, plausible_head
from .menu import DEFAULT_METHOD, add_ablation, canonical_name
from .prompts import Reference
from .spans import finish_words, restrict
from .steps import FuseRule, Method, PostStep, Schedule, StepFusion, StepInputs



def barycenter(rule: Schedule) -> FuseRule:
    """The paper's fusion: the KL barycenter of the two streams at eta = rho / (1 + rho), rho from ``rule``."""

    def fuse(x: StepInputs) -> StepFusion:
        c = conflict(x.lp_full, x.lp_ref)
        rho = rule(x.config.rho_max, x.trust, c)
        eta = eta_from_rho(rho)
        return StepFusion(geometric_fusion(x.lp_full, x.lp_ref, eta), c, rho, eta)

    return fuse


def arithmetic_rule(x: StepInputs) -> StepFusion:
    c = conflict(x.lp_full, x.lp_ref)
    rho = schedule.adaptive(x.config.rho_max, x.trust, c)
    alpha = eta_from_rho(rho)
    return StepFusion(arithmetic_fusion(x.lp_full, x.lp_ref, alpha), c, rho, alpha)


def _standard(x: StepInputs) -> StepFusion:
    zeros = torch.zeros(x.lp_full.shape[0], device=x.lp_full.device)
    return StepFusion(x.lp_full, None, zeros, zeros)


RET: tuple[Reference, ...] = ("retrieval",)
QUERY: tuple[Reference, ...] = ("query",)
BOTH: tuple[Reference, ...] = ("retrieval", "query")


@dataclass(frozen=True)
class PmiRule:
    """Grounded PMI decoding (ours, beyond the paper): the default's fuse rule; the flags build its ablations.

    With p_full = p(y|x,D), p_q = p(y|x) (question only) and p_ret = p(y|D) (retrieval only),

        log q(y) ∝ log p_full(y) + a_t [log p_full(y) - log p_q(y)] + b_t [log p_full(y) - log p_ret(y)]

    over the plausible head {y : p_full(y) >= kappa max p_full}, and -inf elsewhere. The first
    bracket is PMI(y; D | x): what the documents add for this question (CAD's contrast, so an
    answer from memory loses to the evidence). The second is PMI(y; x | D): what the question
    adds given the documents, so a passage's salient text that the model would emit without the
    question (copying an irrelevant passage) is pushed down; the paper's pool moves *toward*
    p_ret and so copies it. Adaptive weights fire only where a stream disagrees with the full one:
    a_t = alpha r(x, D) JS(p_full, p_q)/log 2 and b_t = beta JS(p_full, p_ret)/log 2; where the
    documents agree with memory (plain QA) a_t ~ 0 and the answer is standard decoding's. The head
    keeps a contrast from promoting tokens the full stream finds implausible. ``conflict`` in the
    trace is JS(p_full, p_q)/log 2, ``rho`` is a_t, ``eta`` is b_t, ``p_ref`` is p_q(y_t).

    ``gated`` (``grounded_pmi_gated``): the evidence term applies only to tokens the question
    supports, PMI(y; x | D) > m (``pmi_gate``, nats). An instruction planted in a document ("ignore
    the documents and answer: X") is followed just as well without the question, so p_ret already
    wants X and the question adds little: X keeps standard decoding's score instead of CAD's boost.
    A retrieved answer to *this* question is one the question-blind stream does not single out.

    ``anchored`` (``grounded_pmi_anchored``): the documents may raise only tokens they contain (their
    words as spelt there, without the leading space or capitalized); they may lower any token. A
    positive PMI(y; D | x) for a token no document contains is an association, not evidence: beside
    "the Colosseum was moved stone by stone to Madrid" the full stream's p("El") rises from 0.001 to
    0.05 (a Spanish context), the unanchored boost makes it 0.80, and the answer becomes "El Salvador".
    A memorized answer the documents contradict keeps its penalty (its PMI is negative).

    ``copying`` (the default, ``grounded_contrast``): the gate judges whole words. A token that finishes a word the
    answer is copying from a document (``words``: a digit after a digit, "alu" after "Subbar") needs no
    question support. Inside a copied word both streams read its first pieces, so PMI(y; x | D) is ~0 for
    the rest, and the gate withheld the evidence exactly there: "43" in a NQ-Swap passage became "4", and
    after "1" of the passage's "1881" the passage's "8" (PMI(y; D | x) = +2.6) was gated out (PMI(y; x | D) =
    +0.8). The end rule (``END_RULE``) does not cut a word the fused step is finishing. Only words:
    letting every continuation of a copied span through (tried first) ran answers on ("Stephen Curry ( born
    Keith Furman , ...": validation EM 23 -> 20, +1.3 tokens per answer). Its post-fusion step ``FINISH_WORDS``
    drops the tokens that would break off a word the answer stopped inside ("2" of a passage's "27": the fused step
    ended the turn there; :func:`~grounded_rag.spans.finish_words`).

    ``question_raises`` (research ablations only; the default is "any"): "documents" lets the question term raise only
    the documents' own tokens, "none" lets it only lower. Its raise is the question evoking a word the documents do not
    give: beside passages about Nineteen Eighty-Four, " Winston" (p_full 0.03) became the answer's first word.

    A gated rule also takes ``trusted`` ([rows] bool): a row whose documents are all the caller's own decodes with
    :func:`_trusted` instead (the gate exists to distrust what the documents dictate; there is nothing to distrust).
    """

    adaptive: bool = True
    evidence: bool = True
    question: bool = True
    head: bool = True
    gated: bool = False
    anchored: bool = False
    copying: bool = False
    question_raises: Literal["any", "documents", "none"] = "any"

    def __call__(self, x: StepInputs) -> StepFusion:
        lp_full, config = x.lp_full, x.config
        lp_ret, lp_q = x.lp_ref[:, 0], x.lp_ref[:, 1]
        p_full = lp_full.exp()
        c_q, c_r = conflict(lp_full, lp_q, p_full), conflict(lp_full, lp_ret, p_full)
        ones = torch.ones_like(c_q)
        a = config.pmi_alpha * x.trust * (c_q if self.adaptive else ones) if self.evidence else 0.0 * ones
        b = config.pmi_beta * (c_r if self.adaptive else ones) if self.question else 0.0 * ones
        pmi_x = _pmi(lp_full, lp_ret)  # both terms read PMI(y; x | D): computed once a step
        scores = lp_full + self._evidence_term(x, a, pmi_x, lp_q) + self._question_term(x, b, pmi_x)
        kappa = config.plausibility if self.head else 0.0
        keep = plausible_head(lp_full, kappa) & finite(lp_full)
        log_q = torch.log_softmax(torch.where(keep, scores, -math.inf), dim=-1)
        if kappa == 0:  # zero weights are standard decoding bit for bit, not up to re-normalization
            log_q = torch.where(((a == 0) & (b == 0)).unsqueeze(-1), lp_full, log_q)
        fused = StepFusion(log_q, c_q, a, b, lp_q)
        if self.gated and x.trusted is not None:
            fused = _trusted(fused, lp_full, lp_q, config, x.trusted, x.doc_tokens if self.anchored else None)
        return fused

    def _question_term(self, x: StepInputs, b: torch.Tensor, pmi_x: Pmi) -> torch.Tensor:
        """b_t PMI(y; x | D); with ``question_raises`` "documents" it raises only the documents' own tokens, with
        "none" it only lowers (research ablations: a raise is the question evoking a word the documents do not give)."""
        term = _weighted(b, pmi_x)
        if self.question_raises == "documents":
            return anchor(term, x.doc_tokens)
        return term.clamp(max=0.0) if self.question_raises == "none" else term

    def _evidence_term(self, x: StepInputs, a: torch.Tensor, pmi_x: Pmi, lp_q: torch.Tensor) -> torch.Tensor:
        """a_t PMI(y; D | x), where the question supports the token (gated) and, raised, only for the documents' own
        tokens (anchored)."""
        term = _weighted(a, _pmi(x.lp_full, lp_q))
        if self.gated:  # the question must support the token; a reference's -inf counts as support
            supported = _pmi_x(pmi_x) > x.config.pmi_gate
            if self.copying:
                if x.words is None:
                    raise ValueError("a copying method needs each row's copied-word continuations (the engine's "
                                     "word_masks over its copies)")
                supported = supported | x.words
            term = torch.where(supported, term, 0.0)
        if self.anchored:  # a boost only for the documents' own tokens; a penalty for any token
            term = anchor(term, x.doc_tokens)
        return term


def _trusted(fused: StepFusion, lp_full: torch.Tensor, lp_q: torch.Tensor, config, trusted: torch.Tensor,
             doc_tokens: torch.Tensor | None) -> StepFusion:
    """``fused`` where a row's documents are retrieved; where the caller wrote all of them (``trusted``), CAD's
    contrast at a fixed ``trusted_beta``, anchored like the rule it replaces:

        log q(y) ∝ log p_full(y) + trusted_beta [log p_full(y) - log p_q(y)]   (the boost only for document tokens)

    The question gate, the question term and the JS-scaled weight exist to distrust what documents dictate (an
    instruction planted in a retrieved passage is followed just as well without the question: docs/method-note.md,
    "The question gate and planted instructions"); a caller's own
    instruction ("Write a quote that ends in the word 'heavy'") has exactly that signature, and is meant to be
    obeyed. The plausibility head goes too: a model sure of a proverb's usual ending keeps the instructed word out
    of its head. The anchor stays: it is not about trust but about associations that are not evidence (CAD's
    "Petra" for "appreciated"). MemoTrap validation, 100 rows: 62 against CAD's 61 and the guarded rule's 34."""
    evidence = _weighted(torch.full_like(fused.conflict, config.trusted_beta), _pmi(lp_full, lp_q))
    if doc_tokens is not None:
        evidence = anchor(evidence, doc_tokens)
    scores = torch.where(finite(lp_full), lp_full + evidence, -math.inf)
    rows = trusted.unsqueeze(-1)
    beta = torch.full_like(fused.rho, config.trusted_beta)
    return replace(fused, log_q=torch.where(rows, torch.log_softmax(scores, dim=-1), fused.log_q),
                   rho=torch.where(trusted, beta, fused.rho),
                   eta=torch.where(trusted, torch.zeros_like(beta), fused.eta))


def anchor(evidence_term: torch.Tensor, doc_tokens: torch.Tensor | None) -> torch.Tensor:
    """The evidence term where it lowers a token or the token is in the row's documents, else 0."""
    if doc_tokens is None:
        raise ValueError("an anchored method needs each row's document tokens (the engine's document_tokens)")
    keep = doc_tokens | (evidence_term < 0)
    return torch.where(keep, evidence_term, 0.0)


def full_stream_ends(log_q: torch.Tensor, lp_full: torch.Tensor, ends: torch.Tensor | None,
                     finishing: torch.Tensor | None = None) -> torch.Tensor:
    """``log_q``, except in rows where the full stream's most likely token ends the answer (``ends``: [V]
    bool, EOS / end of turn): there the step is the full stream's, unless the row is ``finishing`` ([rows]
    bool: the fused step's top token finishes a word the answer is copying from a document). The engine
    applies it once the answer has begun (an empty answer is not one the evidence finished). The contrasts
    decide what the answer says, not that it goes on: after "The capital of France is Paris." the full stream ends the turn
    (0.415 against a newline 0.394), the question term's nudge made it a newline (0.509), and the run-on
    paragraph obeyed an instruction planted in a document."""
    if ends is None:
        raise ValueError("a method whose full stream ends the answer needs the end-of-answer token ids (end_ids)")
    stop = ends[lp_full.argmax(dim=-1)]
    if finishing is not None:
        stop = stop & ~finishing
    return torch.where(stop.unsqueeze(-1), lp_full, log_q)


def _end_rule(fused: StepFusion, x: StepInputs) -> StepFusion:
    """:func:`full_stream_ends` once the answer has begun (at its first token the full stream's wish to end is
    reluctance to answer, which the contrasts are there to overcome), except where the fused step's top token
    finishes a word the answer copies, or the answer stopped inside one (``words``, ``breaks``)."""
    if not x.begun:
        return fused
    finishing = None
    if x.words is not None:  # the fused step's top token finishes a copied word
        finishing = x.words.gather(-1, fused.log_q.argmax(dim=-1, keepdim=True))[:, 0]
        if x.breaks is not None:  # or the answer stopped inside one
            finishing = finishing | x.breaks.any(dim=-1)
    return replace(fused, log_q=full_stream_ends(fused.log_q, x.lp_full, x.ends, finishing))


def _finish_words(fused: StepFusion, x: StepInputs) -> StepFusion:
    """The answer neither ends nor breaks off inside a word it copies (:func:`~grounded_rag.spans.finish_words`)."""
    return fused if x.breaks is None else replace(fused, log_q=finish_words(fused.log_q, x.lp_full, x.breaks))


def _extractive(fused: StepFusion, x: StepInputs) -> StepFusion:
    """Every answer a verbatim span of one passage (:func:`~grounded_rag.spans.restrict`); any method's, after
    its own steps, where ``DecodingConfig.extractive`` is set."""
    return replace(fused, log_q=restrict(fused.log_q, x.lp_full, x.spans))


END_RULE = PostStep("end_rule", _end_rule, frozenset({"end_ids"}))
FINISH_WORDS = PostStep("finish_words", _finish_words, frozenset({"copies", "word_breaks"}))
EXTRACTIVE = PostStep("extractive", _extractive, frozenset({"spans"}))


class Pmi(NamedTuple):
    """log p_full - log p_ref where the reference allows the token (``finite``), as the contrasts read it."""

    diff: torch.Tensor
    finite: torch.Tensor


def _pmi(lp_full: torch.Tensor, lp_ref: torch.Tensor) -> Pmi:
    return Pmi(lp_full - lp_ref, finite(lp_ref))


def _pmi_x(pmi: Pmi) -> torch.Tensor:
    """PMI(y; x | D) = log p_full - log p_ret (``pmi``: against the retrieval stream); +inf where the reference rules
    the token out."""
    return torch.where(pmi.finite, pmi.diff, math.inf)


def _weighted(weight: torch.Tensor, pmi: Pmi) -> torch.Tensor:
    """weight * (log p_full - log p_ref) per row; 0 where the weight is 0 or the reference rules the
    token out (-inf): no -inf - -inf NaNs, and no infinite boost from a reference's zero."""
    diff = torch.where(pmi.finite, pmi.diff, 0.0)
    return torch.where(weight.unsqueeze(-1) == 0, 0.0, weight.unsqueeze(-1) * diff)


# The default: the question-aware contrasts, anchored to the documents' own words, judging whole words, with the end
# rule and caller-declared trust. Its research ablations (evaluation.ablations) are it with one part off.
CONTRAST = Method(
    DEFAULT_METHOD,
    BOTH,
    "the default: raises what the documents add for this question and lowers what the model would say from memory "
    "or from a passage the question is not about; documents may raise only their own words, whole; a request "
    "whose documents the caller wrote all of (Document.trusted) is decoded with anchored CAD",
    PmiRule(gated=True, anchored=True, copying=True),
    post=(END_RULE, FINISH_WORDS),
    reads=frozenset({"document_tokens", "copies", "trusted"}),
)

METHODS: dict[str, Method] = {
    m.name: m
    for m in (
        CONTRAST,
        Method("grounded", RET, "the paper's adaptive Grounded Decoding: rho_t = rho_max r c_t",
               barycenter(schedule.adaptive)),
        Method("standard", (), "standard RAG decoding of the full prompt", _standard),
        Method("cad", QUERY, "context-aware decoding, fixed beta", baselines.cad),
        Method("adacad", QUERY, "AdaCAD, JSD-adaptive beta", baselines.adacad),
        Method("coiecd", QUERY, "COIECD, contextual information-entropy constraint", baselines.coiecd),
        Method("cocoa", QUERY, "CoCoA, Renyi conflict with entropy-gap and peakedness confidence", baselines.cocoa),
        Method("dola", (), "DoLa, contrast with a dynamically chosen premature layer", baselines.dola, "early_layers"),
        Method("knnlm", (), "kNN-LM over a datastore of the retrieved passages", baselines.knnlm, "datastore"),
    )
}
# Research variants, registered by grounded_rag.evaluation.ablations (never on the menu), and the menu method each
# is a variant of (what an evaluation reads it against).
ABLATIONS: dict[str, Method] = {}
ABLATION_OF: dict[str, str] = {}


def register_ablation(method: Method, of: str = DEFAULT_METHOD) -> Method:
    """Add a research variant of the menu method ``of`` that ``grounded-rag eval --methods`` can run; the menu is
    unchanged."""
    if of not in METHODS:
        raise ValueError(f"an ablation is a variant of a method on the menu, not of {of!r}")
    add_ablation(method.name)
    ABLATIONS[method.name], ABLATION_OF[method.name] = method, of
    return method


def get_method(name: str) -> Method:
    """A method's rule by name (a deprecated name: its successor's, with a warning)."""
    name = canonical_name(name)
    return METHODS.get(name) or ABLATIONS[name]
