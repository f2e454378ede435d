"""The method registry: which reference stream each method needs and how it fuses one step.

Every method sees the same prompts, sampling and stopping; only this step differs. A step
takes float32 log-probabilities ``[rows, vocab]`` of the full stream and (if any) the reference
stream, plus the per-row trust, and returns the fused log-distribution with the signals the
trace records.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch

from . import schedule
from .config import DecodingConfig
from .fusion import arithmetic_fusion, conflict, eta_from_rho, geometric_fusion
from .prompts import Reference


@dataclass(frozen=True)
class StepFusion:
    log_q: torch.Tensor
    conflict: torch.Tensor | None
    rho: torch.Tensor
    eta: torch.Tensor


Schedule = Callable[[float, torch.Tensor, torch.Tensor], torch.Tensor]


@dataclass(frozen=True)
class Method:
    """A decoding method: its reference stream and its one-step fusion rule."""

    name: str
    reference: Reference
    description: str
    fuse: Callable[[torch.Tensor, torch.Tensor | None, torch.Tensor, DecodingConfig], StepFusion]

    @property
    def streams(self) -> int:
        return 1 if self.reference == "none" else 2


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


def _contrast(beta: torch.Tensor, lp_full: torch.Tensor, lp_ref: torch.Tensor, c: torch.Tensor) -> StepFusion:
    # (1 + beta) log p_full - beta log p_query, renormalized: the barycenter formula with eta = -beta.
    return StepFusion(geometric_fusion(lp_full, lp_ref, -beta), c, beta, -beta)


def _cad(lp_full, lp_ref, trust, config):
    """CAD (Shi et al. 2024): contrast with the question-only stream at a fixed beta."""
    c = conflict(lp_full, lp_ref)
    return _contrast(torch.full_like(c, config.beta), lp_full, lp_ref, c)


def _adacad(lp_full, lp_ref, trust, config):
    """AdaCAD (Wang et al. 2025): CAD with beta_t = JSD(p_full, p_query) (base-2, in [0, 1])."""
    c = conflict(lp_full, lp_ref)
    return _contrast(c, lp_full, lp_ref, c)


METHODS: dict[str, Method] = {
    m.name: m
    for m in (
        Method("grounded", "retrieval", "adaptive Grounded Decoding: rho_t = rho_max r c_t", _barycenter(schedule.adaptive)),
        Method("static", "retrieval", "Grounded Decoding with a constant rho", _barycenter(schedule.static)),
        Method("conflict_only", "retrieval", "ablation: r(x, D) = 1", _barycenter(schedule.conflict_only)),
        Method("trust_only", "retrieval", "ablation: c_t = 1", _barycenter(schedule.trust_only)),
        Method("arithmetic", "retrieval", "ablation: (1-a) p_full + a p_ret, a = adaptive eta", _arithmetic),
        Method(
            "query_only_reference",
            "query",
            "ablation: adaptive barycenter with the question-only stream as reference",
            _barycenter(schedule.adaptive),
        ),
        Method("standard", "none", "standard RAG decoding of the full prompt", _standard),
        Method("cad", "query", "context-aware decoding, fixed beta", _cad),
        Method("adacad", "query", "AdaCAD, JSD-adaptive beta", _adacad),
    )
}


def get_method(name: str) -> Method:
    try:
        return METHODS[name]
    except KeyError:
        raise ValueError(f"unknown method {name!r}; choose one of {', '.join(METHODS)}") from None
