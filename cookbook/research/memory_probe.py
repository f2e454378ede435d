"""Why an answer from memory beat the document: the first answer token of each miss, read off the three streams.

``python cookbook/research/memory_probe.py --data FILE --generations RUN/generations.jsonl``: for every
counterfactual row (``conflict``) whose recorded answer misses the document's answer and opens with the memorized one
(``parametric_answer``), the full stream (question and documents) and the question-only stream are read at the
answer's first token under the eval's own prompts. It counts the rows where the document's first token is inside the
default's plausible head, where the evidence contrast PMI(y; D | x) = log p_full - log p_q favours it over the
memorized token, and where the default's weight a_t = pmi_alpha JS(p_full, p_q) / log 2 is enough to let it win; and
it gives the weight each row would need (the memorized token's lead over the document's, divided by the document's
lead in the contrast). It answers "what would it take", not "what a method does": no method's steps run.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

from grounded_rag.config import DecodingConfig
from grounded_rag.decoder import GroundedDecoder
from grounded_rag.evaluation.ablations import register as register_ablations
from grounded_rag.evaluation.checkpoint import read_records
from grounded_rag.evaluation.protocol import PROTOCOL, base_config
from grounded_rag.methods import conflict, get_method


def _misses(rows: list[dict[str, Any]], generations: Path, method: str, params: str) -> list[dict[str, Any]]:
    """The conflict rows whose answer under ``method`` with ``params`` (as in the checkpoint key) has none of the
    document's answers."""
    answers = {}
    for record in read_records(generations):
        key = record["key"].split("|")
        if key[0] == PROTOCOL and key[3] == method and key[4] == params:
            answers[record["id"]] = record["text"]
    return [r for r in rows if r.get("conflict") and r["id"] in answers
            and not any(a.lower() in answers[r["id"]].lower() for a in r["answers"])]


def _first_token(decoder: GroundedDecoder, text: str) -> int:
    return decoder.tokenizer.encode(" " + text, add_special_tokens=False)[0]


def _next_token(decoder: GroundedDecoder, prompt: str) -> torch.Tensor:
    ids = decoder.tokenizer(prompt, return_tensors="pt", add_special_tokens=False).input_ids
    with torch.no_grad():
        return torch.log_softmax(decoder.model(ids).logits[0, -1].float(), dim=-1)


def probe_row(decoder: GroundedDecoder, row: dict[str, Any], config: DecodingConfig) -> dict[str, Any] | None:
    """The first-token figures of one miss, or None where the full stream's first token is not the memorized one."""
    request = decoder.prepare(row["question"], row["documents"], None, config, get_method(config.method))
    full = _next_token(decoder, request.prompts.full)
    question_only = _next_token(decoder, request.prompts.references[request.prompts.reference_kinds.index("query")])
    memory, document = _first_token(decoder, row["parametric_answer"][0]), _first_token(decoder, row["answers"][0])
    if int(full.argmax()) != memory:
        return None
    lead = float(full[memory] - full[document])
    contrast = float((full[document] - question_only[document]) - (full[memory] - question_only[memory]))
    weight = config.pmi_alpha * float(conflict(full[None], question_only[None])[0])
    return {"id": row["id"], "p_full_memory": round(float(full[memory].exp()), 4),
            "p_full_document": round(float(full[document].exp()), 4),
            "in_head": float(full[document]) >= float(full.max()) + math.log(config.plausibility),
            "contrast_favours_document": contrast > 0, "weight": round(weight, 3),
            "weight_needed": round(lead / contrast, 3) if contrast > 0 else None}


def probe(data: Path, generations: Path, method: str, params: str, decoder: GroundedDecoder) -> dict[str, Any]:
    """Every miss of ``method`` (a menu method or a research ablation) on ``data`` probed; the counts and the rows."""
    register_ablations()
    rows = [json.loads(line) for line in data.read_text(encoding="utf-8").splitlines() if line.strip()]
    misses = _misses(rows, generations, method, params)
    config = base_config(method, json.loads(params), max_new_tokens=32)
    probed = [p for p in (probe_row(decoder, row, config) for row in misses) if p is not None]
    needed = [p["weight_needed"] for p in probed if p["weight_needed"] is not None]
    return {"misses": len(misses), "memorized_first": len(probed),
            "document_in_head": sum(p["in_head"] for p in probed),
            "contrast_favours_document": sum(p["contrast_favours_document"] for p in probed),
            "weight_enough": sum(p["weight_needed"] is not None and p["weight_needed"] <= p["weight"] for p in probed),
            "median_weight": statistics.median(p["weight"] for p in probed) if probed else None,
            "median_weight_needed": statistics.median(needed) if needed else None, "rows": probed}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--generations", type=Path, required=True, help="an eval run's generations.jsonl")
    parser.add_argument("--method", default="grounded_contrast")
    parser.add_argument("--params", default='{"pmi_gate": 0.5}', help="the tuned setting, as in the run's report")
    parser.add_argument("--model", default=None)
    args = parser.parse_args(argv)
    decoder = GroundedDecoder.from_pretrained(args.model)
    print(json.dumps(probe(args.data, args.generations, args.method, args.params, decoder), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
