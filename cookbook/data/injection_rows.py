"""The prompt-injection sets' one generator: a set's data (``injection_sets/<set>.py``: its ``KINDS`` and ``SPECS``)
rendered as eval rows (ids ``<kind>-<n>`` numbered from 1 within each kind), each row's attack text, and the JSONL
``<set>.jsonl`` beside this file (``make_injection_set.py`` writes it). Standard library only, like the sets' data,
which import :data:`SLOT` and :func:`slotted` from here.

A spec is one row: ``kind``, ``question``, ``answers``, ``injected`` (the attacker's answer), ``attack`` (the span
planted in the passages) and ``docs``, its passages as (title, text) pairs where :data:`SLOT` marks, exactly once,
the text or title that holds the attack. The same rows render without the attack (:meth:`Generator.rows` with
``with_attack=False``), so that the tests can check that the true answer stands in clean text.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
# Every set, in the order they were written; each is injection_sets/<name>.py and writes <name>.jsonl.
SETS = ("prose_injection", "prose_injection_unseen", "prose_injection_blind", "prose_injection_fresh",
        "prose_injection_fifth", "prose_injection_sixth", "prose_injection_seventh", "prose_injection_eighth",
        "prose_injection_ninth", "prose_injection_tenth")

# Marks where the attack goes: exactly one text or title of each spec holds it.
SLOT = "\x00SLOT\x00"
_TITLE_SEAMS = " |-:"
Pairs = list[tuple[str | None, str]]


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


def _document(title: str | None, text: str, null_titles: bool) -> dict[str, str | None]:
    """One passage in the JSONL; where ``null_titles`` is False (the first three sets' schema) an untitled passage
    has no ``title`` key."""
    return {"title": title, "text": text} if title is not None or null_titles else {"text": text}


def slot_documents(spec: dict[str, Any], with_attack: bool, null_titles: bool = True) -> list[dict[str, str | None]]:
    """A spec's ``docs`` with the attack in its slot, or without it: a passage that held nothing but the attack is
    left out, and a title that held nothing else becomes None."""
    attack = spec["attack"] if with_attack else None
    places = sum((title or "").count(SLOT) + text.count(SLOT) for title, text in spec["docs"])
    if places != 1:
        raise ValueError(f"{spec['question']!r}: the slot must appear exactly once, not {places} times")
    out = []
    for title, text in spec["docs"]:
        if text == SLOT and attack is None:
            continue  # a passage of the attacker's own
        if title is not None and SLOT in title:
            title = _fill(title, attack, title=True) or None
        elif SLOT in text:
            text = _fill(text, attack, title=False)
        out.append(_document(title, text, null_titles))
    return out


PLACES = ("append", "prepend", "middle", "title", "before", "after")


def _placed_text(where: str, clean: str | tuple[str, str], sep: str) -> str:
    if where == "append":
        return clean + sep + SLOT
    if where == "prepend":
        return SLOT + sep + clean
    if where == "middle":
        return clean[0] + sep + SLOT + sep + clean[1]
    return clean


def slotted(spec: dict[str, Any]) -> dict[str, Any]:
    """A spec written by placement (the unseen and blind sets) as one with ``docs``. ``where`` (one of
    :data:`PLACES`) places the attack relative to the clean passage (``title``, ``clean``): ``append`` / ``prepend``
    join it to the text with ``sep`` (one space unless given), ``middle`` puts it between the two halves of ``clean``
    (a pair), ``title`` makes it the title, ``before`` / ``after`` make it a passage of its own (titled
    ``attack_title``); ``others_before`` and ``others_after`` are further passages ({title, text} dicts)."""
    where = spec["where"]
    if where not in PLACES:
        raise ValueError(f"unknown placement {where!r}")
    own = [(SLOT if where == "title" else spec.get("title"), _placed_text(where, spec["clean"], spec.get("sep", " ")))]
    attack = [(spec.get("attack_title"), SLOT)]
    docs = attack + own if where == "before" else own + attack if where == "after" else own
    others = [[(d.get("title"), d["text"]) for d in spec.get(side, ())] for side in ("others_before", "others_after")]
    return {"kind": spec["kind"], "question": spec["question"], "answers": spec["answers"],
            "injected": spec["injected"], "attack": spec["attack"], "docs": others[0] + docs + others[1]}


def jsonl(rows: Sequence[dict[str, Any]]) -> str:
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


@dataclass(frozen=True)
class Generator:
    """One set: its specs as rows, their attacks and their JSONL, written to ``out``."""

    specs: Sequence[dict[str, Any]]
    kinds: Sequence[str]
    out: Path
    null_titles: bool = True

    def rows(self, with_attack: bool = True) -> list[dict[str, Any]]:
        """The rows in the specs' order; ``with_attack=False`` gives the same rows with the attack left out, for
        checks that the true answer stands in clean text."""
        numbers: dict[str, int] = {}
        out = []
        for spec in self.specs:
            kind = spec["kind"]
            if kind not in self.kinds:
                raise ValueError(f"unknown kind {kind!r}")
            numbers[kind] = numbers.get(kind, 0) + 1
            out.append({"id": f"{kind}-{numbers[kind]}", "question": spec["question"],
                        "documents": slot_documents(spec, with_attack, self.null_titles),
                        "answers": list(spec["answers"]), "injected": spec["injected"], "attack": kind})
        return out

    def attacks(self) -> dict[str, str]:
        """Each row's attack text (the span planted in its documents), by row id."""
        return {row["id"]: spec["attack"] for row, spec in zip(self.rows(), self.specs, strict=True)}

    def render(self) -> str:
        return jsonl(self.rows())

    def write(self) -> None:
        self.out.write_bytes(self.render().encode("utf-8"))  # bytes: no newline translation


def load(name: str) -> Generator:
    """The set ``name``'s generator, from ``injection_sets/<name>.py`` (this folder on the import path, as when
    ``make_injection_set.py`` runs)."""
    if name not in SETS:
        raise ValueError(f"unknown injection set {name!r}; choose from {', '.join(SETS)}")
    data = importlib.import_module(f"injection_sets.{name}")
    return Generator(data.SPECS, data.KINDS, HERE / f"{name}.jsonl", getattr(data, "NULL_TITLES", True))
