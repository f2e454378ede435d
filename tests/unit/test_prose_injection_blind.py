"""Model-free checks of the blind prose-injection set in ``cookbook/data/prose_injection_blind.jsonl``."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest

from .cookbook import load_script

DATA_DIR = Path(__file__).resolve().parents[2] / "cookbook" / "data"
SCRIPT = DATA_DIR / "make_prose_injection_blind.py"
JSONL = DATA_DIR / "prose_injection_blind.jsonl"

KINDS = {
    "instruction_prose",
    "fake_dialogue",
    "authority_note",
    "metadata_field",
    "disguised_letters",
    "other_language",
    "long_passage",
    "correction_notice",
    "forged_turn",
    "indirect_request",
}
ROW_KEYS = {"id", "question", "documents", "answers", "injected", "attack"}


def _load_script() -> ModuleType:
    return load_script(SCRIPT)


def _rows() -> list[dict]:
    return [json.loads(line) for line in JSONL.read_text(encoding="utf-8").splitlines()]


ROWS = _rows()


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def _carriers(row: dict) -> list[dict]:
    """The documents whose text or title contains the injected string."""
    inj = row["injected"]
    return [d for d in row["documents"] if inj in d["text"] or inj in d.get("title", "")]


def test_jsonl_matches_render() -> None:
    module = _load_script()
    assert JSONL.read_text(encoding="utf-8") == module.render()
    assert module.OUT == JSONL


def test_render_is_deterministic() -> None:
    module = _load_script()
    assert module.render() == module.render()


def test_counts_per_kind() -> None:
    assert len(ROWS) == 40
    assert Counter(r["attack"] for r in ROWS) == {kind: 4 for kind in KINDS}


def test_ids_unique_and_well_formed() -> None:
    ids = [r["id"] for r in ROWS]
    assert len(set(ids)) == len(ids)
    for row in ROWS:
        kind, _, n = row["id"].rpartition("-")
        assert kind == row["attack"]
        assert n.isdigit() and 1 <= int(n) <= 4


def test_injected_strings_unique() -> None:
    injected = [r["injected"].lower() for r in ROWS]
    assert len(set(injected)) == len(injected)


@pytest.mark.parametrize("row", ROWS, ids=[r["id"] for r in ROWS])
def test_row_schema(row: dict) -> None:
    assert set(row) == ROW_KEYS
    assert row["attack"] in KINDS
    assert isinstance(row["question"], str) and row["question"].strip()
    assert isinstance(row["injected"], str) and row["injected"].strip()
    assert row["injected"].isascii()
    assert isinstance(row["answers"], list) and row["answers"]
    assert all(isinstance(a, str) and a.strip() for a in row["answers"])
    assert isinstance(row["documents"], list) and row["documents"]
    for doc in row["documents"]:
        assert isinstance(doc, dict)
        assert set(doc) in ({"text"}, {"title", "text"})
        assert isinstance(doc["text"], str) and doc["text"].strip()
        if "title" in doc:
            assert isinstance(doc["title"], str) and doc["title"].strip()


@pytest.mark.parametrize("row", ROWS, ids=[r["id"] for r in ROWS])
def test_row_semantics(row: dict) -> None:
    inj = row["injected"]
    # The attack is present in a passage or a title.
    assert _carriers(row), "injected string not found in any passage or title"
    # No honest answer contains it, and the question does not mention it (nor any of its words).
    assert all(inj.lower() not in a.lower() for a in row["answers"])
    assert inj.lower() not in row["question"].lower()
    assert not _words(inj) & _words(row["question"])
    assert not any(_words(inj) & _words(a) for a in row["answers"])
    # The right answer is stated in some passage.
    texts = [d["text"] for d in row["documents"]]
    assert any(a in t for a in row["answers"] for t in texts)


def _kind_rows(kind: str) -> list[dict]:
    return [r for r in ROWS if r["attack"] == kind]


def test_long_passages_are_long() -> None:
    for row in _kind_rows("long_passage"):
        assert any(len(d["text"].split()) >= 350 for d in _carriers(row)), row["id"]


def test_disguised_letters_use_non_ascii() -> None:
    for row in _kind_rows("disguised_letters"):
        carrier = _carriers(row)
        assert any(not (d["text"] + d.get("title", "")).isascii() for d in carrier), row["id"]


def test_other_language_rows_not_english_only() -> None:
    # Each row's attack carries some non-ASCII text (accents or another script).
    for row in _kind_rows("other_language"):
        assert any(not (d["text"] + d.get("title", "")).isascii() for d in _carriers(row)), row["id"]
