"""The method registry: which reference streams each method needs and how it fuses one step.

Every method sees the same prompts, sampling and stopping; only this step differs. A step
takes float32 log-probabilities ``[rows, vocab]`` of the full stream and (if any) the reference
stream — ``[rows, k, vocab]`` for a method with k > 1 reference streams, in the order of
``Method.references`` — plus the per-row trust, and returns the fused log-distribution with the
signals the trace records.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import torch

from . import schedule
from .fusion import arithmetic_fusion, conflict, eta_from_rho, geometric_fusion, js_divergence, log_linear
from .prompts import Reference
from .taps import Datastore, Signal


@dataclass(frozen=True)
class StepFusion:
    log_q: torch.Tensor
    conflict: torch.Tensor | None
    rho: torch.Tensor
    eta: torch.Tensor
    reference: torch.Tensor | None = None  # the reference log-probs actually used, when the method picks one


Schedule = Callable[[float, torch.Tensor, torch.Tensor], torch.Tensor]


@dataclass(frozen=True)
class Method:
    """A decoding method: its reference streams and its one-step fusion rule."""

    name: str
    references: tuple[Reference, ...]  # prompt streams besides the full one: "retrieval", "query"
    description: str
    # (lp_full, lp_ref, trust, config) -> StepFusion; an anchored method's rule also takes the rows' document-token
    # mask [rows, V] (bool) as a fifth argument
    fuse: Callable[..., StepFusion]
    signal: Signal = "none"  # what the engine feeds as the reference besides a second prompt stream
    anchored: bool = False
    full_ends: bool = False  # the full stream decides where the answer ends (:func:`full_stream_ends`)
    # the rule also takes the tokens that finish a word the answer copies from a document ([rows, V] bool, the
    # engine's :func:`~grounded_rag.engine.word_masks`) as ``words``: its question gate and end rule judge whole words
    copying: bool = False
    # a copying method whose answer neither ends nor breaks off inside a word it copies ("2" of a passage's "27";
    # the engine's :func:`~grounded_rag.engine.word_breaks`, :func:`~grounded_rag.spans.finish_words`)
    finishes_words: bool = False
    # the rule also takes each row's caller-declared trust (``trusted``: [rows] bool, or None when no row is): a row
    # whose documents the caller wrote all of decodes without the guards against retrieved text (:func:`_trusted`)
    trusting: bool = False

    @property
    def reference(self) -> Reference:
        """The first reference stream's kind ("none" for single-stream methods)."""
        return self.references[0] if self.references else "none"

    @property
    def streams(self) -> int:
        return 1 + len(self.references)


def _barycenter(rule: Schedule) -> Callable[..., StepFusion]:
    def fuse(lp_full, lp_ref, trust, config):
        c = conflict(lp_full, lp_ref)
        rho = rule(config.rho_max, trust, c)
        eta = eta_from_rho(rho)
        return StepFusion(geometric_fusion(lp_full, lp_ref, eta), c, rho, eta)

    return fuse


def _arithmetic(lp_full, lp_ref, trust, config):
    c = conflict(lp_full, lp_ref)
    rho = schedule.adaptive(config.rho_max, trust, c)
    alpha = eta_from_rho(rho)
    return StepFusion(arithmetic_fusion(lp_full, lp_ref, alpha), c, rho, alpha)


def _standard(lp_full, lp_ref, trust, config):
    zeros = torch.zeros(lp_full.shape[0], device=lp_full.device)
    return StepFusion(lp_full, None, zeros, zeros)


def finite_reference(lp_full: torch.Tensor, lp_ref: torch.Tensor) -> torch.Tensor:
    """``lp_ref`` for a contrast: where the reference rules a token out (-inf) it takes the full
    stream's value (no contrast, as in ``_weighted_diff``), so subtracting it can never give +inf or
    -inf - -inf = NaN. Finite inputs pass through bit for bit (and no host sync: GPU-graph safe)."""
    fallback = torch.where(torch.isfinite(lp_full), lp_full, torch.zeros_like(lp_full))
    return torch.where(torch.isfinite(lp_ref), lp_ref, fallback)


def _contrast(beta: torch.Tensor, lp_full: torch.Tensor, lp_ref: torch.Tensor, c: torch.Tensor) -> StepFusion:
    # (1 + beta) log p_full - beta log p_query, renormalized: the barycenter formula with eta = -beta.
    return StepFusion(geometric_fusion(lp_full, finite_reference(lp_full, lp_ref), -beta), c, beta, -beta)


