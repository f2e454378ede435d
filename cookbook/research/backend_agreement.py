"""Do two backends answer alike? Two ``grounded-rag eval`` runs of the same data, methods and settings, one per
backend, matched by method and row id.

``python cookbook/research/backend_agreement.py --data FILE TORCH_RUN/generations.jsonl LLAMA_RUN/generations.jsonl``
prints, per method: the rows both runs decoded, the share whose answers are the same after SQuAD's normalisation,
each run's substring match of the gold answers on those rows (NQ-Swap's: the answer follows the passage) and the
paired bootstrap CI of their difference. docs/backends.md cites it with the eval commands it reads.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from grounded_rag.evaluation.bootstrap import bootstrap_ci, paired_difference_ci, resample_indices
from grounded_rag.evaluation.metrics import normalize_answer, substring_match


def answers_by_method(generations: Path) -> dict[str, dict[str, str]]:
    """{method: {row id: answer}} of an eval run's decoded answers (its key: protocol|gen|data|method|settings|id)."""
    out: dict[str, dict[str, str]] = {}
    for record in map(json.loads, generations.open(encoding="utf-8")):
        kind, method = record["key"].split("|")[1], record["key"].split("|")[3]
        if kind == "gen":
            out.setdefault(method, {})[record["id"]] = record["text"]
    return out


def agreement(a: dict[str, dict[str, str]], b: dict[str, dict[str, str]], gold: dict[str, list[str]]
              ) -> list[dict[str, object]]:
    """Per method both runs decoded: rows, share of equal answers (with its CI), each run's substring match and the
    CI of a − b."""
    table = []
    for method in sorted(set(a) & set(b)):
        ids = sorted(set(a[method]) & set(b[method]) & set(gold))
        if not ids:
            continue
        same = [float(normalize_answer(a[method][i]) == normalize_answer(b[method][i])) for i in ids]
        hits_a = [substring_match(a[method][i], gold[i]) for i in ids]
        hits_b = [substring_match(b[method][i], gold[i]) for i in ids]
        draws = resample_indices(len(ids))
        table.append({"method": method, "rows": len(ids), "same": bootstrap_ci(same, draws),
                      "substring_a": sum(hits_a) / len(ids), "substring_b": sum(hits_b) / len(ids),
                      "difference": paired_difference_ci(hits_a, hits_b, draws)})
    return table


def main() -> None:
    from grounded_rag.evaluation.data import load_examples

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True, type=Path, help="the JSONL file both runs decoded")
    parser.add_argument("run_a", type=Path, help="the first run's generations.jsonl (say, torch)")
    parser.add_argument("run_b", type=Path, help="the second run's generations.jsonl (say, llama.cpp)")
    ns = parser.parse_args()
    gold = {ex.id: list(ex.answers) for ex in load_examples(ns.data)}
    for row in agreement(answers_by_method(ns.run_a), answers_by_method(ns.run_b), gold):
        same, diff = row["same"], row["difference"]
        print(f"{row['method']}: {row['rows']} rows, same answer {same[0]:.1%} [{same[1]:.1%}, {same[2]:.1%}]; "
              f"substring {row['substring_a']:.1%} (a) vs {row['substring_b']:.1%} (b), a - b {diff[0]:+.1%} "
              f"[{diff[1]:+.1%}, {diff[2]:+.1%}]")


if __name__ == "__main__":
    main()
