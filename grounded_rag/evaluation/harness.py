"""``grounded-rag eval``: every method under one protocol (``protocol.py``: same prompts, sampling, stopping, budget).

Protocol: a deterministic split of each file into validation (30% by id hash) and test; each method's
hyperparameters are chosen on validation from a grid of the same size for every tunable method
(printed), then the chosen setting is run on the test split. Every generation is appended to
``OUT/generations.jsonl`` as soon as it exists, so an interrupted run resumes where it stopped.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from ..decoder import GroundedDecoder
from ..errors import InputError
from .bootstrap import bootstrap_ci, paired_difference_ci, resample_indices
from .checkpoint import Checkpoint, write_atomic
from .data import Example, add_distractors, add_injection, load_examples, mark_trusted, split_examples
from .generation import closed_book, generate_records
from .memotrap import generation_scores, loglik_correct, memotrap_generations
from .metrics import citation_scores, evidence_support, exact_match, substring_match, token_f1
from .protocol import ANSWER_PREFIX, EVAL_SYSTEM, EXTRACTIVE, PROTOCOL, method_grid
from .report import plot, to_markdown


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


def _main_metric(memotrap: bool) -> str:
    """What a data file is tuned by and judged by, in one place so that the two cannot drift apart (MemoTrap was
    tuned by log-likelihood and judged by generation until 2026-11-25)."""
    return "generation_accuracy" if memotrap else "substring"


def _tune(decoder, examples, dataset, method, grid, ckpt, batch_size, max_new_tokens, memotrap) -> tuple[dict, list]:
    """The grid's setting with the best validation score on the file's main metric."""
    if len(grid) == 1:
        return grid[0], []
    scored = []
    for params in grid:
        if memotrap:
            recs = memotrap_generations(decoder, examples, dataset, method, params, ckpt, batch_size)
            hits = generation_scores(recs, examples)["generation_accuracy"]
        else:
            recs = generate_records(decoder, examples, dataset, method, params, ckpt, batch_size, max_new_tokens,
                                    f"{dataset}: tune {method} {params}")
            hits = [substring_match(r["text"], ex.answers) for r, ex in zip(recs, examples)]
        scored.append((sum(hits) / max(len(examples), 1), params))
    best = max(scored, key=lambda x: x[0])[1]  # first best on ties: the smaller setting
    return best, [{"params": p, f"validation_{_main_metric(memotrap)}": v} for v, p in scored]


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


def _test_scores(decoder, test, dataset, method, params, ckpt, batch_size, max_new_tokens, closed, memotrap,
                 loglik) -> tuple[dict[str, list[float]], list[dict]]:
    """Each metric's per-row values on the test rows, and the generation records (for timing)."""
    if memotrap:
        gens = generation_scores(memotrap_generations(decoder, test, dataset, method, params, ckpt, batch_size), test)
        if not loglik:
            return gens, []
        lls = [loglik_correct(decoder, ex, method, params, ckpt, dataset)
               for ex in tqdm(test, desc=f"{dataset}: {method}", leave=False)]
        return {"loglik_accuracy": lls, **gens}, []
    recs = generate_records(decoder, test, dataset, method, params, ckpt, batch_size, max_new_tokens,
                            f"{dataset}: {method}")
    rows = [score_record(r, ex, closed[ex.id]) for r, ex in zip(recs, test)]
    return {k: [row[k] for row in rows if k in row] for k in {k for row in rows for k in row}}, recs


def _evaluate(decoder, path, methods, grids, ckpt, *, split, limit, validation_limit, distractors, seed, inject, tune,
              batch_size, max_new_tokens, resamples, loglik, trusted=False) -> tuple[str, dict[str, Any]]:
    """One data file: every method tuned on its validation rows and scored on its test rows, with paired
    Δs against standard decoding on the file's main metric (substring; MemoTrap: generation accuracy)."""
    examples = load_examples(path)
    dataset = (Path(path).stem + (f"+{distractors}distractors" if distractors else "") + ("+injected" if inject else "")
               + ("+trusted" if trusted else ""))
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
    if trusted:
        test, validation = mark_trusted(test), mark_trusted(validation)
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
        vals, recs = _test_scores(decoder, test, dataset, method, params, ckpt, batch_size, max_new_tokens, closed,
                                  memotrap, loglik)
        values[spec] = vals
        per_method[spec] = {
            "params": params, "tuning": tuning,
            "metrics": {k: bootstrap_ci(v, indices(len(v))) for k, v in vals.items() if v and k != "tokens"},
            "avg_tokens": (sum(vals["tokens"]) / len(vals["tokens"])) if vals.get("tokens") else None,
            "seconds_per_example": (sum(r["seconds"] for r in recs) / len(recs)) if recs else None,
            "n": len(test),
        }
    main = _main_metric(memotrap)
    if "standard" in values:
        for method in methods:
            diffs = {k: paired_difference_ci(v, values["standard"][k], indices(len(v)))  # same rows for both
                     for k, v in values[method].items()
                     if v and k != "tokens" and len(v) == len(values["standard"].get(k, []))}
            per_method[method].update(diff_vs_standard=diffs[main], diffs_vs_standard=diffs)
    return dataset, {"n_test": len(test), "n_validation": len(validation) if tune else 0, "main_metric": main,
                     "methods": per_method}


def run_eval(data: Sequence[str], methods: Sequence[str], model: str | None = None, limit: int | None = None,
             split: str = "test", out: str = "runs/eval", batch_size: int = 8, max_new_tokens: int = 16,
             tune: bool = True, validation_limit: int = 100, resamples: int = 10_000,
             latency: bool = True, distractors: int = 0, seed: int = 0, inject: bool = False,
             loglik: bool = True, trusted: bool = False) -> dict[str, Any]:
    """Tune every method on the validation split, run the chosen setting on the test split, report.

    ``distractors`` adds that many passages of other questions of the same file to every row, at
    seeded random positions (robustness to irrelevant retrieved passages). ``inject`` appends an
    instruction dictating another answer to one passage of every row; ``hijacked`` is the share of
    answers that contain the dictated answer. ``loglik=False`` leaves out MemoTrap's log-likelihood scoring of
    the test rows (generation accuracy, what MemoTrap is tuned and judged by, stays): it scores one row at a time
    and takes hours for the three-stream copying methods on a laptop CPU. ``trusted`` declares every passage the
    caller's own (``Document.trusted``; the data set's name gains ``+trusted``)."""
    grids = {spec: method_grid(spec) for spec in methods}  # refuses an unknown method before anything loads
    if trusted and (distractors or inject):
        raise InputError("--trusted declares every passage the caller's own; distractors and planted instructions are "
                         "retrieved text: run --trusted without --distractors and --inject")
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
                                           "seed": seed, "inject": inject, "trusted": trusted},
                              "datasets": {}}
    for path in data:
        dataset, result = _evaluate(decoder, path, methods, grids, ckpt, split=split, limit=limit,
                                    validation_limit=validation_limit, distractors=distractors, seed=seed,
                                    inject=inject, tune=tune, batch_size=batch_size, max_new_tokens=max_new_tokens,
                                    resamples=resamples, loglik=loglik, trusted=trusted)
        report["datasets"][dataset] = result
    if latency:
        names = list(dict.fromkeys(name for name, _ in grids.values()))  # extractive masks cost no forward pass
        report["latency"] = latency_table(decoder, names, load_examples(data[0])[0], model)
    write_atomic(out_dir / "report.json", json.dumps(report, indent=2))
    markdown = to_markdown(report)
    write_atomic(out_dir / "report.md", markdown)
    plot(report, out_dir)
    print(markdown)
    return report