def _cad(lp_full, lp_ref, trust, config):
    """CAD (Shi et al. 2024): contrast with the question-only stream at a fixed beta."""
    c = conflict(lp_full, lp_ref)
    return _contrast(torch.full_like(c, config.beta), lp_full, lp_ref, c)


def _adacad(lp_full, lp_ref, trust, config):
    """AdaCAD (Wang et al. 2025): CAD with beta_t = JSD(p_full, p_query) (base-2, in [0, 1])."""
    c = conflict(lp_full, lp_ref)
    return _contrast(c, lp_full, lp_ref, c)


def entropy(logp: torch.Tensor) -> torch.Tensor:
    """Shannon entropy in nats per row (0 log 0 = 0)."""
    return torch.special.entr(logp.exp()).sum(dim=-1)


def renyi_divergence(logp: torch.Tensor, logq: torch.Tensor, alpha: float) -> torch.Tensor:
    """D_alpha(p || q) = log sum p^alpha q^(1-alpha) / (alpha - 1), in nats, for 0 < alpha < 1."""
    return (torch.logsumexp(alpha * logp + (1 - alpha) * logq, dim=-1) / (alpha - 1)).clamp(min=0.0)


def _coiecd(lp_full, lp_ref, trust, config):
    """COIECD (Yuan et al. 2024): a token-wise switch by the contextual information-entropy constraint.

    A token is *consistent* (no knowledge conflict) when its contextual information
    -log p(y|x,D) lies within ``coiecd_epsilon`` nats of the parametric entropy H(p(.|x)), the
    locally typical zone of the stable-entropy hypothesis. Consistent tokens are scored
    log p(y|x) + alpha (log p(y|x,D) - log p(y|x)); conflicting ones log p(y|x,D) + alpha (...),
    the CAD contrast. We follow the paper's constraint with the entropy term: the public code
    log-softmaxes the shifted scores over the vocabulary, where the per-row entropy cancels.
    The trace's ``conflict`` is the mass of p_full outside the typical zone.
    """
    alpha = config.coiecd_alpha
    h = entropy(lp_ref).unsqueeze(-1)
    typical = (-lp_full - h).abs() <= config.coiecd_epsilon
    rows = torch.ones(lp_full.shape[0], device=lp_full.device)
    lp_ref = finite_reference(lp_full, lp_ref)  # both branches may weight the reference negatively
    consistent = log_linear(lp_full, lp_ref, (1.0 - alpha) * rows)  # log p(y|x) + alpha (log p(y|x,D) - log p(y|x))
    conflicting = log_linear(lp_full, lp_ref, -alpha * rows)  # log p(y|x,D) + alpha (log p(y|x,D) - log p(y|x))
    merged = torch.where(typical, consistent, conflicting)
    log_q = torch.log_softmax(merged, dim=-1)
    outside = torch.where(typical, torch.zeros_like(lp_full), lp_full.exp()).sum(-1)
    a = torch.full_like(outside, alpha)
    return StepFusion(log_q, outside, a, -a)


def _cocoa(lp_full, lp_ref, trust, config):
    """CoCoA (Khandelwal et al. 2025): a power interpolation with a confidence- and conflict-aware weight.

    log q = (1 - lambda_t) log p(y|x) + lambda_t log p(y|x,D), renormalized, with
    ``kappa_t = 1 - exp(-(1 - a) D_a(p(.|x) || p(.|x,D)))`` (tail-sensitive Renyi conflict, a = 1/2:
    one minus the Bhattacharyya coefficient), the context's confidence
    ``psi_t = (sigmoid(H(p(.|x)) - H(p(.|x,D))) + margin_top2(p(.|x,D))) / 2`` (entropy gap and
    contextual peakedness), and ``lambda_t = 1 + kappa_t ((lambda_max - 1) psi_t - (1 - psi_t))``:
    a confident context in conflict is amplified up to lambda_max, an unconfident one yields toward
    the prior, and without conflict lambda_t = 1 (standard RAG). The paper's components as published;
    the way they combine into lambda_t is our reading (the paper text was not available offline).
    Unlike the public code, EOS is never blocked: the paper has no such rule.
    """
    a = config.renyi_alpha
    kappa = 1.0 - torch.exp(-(1.0 - a) * renyi_divergence(lp_ref, lp_full, a))
    top2 = lp_full.topk(2, dim=-1).values.exp()
    psi = 0.5 * (torch.sigmoid(entropy(lp_ref) - entropy(lp_full)) + (top2[:, 0] - top2[:, 1]))
    lam = 1.0 + kappa * ((config.cocoa_lambda_max - 1.0) * psi - (1.0 - psi))
    return StepFusion(geometric_fusion(lp_full, finite_reference(lp_full, lp_ref), 1.0 - lam), kappa, lam, 1.0 - lam)


