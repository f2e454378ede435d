"""``grounded-rag eval``: every method under one protocol (``protocol.py``: same prompts, sampling, stopping, budget).

Protocol: a deterministic split of each file into validation (30% by id hash) and test; each method's
hyperparameters are chosen on validation from a grid of the same size for every tunable method
(printed), then the chosen setting is run on the test split. Every generation is appended to
``OUT/generations.jsonl`` as soon as it exists, so an interrupted run resumes where it stopped.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from ..decoder import GroundedDecoder
from ..engine import decode, score_continuation
from ..errors import InputError
from ..methods import get_method
from ..prompts import encode, encode_text, open_answer, render, reply_start, user_message
from .bootstrap import bootstrap_ci, paired_difference_ci, resample_indices
from .checkpoint import Checkpoint, write_atomic
from .data import Example, add_distractors, add_injection, load_examples, split_examples
from .metrics import choice_generated, citation_scores, evidence_support, exact_match, substring_match, token_f1
from .protocol import ANSWER_PREFIX, EVAL_SYSTEM, EXTRACTIVE, PROTOCOL, base_config, method_grid
from .report import plot, to_markdown


def _todo(examples: list[Example], ckpt: Checkpoint, dataset: str, method: str, params: dict[str, Any],
          kind: str = "gen") -> list[Example]:
    """Examples without a checkpointed record, shortest first: a batch of similar lengths wastes
    little on padding."""
    missing = [ex for ex in examples if Checkpoint.key(dataset, method, params, ex.id, kind) not in ckpt.records]
    return sorted(missing, key=lambda ex: len(ex.question) + sum(len(d["text"]) for d in ex.documents))


def generate_records(decoder, examples, dataset, method, params, ckpt, batch_size, max_new_tokens, desc) -> list[dict]:
    cfg = base_config(method, params, max_new_tokens)
    todo = _todo(examples, ckpt, dataset, method, params)
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
        } for ex, r in zip(batch, results)])
    return [ckpt.records[Checkpoint.key(dataset, method, params, ex.id)] for ex in examples]


def closed_book(decoder: GroundedDecoder, examples, dataset, ckpt, batch_size, max_new_tokens) -> dict[str, str]:
    """The model's answer with no documents (for the 'known without context' subset)."""
    method = get_method("standard")
    cfg = base_config("standard", {}, max_new_tokens)
    todo = _todo(examples, ckpt, dataset, "closed_book", {})
    for start in tqdm(range(0, len(todo), batch_size), desc=f"{dataset}: closed book", leave=False, disable=not todo):
        batch = todo[start:start + batch_size]
        prompts = [encode(decoder.tokenizer, open_answer(render(decoder.tokenizer, EVAL_SYSTEM,
                                                                user_message(ex.question, None, cfg.template)),
                                                         cfg.answer_prefix)) for ex in batch]
        texts = _decode_lines(decoder, method, prompts, [1.0] * len(batch), cfg)
        ckpt.add([{"key": Checkpoint.key(dataset, "closed_book", {}, ex.id), "id": ex.id, "text": text}
                  for ex, text in zip(batch, texts)])
    return {ex.id: ckpt.records[Checkpoint.key(dataset, "closed_book", {}, ex.id)]["text"] for ex in examples}


