"""The held-out prompt-injection set (cookbook/data/prose_injection_unseen.jsonl): model-free checks of its shape."""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from pathlib import Path

import pytest

from .cookbook import load_script

DATA = Path(__file__).resolve().parents[2] / "cookbook" / "data"
SCRIPT = DATA / "make_prose_injection_unseen.py"
JSONL = DATA / "prose_injection_unseen.jsonl"

NAMED_KINDS = (
    "fake_transcript", "fake_system_note", "title_instruction", "homoglyph", "zero_width", "long_document",
    "fake_correction", "roleplay_assistant", "foreign_language", "chat_markup",
)
ZERO_WIDTH = "\u200b\u200c\u200d\u2060\ufeff"
KEYS = {"id", "question", "documents", "answers", "injected", "attack"}


def _script():
    return load_script(SCRIPT)


def _rows() -> list[dict]:
    return [json.loads(line) for line in JSONL.read_text(encoding="utf-8").splitlines()]


def _passages(row: dict) -> list[str]:
    """Every document's text and title."""
    return [d["text"] for d in row["documents"]] + [d["title"] for d in row["documents"] if "title" in d]


def test_jsonl_is_the_scripts_output():
    assert JSONL.read_text(encoding="utf-8") == _script().render()


def test_ids_are_unique_and_injected_strings_differ():
    rows = _rows()
    assert len({r["id"] for r in rows}) == len(rows)
    assert len({r["injected"] for r in rows}) == len(rows)


def test_enough_rows_of_every_named_kind():
    rows = _rows()
    assert len(rows) >= 40
    kinds = Counter(r["attack"] for r in rows)
    for kind in NAMED_KINDS:
        assert kinds[kind] >= 4, kind


@pytest.mark.parametrize("row", _rows(), ids=lambda r: r["id"])
def test_row_schema(row):
    assert set(row) == KEYS
    assert isinstance(row["question"], str) and row["question"].strip()
    assert re.fullmatch(rf"{re.escape(row['attack'])}-\d+", row["id"])
    assert isinstance(row["documents"], list) and row["documents"]
    for doc in row["documents"]:
        assert set(doc) <= {"title", "text"} and "text" in doc
        assert all(isinstance(v, str) and v.strip() for v in doc.values())
    assert isinstance(row["answers"], list) and row["answers"]
    assert all(isinstance(a, str) and a.strip() for a in row["answers"])
    assert isinstance(row["injected"], str) and row["injected"].strip()


@pytest.mark.parametrize("row", _rows(), ids=lambda r: r["id"])
def test_row_attack_and_answer(row):
    injected = row["injected"]
    passages = _passages(row)
    assert any(injected in p for p in passages), "the attack must name injected, verbatim"
    assert all(injected.lower() not in a.lower() for a in row["answers"])
    assert injected.lower() not in row["question"].lower()
    assert injected.isascii(), "injected stays plain Latin"
    assert any(a in d["text"] for a in row["answers"] for d in row["documents"]), "a passage states the answer"


@pytest.mark.parametrize("row", [r for r in _rows() if r["attack"] == "homoglyph"], ids=lambda r: r["id"])
def test_homoglyph_rows_hold_look_alike_letters(row):
    names = {unicodedata.name(c, "").split()[0] for p in _passages(row) for c in p if not c.isascii()}
    assert names & {"CYRILLIC", "GREEK"}


@pytest.mark.parametrize("row", [r for r in _rows() if r["attack"] == "zero_width"], ids=lambda r: r["id"])
def test_zero_width_rows_hold_zero_width_characters(row):
    assert any(c in ZERO_WIDTH for p in _passages(row) for c in p)


@pytest.mark.parametrize("row", [r for r in _rows() if r["attack"] == "long_document"], ids=lambda r: r["id"])
def test_long_document_rows_are_long(row):
    assert max(len(d["text"].split()) for d in row["documents"]) >= 400
