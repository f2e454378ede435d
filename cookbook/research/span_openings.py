"""Where ``pmi_words_memory_extract`` opens a span, and whether the question gate would have let its opening through.

``python cookbook/research/span_openings.py --data FILE --split validation``: every row is decoded by the
ablation (at its grid's middle setting, under the eval's prompts) with one more post-fusion step that records each
span's opening token, the answer so far, the documents' evidence for it (PMI(y; D | x)) and the question's support
for it (PMI(y; x | D), what the default's question gate asks to exceed ``pmi_gate``). The opening is chosen without
the gate; this says what gating it would cost, row by row. It answers "what would a gate take", not what a method does.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from grounded_rag.decoder import GroundedDecoder
from grounded_rag.evaluation.ablations import register as register_ablations
from grounded_rag.evaluation.data import load_examples, split_examples
from grounded_rag.evaluation.protocol import base_config
from grounded_rag.methods import Method, PostStep, StepFusion, StepInputs, _pmi, _pmi_x, get_method

ABLATION = "pmi_words_memory_extract"


@dataclass
class _Recorder:
    """A post step that changes nothing and notes each span opening of one answer's decode (one row at a time): the
    step, the token the greedy answer takes there, and its two contrasts (the question's support as the question
    gate computes it)."""

    openings: list[dict[str, Any]] = field(default_factory=list)
    step: int = 0

    def __call__(self, fused: StepFusion, x: StepInputs) -> StepFusion:
        if fused.span_from is not None and bool(fused.span_from[0]) and x.lp_ref is not None:
            token = int(fused.log_q[0].argmax())
            self.openings.append({"step": self.step, "token": token,
                                  "pmi_documents": float(x.lp_full[0, token] - fused.reference[0, token]),
                                  "pmi_question": float(_pmi_x(_pmi(x.lp_full, x.lp_ref[:, 0]))[0, token])})
        self.step += 1
        return fused


def _logged(recorder: _Recorder) -> Method:
    """The ablation with ``recorder`` after its steps (not registered: it is this probe's alone)."""
    method = get_method(ABLATION)
    return replace(method, post=(*method.post, PostStep("record_openings", recorder)))


def openings(decoder: GroundedDecoder, data: Path, split: str, limit: int | None = None) -> list[dict[str, Any]]:
    """One record per span opened on ``data``'s ``split`` rows, each decoded alone: the row, its answer, the answer
    before the span, the opening token, its two contrasts, and whether the question gate (``pmi_gate``) would have
    let it through."""
    register_ablations()
    recorder = _Recorder()
    config, method = base_config(ABLATION, {"pmi_gate": 1.0}, max_new_tokens=16), _logged(recorder)
    records = []
    for example in split_examples(load_examples(data), split)[:limit]:
        recorder.openings, recorder.step = [], 0
        request = {"question": example.question, "documents": example.documents}
        (result,) = decoder.answer(decoder.plan([request], config, method), config, method)
        tokens = [step.token_id for step in result.trace]
        for opening in recorder.openings:
            records.append({"id": example.id, "answer": result.text,
                            "before": decoder.tokenizer.decode(tokens[:opening["step"]]),
                            "opening": decoder.tokenizer.decode([opening["token"]]),
                            "pmi_documents": round(opening["pmi_documents"], 2),
                            "pmi_question": round(opening["pmi_question"], 2),
                            "gate_passes": opening["pmi_question"] > config.pmi_gate, "gold": example.answers[:1]})
    return records


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--split", choices=["validation", "test"], default="validation")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--model", default=None)
    args = parser.parse_args(argv)
    records = openings(GroundedDecoder.from_pretrained(args.model), args.data, args.split, args.limit)
    for record in records:
        print(json.dumps(record, ensure_ascii=False))
    print(json.dumps({"spans_opened": len(records), "gate_passes": sum(r["gate_passes"] for r in records)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