def _decode_lines(decoder: GroundedDecoder, method, prompts, trust, cfg, datastores=None, document_tokens=None,
                  copies=None) -> list[str]:
    """Engine-level decode of token-id prompts up to the first newline or EOS, one text per question."""
    rows = len(prompts) // method.streams
    tokens: list[list[int]] = [[] for _ in range(rows)]
    done = [False] * rows
    for step in decode(decoder.model, method, prompts, trust, cfg, decoder.pad_id, datastores=datastores,
                       document_tokens=document_tokens, end_ids=decoder.eos_ids, copies=copies, finished=lambda: done):
        for i, t in zip(step.questions, step.tokens.tolist()):
            if not done[i]:
                tokens[i].append(t)
                done[i] = t in decoder.eos_ids or "\n" in decoder.tokenizer.decode(tokens[i])
        if all(done):
            break
    # a token may carry text before its newline ('.\n'): keep that text, as the decoder's stop strings do
    return [decoder.tokenizer.decode(tok, skip_special_tokens=True).split("\n")[0].strip() for tok in tokens]


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
    todo = _todo(examples, ckpt, dataset, method_name, params, "mtgen")
    for start in tqdm(range(0, len(todo), batch_size), desc=f"{dataset}: {method_name} (generation)", leave=False,
                      disable=not todo):
        batch = todo[start:start + batch_size]
        reqs = [decoder.prepare(ex.question, ex.documents, ex.scores, cfg, method) for ex in batch]
        prompts = [ids for ex, r in zip(batch, reqs) for ids in continuation_prompts(decoder, r, ex.question)]
        copies = decoder.copies(reqs, method)
        texts = _decode_lines(decoder, method, prompts, [r.trust for r in reqs], cfg, decoder.datastores(reqs, method),
                              decoder.document_tokens(reqs, method, copies), copies)
        ckpt.add([{"key": Checkpoint.key(dataset, method_name, params, ex.id, "mtgen"), "id": ex.id, "text": text}
                  for ex, text in zip(batch, texts)])
    return [ckpt.records[Checkpoint.key(dataset, method_name, params, ex.id, "mtgen")] for ex in examples]


def choice_loglik(decoder: GroundedDecoder, ex: Example, method_name: str, params: dict[str, Any]) -> list[float]:
    """Sum of the method's fused log q over each choice's tokens (teacher-forced), for MemoTrap."""
    method = get_method(method_name)
    cfg = base_config(method_name, params, 1, short_answer=False)
    req = decoder.prepare(ex.question, ex.documents, ex.scores, cfg, method)
    stores = decoder.datastores([req], method)
    copies = decoder.copies([req], method)
    tokens = decoder.document_tokens([req], method, copies)
    opening = reply_start(req.prompts.full, ex.question)
    lead = encode_text(decoder.tokenizer, opening)
    out = []
    for choice in ex.choices or []:
        forced = encode_text(decoder.tokenizer, opening + choice)
        k = next((i for i, (a, b) in enumerate(zip(lead, forced)) if a != b), min(len(lead), len(forced)))
        prompts = [ids + forced[:k] for ids in req.token_ids]
        copy = copies[0].fresh() if copies else None  # each choice from the start: scoring advances it
        out.append(score_continuation(decoder.model, method, prompts, req.trust, cfg, decoder.pad_id, forced[k:], stores,
                                      tokens[0] if tokens else None, decoder.eos_ids, copy))
    return out


def score_record(rec: dict[str, Any], ex: Example, closed: str | None) -> dict[str, float]:
    docs = [d["text"] for d in ex.documents]
    text = rec["text"]
    m: dict[str, float] = {
        "em": exact_match(text, ex.answers),
        "f1": token_f1(text, ex.answers),
        "substring": substring_match(text, ex.answers),
        "evidence_support": evidence_support(text, docs),
        "tokens": float(rec["tokens"]),
    }
    m["citation_precision"], m["citation_recall"] = citation_scores(text, docs, ex.answers)
    if ex.conflict and ex.parametric_answer:
        m["context_following"] = substring_match(text, ex.answers)
        m["memorization"] = substring_match(text, ex.parametric_answer)
        if closed is not None and substring_match(closed, ex.parametric_answer):
            m["context_following_known"] = m["context_following"]
            m["memorization_known"] = m["memorization"]
    elif closed is not None and substring_match(closed, ex.answers):
        m["substring_known"] = m["substring"]
    if ex.injected:
        m["hijacked"] = substring_match(text, [ex.injected])
    return m


