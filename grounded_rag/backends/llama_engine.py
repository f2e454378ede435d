"""The engine's decode and scoring passes on llama.cpp (:class:`~grounded_rag.backends.llama_cpp.LlamaCppLM`).

Each step's logits come from llama.cpp: every live stream of every question in one batch, each prompt's shared
prefix prefilled once (:func:`~grounded_rag.backends.batches.prefix_tree`). Everything after the logits is the torch
engine's own code on CPU tensors: the method's fusion and post-fusion steps in fp32 log space, sampling, the
per-question state (:class:`~grounded_rag.rows.Rows`). Finished questions' sequences leave the KV cache.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import ExitStack
from dataclasses import fields, replace

import numpy as np
import torch

from ..backend_choice import register_engine, require_torch
from ..config import DecodingConfig
from ..engine import Step, _still_decoding, fuse_step, pick, step_masks
from ..errors import ContextWindowError
from ..methods import Method
from ..rows import RowInputs, Rows
from ..sampling import build_warpers
from .batches import Entries, prefix_tree
from .llama_cpp import LlamaCppLM, ll

SCORING_CELLS = 16384  # most prompt tokens one scoring context holds (a server batch may bring thousands of pairs)
CPU_CONTEXTS = 16  # most contexts (questions) a decode holds at once on the CPU; a larger batch decodes in parts


def _check(lm: LlamaCppLM, method: Method, prompts: Sequence[Sequence[int]], new_tokens: int) -> None:
    if method.signal != "none":
        require_torch(lm, method.name)
    longest = max((len(p) for p in prompts), default=0)
    if longest + new_tokens > lm.context_length:
        raise ContextWindowError(f"a prompt of {longest} tokens plus {new_tokens} new tokens is longer than the "
                                 f"context window of {lm.path} ({lm.context_length} tokens); shorten the documents or "
                                 "lower max_new_tokens")
    if any(not p for p in prompts):
        raise ValueError("every stream's prompt needs at least one token")


def _max_questions(lm: LlamaCppLM, streams: int) -> int:
    """Questions one part of a decode holds: on a GPU, as many as one context takes (llama.cpp's 256 sequences over
    the streams); on the CPU, where each question has a context of its own, ``CPU_CONTEXTS``."""
    most = max(1, ll.llama_max_parallel_sequences() // streams)
    return most if lm.gpu_layers else min(most, CPU_CONTEXTS)


def _part(inputs: RowInputs, lo: int, hi: int) -> RowInputs:
    """The questions [lo, hi) of ``inputs``."""
    def cut(value):
        return None if value is None else list(value)[lo:hi]

    return RowInputs(**{f.name: cut(getattr(inputs, f.name)) for f in fields(RowInputs)})


def decode(lm: LlamaCppLM, method: Method, prompts: Sequence[Sequence[int]], inputs: RowInputs,
           config: DecodingConfig, pad_id: int, finished: Callable[[], Sequence[bool]] | None = None,
           end_ids: Collection[int] | None = None, **_torch_only: object) -> Iterator[Step]:
    """:func:`grounded_rag.engine.decode` on llama.cpp (its torch-only switches, such as ``graphs`` or ``tree``,
    have nothing to switch here). A batch of more questions than one part holds (:func:`_max_questions`) decodes
    them in turn, each part's steps naming the batch's questions."""
    streams = method.streams
    _check(lm, method, prompts, config.max_new_tokens)
    questions = len(prompts) // streams
    per = _max_questions(lm, streams)
    for lo in range(0, questions, per):
        hi = min(questions, lo + per)
        done = None if finished is None else (lambda lo=lo, hi=hi: list(finished())[lo:hi])
        yield from _decode_part(lm, method, prompts[lo * streams: hi * streams], _part(inputs, lo, hi), config,
                                done, end_ids, lo)


def _output_rows(entries: Entries, found: Sequence[np.ndarray]) -> torch.Tensor:
    """Each prompt's row among the returned logits (rows come in entry order, one per output entry)."""
    rank = np.cumsum(entries.outputs.astype(np.int64)) - 1
    return torch.from_numpy(np.asarray([rank[f[0]] for f in found], dtype=np.int64))


def _tree(prompts: Sequence[Sequence[int]]) -> tuple[Entries, torch.Tensor]:
    """The prompts' prefix tree, sequence i for prompt i, and each prompt's row among its returned logits."""
    entries, found = prefix_tree(prompts, list(range(len(prompts))), [[len(p) - 1] for p in prompts])
    return entries, _output_rows(entries, found)


