"""Sampling after fusion: temperature, top-k, top-p, min-p, then greedy or a seeded draw.

The transforms are transformers' own logits warpers, composed in the order transformers uses,
so a user's sampling settings mean the same thing here as in ``model.generate``.
"""

from __future__ import annotations

import torch
from transformers.generation.logits_process import (
    LogitsProcessorList,
    MinPLogitsWarper,
    TemperatureLogitsWarper,
    TopKLogitsWarper,
    TopPLogitsWarper,
)

from .config import DecodingConfig


def build_warpers(config: DecodingConfig) -> LogitsProcessorList:
    warpers = LogitsProcessorList()
    if config.greedy:
        return warpers
    if config.temperature != 1.0:
        warpers.append(TemperatureLogitsWarper(config.temperature))
    if config.top_k > 0:
        warpers.append(TopKLogitsWarper(top_k=config.top_k, min_tokens_to_keep=1))
    if config.top_p < 1.0:
        warpers.append(TopPLogitsWarper(top_p=config.top_p, min_tokens_to_keep=1))
    if config.min_p > 0:
        warpers.append(MinPLogitsWarper(min_p=config.min_p, min_tokens_to_keep=1))
    return warpers


def make_generators(config: DecodingConfig, rows: int, device: torch.device) -> list[torch.Generator] | None:
    """One generator per question, all seeded alike, so batched sampling equals one-by-one sampling."""
    if config.greedy:
        return None
    generators = []
    for _ in range(rows):
        g = torch.Generator(device=device)
        if config.seed is None:
            g.seed()
        else:
            g.manual_seed(config.seed)
        generators.append(g)
    return generators


def sample(
    log_q: torch.Tensor,
    warpers: LogitsProcessorList,
    generators: list[torch.Generator] | None,
) -> torch.Tensor:
    """Pick one token per row from the fused log-distribution ``[rows, vocab]``."""
    if generators is None:
        return log_q.argmax(dim=-1)
    scores = warpers(None, log_q.clone())  # the warpers never read input_ids
    probs = torch.softmax(scores, dim=-1)
    picks = [torch.multinomial(probs[i], 1, generator=g) for i, g in enumerate(generators)]
    return torch.cat(picks)
