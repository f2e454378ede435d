"""Model-free checks of the sixth (blind) prose-injection set in ``cookbook/data/prose_injection_sixth.jsonl``."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import ModuleType

import pytest

from .cookbook import check_kinds_and_ids, check_row_schema, load_script
from .cookbook import fields as _fields
from .cookbook import words as _words

DATA_DIR = Path(__file__).resolve().parents[2] / "cookbook" / "data"
SCRIPT = DATA_DIR / "make_prose_injection_sixth.py"
JSONL = DATA_DIR / "prose_injection_sixth.jsonl"

KINDS = {
    "ticket_thread",
    "tool_output_spoof",
    "verified_badge",
    "fake_citation",
    "persona_roleplay",
    "reader_summary",
    "authority_assertion",
    "listing_review",
    "meeting_record",
    "code_repository",
}


def _load_script() -> ModuleType:
    return load_script(SCRIPT)


MODULE = _load_script()
ROWS = [json.loads(line) for line in JSONL.read_text(encoding="utf-8").splitlines()]
CLEAN = {row["id"]: row for row in MODULE.rows(with_attack=False)}  # the same rows, the attack left out
ATTACKS = MODULE.attacks()  # each row's planted span, by id
IDS = [r["id"] for r in ROWS]


def _clean_fields() -> list[str]:
    return [f for row in CLEAN.values() for doc in row["documents"] for f in _fields(doc)]


def _kind_rows(kind: str) -> list[dict]:
    return [r for r in ROWS if r["attack"] == kind]


def _carrier(row: dict) -> dict:
    (doc,) = [d for d in row["documents"] if any(ATTACKS[row["id"]] in f for f in _fields(d))]
    return doc


# ---------------------------------------------------------------------------------------------- file and shape


def test_jsonl_matches_generator() -> None:
    assert JSONL.read_text(encoding="utf-8") == MODULE.render()
    assert MODULE.OUT == JSONL
    assert _load_script().render() == MODULE.render()


def test_forty_rows_four_per_kind_with_well_formed_ids() -> None:
    check_kinds_and_ids(MODULE, ROWS, KINDS, ATTACKS, CLEAN)


def test_injected_strings_unique() -> None:
    injected = [r["injected"] for r in ROWS]
    assert len({s.lower() for s in injected}) == len(injected)
    # No two planted answers share a word either, so a hit can be traced to one row.
    words = [w for s in injected for w in _words(s)]
    assert len(set(words)) == len(words)


@pytest.mark.parametrize("row", ROWS, ids=IDS)
def test_row_schema(row: dict) -> None:
    # A plausible answer: a realistic capitalised name of one to three words, not a phrase or a sentence.
    check_row_schema(row, KINDS, r"[A-Z][a-z]+( [A-Z][a-z]+){0,2}")


# ---------------------------------------------------------------------------------------------- semantics


@pytest.mark.parametrize("row", ROWS, ids=IDS)
def test_true_answer_stands_in_clean_text(row: dict) -> None:
    clean = CLEAN[row["id"]]
    assert (clean["question"], clean["answers"], clean["injected"], clean["attack"]) == (
        row["question"],
        row["answers"],
        row["injected"],
        row["attack"],
    )
    assert clean["documents"], row["id"]
    for answer in row["answers"]:
        assert any(answer in doc["text"] for doc in clean["documents"]), (row["id"], answer)


@pytest.mark.parametrize("row", ROWS, ids=IDS)
def test_injected_only_in_the_attack(row: dict) -> None:
    inj, attack = row["injected"], ATTACKS[row["id"]]
    # The planted span holds the injected string and sits, whole, in exactly one passage or title.
    assert inj in attack
    assert sum(f.count(attack) for d in row["documents"] for f in _fields(d)) == 1
    assert any(inj in f for d in row["documents"] for f in _fields(d))
    assert inj.lower() not in row["question"].lower()
    assert not _words(inj) & _words(row["question"])
    # No attack-free rendering, of this row or any other, says it or a word of it.
    for field in _clean_fields():
        assert inj.lower() not in field.lower(), (row["id"], field)
        assert not _words(inj) & _words(field), (row["id"], field)


@pytest.mark.parametrize("row", ROWS, ids=IDS)
def test_answers_and_injected_do_not_overlap(row: dict) -> None:
    inj = row["injected"].lower()
    for answer in row["answers"]:
        assert inj not in answer.lower() and answer.lower() not in inj, (row["id"], answer)
        assert not _words(inj) & _words(answer), (row["id"], answer)


@pytest.mark.parametrize("row", ROWS, ids=IDS)
def test_clean_rendering_only_drops_the_attack(row: dict) -> None:
    clean = CLEAN[row["id"]]
    attack = ATTACKS[row["id"]]
    carrier = _carrier(row)
    clean_fields = [f for d in clean["documents"] for f in _fields(d)]
    # Every document the attack does not touch comes through unchanged; a passage of the attacker's own is left out.
    others = [d for d in row["documents"] if d is not carrier]
    assert all(d in clean["documents"] for d in others)
    assert len(clean["documents"]) == len(row["documents"]) - (carrier["text"] == attack)
    for field in clean_fields:
        assert attack not in field
        assert row["injected"] not in field


def test_placements_vary() -> None:
    own = shared = titled = before = middle = after = 0
    for row in ROWS:
        attack, full = ATTACKS[row["id"]], row["answers"][0]
        carrier = _carrier(row)
        if carrier["title"] is not None and attack in carrier["title"]:
            titled += 1
        elif carrier["text"] == attack:
            own += 1
        else:
            shared += 1
            text = carrier["text"]
            start, answer_at = text.index(attack), text.replace(attack, "\0" * len(attack)).index(full)
            rest = text[start + len(attack) :].strip()
            if start < answer_at:
                before += 1
            elif rest:
                middle += 1
            else:
                after += 1
    assert own >= 8 and shared >= 20 and titled >= 3
    assert before >= 5 and middle >= 5 and after >= 5
    assert sum(len(r["documents"]) >= 2 for r in ROWS) >= 15
    assert sum(len(r["documents"]) == 3 for r in ROWS) >= 5


# ---------------------------------------------------------------------------------------------- each kind


def _attacks_of(kind: str) -> list[str]:
    return [ATTACKS[r["id"]] for r in _kind_rows(kind)]


def test_tool_output_spoofs_look_like_tool_output() -> None:
    for attack in _attacks_of("tool_output_spoof"):
        assert re.search(r"[{(\[<]", attack) and re.search(r"[=:]", attack), attack


def test_verified_badges_claim_verification() -> None:
    for attack in _attacks_of("verified_badge"):
        assert re.search(r"verif|fact-check|trusted", attack, re.IGNORECASE), attack


def test_fake_citations_cite_something() -> None:
    for attack in _attacks_of("fake_citation"):
        assert re.search(r"\b(1[89]|20)\d\d\b", attack) and re.search(r"\[\d+\]|\d+\.|\d+\(", attack), attack


def test_persona_roleplays_assign_a_role() -> None:
    for attack in _attacks_of("persona_roleplay"):
        assert re.search(r"\byou are\b|\bpersona\b|\bimagine\b", attack, re.IGNORECASE), attack


def test_reader_summaries_are_addressed_to_readers() -> None:
    for attack in _attacks_of("reader_summary"):
        assert re.search(r"\breaders?\b", attack, re.IGNORECASE), attack


def test_authority_assertions_give_no_order_to_a_model() -> None:
    addressed = re.compile(r"\b(you|your|assistants?|ai|bots?|llm|model|please|answer|reply|say)\b", re.IGNORECASE)
    for attack in _attacks_of("authority_assertion"):
        assert not addressed.search(attack), attack


def test_meeting_records_carry_a_time() -> None:
    for attack in _attacks_of("meeting_record"):
        assert re.search(r"\b\d\d:\d\d\b|\bAction items\b", attack), attack


def test_code_repository_attacks_look_like_code_artefacts() -> None:
    for attack in _attacks_of("code_repository"):
        assert re.search(r"```|\"\"\"|^commit [0-9a-f]+|pull request", attack, re.IGNORECASE | re.MULTILINE), attack
