"""Grounding-weight schedules rho_t (paper Eq. 6) and their ablations."""

from __future__ import annotations

import torch


def _scaled(rho_max: float, factor: torch.Tensor) -> torch.Tensor:
    # rho_max * factor, with inf * 0 = 0: where the streams agree there is nothing to ground.
    if rho_max == float("inf"):
        return torch.where(factor > 0, torch.full_like(factor, float("inf")), torch.zeros_like(factor))
    return rho_max * factor


def adaptive(rho_max: float, trust: torch.Tensor, conflict: torch.Tensor) -> torch.Tensor:
    """rho_t = rho_max * r(x, D) * c_t."""
    return _scaled(rho_max, trust * conflict)


def static(rho_max: float, trust: torch.Tensor, conflict: torch.Tensor) -> torch.Tensor:
    """rho_t = rho: the fixed-weight variant."""
    return torch.full_like(conflict, rho_max)


def conflict_only(rho_max: float, trust: torch.Tensor, conflict: torch.Tensor) -> torch.Tensor:
    """rho_t = rho_max * c_t: trust fixed to 1."""
    return _scaled(rho_max, conflict)


def trust_only(rho_max: float, trust: torch.Tensor, conflict: torch.Tensor) -> torch.Tensor:
    """rho_t = rho_max * r(x, D): conflict fixed to 1."""
    return _scaled(rho_max, trust.expand_as(conflict).clone())

