"""MemoTrap: the document is an instruction ("Write a quote that ends in the word 'heavy':") and the
question the start of a proverb the answer continues, in the same assistant turn for every stream. Scored by
generation (the continuation starts with the instructed ending: the issue's criterion and what tuning picks by)
and by the log-likelihood of the two endings."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tqdm.auto import tqdm

from ..decoder import GroundedDecoder
from ..engine import score_continuation
from ..methods import get_method
from ..prompts import encode_text, reply_start
from .checkpoint import Checkpoint
from .data import Example
from .generation import decode_lines, missing
from .metrics import choice_generated
from .protocol import base_config

MEMOTRAP_NEW_TOKENS = 6  # the choices are one word (or a letter) and a full stop


def continuation_prompts(decoder: GroundedDecoder, request, text: str) -> list[list[int]]:
    """Each stream's prompt with the reply opened by ``text`` (MemoTrap: the proverb the answer continues),
    opened the way every reply is (:func:`grounded_rag.prompts.reply_start`)."""
    reply = encode_text(decoder.tokenizer, reply_start(request.prompts.full, text))
    return [ids + reply for ids in request.token_ids]


def memotrap_generations(decoder, examples, dataset, method_name, params, ckpt, batch_size) -> list[dict]:
    """MemoTrap by generation: the method continues the question text (the same assistant turn that
    log-likelihood scoring forces), and the record keeps the continuation."""
    method = get_method(method_name)
    cfg = base_config(method_name, params, MEMOTRAP_NEW_TOKENS, short_answer=False)
    todo = missing(examples, ckpt, dataset, method_name, params, "mtgen")
    for start in tqdm(range(0, len(todo), batch_size), desc=f"{dataset}: {method_name} (generation)", leave=False,
                      disable=not todo):
        batch = todo[start:start + batch_size]
        reqs = [decoder.prepare(ex.question, ex.documents, ex.scores, cfg, method) for ex in batch]
        prompts = [ids for ex, r in zip(batch, reqs) for ids in continuation_prompts(decoder, r, ex.question)]
        texts = decode_lines(decoder, method, prompts, decoder.row_inputs(reqs, method, cfg), cfg)
        ckpt.add([{"key": Checkpoint.key(dataset, method_name, params, ex.id, "mtgen"), "id": ex.id, "text": text}
                  for ex, text in zip(batch, texts)])
    return [ckpt.records[Checkpoint.key(dataset, method_name, params, ex.id, "mtgen")] for ex in examples]


def choice_loglik(decoder: GroundedDecoder, ex: Example, method_name: str, params: dict[str, Any]) -> list[float]:
    """Sum of the method's fused log q over each choice's tokens (teacher-forced), for MemoTrap."""
    method = get_method(method_name)
    cfg = base_config(method_name, params, 1, short_answer=False)
    req = decoder.prepare(ex.question, ex.documents, ex.scores, cfg, method)
    inputs = decoder.row_inputs([req], method, cfg)
    opening = reply_start(req.prompts.full, ex.question)
    lead = encode_text(decoder.tokenizer, opening)
    out = []
    for choice in ex.choices or []:
        forced = encode_text(decoder.tokenizer, opening + choice)
        k = next((i for i, (a, b) in enumerate(zip(lead, forced)) if a != b), min(len(lead), len(forced)))
        prompts = [ids + forced[:k] for ids in req.token_ids]
        # each choice from the start: scoring advances the copy states
        fresh = replace(inputs, copies=[c.fresh() for c in inputs.copies] if inputs.copies else None)
        out.append(score_continuation(decoder.model, method, prompts, fresh, cfg, decoder.pad_id, forced[k:],
                                      decoder.eos_ids))
    return out


def loglik_correct(decoder, ex, method, params, ckpt, dataset) -> float:
    key = Checkpoint.key(dataset, method, params, ex.id, kind="ll")
    if key not in ckpt.records:
        ll = choice_loglik(decoder, ex, method, params)
        ckpt.add([{"key": key, "id": ex.id, "loglik": ll}])
    ll = ckpt.records[key]["loglik"]
    return float(max(range(len(ll)), key=ll.__getitem__) == ex.answer_index)


def generation_scores(records: list[dict], examples: list[Example]) -> dict[str, list[float]]:
    """Per row: the continuation starts with the instructed ending (accuracy) or with the memorized one."""
    picks = [choice_generated(r["text"], ex.choices or []) for r, ex in zip(records, examples)]
    return {"generation_accuracy": [float(k == ex.answer_index) for k, ex in zip(picks, examples)],
            "generation_memorization": [float(k is not None and k != ex.answer_index) for k, ex in zip(picks, examples)]}