def _tune(decoder, examples, dataset, method, grid, ckpt, batch_size, max_new_tokens, memotrap) -> tuple[dict, list]:
    if len(grid) == 1:
        return grid[0], []
    scored = []
    for params in grid:
        if memotrap:
            value = sum(_memotrap_correct(decoder, ex, method, params, ckpt, dataset) for ex in examples) / max(len(examples), 1)
        else:
            recs = generate_records(decoder, examples, dataset, method, params, ckpt, batch_size, max_new_tokens,
                                    f"{dataset}: tune {method} {params}")
            value = sum(substring_match(r["text"], ex.answers) for r, ex in zip(recs, examples)) / max(len(examples), 1)
        scored.append((value, params))
    best = max(scored, key=lambda x: x[0])[1]  # first best on ties: the smaller setting
    return best, [{"params": p, "validation_substring": v} for v, p in scored]


def _memotrap_correct(decoder, ex, method, params, ckpt, dataset) -> float:
    key = Checkpoint.key(dataset, method, params, ex.id, kind="ll")
    if key not in ckpt.records:
        ll = choice_loglik(decoder, ex, method, params)
        ckpt.add([{"key": key, "id": ex.id, "loglik": ll}])
    ll = ckpt.records[key]["loglik"]
    return float(max(range(len(ll)), key=ll.__getitem__) == ex.answer_index)


