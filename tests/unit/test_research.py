"""The research scripts of ``cookbook/research`` (not the package), model-free: the quote table that chose
``quote_threshold`` and the instruction probe's passages and report."""

from __future__ import annotations

import json

from grounded_rag.evaluation.metrics import auc
from grounded_rag.evaluation.protocol import PROTOCOL

from .cookbook import DATA_DIR, research


def test_the_quote_table_replaces_only_withheld_answers_with_quotes_that_reach_the_threshold(tmp_path):
    rows = {"a": {"question": "Who painted it?", "answers": ["Gauguin"]},
            "b": {"question": "Which planet is red?", "answers": ["Venus"]}}
    free, quote = '{"pmi_gate": 1.0}', '{"extractive": true, "pmi_gate": 1.0}'
    records = [("s", "a", free, "van Gogh", 0.1), ("s", "a", quote, "an oil painting by Paul Gauguin", 0.85),
               ("s", "b", free, "Venus", 0.9), ("s", "b", quote, "Venus", 0.99),
               ("s+unanswerable", "b", free, "Mars", 0.2), ("s+unanswerable", "b", quote, "planet is red", 0.95)]
    path = tmp_path / "generations.jsonl"
    path.write_text("\n".join(json.dumps({"key": f"{PROTOCOL}|gen|{ds}|grounded_contrast|{params}|{i}", "id": i,
                                          "text": text, "support": support})
                              for ds, i, params, text, support in records))
    table = {(line["set"], line["quote_threshold"]): (line["right"], line["shown"])
             for line in research("quote_table").quote_table(rows, path, "grounded_contrast")}
    assert table[("s", None)] == (1, 1), "no quote: the withheld answer stays withheld"
    assert table[("s", 0.8)] == (2, 2) and table[("s", 0.9)] == (1, 1)
    assert table[("s+unanswerable", 0.8)] == (0, 0), "a quote that only restates the question is not shown"


def test_instruction_probe_splits_attack_passages_and_scores_them():
    """The probe's attack passages are those spelling the attacker's answer; the report's AUC and flagged counts."""
    probe = research("instruction_probe")
    attacks, clean = probe.passages(DATA_DIR, None)
    assert len(attacks) > 150 and {name for name, _ in attacks} == set(probe.ATTACK_SETS)
    assert {name for name, _ in clean} == set(probe.ATTACK_SETS) | {"counterfactuals"}
    assert auc([2.0, 3.0], [1.0, 2.0]) == 0.875
    result = probe.report([("prose_injection", 18.5), ("prose_injection_fresh", 0.0)],
                          [("counterfactuals", float(i)) for i in range(20)])  # one clean passage in 20 above the cut
    assert result["flagged_at_5pct_clean"]["prose_injection"] == "1/1"
    assert result["flagged_at_5pct_clean"]["prose_injection_fresh"] == "0/1" and result["auc"] == round(19.5 / 40, 3)
