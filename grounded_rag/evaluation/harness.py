"""``grounded-rag eval``: every method under one protocol (``protocol.py``: same prompts, sampling, stopping, budget).

Protocol: a deterministic split of each file into validation (30% by id hash) and test; each method's
hyperparameters are chosen on validation from a grid of the same size for every tunable method
(printed), then the chosen setting is run on the test split. Every generation is appended to
``OUT/generations.jsonl`` as soon as it exists, so an interrupted run resumes where it stopped.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from ..config import SUPPORT_THRESHOLD
from ..decoder import GroundedDecoder
from ..errors import InputError
from .bootstrap import bootstrap_ci, paired_difference_ci, resample_indices
from .checkpoint import Checkpoint, write_atomic
from .data import (
    Example,
    add_distractors,
    add_injection,
    load_examples,
    make_unanswerable,
    mark_trusted,
    rename_attacks,
    split_examples,
)
from .generation import closed_book, generate_records
from .memotrap import generation_scores, loglik_correct, memotrap_generations
from .metrics import substring_match
from .protocol import (
    ACCORDING,
    DEFAULTS,
    ANSWER_PREFIX,
    AS_READ,
    EVAL_SYSTEM,
    EXTRACTIVE,
    PROMPTED,
    PROTOCOL,
    as_read,
    counterparts,
    method_grid,
)
from .report import plot, to_markdown
from .scored import score_record, support_separation
from .tuning import Tuner, is_memotrap, main_metric, margins


def latency_table(decoder: GroundedDecoder, methods: Sequence[str], example: Example, model: str | None,
                  new_tokens: int = 16, repeats: int = 3, backend: str = "auto") -> dict[str, dict[str, float]]:
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
                    **memory_in_subprocess(model, m, new_tokens, example.question, example.documents, EVAL_SYSTEM,
                                            backend)}
    return table


@dataclass(frozen=True)
class EvalRun:
    """What every data file of one ``grounded-rag eval`` run shares."""

    decoder: GroundedDecoder
    grids: dict[str, tuple[str, list[dict[str, Any]]]]
    ckpt: Checkpoint
    split: str = "test"
    limit: int | None = None
    validation_limit: int = 100
    distractors: int = 0
    seed: int = 0
    inject: bool = False
    trusted: bool = False
    unanswerable: bool = False
    tune: bool = True
    batch_size: int = 8
    max_new_tokens: int = 16
    resamples: int = 10_000
    loglik: bool = True
    threshold: float | None = SUPPORT_THRESHOLD
    renamed: bool = False  # the attack files' attackers name other rows' answers (data.rename_attacks)
    spread: bool = False  # --limit and --validation-limit sample the whole split (:func:`limited`)


def _test_scores(run: EvalRun, test, dataset, spec, params, closed, memotrap) -> tuple[dict[str, list[float]], list]:
    """Each metric's per-row values on the test rows, and the generation records (for timing)."""
    method = run.grids[spec][0]
    if memotrap:
        gens = generation_scores(memotrap_generations(run.decoder, test, dataset, method, params, run.ckpt,
                                                      run.batch_size), test)
        if not run.loglik:
            return gens, []
        lls = [loglik_correct(run.decoder, ex, method, params, run.ckpt, dataset)
               for ex in tqdm(test, desc=f"{dataset}: {method}", leave=False)]
        return {"loglik_accuracy": lls, **gens}, []
    recs = generate_records(run.decoder, test, dataset, method, params, run.ckpt, run.batch_size, run.max_new_tokens,
                            f"{dataset}: {method}")
    rows = [score_record(r, ex, closed[ex.id], run.threshold, PROMPTED in spec, as_read(spec))
            for r, ex in zip(recs, test)]
    return {k: [row[k] for row in rows if k in row] for k in {k for row in rows for k in row}}, recs


_VARIANT = re.compile(r"^(?P<path>.+)\+(?P<k>\d+)distractors$")


def data_variant(entry: str, distractors: int) -> tuple[str, int]:
    """A ``--data`` entry's file and distractor count: ``FILE+Kdistractors`` (the name the report gives that
    variant) is the file with K distractors; any other entry is a file with ``distractors`` (``--distractors``)."""
    match = None if Path(entry).is_file() else _VARIANT.match(entry)
    return (match["path"], int(match["k"])) if match else (entry, distractors)


