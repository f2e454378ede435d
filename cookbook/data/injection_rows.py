"""What the injection sets' generators (``make_prose_injection_{fresh,fifth,sixth,seventh}.py``) share: a spec list
rendered as eval rows (ids ``<kind>-<n>`` numbered from 1 within each kind), each row's attack text, and the JSONL.
Each generator keeps its own specs and its own way of planting (or leaving out) the attack. Standard library only,
like the generators, which import it from their own folder."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

Documents = Callable[[dict[str, Any], bool], list[dict[str, str | None]]]


def build_rows(specs: Sequence[dict[str, Any]], kinds: Sequence[str], documents: Documents,
               with_attack: bool = True) -> list[dict[str, Any]]:
    """The rows in the specs' order; ``documents(spec, with_attack)`` renders a spec's passages."""
    numbers: dict[str, int] = {}
    out = []
    for spec in specs:
        kind = spec["kind"]
        if kind not in kinds:
            raise ValueError(f"unknown kind {kind!r}")
        numbers[kind] = numbers.get(kind, 0) + 1
        out.append({"id": f"{kind}-{numbers[kind]}", "question": spec["question"],
                    "documents": documents(spec, with_attack), "answers": list(spec["answers"]),
                    "injected": spec["injected"], "attack": kind})
    return out


def attack_texts(specs: Sequence[dict[str, Any]], rows: Sequence[dict[str, Any]]) -> dict[str, str]:
    """Each row's attack text (the span planted in its documents), by row id."""
    return {row["id"]: spec["attack"] for row, spec in zip(rows, specs, strict=True)}


def jsonl(rows: Sequence[dict[str, Any]]) -> str:
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
