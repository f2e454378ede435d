"""The research scripts of ``cookbook/research`` on the packaged model: a miss from memory read off the streams
(``memory_probe``), and where the memory-extract ablation opens a span and what the question gate would say of its
opening (``span_openings``)."""

from __future__ import annotations

import json

from grounded_rag.evaluation.protocol import PROTOCOL

from ..unit.cookbook import DATA_DIR, research

DATA = DATA_DIR / "counterfactuals.jsonl"
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
    out = research("memory_probe").probe(DATA, generations, "grounded_contrast", PARAMS, decoder)
    assert out["misses"] == 1 and out["memorized_first"] == 1
    (row,) = out["rows"]
    assert row["id"] == "eiffel-tower-alone" and row["p_full_memory"] > row["p_full_document"] > 0
    assert out["document_in_head"] == row["in_head"] and out["weight_enough"] <= 1
    if row["contrast_favours_document"]:  # the weight that would let the document's token win exceeds the default's
        assert row["weight_needed"] > 0
    assert 0 <= row["weight"] <= 4.0  # pmi_alpha JS / log 2, JS at most log 2


def test_an_opening_after_a_restatement_lacks_the_questions_support_and_one_at_the_first_token_has_it(decoder,
                                                                                                      tmp_path):
    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines()]
    chosen = [r for r in rows if r["id"] in {"capital-united-kingdom-alone", "pyramids-of-giza-alone",
                                              "louvre-alone"}]
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in chosen), encoding="utf-8")
    records = {r["id"]: r for r in research("span_openings").openings(decoder, data, "validation")}
    # beside the Brussels passage memory's " Paris" speaks, but no token of the passage has 2 nats of evidence there
    # (" Brussels" 1.96): no span opens
    assert set(records) == {"capital-united-kingdom-alone", "pyramids-of-giza-alone"}
    uk, pyramids = records["capital-united-kingdom-alone"], records["pyramids-of-giza-alone"]
    assert uk["before"].strip() == "The capital of the United Kingdom is" and uk["opening"] == " Manchester"
    assert uk["pmi_documents"] > 2 and uk["pmi_question"] < 0 and not uk["gate_passes"]  # the passage alone says it
    assert pyramids["before"] == "" and pyramids["opening"] == " Sudan" and pyramids["gate_passes"]
    assert "Manchester" in uk["answer"] and "Sudan" in pyramids["answer"]


def test_the_answerability_probe_reads_one_state_per_kept_layer_with_each_rows_label_and_article(decoder, tmp_path):
    def row(i: int, title: str, answerable: bool) -> dict:
        own = {"title": title, "text": f"{title} has {i + 3} bridges over its river."}
        others = [{"title": title, "text": f"{title} holds a market every {d}th day."} for d in (5, 7)]
        return {"id": f"r{i}", "question": f"How many bridges does {title} have?", "documents": [own],
                "distractors": others, "answers": [str(i + 3)] if answerable else [], "answerable": answerable}

    data = tmp_path / "squad.jsonl"
    data.write_text("".join(json.dumps(row(i, t, a)) + "\n"
                            for i, (t, a) in enumerate([("Avon", True), ("Bree", False), ("Cale", True)])))
    probe = research("answerability_probe")
    out = probe.states(decoder, probe.rows_of(data, "all", 3))
    layers = decoder.model.config.num_hidden_layers // probe.EVERY
    assert out["states"].shape == (3, layers, decoder.model.config.hidden_size)
    assert dict(zip(out["article"], out["answerable"])) == {"Avon": True, "Bree": False, "Cale": True}
    assert len({s.tobytes() for s in out["states"][:, -1]}) == 3  # each row its own prompt's state