def _prefill(ctx, prompts: Sequence[Sequence[int]]) -> torch.Tensor:
    """Each prompt's next-token logits, [prompts, V], after prefilling them all into ``ctx``."""
    entries, rows = _tree(prompts)
    return ctx.run(entries)[rows]


def questions_per_context(lm: LlamaCppLM, questions: int) -> int:
    """How many of a decode's questions share one llama.cpp context. On the CPU, one: a unified KV cache makes every
    token of a step attend over every cell of the context (llama.cpp masks the other questions' cells, it does not
    skip them), so a step of 8 questions cost 8 times a question's streams over 8 times its cells, and the prefill
    grew with the square of the batch; in contexts of their own, a question's step costs the same whatever is
    decoded beside it, and its logits are the ones it gets alone. Offloaded to a GPU, every question in one context
    (a GPU takes a large batch in the time of a small one)."""
    return questions if lm.gpu_layers else 1


class _Group:
    """Questions [lo, hi) of a decode part in one llama.cpp context: their streams' prompts prefilled as one prefix
    tree (``first``: each stream's next-token logits), then one llama_decode per step of their live streams."""

    def __init__(self, lm: LlamaCppLM, stack: ExitStack, prompts: Sequence[Sequence[int]], lo: int, hi: int,
                 streams: int, new_tokens: int) -> None:
        mine = prompts[lo * streams: hi * streams]
        entries, first = _tree(mine)
        self.lo, self.hi, self.streams = lo, hi, streams
        self.lengths = np.asarray([len(p) for p in mine], dtype=np.int32)  # a sequence's next position, less the step
        self.ctx = stack.enter_context(lm.context(len(mine), len(entries) + len(mine) * new_tokens))
        self.first = self.ctx.run(entries)[first]

    def step(self, questions: np.ndarray, tokens: np.ndarray, t: int) -> torch.Tensor | None:
        """Feed the group's live questions among ``questions`` (the part's live ones, ascending) their ``tokens``
        (one per question) at step ``t``: [their streams, V] logits, question by question; None if none is live."""
        mine = (questions >= self.lo) & (questions < self.hi)
        if not mine.any():
            return None
        seqs = ((questions[mine] - self.lo)[:, None] * self.streams + np.arange(self.streams)).ravel()
        return self.ctx.step(np.repeat(tokens[mine], self.streams), self.lengths[seqs] + t, seqs.astype(np.int32))

    def drop(self, questions: Sequence[int]) -> None:
        """Free the KV cells of the group's questions among ``questions`` (finished)."""
        mine = [q - self.lo for q in questions if self.lo <= q < self.hi]
        self.ctx.drop([q * self.streams + s for q in mine for s in range(self.streams)])


def _decode_part(lm: LlamaCppLM, method: Method, prompts: Sequence[Sequence[int]], inputs: RowInputs,
                 config: DecodingConfig, finished: Callable[[], Sequence[bool]] | None,
                 end_ids: Collection[int] | None, offset: int) -> Iterator[Step]:
    streams, new_tokens = method.streams, config.max_new_tokens
    warpers = build_warpers(config)
    questions = len(prompts) // streams
    size = questions_per_context(lm, questions)
    with ExitStack() as stack:
        groups = [_Group(lm, stack, prompts, lo, min(questions, lo + size), streams, new_tokens)
                  for lo in range(0, questions, size)]
        logits = torch.cat([g.first for g in groups]) if len(groups) > 1 else groups[0].first
        vocab, device = logits.shape[-1], logits.device
        rows = Rows.start(method, inputs, config, vocab, device)
        ends, pieces = step_masks(method, end_ids, rows.copies, vocab, device)
        picked = pick(method, logits, None, rows, config, False, ends, pieces, warpers, rows.generators)
        live = np.arange(questions)
        for t in range(new_tokens):
            tokens = picked.tokens
            rows.advance(tokens.tolist(), picked.fusion)
            yield replace(picked, questions=[offset + q for q in rows.questions])
            if t + 1 == new_tokens:
                break
            keep = _still_decoding(rows, finished)
            if not keep:
                break
            if len(keep) < len(rows.questions):
                gone = [q for j, q in enumerate(rows.questions) if j not in set(keep)]
                for group in groups:
                    group.drop(gone)
                rows.select(keep)
                tokens = tokens[keep]
                live = np.asarray(rows.questions)
            parts = [g.step(live, tokens.numpy(), t) for g in groups]
            logits = torch.cat([x for x in parts if x is not None]) if len(groups) > 1 else parts[0]
            picked = pick(method, logits, None, rows, config, True, ends, pieces, warpers, rows.generators)


