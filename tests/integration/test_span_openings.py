"""grounded_rag.evaluation.span_openings on the packaged model: where the memory-extract ablation opens a span, and
what the question gate would say of its opening."""

from __future__ import annotations

import json
from pathlib import Path

from grounded_rag.evaluation.span_openings import openings

DATA = Path(__file__).parents[2] / "cookbook" / "data" / "counterfactuals.jsonl"


def test_an_opening_after_a_restatement_lacks_the_questions_support_and_one_at_the_first_token_has_it(decoder,
                                                                                                      tmp_path):
    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines()]
    chosen = [r for r in rows if r["id"] in {"capital-united-kingdom-alone", "pyramids-of-giza-alone",
                                              "louvre-alone"}]
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in chosen), encoding="utf-8")
    records = {r["id"]: r for r in openings(decoder, data, "validation")}
    # beside the Brussels passage memory's " Paris" speaks, but no token of the passage has 2 nats of evidence there
    # (" Brussels" 1.96): no span opens
    assert set(records) == {"capital-united-kingdom-alone", "pyramids-of-giza-alone"}
    uk, pyramids = records["capital-united-kingdom-alone"], records["pyramids-of-giza-alone"]
    assert uk["before"].strip() == "The capital of the United Kingdom is" and uk["opening"] == " Manchester"
    assert uk["pmi_documents"] > 2 and uk["pmi_question"] < 0 and not uk["gate_passes"]  # the passage alone says it
    assert pyramids["before"] == "" and pyramids["opening"] == " Sudan" and pyramids["gate_passes"]
    assert "Manchester" in uk["answer"] and "Sudan" in pyramids["answer"]
