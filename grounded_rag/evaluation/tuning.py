"""Choosing each method's setting on validation rows: per data file (the default), or once for every file pooled
(``grounded-rag eval --pool``), so that a setting that only suits one benchmark cannot carry the others."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..decoder import GroundedDecoder
from .checkpoint import Checkpoint
from .data import Example
from .generation import generate_records
from .memotrap import generation_scores, memotrap_generations
from .metrics import substring_match


def main_metric(memotrap: bool) -> str:
    """What a data file is tuned by and judged by, in one place so that the two cannot drift apart."""
    return "generation_accuracy" if memotrap else "substring"


def is_memotrap(examples: Sequence[Example]) -> bool:
    return all(ex.choices for ex in examples[:5])


@dataclass(frozen=True)
class Tuner:
    """What decoding a validation row takes: the model, the checkpoint that makes a rerun free, the batch and budget."""

    decoder: GroundedDecoder
    ckpt: Checkpoint
    batch_size: int
    max_new_tokens: int

    def score(self, examples: list[Example], dataset: str, method: str, params: dict[str, Any]) -> float:
        """The share of ``examples`` a method at ``params`` gets right on the file's main metric."""
        if not examples:
            return 0.0
        if is_memotrap(examples):
            recs = memotrap_generations(self.decoder, examples, dataset, method, params, self.ckpt, self.batch_size)
            hits = generation_scores(recs, examples)["generation_accuracy"]
        else:
            recs = generate_records(self.decoder, examples, dataset, method, params, self.ckpt, self.batch_size,
                                    self.max_new_tokens, f"{dataset}: tune {method} {params}")
            hits = [substring_match(r["text"], ex.answers) for r, ex in zip(recs, examples)]
        return sum(hits) / len(examples)

    def tune(self, examples: list[Example], dataset: str, method: str,
             grid: list[dict[str, Any]]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The grid's setting with the best validation score on one file (the first best on ties: the smaller)."""
        if len(grid) == 1:
            return grid[0], []
        metric = f"validation_{main_metric(is_memotrap(examples))}"
        scored = [{"params": params, metric: self.score(examples, dataset, method, params)} for params in grid]
        best = max(scored, key=lambda row: row[metric])
        return best["params"], scored

    def pooled(self, sets: dict[str, list[Example]], method: str,
               grid: list[dict[str, Any]]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The grid's setting with the best mean validation score over ``sets`` (data set name → validation rows),
        each set weighing the same whatever its size; every setting's per-set scores beside it. A method with one
        setting is scored too: the margins of the others are read against it."""
        table = []
        for params in grid:
            per_set = {name: self.score(rows, name, method, params) for name, rows in sets.items()}
            table.append({"params": params, "per_set": per_set, "mean": sum(per_set.values()) / max(len(per_set), 1)})
        best = max(table, key=lambda row: row["mean"])
        return best["params"], table


def margins(report: dict[str, Any], pooled: dict[str, Any], against: Sequence[str]) -> dict[str, Any]:
    """For every method and each method in ``against`` the run has, per pooled data set: the main-metric margin on
    validation rows (at the pooled settings), the paired one on test rows (mean, low, high), and the share of the
    first that the second kept (none where the validation margin was not positive)."""
    out: dict[str, Any] = {}
    for spec, chosen in pooled.items():
        for ref in (r for r in against if r != spec and r in pooled):
            rows = {}
            for name, valid_self in _at(chosen)["per_set"].items():
                d = report["datasets"][name]
                valid = valid_self - _at(pooled[ref])["per_set"][name]
                test = d["methods"][spec]["diffs_vs"][ref][d["main_metric"]]
                rows[name] = {"validation": valid, "test": test, "kept": test[0] / valid if valid > 0 else None}
            out[f"{spec} vs {ref}"] = rows
    return out


def _at(entry: dict[str, Any]) -> dict[str, Any]:
    """The tuning table's row of the setting that was chosen."""
    return next(row for row in entry["table"] if row["params"] == entry["params"])