def score_continuation(lm: LlamaCppLM, method: Method, prompts: Sequence[Sequence[int]], inputs: RowInputs,
                       config: DecodingConfig, pad_id: int, continuation: Sequence[int],
                       end_ids: Collection[int] | None = None) -> float:
    """:func:`grounded_rag.engine.score_continuation` on llama.cpp: the method's log q summed over forced tokens."""
    _check(lm, method, prompts, len(continuation))
    total = 0.0
    streams = len(prompts)
    entries, first = _tree(prompts)
    with lm.context(streams, len(entries) + streams * len(continuation)) as ctx:
        logits = ctx.run(entries)[first]
        rows = Rows.start(method, inputs, config, logits.shape[-1], logits.device)
        ends, pieces = step_masks(method, end_ids, rows.copies, logits.shape[-1], logits.device)
        for j, token in enumerate(continuation):
            _, _, fused = fuse_step(method, logits, None, rows, config, j > 0, ends, pieces)  # type: ignore[arg-type]
            total += float(fused.log_q[0, token])
            rows.advance([token])
            if j + 1 < len(continuation):
                logits = ctx.step(np.full(streams, token), np.asarray([len(p) + j for p in prompts]),
                                  np.arange(streams))
    return total


def continuation_log_probs(lm: LlamaCppLM, pairs: Sequence[tuple[Sequence[int], Sequence[int]]]
                           ) -> list[torch.Tensor]:
    """:func:`grounded_rag.scoring.continuation_log_probs` on llama.cpp: the pairs in contexts of at most
    ``SCORING_CELLS`` tokens and 256 sequences, each as a prefix tree (a scoring template's system turn, a passage
    read for several questions: once), logits only at the continuations' positions, reduced to log-probabilities
    as each llama_decode call returns them."""
    rows = [list(p) + list(c) for p, c in pairs]
    if any(not p for p, _ in pairs):
        raise ValueError("every scored continuation needs a prefix of at least one token")
    if rows and max(len(r) for r in rows) > lm.context_length:
        raise ContextWindowError(f"a scored text of {max(len(r) for r in rows)} tokens is longer than the context "
                                 f"window of {lm.path} ({lm.context_length} tokens)")
    out: list[torch.Tensor | None] = [None] * len(rows)
    order = sorted(range(len(rows)), key=lambda i: rows[i])  # neighbours share prefixes: keep them in one context
    for part in _scoring_parts(order, rows):
        _score_part(lm, [rows[i] for i in part], [len(pairs[i][0]) for i in part], part, out)
    return out  # type: ignore[return-value]


def _scoring_parts(order: Sequence[int], rows: Sequence[Sequence[int]]) -> Iterator[list[int]]:
    part: list[int] = []
    tokens = 0
    for i in order:
        if part and (tokens + len(rows[i]) > SCORING_CELLS or len(part) == ll.llama_max_parallel_sequences()):
            yield part
            part, tokens = [], 0
        part.append(i)
        tokens += len(rows[i])
    if part:
        yield part


def _score_part(lm: LlamaCppLM, rows: Sequence[Sequence[int]], starts: Sequence[int], index: Sequence[int],
                out: list[torch.Tensor | None]) -> None:
    """Score one context's rows into ``out`` (at ``index``): the entry at position p of a row predicts its token
    p + 1; entries shared by rows may predict different tokens, so each (row, position) reads its own target."""
    wanted = [range(s - 1, len(r) - 1) for r, s in zip(rows, starts)]
    entries, found = prefix_tree(rows, list(range(len(rows))), wanted)
    rank = np.cumsum(entries.outputs.astype(np.int64)) - 1
    output_row = np.concatenate([rank[f] for f in found])
    targets = torch.from_numpy(np.concatenate([np.asarray(r[s:], dtype=np.int64) for r, s in zip(rows, starts)]))
    values = torch.empty(len(output_row), dtype=torch.float32)
    by_row = np.argsort(output_row, kind="stable")
    sorted_rows = output_row[by_row]

    def take(first: int, logits: torch.Tensor) -> None:
        lo, hi = np.searchsorted(sorted_rows, [first, first + logits.shape[0]])
        pick_ = torch.from_numpy(by_row[lo:hi])
        local = torch.from_numpy(sorted_rows[lo:hi] - first)
        lse = torch.logsumexp(logits, dim=-1)
        values[pick_] = logits[local, targets[pick_]] - lse[local]

    with lm.context(len(rows), len(entries)) as ctx:
        ctx.run(entries, take)
    at = 0
    for i, r, s in zip(index, rows, starts):
        out[i] = values[at: at + len(r) - s].clone()
        at += len(r) - s


register_engine("llama_cpp", sys.modules[__name__])
