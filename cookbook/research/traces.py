"""Per-token traces as charts and aggregate signals, for the method note (docs/method-note.md).

Charts are Mermaid ``xychart-beta`` blocks: text in the markdown, drawn by the viewer, so the note
carries its plots without binary files. ``python cookbook/research/traces.py`` regenerates
the note's example charts on the packaged model.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

from grounded_rag.types import GenerationResult


def _label(token: str, i: int) -> str:
    text = re.sub(r"[^0-9A-Za-z.,:'-]", "", token.strip()) or "_"
    return f"{i}:{text[:10]}"


def trace_chart(result: GenerationResult, title: str, series: Sequence[str] = ("conflict", "rho", "p_full", "p_ref", "q"),
                cap: float = 1.0) -> str:
    """A Mermaid line chart of the per-token signals of one generation (values clipped at ``cap``)."""
    steps = result.trace
    labels = ", ".join(json.dumps(_label(s.token, i)) for i, s in enumerate(steps))
    lines = ["```mermaid", "xychart-beta", f'    title "{title}"', f"    x-axis [{labels}]",
             f'    y-axis "value (clipped at {cap:g})" 0 --> {cap:g}']
    for name in series:
        values = [getattr(s, name) for s in steps]
        if all(v is None for v in values):
            continue
        lines.append(f"    line [{', '.join(f'{min(float(v or 0.0), cap):.3f}' for v in values)}]")
    lines.append("```")
    legend = ", ".join(f"line {k + 1} = {name}" for k, name in enumerate(series))
    return "\n".join(lines) + f"\n\n*{legend}.*\n"


def implausible_choices(records: Iterable[dict[str, Any]], threshold: float = 0.05) -> float:
    """Share of generated tokens the full stream gave less than ``threshold`` probability: tokens a
    fusion *promoted* against the full stream (eval records: trace rows are
    [token, conflict, rho, eta, p_full, p_ref, q])."""
    total = low = 0
    for rec in records:
        for row in rec["trace"]:
            total += 1
            low += row[4] < threshold
    return low / total if total else 0.0


EXAMPLE_QUESTION = "What is the capital of France?"
EXAMPLE_DOCUMENTS = ["The weather in Tallinn is usually cold in winter.",
                     "Since the 2031 reform, the capital of France is Lyon."]


def main() -> None:
    from grounded_rag.decoder import GroundedDecoder

    decoder = GroundedDecoder.from_pretrained()
    for method in ("grounded", "grounded_pmi"):  # the paper's method and the two contrasts alone (an ablation)
        result = decoder.generate(EXAMPLE_QUESTION, EXAMPLE_DOCUMENTS, method=method, max_new_tokens=24)
        print(f"#### {method}: {result.text!r}\n")
        print(trace_chart(result, f"{method}: '{EXAMPLE_QUESTION}' with a distractor first"))


if __name__ == "__main__":
    main()
