"""How a quote in place of a withheld answer would score, for each quote threshold: the table that chose
``DecodingConfig.quote_threshold`` on validation rows.

``python cookbook/research/quote_table.py --data FILE --generations RUN/generations.jsonl``, where RUN is the
``--out`` of ``grounded-rag eval --data FILE --split validation --no-tune --methods M,M+extractive`` (add
``--unanswerable`` for the twins): each row's answer of ``M`` is withheld where its support is below the support
threshold, and then replaced by the same row's ``M+extractive`` answer where that quote's support reaches the quote
threshold and it says more than the question (:func:`~grounded_rag.support.says_more_than`), as the decoder does.
For each threshold: right answers (the answer holds a gold answer), answers shown, and, for the unanswerable twins,
answers shown where none should be.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from grounded_rag.config import SUPPORT_THRESHOLD
from grounded_rag.evaluation.checkpoint import read_records
from grounded_rag.evaluation.metrics import substring_match
from grounded_rag.evaluation.protocol import PROTOCOL
from grounded_rag.support import says_more_than

THRESHOLDS = (None, 0.35, 0.5, 0.6, 0.7, 0.8, 0.9)  # None: no quote, the answer withheld as without the option


def _records(generations: Path, method: str) -> dict[tuple[str, str], dict[str, dict[str, Any]]]:
    """(dataset, row id) -> {"free": record, "quote": record} for ``method`` and ``method+extractive`` (the same
    settings but ``extractive``; a run's other options, e.g. ``+quoted``, are not either)."""
    by_params: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
    for record in read_records(generations):
        key = record.get("key", "").split("|")
        if key[0] != PROTOCOL or len(key) < 5 or key[3] != method:
            continue
        by_params.setdefault((key[2], record["id"]), {})[key[4]] = record
    out = {}
    for row, records in by_params.items():
        for params, record in records.items():
            settings = json.loads(params)
            if settings.pop("extractive", False):
                free = next((r for p, r in records.items() if json.loads(p) == settings), None)
                if free is not None:
                    out[row] = {"free": free, "quote": record}
    return out


def quote_table(rows: dict[str, dict[str, Any]], generations: Path, method: str,
                support_threshold: float = SUPPORT_THRESHOLD) -> list[dict[str, Any]]:
    """One line per dataset (the file's and its unanswerable twin) and threshold: rows, right, shown."""
    table: dict[tuple[str, float | None], dict[str, Any]] = {}
    for (dataset, row_id), pair in sorted(_records(generations, method).items()):
        row, free, quote = rows[row_id], pair["free"], pair["quote"]
        unanswerable = dataset.endswith("+unanswerable")
        for threshold in THRESHOLDS:
            shown = free if free["support"] >= support_threshold else None
            if shown is None and threshold is not None and quote["support"] >= threshold \
                    and says_more_than(row["question"], quote["text"]):
                shown = quote
            line = table.setdefault((dataset, threshold), {"set": dataset, "quote_threshold": threshold, "rows": 0,
                                                           "right": 0, "shown": 0})
            line["rows"] += 1
            line["shown"] += shown is not None
            line["right"] += shown is not None and not unanswerable and bool(substring_match(shown["text"],
                                                                                              row["answers"]))
    return list(table.values())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True, type=Path)
    parser.add_argument("--generations", required=True, type=Path)
    parser.add_argument("--method", default="grounded_contrast")
    ns = parser.parse_args(argv)
    rows = {r["id"]: r for r in (json.loads(x) for x in ns.data.read_text(encoding="utf-8").splitlines() if x.strip())}
    print("| set | quote threshold | rows | right | shown |\n|---|---|---|---|---|")
    for line in quote_table(rows, ns.generations, ns.method):
        threshold = "none" if line["quote_threshold"] is None else line["quote_threshold"]
        print(f"| {line['set']} | {threshold} | {line['rows']} | {line['right']} | {line['shown']} |")


if __name__ == "__main__":
    main()
