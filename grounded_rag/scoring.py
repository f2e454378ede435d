"""Scoring with the LM: log-probabilities of given continuations (the relevance filter, attribution, MemoTrap's
log-likelihood), packed like a prefill."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

import torch

from .backend_choice import engine_on_llama, on_llama
from .prefill import pack_runs, prefill

if TYPE_CHECKING:  # transformers' modeling (2 s, 120 MB to import) is not needed on llama.cpp
    from transformers import PreTrainedModel


@torch.inference_mode()
def continuation_log_probs(
    model: PreTrainedModel, pairs: Sequence[tuple[Sequence[int], Sequence[int]]], pad_id: int,
    ragged: bool | None = None,
) -> list[torch.Tensor]:
    """log p(continuation_j | prefix, continuation_<j) for every (prefix, continuation) pair: one [len(continuation)]
    tensor per pair.

    On a CPU the rows go in packs of similar lengths (:func:`pack_runs`: one prefill per pack, so long
    rows add no padding and short ones share a pass), elsewhere in one left-padded batch; the head all
    rows of a pack share (a scoring template's system turn) runs once, and only the continuations'
    positions go through the LM head."""
    if on_llama(model):  # llama.cpp scores its own prefix tree (grounded_rag.backends)
        return engine_on_llama().continuation_log_probs(model, pairs)
    ragged = model.device.type == "cpu" if ragged is None else ragged
    rows = [list(p) + list(c) for p, c in pairs]
    out: list[torch.Tensor | None] = [None] * len(rows)
    if ragged:  # each row a run of one prompt
        packs = [[i for (i,), _ in pack] for pack in pack_runs([([i], [row]) for i, row in enumerate(rows)])]
    else:
        packs = [sorted(range(len(rows)), key=lambda i: len(rows[i]))]
    mb_per_position = model.get_output_embeddings().weight.shape[0] * 4 / 2**20
    for pack in (chunk for p in packs for chunk in _bounded(p, rows, pairs, mb_per_position)):
        n = max(len(pairs[i][1]) for i in pack)
        logits, _ = prefill(model, [rows[i] for i in pack], 1, pad_id, use_cache=len(pack) > 1, reserve=0,
                            ragged=False, keep=n + 1)
        logits = logits.view(len(pack), n + 1, -1)[:, :-1]
        for j, i in enumerate(pack):  # rows are left-padded: each continuation ends at the last position
            target = torch.tensor(list(pairs[i][1]), dtype=torch.long, device=model.device)
            row = logits[j, n - len(target) :].float()
            out[i] = row.gather(-1, target.unsqueeze(-1))[:, 0] - torch.logsumexp(row, dim=-1)
    return out  # type: ignore[return-value]


PACK_TOKENS = 16384  # most tokens in one scoring pass (rows x width)
PACK_LOGITS_MB = 512  # most fp32 logits one scoring pass keeps (rows x kept positions x vocabulary)


def _bounded(pack: list[int], rows: Sequence[Sequence[int]], pairs, mb_per_position: float) -> Iterator[list[int]]:
    """A pack cut into passes of at most ``PACK_TOKENS`` tokens and ``PACK_LOGITS_MB`` of logits: a server
    batch may bring thousands of passages, and a 262k vocabulary makes each kept position's logits 1 MB."""
    chunk: list[int] = []
    width = kept = 0  # the chunk's longest row and longest continuation
    for i in pack:
        grown_width, grown_kept = max(width, len(rows[i])), max(kept, len(pairs[i][1]))
        too_big = (len(chunk) + 1) * grown_width > PACK_TOKENS
        too_big = too_big or (len(chunk) + 1) * (grown_kept + 1) * mb_per_position > PACK_LOGITS_MB
        if chunk and too_big:
            yield chunk
            chunk, width, kept = [i], len(rows[i]), len(pairs[i][1])
        else:
            chunk.append(i)
            width, kept = grown_width, grown_kept
    if chunk:
        yield chunk