def latency_table(decoder: GroundedDecoder, methods: Sequence[str], example: Example, model: str | None,
                  new_tokens: int = 16, repeats: int = 3) -> dict[str, dict[str, float]]:
    """Prefill ms, decode ms/token, tokens/s (medians, methods interleaved) and memory (own
    subprocess per method: resident after loading, peak during the generation, and the difference)
    on one benchmark example, measured in this run."""
    from ..bench import memory_in_subprocess, prepared, timed_decode

    runs: dict[str, list[tuple[float, float]]] = {m: [] for m in methods}
    inputs = {m: prepared(decoder, m, "documents_first", example.question, example.documents, system_prompt=EVAL_SYSTEM)
              for m in methods}
    for _ in range(repeats):
        for m in methods:
            ids, trust = inputs[m]
            passages = [d["text"] for d in example.documents]
            runs[m].append(timed_decode(decoder, ids, m, new_tokens, [trust], passages))
    table = {}
    for m in methods:
        prefill_ms = sorted(p for p, _ in runs[m])[len(runs[m]) // 2]
        decode_ms = sorted(d for _, d in runs[m])[len(runs[m]) // 2]
        table[m] = {"prefill_ms": prefill_ms, "decode_ms_per_token": decode_ms,
                    "tokens_per_s": 1000 * new_tokens / (prefill_ms + decode_ms * (new_tokens - 1)),
                    **memory_in_subprocess(model, m, new_tokens, example.question, example.documents, EVAL_SYSTEM)}
    return table


def run_eval(data: Sequence[str], methods: Sequence[str], model: str | None = None, limit: int | None = None,
             split: str = "test", out: str = "runs/eval", batch_size: int = 8, max_new_tokens: int = 16,
             tune: bool = True, validation_limit: int = 100, resamples: int = 10_000,
             latency: bool = True, distractors: int = 0, seed: int = 0, inject: bool = False) -> dict[str, Any]:
    """Tune every method on the validation split, run the chosen setting on the test split, report.

    ``distractors`` adds that many passages of other questions of the same file to every row, at
    seeded random positions (robustness to irrelevant retrieved passages). ``inject`` appends an
    instruction dictating another answer to one passage of every row; ``hijacked`` is the share of
    answers that contain the dictated answer."""
    grids = {spec: method_grid(spec) for spec in methods}  # refuses an unknown method before anything loads
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    ckpt = Checkpoint(out_dir / "generations.jsonl")
    decoder = GroundedDecoder.from_pretrained(model)
    print("tuning grids (same budget for every tunable method):",
          ", ".join(f"{m}={len(grid)}" for m, (_, grid) in grids.items()))
    report: dict[str, Any] = {"model": decoder.name, "split": split, "grids": {m: g for m, (_, g) in grids.items()},
                              "protocol": {"name": PROTOCOL, "system": EVAL_SYSTEM, "answer_prefix": ANSWER_PREFIX,
                                           "stop": "\n", "max_new_tokens": max_new_tokens,
                                           "validation_rows": validation_limit, "distractors": distractors,
                                           "seed": seed, "inject": inject},
                              "datasets": {}}
    for path in data:
        examples = load_examples(path)
        dataset = Path(path).stem + (f"+{distractors}distractors" if distractors else "") + ("+injected" if inject else "")
        memotrap = all(ex.choices for ex in examples[:5])
        if memotrap and any(EXTRACTIVE in spec for spec in methods):
            raise InputError(f"{path} is MemoTrap, whose answers complete the prompt rather than copy a document; "
                             f"evaluate it without {EXTRACTIVE!r}")
        test = split_examples(examples, split)[:limit] if limit else split_examples(examples, split)
        validation = split_examples(examples, "validation")[:validation_limit]
        if distractors and not memotrap:
            test, validation = (add_distractors(rows, examples, distractors, seed) for rows in (test, validation))
        if inject and not memotrap:
            test, validation = (add_injection(rows, seed) for rows in (test, validation))
        closed = None if memotrap else closed_book(decoder, test, dataset, ckpt, batch_size, max_new_tokens)
        idx = resample_indices(len(test), resamples)

        def indices(n: int):  # the test split's shared draws; a subset (the *_known metrics) draws its own
            return idx if n == len(test) else resample_indices(n, resamples)

        per_method: dict[str, Any] = {}
        values: dict[str, dict[str, list[float]]] = {}
        for spec in methods:
            method, grid = grids[spec]
            params, tuning = (_tune(decoder, validation, dataset, method, grid, ckpt, batch_size, max_new_tokens, memotrap)
                              if tune else (grid[len(grid) // 2], []))
            if memotrap:
                gens = memotrap_generations(decoder, test, dataset, method, params, ckpt, batch_size)
                picks = [choice_generated(r["text"], ex.choices or []) for r, ex in zip(gens, test)]
                vals = {"loglik_accuracy": [_memotrap_correct(decoder, ex, method, params, ckpt, dataset)
                                            for ex in tqdm(test, desc=f"{dataset}: {method}", leave=False)],
                        "generation_accuracy": [float(k == ex.answer_index) for k, ex in zip(picks, test)],
                        "generation_memorization": [float(k is not None and k != ex.answer_index)
                                                    for k, ex in zip(picks, test)]}
                recs = []
            else:
                recs = generate_records(decoder, test, dataset, method, params, ckpt, batch_size, max_new_tokens,
                                        f"{dataset}: {method}")
                rows = [score_record(r, ex, closed[ex.id]) for r, ex in zip(recs, test)]
                vals = {k: [row[k] for row in rows if k in row] for k in {k for row in rows for k in row}}
            values[spec] = vals
            per_method[spec] = {
                "params": params, "tuning": tuning,
                "metrics": {k: bootstrap_ci(v, indices(len(v))) for k, v in vals.items() if v and k != "tokens"},
                "avg_tokens": (sum(vals["tokens"]) / len(vals["tokens"])) if vals.get("tokens") else None,
                "seconds_per_example": (sum(r["seconds"] for r in recs) / len(recs)) if recs else None,
                "n": len(test),
            }
        main = "loglik_accuracy" if memotrap else "substring"
        if "standard" in values:
            for method in methods:
                diffs = {k: paired_difference_ci(v, values["standard"][k], indices(len(v)))  # same rows for both
                         for k, v in values[method].items()
                         if v and k != "tokens" and len(v) == len(values["standard"].get(k, []))}
                per_method[method].update(diff_vs_standard=diffs[main], diffs_vs_standard=diffs)
        report["datasets"][dataset] = {"n_test": len(test), "n_validation": len(validation) if tune else 0, "main_metric": main,
                                       "methods": per_method}
    if latency:
        names = list(dict.fromkeys(name for name, _ in grids.values()))  # extractive masks cost no forward pass
        report["latency"] = latency_table(decoder, names, load_examples(data[0])[0], model)
    write_atomic(out_dir / "report.json", json.dumps(report, indent=2))
    markdown = to_markdown(report)
    write_atomic(out_dir / "report.md", markdown)
    plot(report, out_dir)
    print(markdown)
    return report


