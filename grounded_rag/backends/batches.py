"""Prompts as one llama.cpp batch: a prefix tree whose tokens each belong to every sequence that shares them.

llama.cpp lets one batch token carry several sequence ids: its keys and values are computed once and every one of
those sequences attends to them. So a batch's prompts (every stream of every question) go in as a prefix tree: the
system turn all of them start with once, a question's documents once for the streams that read them, each stream's
own tail alone. Built with numpy (a server's batch holds tens of thousands of prompt tokens) and free of llama_cpp,
so it is tested on its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass
class Entries:
    """Batch tokens in submission order: token, position, the sequences it belongs to (``seq_ids[offsets[i]:
    offsets[i+1]]``) and whether llama.cpp returns its logits."""

    tokens: np.ndarray  # [n] int32
    positions: np.ndarray  # [n] int32
    offsets: np.ndarray  # [n + 1] int64, into seq_ids
    seq_ids: np.ndarray  # int32
    outputs: np.ndarray  # [n] int8

    def __len__(self) -> int:
        return int(self.tokens.shape[0])

    def seqs(self, i: int) -> list[int]:
        return self.seq_ids[self.offsets[i]:self.offsets[i + 1]].tolist()


def one_each(tokens: Sequence[int], positions: Sequence[int], seqs: Sequence[int]) -> Entries:
    """A decode step: one token per sequence, each with its logits."""
    n = len(tokens)
    return Entries(np.asarray(tokens, dtype=np.int32), np.asarray(positions, dtype=np.int32),
                   np.arange(n + 1, dtype=np.int64), np.asarray(seqs, dtype=np.int32), np.ones(n, dtype=np.int8))


def _common(a: Sequence[int], b: Sequence[int]) -> int:
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n


def prefix_tree(prompts: Sequence[Sequence[int]], seqs: Sequence[int],
                wanted: Sequence[Sequence[int]]) -> tuple[Entries, list[np.ndarray]]:
    """The prompts as one batch (:class:`Entries`), each shared prefix once, and for each prompt the entry indices
    of the positions in ``wanted`` (whose logits are returned).

    Prompts are sorted, so each one's tokens past its common prefix with the one before are new; a new token
    belongs to its prompt and to the following prompts that share it. Entries go prompt after prompt: every
    sequence's tokens come in order of position, and two sequences are never given a token together after one of
    them has had a token alone (what llama.cpp's batch checks require)."""
    order = sorted(range(len(prompts)), key=lambda i: list(prompts[i]))
    ranked = [prompts[i] for i in order]
    lcp = [0] + [_common(ranked[k - 1], ranked[k]) for k in range(1, len(ranked))]
    parts_tok, parts_pos, parts_count, parts_seq, starts = [], [], [], [], []
    start = 0
    for k, prompt in enumerate(ranked):
        lo, hi = lcp[k], len(prompt)
        starts.append(start)
        if hi <= lo:
            continue
        parts_tok.append(np.asarray(prompt[lo:hi], dtype=np.int32))
        parts_pos.append(np.arange(lo, hi, dtype=np.int32))
        counts = np.ones(hi - lo, dtype=np.int64)  # members of each new token: this prompt, then followers
        members = [seqs[order[k]]]
        reach = hi
        for j in range(k + 1, len(ranked)):
            reach = min(reach, lcp[j])
            if reach <= lo:
                break
            counts[: reach - lo] += 1
            members.append(seqs[order[j]])
        members_arr = np.asarray(members, dtype=np.int32)
        parts_seq.append(np.concatenate([members_arr[:c] for c in counts.tolist()]) if len(members) > 1
                         else np.repeat(members_arr, hi - lo))
        parts_count.append(counts)
        start += hi - lo
    tokens = np.concatenate(parts_tok) if parts_tok else np.zeros(0, dtype=np.int32)
    counts = np.concatenate(parts_count) if parts_count else np.zeros(0, dtype=np.int64)
    entries = Entries(tokens, np.concatenate(parts_pos) if parts_pos else np.zeros(0, dtype=np.int32),
                      np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),
                      np.concatenate(parts_seq) if parts_seq else np.zeros(0, dtype=np.int32),
                      np.zeros(len(tokens), dtype=np.int8))
    rank = {i: k for k, i in enumerate(order)}
    found = [np.asarray([_owner(rank[i], p, lcp, starts) for p in wanted[i]], dtype=np.int64)
             for i in range(len(prompts))]
    for index in found:
        entries.outputs[index] = 1
    return entries, found


def _owner(k: int, position: int, lcp: Sequence[int], starts: Sequence[int]) -> int:
    """The entry of sorted prompt ``k``'s token at ``position``: made by the first earlier prompt sharing it."""
    while lcp[k] > position:
        k -= 1
    return starts[k] + position - lcp[k]


def chunks(entries: Entries, tokens: int, outputs: int) -> list[tuple[int, int]]:
    """[lo, hi) ranges of at most ``tokens`` entries and ``outputs`` returned logits each (one llama_decode call
    apiece: llama.cpp takes at most n_batch tokens a call, and keeps every returned row's logits at once)."""
    out, lo = [], 0
    flags = entries.outputs.astype(np.int64)
    n = len(entries)
    while lo < n:
        hi = min(n, lo + tokens)
        returned = np.cumsum(flags[lo:hi])
        if returned.size and returned[-1] > outputs:
            hi = lo + int(np.searchsorted(returned, outputs, side="right"))
        out.append((lo, hi))
        lo = hi
    return out