def _rows(run: EvalRun, path: str, methods: Sequence[str], examples: list[Example]
          ) -> tuple[str, list[Example], list[Example], list[Example]]:
    """A data file's name in the report (with its variant's suffixes), all its rows (``examples``, read before the
    model loaded), its test and validation rows."""
    path, distractors = data_variant(path, run.distractors)
    dataset = (Path(path).stem + (f"+{distractors}distractors" if distractors else "")
               + ("+injected" if run.inject else "") + ("+trusted" if run.trusted else "")
               + ("+renamed" if run.renamed else ""))
    memotrap = is_memotrap(examples)
    if memotrap and any(option in spec for spec in methods for option in (EXTRACTIVE, PROMPTED, ACCORDING, DEFAULTS)):
        raise InputError(f"{path} is MemoTrap, whose answers complete the prompt rather than answer from a document; "
                         f"evaluate it without {EXTRACTIVE!r}, {PROMPTED!r}, {ACCORDING!r} and {DEFAULTS!r}")
    test = _test_rows(examples, path, run.split, run.limit, run.spread)
    validation = limited(split_examples(examples, "validation"), run.validation_limit, run.spread)
    if distractors and not memotrap:
        test, validation = (add_distractors(rows, examples, distractors, run.seed) for rows in (test, validation))
    if run.inject and not memotrap:
        test, validation = (add_injection(rows, run.seed) for rows in (test, validation))
    if run.trusted:
        test, validation = mark_trusted(test), mark_trusted(validation)
    return dataset, examples, test, validation


def limited(rows: list[Example], limit: int | None, spread: bool = False) -> list[Example]:
    """The first ``limit`` rows, or with ``spread`` the ``limit`` rows whose ids hash lowest: a sample over the whole
    split (a file grouped by article gives its first rows from one article), the same on every run."""
    if not limit:
        return rows
    if not spread:
        return rows[:limit]
    key = {ex.id: hashlib.sha1(f"spread:{ex.id}".encode(), usedforsecurity=False).hexdigest() for ex in rows}
    keep = set(sorted(key, key=key.__getitem__)[:limit])
    return [ex for ex in rows if ex.id in keep]


def _test_rows(examples: list[Example], path: str, split: str, limit: int | None, spread: bool = False
               ) -> list[Example]:
    """A file's rows to score; none is an error (said here, not as a report's missing key)."""
    test = limited(split_examples(examples, split), limit, spread)
    if not test:
        raise InputError(f"{path} has no {split} rows ({len(examples)} rows in all; about 30% of the ids go to "
                         "validation, the rest to test): use a file with more rows, or the other --split")
    return test


