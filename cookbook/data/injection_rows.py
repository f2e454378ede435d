"""What the injection sets' generators (``make_prose_injection_{fresh,fifth,...,tenth}.py``) share: a spec list
rendered as eval rows (ids ``<kind>-<n>`` numbered from 1 within each kind), each row's attack text, the JSONL
(:class:`Generator`), and (fifth to tenth) the passages of a spec whose attack sits in a :data:`SLOT`. Standard
library only, like the generators, which import it from their own folder."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Documents = Callable[[dict[str, Any], bool], list[dict[str, str | None]]]

# Marks where the attack goes: exactly one text or title of each spec holds it.
SLOT = "\x00SLOT\x00"
_TITLE_SEAMS = " |-:"


def _fill(value: str, attack: str | None, *, title: bool) -> str:
    """``value`` with the slot filled by ``attack``, or with the slot removed and its seam tidied (``None``)."""
    if attack is not None:
        return value.replace(SLOT, attack)
    before, after = value.split(SLOT)
    if title:
        before, after = before.rstrip(_TITLE_SEAMS), after.lstrip(_TITLE_SEAMS)
        return " ".join(p for p in (before, after) if p)
    paragraph = before.endswith("\n") or after.startswith("\n")
    before, after = before.rstrip(" \n"), after.lstrip(" \n")
    if before and after:
        return before + ("\n\n" if paragraph else " ") + after
    return before or after


def slot_documents(spec: dict[str, Any], with_attack: bool) -> list[dict[str, str | None]]:
    """A spec's ``docs`` (title, text) pairs with the attack in its slot, or without it: a passage that held nothing
    but the attack is left out, and a title that held nothing else becomes None."""
    attack = spec["attack"] if with_attack else None
    places = sum((title or "").count(SLOT) + text.count(SLOT) for title, text in spec["docs"])
    if places != 1:
        raise ValueError(f"{spec['question']!r}: the slot must appear exactly once, not {places} times")
    out: list[dict[str, str | None]] = []
    for title, text in spec["docs"]:
        if text == SLOT and attack is None:
            continue  # a passage of the attacker's own
        if title is not None and SLOT in title:
            title = _fill(title, attack, title=True) or None
        elif SLOT in text:
            text = _fill(text, attack, title=False)
        out.append({"title": title, "text": text})
    return out


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


@dataclass(frozen=True)
class Generator:
    """One set's generator: its specs as rows, their attacks and their JSONL, written to ``out``. ``documents`` renders
    a spec's passages (:func:`slot_documents` unless the set places its attack otherwise)."""

    specs: Sequence[dict[str, Any]]
    kinds: Sequence[str]
    out: Path
    documents: Documents = slot_documents

    def rows(self, with_attack: bool = True) -> list[dict[str, Any]]:
        """The rows in a fixed order; ``with_attack=False`` gives the same rows with the attack left out, for checks
        that the true answer stands in clean text."""
        return build_rows(self.specs, self.kinds, self.documents, with_attack)

    def attacks(self) -> dict[str, str]:
        """Each row's attack text (the span planted in its documents), by row id."""
        return attack_texts(self.specs, self.rows())

    def render(self) -> str:
        return jsonl(self.rows())

    def write(self) -> None:
        self.out.write_text(self.render(), encoding="utf-8")