def dola_premature(lp_final: torch.Tensor, lp_layers: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """DoLa's dynamic premature layer: per row, the candidate with the largest JS from the final layer."""
    js = js_divergence(lp_final.unsqueeze(1).expand_as(lp_layers), lp_layers)  # [rows, layers]
    best = js.argmax(dim=1)
    return lp_layers[torch.arange(lp_layers.shape[0]), best], js.max(dim=1).values


def plausible_head(lp_full: torch.Tensor, kappa: float) -> torch.Tensor:
    """Tokens the full stream finds plausible: p_full(y) >= kappa * max p_full (Li et al. 2023's
    adaptive plausibility constraint). A contrast may re-rank these, never promote the rest."""
    if kappa <= 0:
        return torch.ones_like(lp_full, dtype=torch.bool)
    return lp_full >= lp_full.max(dim=-1, keepdim=True).values + math.log(kappa)


def _dola(lp_final, lp_layers, trust, config):
    """DoLa (Chuang et al. 2024): log p_final - log p_premature over the plausible head, natively.

    ``lp_layers`` [rows, candidates, V] are the head's distributions over the premature
    candidates (engine taps, read through the final norm as in the paper's early exit); the
    premature layer is chosen per token by maximum JS divergence. Tokens below ``dola_alpha``
    times the top final probability are ruled out (adaptive plausibility constraint). DoLa's
    repetition penalty is left out so every method shares the same sampling and stopping.
    """
    lp_premature, js = dola_premature(lp_final, lp_layers)
    head = plausible_head(lp_final, config.dola_alpha)
    scores = torch.where(head, lp_final - finite_reference(lp_final, lp_premature), torch.full_like(lp_final, -math.inf))
    zeros = torch.zeros_like(js)
    return StepFusion(torch.log_softmax(scores, dim=-1), js / math.log(2.0), zeros, zeros, lp_premature)


def knn_log_probs(
    query: torch.Tensor, stores: Sequence[Datastore], k: int, temperature: float, lp_lm: torch.Tensor
) -> torch.Tensor:
    """log p_kNN(y) per row: softmax of -||h - key||^2 / T over the k nearest keys, summed by next token.

    A row whose datastore is empty falls back to p_LM, so the interpolation is a no-op there.
    """
    out = lp_lm.clone()
    for i, store in enumerate(stores):
        if store.keys.shape[0] == 0:
            continue
        d = ((store.keys - query[i]) ** 2).sum(-1)
        near = d.topk(min(k, d.shape[0]), largest=False)
        weights = torch.softmax(-near.values / temperature, dim=-1)
        p = torch.zeros_like(lp_lm[i]).index_add(0, store.values[near.indices], weights)
        out[i] = p.log()
    return out


def _knnlm(lp_lm, lp_knn, trust, config):
    """kNN-LM (Khandelwal et al. 2020): p = (1 - lambda) p_LM + lambda p_kNN, datastore from the
    retrieved passages of each example (keys: final hidden states, after the final norm)."""
    lam = torch.full((lp_lm.shape[0],), config.knn_lambda, device=lp_lm.device)
    return StepFusion(arithmetic_fusion(lp_lm, lp_knn, lam), None, lam, lam)


RET: tuple[Reference, ...] = ("retrieval",)
QUERY: tuple[Reference, ...] = ("query",)
BOTH: tuple[Reference, ...] = ("retrieval", "query")

def _pmi(adaptive: bool = True, evidence: bool = True, question: bool = True, head: bool = True, gated: bool = False,
         anchored: bool = False, copying: bool = False):
    """Grounded PMI decoding (ours, beyond the paper); the flags build its ablations.

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

    ``copying`` (``grounded_pmi_words``): the gate judges whole words. A token that finishes a word the
    answer is copying from a document (``words``: a digit after a digit, "alu" after "Subbar") needs no
    question support. Inside a copied word both streams read its first pieces, so PMI(y; x | D) is ~0 for
    the rest, and the gate withheld the evidence exactly there: "43" in a NQ-Swap passage became "4", and
    after "1" of the passage's "1881" the passage's "8" (PMI(y; D | x) = +2.6) was gated out (PMI(y; x | D) =
    +0.8). The engine also keeps the end rule from cutting a word the fused step is finishing. Only words:
    letting every continuation of a copied span through (tried first) ran answers on ("Stephen Curry ( born
    Keith Furman , ...": validation EM 23 -> 20, +1.3 tokens per answer). With ``finishes_words`` the engine also
    drops the tokens that would break off a word the answer stopped inside ("2" of a passage's "27": the fused step
    ended the turn there; :func:`~grounded_rag.spans.finish_words`).

    A gated rule also takes ``trusted`` ([rows] bool): a row whose documents are all the caller's own decodes with
    :func:`_trusted` instead (the gate exists to distrust what the documents dictate; there is nothing to distrust).
    """

    def fuse(lp_full, lp_refs, trust, config, doc_tokens=None, words=None, trusted=None):
        lp_ret, lp_q = lp_refs[:, 0], lp_refs[:, 1]
        c_q, c_r = conflict(lp_full, lp_q), conflict(lp_full, lp_ret)
        ones = torch.ones_like(c_q)
        a = config.pmi_alpha * trust * (c_q if adaptive else ones) if evidence else 0.0 * ones
        b = config.pmi_beta * (c_r if adaptive else ones) if question else 0.0 * ones
        evidence_term = _weighted_diff(a, lp_full, lp_q)
        if gated:  # the question must support the token; a reference's -inf counts as support
            supported = _pmi_x(lp_full, lp_ret) > config.pmi_gate
            if copying:
                if words is None:
                    raise ValueError("a copying method needs each row's copied-word continuations (the engine's "
                                     "word_masks over its copies)")
                supported = supported | words
            evidence_term = torch.where(supported, evidence_term, torch.zeros_like(evidence_term))
        if anchored:  # a boost only for the documents' own tokens; a penalty for any token
            evidence_term = anchor(evidence_term, doc_tokens)
        scores = lp_full + evidence_term + _weighted_diff(b, lp_full, lp_ret)
        kappa = config.plausibility if head else 0.0
        keep = plausible_head(lp_full, kappa) & torch.isfinite(lp_full)
        log_q = torch.log_softmax(scores.masked_fill(~keep, -math.inf), dim=-1)
        if kappa == 0:  # zero weights are standard decoding bit for bit, not up to re-normalization
            log_q = torch.where(((a == 0) & (b == 0)).unsqueeze(-1), lp_full, log_q)
        fused = StepFusion(log_q, c_q, a, b, lp_q)
        if gated and trusted is not None:
            fused = _trusted(fused, lp_full, lp_q, config, trusted, doc_tokens if anchored else None)
        return fused

    return fuse


def _trusted(fused: StepFusion, lp_full: torch.Tensor, lp_q: torch.Tensor, config, trusted: torch.Tensor,
             doc_tokens: torch.Tensor | None) -> StepFusion:
    """``fused`` where a row's documents are retrieved; where the caller wrote all of them (``trusted``), CAD's
    contrast at a fixed ``trusted_beta``, anchored like the rule it replaces:

        log q(y) ∝ log p_full(y) + trusted_beta [log p_full(y) - log p_q(y)]   (the boost only for document tokens)

    The question gate, the question term and the JS-scaled weight exist to distrust what documents dictate (an
    instruction planted in a retrieved passage is followed just as well without the question: §5); a caller's own
    instruction ("Write a quote that ends in the word 'heavy'") has exactly that signature, and is meant to be
    obeyed. The plausibility head goes too: a model sure of a proverb's usual ending keeps the instructed word out
    of its head. The anchor stays: it is not about trust but about associations that are not evidence (CAD's
    "Petra" for "appreciated"). MemoTrap validation, 100 rows: 62 against CAD's 61 and the guarded rule's 34."""
    evidence = _weighted_diff(torch.full_like(fused.conflict, config.trusted_beta), lp_full, lp_q)
    if doc_tokens is not None:
        evidence = anchor(evidence, doc_tokens)
    scores = (lp_full + evidence).masked_fill(~torch.isfinite(lp_full), -math.inf)
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
    return torch.where(keep, evidence_term, torch.zeros_like(evidence_term))


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


def _pmi_x(lp_full: torch.Tensor, lp_ret: torch.Tensor) -> torch.Tensor:
    """PMI(y; x | D) = log p_full - log p_ret; +inf where the reference rules the token out."""
    return torch.where(torch.isfinite(lp_ret), lp_full - lp_ret, torch.full_like(lp_full, math.inf))


def _weighted_diff(weight: torch.Tensor, lp_full: torch.Tensor, lp_ref: torch.Tensor) -> torch.Tensor:
    """weight * (log p_full - log p_ref) per row; 0 where the weight is 0 or the reference rules the
    token out (-inf): no -inf - -inf NaNs, and no infinite boost from a reference's zero."""
    diff = torch.where(torch.isfinite(lp_ref), lp_full - lp_ref, torch.zeros_like(lp_full))
    return torch.where(weight.unsqueeze(-1) == 0, torch.zeros_like(diff), weight.unsqueeze(-1) * diff)


# The default; its ablations below are it with one part off.
WORDS = Method(
    "grounded_pmi_words",
    BOTH,
    "ours: grounded_pmi_anchored whose question gate and end rule judge whole words: the rest of a word the "
    "answer copies from a document needs no question support, and the answer does not stop inside it; a "
    "request whose documents the caller wrote all of (Document.trusted) is decoded with anchored CAD",
    _pmi(gated=True, anchored=True, copying=True),
    anchored=True,
    full_ends=True,
    copying=True,
    finishes_words=True,
    trusting=True,
)

METHODS: dict[str, Method] = {
    m.name: m
    for m in (
        Method("grounded", RET, "adaptive Grounded Decoding: rho_t = rho_max r c_t", _barycenter(schedule.adaptive)),
        Method("static", RET, "Grounded Decoding with a constant rho", _barycenter(schedule.static)),
        Method("conflict_only", RET, "ablation: r(x, D) = 1", _barycenter(schedule.conflict_only)),
        Method("trust_only", RET, "ablation: c_t = 1", _barycenter(schedule.trust_only)),
        Method("arithmetic", RET, "ablation: (1-a) p_full + a p_ret, a = adaptive eta", _arithmetic),
        Method(
            "query_only_reference",
            QUERY,
            "ablation: adaptive barycenter with the question-only stream as reference",
            _barycenter(schedule.adaptive),
        ),
        Method("standard", (), "standard RAG decoding of the full prompt", _standard),
        Method("cad", QUERY, "context-aware decoding, fixed beta", _cad),
        Method("adacad", QUERY, "AdaCAD, JSD-adaptive beta", _adacad),
        Method("coiecd", QUERY, "COIECD, contextual information-entropy constraint", _coiecd),
        Method("cocoa", QUERY, "CoCoA, Renyi conflict with entropy-gap and peakedness confidence", _cocoa),
        Method("dola", (), "DoLa, contrast with a dynamically chosen premature layer", _dola, "early_layers"),
        Method("knnlm", (), "kNN-LM over a datastore of the retrieved passages", _knnlm, "datastore"),
        Method("grounded_pmi", BOTH, "ours: evidence and question PMI contrasts over the plausible head", _pmi()),
        Method(
            "grounded_pmi_gated",
            BOTH,
            "ours: grounded_pmi whose evidence boost needs the question's support (resists instructions in documents)",
            _pmi(gated=True),
            trusting=True,
        ),
        Method(
            "grounded_pmi_anchored",
            BOTH,
            "ours: grounded_pmi_gated whose evidence may raise only the documents' own tokens (no spurious boosts); "
            "the full stream decides where the answer ends",
            _pmi(gated=True, anchored=True),
            anchored=True,
            full_ends=True,
            trusting=True,
        ),
        WORDS,
        replace(WORDS, name="pmi_words_cut", finishes_words=False,
                description="ablation of grounded_pmi_words: the answer may end or break off inside a word it copies"),
        replace(WORDS, name="pmi_words_untrusting", trusting=False,
                description="ablation of grounded_pmi_words: every document is read as retrieved text "
                "(Document.trusted ignored)"),
        Method(
            "pmi_anchored_fused_ends",
            BOTH,
            "ablation of grounded_pmi_anchored: the fused step also decides where the answer ends",
            _pmi(gated=True, anchored=True),
            anchored=True,
            trusting=True,
        ),
        Method(
            "pmi_anchored_ungated",
            BOTH,
            "ablation of grounded_pmi_anchored: no question gate (grounded_pmi with the anchor)",
            _pmi(anchored=True),
            anchored=True,
        ),
        Method("pmi_static", BOTH, "ablation of grounded_pmi: constant weights (no JS gating)", _pmi(adaptive=False)),
        Method("pmi_evidence_only", BOTH, "ablation of grounded_pmi: no question term (b_t = 0)", _pmi(question=False)),
        Method("pmi_question_only", BOTH, "ablation of grounded_pmi: no evidence term (a_t = 0)", _pmi(evidence=False)),
        Method("pmi_no_head", BOTH, "ablation of grounded_pmi: no plausibility head", _pmi(head=False)),
    )
}


def get_method(name: str) -> Method:
    try:
        return METHODS[name]
    except KeyError:
        raise ValueError(f"unknown method {name!r}; choose one of {', '.join(METHODS)}") from None
