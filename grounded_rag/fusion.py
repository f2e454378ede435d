"""The KL-barycenter fusion (paper Thm. 1) and the conflict signal, in float32 log space.

Every function takes log-probabilities of shape ``[rows, vocab]`` and per-row weights of shape
``[rows]``; ``-inf`` entries (tokens a stream rules out) are handled without NaNs.
"""

from __future__ import annotations

import math

import torch

LOG2 = math.log(2.0)


def log_probs(logits: torch.Tensor) -> torch.Tensor:
    """log_softmax in float32, whatever dtype the model ran in (paper App. B)."""
    return torch.log_softmax(logits.float(), dim=-1)


def eta_from_rho(rho: torch.Tensor) -> torch.Tensor:
    """eta = rho / (1 + rho), with rho = inf giving eta = 1 exactly."""
    return torch.where(torch.isinf(rho), torch.ones_like(rho), rho / (1.0 + rho))


def finite(x: torch.Tensor) -> torch.Tensor:
    """``torch.isfinite(x)`` for a float tensor, in two passes over it where isfinite takes four (NaN, +inf and -inf
    all compare False): the fused step masks several vocabulary-wide tensors every token."""
    return x.abs() < math.inf


def _weighted(weight: torch.Tensor, logp: torch.Tensor) -> torch.Tensor:
    # weight * logp, but 0 * -inf = 0: a stream with zero weight must not veto any token.
    return torch.where(weight == 0, 0.0, weight * logp)


def log_linear(logp_full: torch.Tensor, logp_ref: torch.Tensor, eta: torch.Tensor) -> torch.Tensor:
    """(1-eta) log p_full + eta log p_ref per row, unnormalized; a zero weight never lets -inf through."""
    eta = eta.float().unsqueeze(-1)
    return _weighted(1.0 - eta, logp_full) + _weighted(eta, logp_ref)


def geometric_fusion(logp_full: torch.Tensor, logp_ref: torch.Tensor, eta: torch.Tensor) -> torch.Tensor:
    """log q = (1-eta) log p_full + eta log p_ref - logsumexp(...): the closed-form barycenter."""
    unnormalized = log_linear(logp_full, logp_ref, eta)
    eta = eta.float().unsqueeze(-1)
    fused = unnormalized - torch.logsumexp(unnormalized, dim=-1, keepdim=True)
    # At eta = 0 (or 1) the normalizer is exactly 0: return the stream itself, bit for bit, so rho = 0
    # reproduces standard decoding exactly rather than up to fp32 re-normalization error.
    fused = torch.where(eta == 0, logp_full, fused)
    return torch.where(eta == 1, logp_ref, fused)


def arithmetic_fusion(logp_full: torch.Tensor, logp_ref: torch.Tensor, alpha: torch.Tensor) -> torch.Tensor:
    """log((1-alpha) p_full + alpha p_ref): the paper's arithmetic-mixture ablation."""
    alpha = alpha.float().unsqueeze(-1)
    return torch.logaddexp(torch.log1p(-alpha) + logp_full, torch.log(alpha) + logp_ref)


def _kl_to_mixture(logp: torch.Tensor, log_m: torch.Tensor, p: torch.Tensor | None = None) -> torch.Tensor:
    p = logp.exp() if p is None else p
    return torch.where(p > 0, p * (logp - log_m), 0.0).sum(dim=-1)


def js_divergence(logp: torch.Tensor, logq: torch.Tensor, p: torch.Tensor | None = None) -> torch.Tensor:
    """Jensen-Shannon divergence in nats, per row; bounded by log 2. ``p``: ``logp.exp()`` where the caller has it
    (one full stream against several references)."""
    log_m = torch.logaddexp(logp, logq) - LOG2
    js = 0.5 * _kl_to_mixture(logp, log_m, p) + 0.5 * _kl_to_mixture(logq, log_m)
    return js.clamp(min=0.0, max=LOG2)


def conflict(logp_full: torch.Tensor, logp_ref: torch.Tensor, p_full: torch.Tensor | None = None) -> torch.Tensor:
    """c_t = JS(p_full, p_ret) / log 2, in [0, 1]; ``p_full``: ``logp_full.exp()``, where already computed."""
    return js_divergence(logp_full, logp_ref, p_full) / LOG2


def kl_barycenter_objective(q: torch.Tensor, p_full: torch.Tensor, p_ref: torch.Tensor, rho: float) -> torch.Tensor:
    """KL(q||p_full) + rho KL(q||p_ref): the objective the closed form minimizes (for checks)."""
    logq = torch.log(q)
    return (q * (logq - torch.log(p_full))).sum(-1) + rho * (q * (logq - torch.log(p_ref))).sum(-1)


def finite_reference(lp_full: torch.Tensor, lp_ref: torch.Tensor) -> torch.Tensor:
    """``lp_ref`` for a contrast: where the reference rules a token out (-inf) it takes the full
    stream's value (no contrast, as in ``methods._weighted``), so subtracting it can never give +inf or
    -inf - -inf = NaN. Finite inputs pass through bit for bit (and no host sync: GPU-graph safe)."""
    return torch.where(finite(lp_ref), lp_ref, torch.where(finite(lp_full), lp_full, 0.0))


def entropy(logp: torch.Tensor) -> torch.Tensor:
    """Shannon entropy in nats per row (0 log 0 = 0)."""
    return torch.special.entr(logp.exp()).sum(dim=-1)


def renyi_divergence(logp: torch.Tensor, logq: torch.Tensor, alpha: float) -> torch.Tensor:
    """D_alpha(p || q) = log sum p^alpha q^(1-alpha) / (alpha - 1), in nats, for 0 < alpha < 1."""
    return (torch.logsumexp(alpha * logp + (1 - alpha) * logq, dim=-1) / (alpha - 1)).clamp(min=0.0)


def plausible_head(lp_full: torch.Tensor, kappa: float) -> torch.Tensor:
    """Tokens the full stream finds plausible: p_full(y) >= kappa * max p_full (Li et al. 2023's
    adaptive plausibility constraint). A contrast may re-rank these, never promote the rest."""
    if kappa <= 0:
        return torch.ones_like(lp_full, dtype=torch.bool)
    return lp_full >= lp_full.max(dim=-1, keepdim=True).values + math.log(kappa)
