"""The evaluation's generations: each method's answers under the short-answer protocol, checkpointed as
they are made (an interrupted run resumes), and the closed-book answers the "known" subsets need."""

from __future__ import annotations

import time
from typing import Any

from tqdm.auto import tqdm

from ..decoder import GroundedDecoder
from ..engine import RowInputs, decode
from ..methods import get_method
from ..prompts import encode, open_answer, render, user_message
from .checkpoint import Checkpoint
from .data import Example
from .protocol import EVAL_SYSTEM, base_config


def missing(examples: list[Example], ckpt: Checkpoint, dataset: str, method: str, params: dict[str, Any],
            kind: str = "gen") -> list[Example]:
    """Examples without a checkpointed record, shortest first: a batch of similar lengths wastes
    little on padding."""
    todo = [ex for ex in examples if Checkpoint.key(dataset, method, params, ex.id, kind) not in ckpt.records]
    return sorted(todo, key=lambda ex: len(ex.question) + sum(len(d["text"]) for d in ex.documents))


def generate_records(decoder, examples, dataset, method, params, ckpt, batch_size, max_new_tokens, desc) -> list[dict]:
    cfg = base_config(method, params, max_new_tokens)
    todo = missing(examples, ckpt, dataset, method, params)
    for start in tqdm(range(0, len(todo), batch_size), desc=desc, leave=False, disable=not todo):
        batch = todo[start:start + batch_size]
        t0 = time.perf_counter()
        results = decoder.generate_batch(
            [{"question": ex.question, "documents": ex.documents, "scores": ex.scores} for ex in batch], cfg)
        seconds = time.perf_counter() - t0
        ckpt.add([{
            "key": Checkpoint.key(dataset, method, params, ex.id), "id": ex.id, "dataset": dataset, "method": method,
            "params": params, "text": r.text, "tokens": len(r.token_ids), "trust": r.trust, "seconds": seconds / len(batch),
            "trace": [[s.token, s.conflict, s.rho, s.eta, s.p_full, s.p_ref, s.q] for s in r.trace],
            "support": r.support, "kept": r.numbers, "conflicts": [c.document for c in r.conflicts],
            "citations": [[c.answer_start, c.answer_end, c.document, c.kind] for c in r.citations],
        } for ex, r in zip(batch, results)])
    return [ckpt.records[Checkpoint.key(dataset, method, params, ex.id)] for ex in examples]


def closed_book(decoder: GroundedDecoder, examples, dataset, ckpt, batch_size, max_new_tokens) -> dict[str, str]:
    """The model's answer with no documents (for the 'known without context' subset)."""
    method = get_method("standard")
    cfg = base_config("standard", {}, max_new_tokens)
    todo = missing(examples, ckpt, dataset, "closed_book", {})
    for start in tqdm(range(0, len(todo), batch_size), desc=f"{dataset}: closed book", leave=False, disable=not todo):
        batch = todo[start:start + batch_size]
        prompts = [encode(decoder.tokenizer, open_answer(render(decoder.tokenizer, EVAL_SYSTEM,
                                                                user_message(ex.question, None, cfg.template)),
                                                         cfg.answer_prefix)) for ex in batch]
        texts = decode_lines(decoder, method, prompts, RowInputs(trust=[1.0] * len(batch)), cfg)
        ckpt.add([{"key": Checkpoint.key(dataset, "closed_book", {}, ex.id), "id": ex.id, "text": text}
                  for ex, text in zip(batch, texts)])
    return {ex.id: ckpt.records[Checkpoint.key(dataset, "closed_book", {}, ex.id)]["text"] for ex in examples}


def decode_lines(decoder: GroundedDecoder, method, prompts, inputs: RowInputs, cfg) -> list[str]:
    """Engine-level decode of token-id prompts up to the first newline or EOS, one text per question; ``inputs`` are
    the batch's :meth:`GroundedDecoder.row_inputs`."""
    rows = len(prompts) // method.streams
    tokens: list[list[int]] = [[] for _ in range(rows)]
    done = [False] * rows
    for step in decode(decoder.model, method, prompts, inputs, cfg, decoder.pad_id, end_ids=decoder.eos_ids,
                       finished=lambda: done):
        for i, t in zip(step.questions, step.tokens.tolist()):
            if not done[i]:
                tokens[i].append(t)
                done[i] = t in decoder.eos_ids or "\n" in decoder.tokenizer.decode(tokens[i])
        if all(done):
            break
    # a token may carry text before its newline ('.\n'): keep that text, as the decoder's stop strings do
    return [decoder.tokenizer.decode(tok, skip_special_tokens=True).split("\n")[0].strip() for tok in tokens]
