"""The published baselines on the menu, each one fuse rule over the full stream and its reference: CAD, AdaCAD,
COIECD, CoCoA (the question-only stream), DoLa (a premature layer) and kNN-LM (a datastore of the passages)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch

from .fusion import (arithmetic_fusion, conflict, entropy, finite_reference, geometric_fusion, js_divergence,
                     log_linear, plausible_head, renyi_divergence)
from .steps import StepFusion, StepInputs
from .taps import Datastore


def contrast(beta: torch.Tensor, lp_full: torch.Tensor, lp_ref: torch.Tensor, c: torch.Tensor) -> StepFusion:
    # (1 + beta) log p_full - beta log p_query, renormalized: the barycenter formula with eta = -beta.
    return StepFusion(geometric_fusion(lp_full, finite_reference(lp_full, lp_ref), -beta), c, beta, -beta)


def cad(x: StepInputs) -> StepFusion:
    """CAD (Shi et al. 2024): contrast with the question-only stream at a fixed beta."""
    c = conflict(x.lp_full, x.lp_ref)
    return contrast(torch.full_like(c, x.config.beta), x.lp_full, x.lp_ref, c)


def adacad(x: StepInputs) -> StepFusion:
    """AdaCAD (Wang et al. 2025): CAD with beta_t = JSD(p_full, p_query) (base-2, in [0, 1])."""
    c = conflict(x.lp_full, x.lp_ref)
    return contrast(c, x.lp_full, x.lp_ref, c)


def coiecd(x: StepInputs) -> StepFusion:
    """COIECD (Yuan et al. 2024): a token-wise switch by the contextual information-entropy constraint.

    A token is *consistent* (no knowledge conflict) when its contextual information
    -log p(y|x,D) lies within ``coiecd_epsilon`` nats of the parametric entropy H(p(.|x)), the
    locally typical zone of the stable-entropy hypothesis. Consistent tokens are scored
    log p(y|x) + alpha (log p(y|x,D) - log p(y|x)); conflicting ones log p(y|x,D) + alpha (...),
    the CAD contrast. We follow the paper's constraint with the entropy term: the public code
    log-softmaxes the shifted scores over the vocabulary, where the per-row entropy cancels.
    The trace's ``conflict`` is the mass of p_full outside the typical zone.
    """
    lp_full, lp_ref, config = x.lp_full, x.lp_ref, x.config
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


def cocoa(x: StepInputs) -> StepFusion:
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
    lp_full, lp_ref, config = x.lp_full, x.lp_ref, x.config
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


def dola(x: StepInputs) -> StepFusion:
    """DoLa (Chuang et al. 2024): log p_final - log p_premature over the plausible head, natively.

    ``lp_layers`` [rows, candidates, V] are the head's distributions over the premature
    candidates (engine taps, read through the final norm as in the paper's early exit); the
    premature layer is chosen per token by maximum JS divergence. Tokens below ``dola_alpha``
    times the top final probability are ruled out (adaptive plausibility constraint). DoLa's
    repetition penalty is left out so every method shares the same sampling and stopping.
    """
    lp_final = x.lp_full
    lp_premature, js = dola_premature(lp_final, x.lp_ref)
    head = plausible_head(lp_final, x.config.dola_alpha)
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


def knnlm(x: StepInputs) -> StepFusion:
    """kNN-LM (Khandelwal et al. 2020): p = (1 - lambda) p_LM + lambda p_kNN, datastore from the
    retrieved passages of each example (keys: final hidden states, after the final norm)."""
    lam = torch.full((x.lp_full.shape[0],), x.config.knn_lambda, device=x.lp_full.device)
    return StepFusion(arithmetic_fusion(x.lp_full, x.lp_ref, lam), None, lam, lam)