def _evaluate(run: EvalRun, dataset: str, test: list[Example], validation: list[Example], methods: Sequence[str],
              chosen: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """One data set: every method tuned on its validation rows (or at the ``chosen`` settings: an unanswerable
    twin is decoded at its file's) and scored on its test rows, with paired Δs against standard decoding on the
    file's main metric (substring; MemoTrap: generation accuracy)."""
    memotrap = is_memotrap(test)
    closed = None if memotrap else closed_book(run.decoder, test, dataset, run.ckpt, run.batch_size,
                                                run.max_new_tokens)
    idx = resample_indices(len(test), run.resamples)

    def indices(n: int):  # the test split's shared draws; a subset (the *_known metrics) draws its own
        return idx if n == len(test) else resample_indices(n, run.resamples)

    per_method: dict[str, Any] = {}
    values: dict[str, dict[str, list[float]]] = {}
    for spec in methods:
        method, grid = run.grids[spec]
        if chosen is not None:
            params, tuning = chosen[spec], []
        elif run.tune:
            params, tuning = Tuner(run.decoder, run.ckpt, run.batch_size, run.max_new_tokens).tune(
                validation, dataset, method, grid)
        else:
            params, tuning = grid[len(grid) // 2], []
        vals, recs = _test_scores(run, test, dataset, spec, params, closed, memotrap)
        values[spec] = vals
        per_method[spec] = {
            "params": params, "tuning": tuning,
            "metrics": {k: bootstrap_ci(v, indices(len(v))) for k, v in vals.items() if v and k != "tokens"},
            "avg_tokens": (sum(vals["tokens"]) / len(vals["tokens"])) if vals.get("tokens") else None,
            "seconds_per_example": (sum(r["seconds"] for r in recs) / len(recs)) if recs else None,
            "n": len(test),
        }
        if recs:
            per_method[spec]["support_auroc"] = support_separation(recs, test, run.resamples)
    main = "abstention" if test and all(ex.unanswerable for ex in test) else main_metric(memotrap)
    _paired_deltas(per_method, values, main, indices)
    for spec, vals in values.items():  # what withholding costs each method's main metric, on the same rows
        if main == "substring" and vals.get("substring_without_abstention"):
            per_method[spec]["abstention_cost"] = paired_difference_ci(
                vals["substring"], vals["substring_without_abstention"], indices(len(vals["substring"])))
    return {"n_test": len(test), "n_validation": len(validation) if run.tune and chosen is None else 0,
            "main_metric": main, "methods": per_method}


REFERENCES = ("standard", "cad")  # what every method's paired Δs are read against, where the run has them


def _paired_deltas(per_method: dict[str, Any], values: dict[str, dict[str, list[float]]], main: str, indices) -> None:
    """Each method's paired Δs (same rows, same resamples) on every metric against each of ``REFERENCES`` in the run
    and against its :func:`counterparts` (``cad+extractive`` against ``cad``, an ablation against the default), where
    the run has them: ``diffs_vs`` by reference, and ``diffs_vs_standard`` and ``diff_vs_standard`` (the main
    metric's)."""
    for spec, vals in values.items():
        own = [c for c in counterparts(spec) if c in values and c not in REFERENCES]
        for ref in [r for r in REFERENCES if r in values] + own:
            diffs = {k: paired_difference_ci(v, values[ref][k], indices(len(v)))
                     for k, v in vals.items() if v and k != "tokens" and len(v) == len(values[ref].get(k, []))}
            per_method[spec].setdefault("diffs_vs", {})[ref] = diffs
            if ref == "standard":
                per_method[spec].update(diff_vs_standard=diffs[main], diffs_vs_standard=diffs)


THRESHOLDS = [round(0.3 + 0.05 * i, 2) for i in range(13)]  # the support thresholds the validation table reads


def abstention_table(run: EvalRun, dataset: str, validation: list[Example], twin: str | None,
                     twin_validation: list[Example], spec: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    """For each support threshold in ``THRESHOLDS``, on validation rows only: the share of the answerable rows' right
    answers (and of all their answers) withheld, and with ``twin`` (--unanswerable) of the unanswerable twin's
    answers. The default threshold is read off these tables (docs/citations.md)."""
    method = run.grids[spec][0]
    answerable = generate_records(run.decoder, validation, dataset, method, params, run.ckpt, run.batch_size,
                                  run.max_new_tokens, f"{dataset}: validation {method}")
    unanswerable = [] if twin is None else generate_records(
        run.decoder, twin_validation, twin, method, params, run.ckpt, run.batch_size, run.max_new_tokens,
        f"{twin}: validation {method}")
    right = [r["support"] for r, ex in zip(answerable, validation) if substring_match(r["text"], ex.answers)]
    every = [r["support"] for r in answerable]
    twin_supports = [r["support"] for r in unanswerable]

    def below(values: list[float], t: float) -> float:
        return sum(v < t for v in values) / len(values) if values else 0.0

    return [{"threshold": t, "unanswerable_withheld": below(twin_supports, t) if twin else None,
             "right_withheld": below(right, t), "right_withheld_points": sum(v < t for v in right) / len(every),
             "answerable_withheld": below(every, t), "right": len(right), "rows": len(validation)}
            for t in THRESHOLDS]


def _checked_plan(data: Sequence[str], methods: Sequence[str], trusted_with_retrieved: bool,
                  support_threshold: float | None = SUPPORT_THRESHOLD) -> dict[str, tuple[str, list[dict[str, Any]]]]:
    """Each ``--methods`` entry's method and grid, once the methods, options and data files are known good (before
    anything loads)."""
    grids = {spec: method_grid(spec) for spec in methods}
    if any(as_read(spec) for spec in methods) and support_threshold != SUPPORT_THRESHOLD:
        raise InputError(f"{' and '.join(AS_READ)} decode with the product's support threshold "
                         f"({SUPPORT_THRESHOLD}); drop --support-threshold, or evaluate without it")
    if trusted_with_retrieved:
        raise InputError("--trusted declares every passage the caller's own; distractors, planted instructions and "
                         "unanswerable twins are retrieved text: run --trusted without --distractors, --inject and "
                         "--unanswerable")
    missing = [path for path in data if not Path(data_variant(path, 0)[0]).is_file()]
    if missing:
        raise InputError(f"no data file at {', '.join(missing)}; pass JSONL files in the benchmark schema with --data "
                         "(FILE+Kdistractors for that file with K distractors)")
    if len(set(data)) < len(data):
        raise InputError("--data names a file twice; name each once (FILE+Kdistractors is a file of its own)")
    return grids


def _protocol(run: EvalRun) -> dict[str, Any]:
    """What every method of the run was asked under, for the report."""
    return {"name": PROTOCOL, "system": EVAL_SYSTEM, "answer_prefix": ANSWER_PREFIX, "stop": "\n",
            "max_new_tokens": run.max_new_tokens, "validation_rows": run.validation_limit,
            "distractors": run.distractors, "seed": run.seed, "inject": run.inject, "trusted": run.trusted,
            "unanswerable": run.unanswerable, "support_threshold": run.threshold, "rename_attacks": run.renamed}


def _evaluate_file(run: EvalRun, report: dict[str, Any], dataset: str, examples: list[Example], test: list[Example],
                   validation: list[Example], methods: Sequence[str], pooled: dict[str, dict[str, Any]] | None) -> None:
    """One data file into ``report``: its methods tuned on its validation rows (or at the ``pooled`` settings), its
    unanswerable twin at the same settings, and the support-threshold tables of its validation rows."""
    result = report["datasets"][dataset] = _evaluate(run, dataset, test, validation, methods, pooled)
    if pooled is not None:
        result.update(n_validation=len(validation), pooled=True)
    if is_memotrap(examples):
        return
    chosen = {spec: m["params"] for spec, m in result["methods"].items()}
    twin, twin_validation = None, []
    if run.unanswerable:
        twin = dataset + "+unanswerable"
        twin_test, twin_validation = (make_unanswerable(rows, examples, run.seed) for rows in (test, validation))
        report["datasets"][twin] = _evaluate(run, twin, twin_test, twin_validation, methods, chosen)
    answerable = validation
    if twin is None and any(ex.unanswerable for ex in validation):  # the file's own unanswerable rows (SQuAD 2.0)
        twin, twin_validation = dataset, [ex for ex in validation if ex.unanswerable]
        answerable = [ex for ex in validation if not ex.unanswerable]
    # validation rows tuning decoded (a method with one setting, which tuning skips, decodes them here); a file with
    # unanswerable rows of its own gets its table untuned too: choosing the threshold is what its rows are for
    if (run.tune or twin == dataset) and answerable and run.threshold is not None:
        report.setdefault("abstention", {})[dataset] = {
            spec: abstention_table(run, dataset, answerable, twin, twin_validation, spec, chosen[spec])
            for spec in methods if PROMPTED not in spec and not as_read(spec)}


def _pooled_settings(run: EvalRun, sets: list[tuple[str, list[Example], list[Example], list[Example]]],
                     methods: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Each method's one setting for every file, chosen on their validation rows pooled (``--pool``), with the
    per-file validation scores of every setting it tried."""
    tuner = Tuner(run.decoder, run.ckpt, run.batch_size, run.max_new_tokens)
    validation = {dataset: rows for dataset, _, _, rows in sets}
    out = {}
    for spec in methods:
        method, grid = run.grids[spec]
        params, table = tuner.pooled(validation, method, grid)
        out[spec] = {"params": params, "table": table}
        print(f"{spec}: {params or 'no setting to choose'} on the pooled validation rows")
    return out


def _checked_data(data: Sequence[str], distractors: int, split: str, limit: int | None,
                  rename_seed: int | None = None) -> dict[str, list[Example]]:
    """Every data file read and its rows checked before the model loads (and by a dry run, which loads none); with
    ``rename_seed``, each attack file with its attackers' answers renamed (:func:`rename_attacks`)."""
    files = {path: data_variant(path, distractors)[0] for path in data}
    loaded = {path: load_examples(file) for path, file in files.items()}
    if rename_seed is not None:
        loaded = {path: rename_attacks(examples, rename_seed) for path, examples in loaded.items()}
    for path, examples in loaded.items():
        _test_rows(examples, files[path], split, limit)
    return loaded


def _check_tuning(tune: bool, pool: bool, split: str) -> None:
    """Options that need tuning, or leave no row to tune on, refused with the fix."""
    if pool and not tune:
        raise InputError("--pool chooses every method's setting on the pooled validation rows; drop --no-tune")
    if split == "all" and tune:
        raise InputError("--split all scores every row, so no row is left to tune on: add --no-tune (a blind set "
                         "is decoded at its settings as given), or choose --split test")


def run_eval(data: Sequence[str], methods: Sequence[str], model: str | None = None, limit: int | None = None,
             backend: str = "auto", split: str = "test", out: str = "runs/eval", batch_size: int = 8,
             max_new_tokens: int = 16, tune: bool = True, validation_limit: int = 100, resamples: int = 10_000,
             latency: bool = True, distractors: int = 0, seed: int = 0, inject: bool = False, loglik: bool = True,
             trusted: bool = False, unanswerable: bool = False, support_threshold: float | None = SUPPORT_THRESHOLD,
             dry_run: bool = False, pool: bool = False, rename: bool = False, spread: bool = False) -> dict[str, Any]:
    """Tune every method on the validation split, run the chosen setting on the test split, report.

    ``distractors`` adds that many passages of other questions of the same file to every row, at
    seeded random positions (robustness to irrelevant retrieved passages). ``inject`` appends an
    instruction dictating another answer to one passage of every row; ``hijacked`` is the share of
    answers that contain the dictated answer. ``loglik=False`` leaves out MemoTrap's log-likelihood scoring of
    the test rows (generation accuracy, what MemoTrap is tuned and judged by, stays): it scores one row at a time
    and takes hours for the three-stream copying methods on a laptop CPU. ``trusted`` declares every passage the
    caller's own (``Document.trusted``; the data set's name gains ``+trusted``). ``unanswerable`` also decodes every
    file's unanswerable twin (each row's passages replaced by other rows': the data set ``+unanswerable``, whose main
    metric is the share of answers withheld) at the settings tuned on the file, and reports the abstention table of
    :func:`abstention_table`. An answer whose support is below ``support_threshold`` is scored as withheld (wrong).
    ``dry_run`` checks the methods, options and data files and prints the plan, without loading the model. ``pool``
    chooses each method's setting once, on every file's validation rows pooled (each file weighing the same), and
    reports how much of each validation margin over standard and CAD the test rows kept. A ``data`` entry
    ``FILE+Kdistractors`` is that file with K distractors whatever ``distractors`` says, so one run can pool a file
    with and without them. ``rename``: :func:`rename_attacks` on each attack file (seeded by ``seed``; ``+renamed``).
    ``spread``: the limits take a sample over the whole split rather than its first rows (:func:`limited`)."""
    any_distractors = distractors or any(data_variant(path, 0)[1] for path in data)
    grids = _checked_plan(data, methods, trusted and bool(any_distractors or inject or unanswerable), support_threshold)
    _check_tuning(tune, pool, split)
    loaded = _checked_data(data, distractors, split, limit, seed if rename else None)
    if dry_run:
        print(f"would evaluate {', '.join(data)} ({split} split, limit {limit}) with "
              + ", ".join(f"{m} ({len(grid)} setting{'s' if len(grid) > 1 else ''})" for m, (_, grid) in grids.items())
              + (", each setting chosen once on every file's validation rows pooled" if pool else "") + f" into {out}")
        return {}
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    run = EvalRun(GroundedDecoder.from_pretrained(model, backend=backend), grids,
                  Checkpoint(out_dir / "generations.jsonl"), split, limit, validation_limit, distractors, seed, inject,
                  trusted, unanswerable, tune, batch_size, max_new_tokens, resamples, loglik, support_threshold,
                  rename, spread)
    print("tuning grids (same budget for every tunable method):",
          ", ".join(f"{m}={len(grid)}" for m, (_, grid) in grids.items()))
    report: dict[str, Any] = {"model": run.decoder.name, "split": split, "grids": {m: g for m, (_, g) in grids.items()},
                              "protocol": _protocol(run), "datasets": {}}
    sets = [_rows(run, path, methods, loaded[path]) for path in data]
    pooled = _pooled_settings(run, sets, methods) if pool else None
    for dataset, examples, test, validation in sets:
        _evaluate_file(run, report, dataset, examples, test, validation, methods,
                       None if pooled is None else {spec: entry["params"] for spec, entry in pooled.items()})
    if pooled is not None:
        report["pooled"] = {"settings": pooled, "margins": margins(report, pooled, REFERENCES)}
    if latency:
        names = list(dict.fromkeys(name for name, _ in grids.values()))  # extractive masks cost no forward pass
        report["latency"] = latency_table(run.decoder, names, loaded[data[0]][0], model, backend=backend)
    write_atomic(out_dir / "report.json", json.dumps(report, indent=2))
    markdown = to_markdown(report)
    write_atomic(out_dir / "report.md", markdown)
    plot(report, out_dir)
    print(markdown)
    return report
