"""grounded_rag.evaluation.memory_probe on the packaged model: a miss from memory, read off the streams."""

from __future__ import annotations

import json
from pathlib import Path

from grounded_rag.evaluation.memory_probe import probe
from grounded_rag.evaluation.protocol import PROTOCOL

DATA = Path(__file__).parents[2] / "cookbook" / "data" / "counterfactuals.jsonl"
PARAMS = '{"pmi_gate": 0.5}'


def _record(row_id: str, text: str, method: str = "grounded_contrast") -> str:
    return json.dumps({"key": f"{PROTOCOL}|gen|counterfactuals|{method}|{PARAMS}|{row_id}", "id": row_id, "text": text})


def test_a_memorized_answer_is_probed_and_a_followed_one_is_not(decoder, tmp_path):
    generations = tmp_path / "generations.jsonl"
    generations.write_text("\n".join([
        _record("eiffel-tower-alone", "Paris"),  # the document says Marseille; the model knows Paris
        _record("capital-france-alone", "Lyon"),  # followed the document: not a miss
        _record("colosseum-alone", "Rome", method="cad"),  # another method's record
    ]) + "\n")
    out = probe(DATA, generations, "grounded_contrast", PARAMS, decoder)
    assert out["misses"] == 1 and out["memorized_first"] == 1
    (row,) = out["rows"]
    assert row["id"] == "eiffel-tower-alone" and row["p_full_memory"] > row["p_full_document"] > 0
    assert out["document_in_head"] == row["in_head"] and out["weight_enough"] <= 1
    if row["contrast_favours_document"]:  # the weight that would let the document's token win exceeds the default's
        assert row["weight_needed"] > 0
    assert 0 <= row["weight"] <= 4.0  # pmi_alpha JS / log 2, JS at most log 2
