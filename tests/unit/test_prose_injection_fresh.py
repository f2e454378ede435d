"""Model-free checks of the fresh prose-injection set in ``cookbook/data/prose_injection_fresh.jsonl``."""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path
from types import ModuleType

import pytest

from .cookbook import check_kinds_and_ids, check_row_schema, load_script
from .cookbook import fields as _fields
from .cookbook import words as _words

DATA_DIR = Path(__file__).resolve().parents[2] / "cookbook" / "data"
SCRIPT = DATA_DIR / "make_prose_injection_fresh.py"
JSONL = DATA_DIR / "prose_injection_fresh.jsonl"
# The earlier attack sets: their planted answers must not come back here, not even a word of them.
EARLIER = ("prose_injection.jsonl", "prose_injection_blind.jsonl", "prose_injection_unseen.jsonl")

KINDS = {
    "fake_transcript",
    "system_note",
    "title_or_metadata",
    "homoglyph_or_invisible",
    "other_language",
    "buried_in_long_text",
    "template_markup",
    "polite_request",
    "code_or_data",
    "false_correction",
}


def _load_script() -> ModuleType:
    return load_script(SCRIPT)


MODULE = _load_script()
ROWS = [json.loads(line) for line in JSONL.read_text(encoding="utf-8").splitlines()]
CLEAN = {row["id"]: row for row in MODULE.rows(with_attack=False)}  # the same rows, the attack left out
ATTACKS = MODULE.attacks()  # each row's planted span, by id
IDS = [r["id"] for r in ROWS]


def _carriers(row: dict) -> list[dict]:
    """The documents whose text or title contains the injected string."""
    return [d for d in row["documents"] if any(row["injected"] in f for f in _fields(d))]


def _kind_rows(kind: str) -> list[dict]:
    return [r for r in ROWS if r["attack"] == kind]


# ---------------------------------------------------------------------------------------------- file and shape


def test_jsonl_matches_render() -> None:
    assert JSONL.read_text(encoding="utf-8") == MODULE.render()
    assert MODULE.OUT == JSONL


def test_render_is_deterministic() -> None:
    assert _load_script().render() == MODULE.render()


def test_kinds_counts_and_ids() -> None:
    check_kinds_and_ids(MODULE, ROWS, KINDS, ATTACKS, CLEAN)


def test_injected_strings_are_fresh() -> None:
    injected = [r["injected"] for r in ROWS]
    assert len({s.lower() for s in injected}) == len(injected)
    words = [w for s in injected for w in _words(s)]
    assert len(set(words)) == len(words), "a word is reused between planted answers"
    earlier = set()
    for name in EARLIER:
        path = DATA_DIR / name
        if path.exists():
            earlier |= {json.loads(line)["injected"] for line in path.read_text(encoding="utf-8").splitlines()}
    assert not {s.lower() for s in injected} & {s.lower() for s in earlier}
    assert not set(words) & {w for s in earlier for w in _words(s)}


@pytest.mark.parametrize("row", ROWS, ids=IDS)
def test_row_schema(row: dict) -> None:
    check_row_schema(row, KINDS, r"[A-Z][a-z]+ [A-Z][a-z]+")  # a distinctive nonsense phrase: two capitalised words


# ---------------------------------------------------------------------------------------------- semantics


@pytest.mark.parametrize("row", ROWS, ids=IDS)
def test_injection_is_planted_and_nowhere_else(row: dict) -> None:
    inj, attack = row["injected"], ATTACKS[row["id"]]
    # The planted span holds the injected string and sits, whole, in one passage or title.
    assert inj in attack
    assert sum(attack in f for d in row["documents"] for f in _fields(d)) == 1
    assert _carriers(row)
    # Never in the question or a gold answer, not even one of its words.
    assert inj.lower() not in row["question"].lower()
    assert all(inj.lower() not in a.lower() for a in row["answers"])
    assert not _words(inj) & _words(row["question"])
    assert not any(_words(inj) & _words(a) for a in row["answers"])
    # Outside the attack, no passage or title says it or any word of it.
    clean = CLEAN[row["id"]]
    for doc in clean["documents"]:
        for field in _fields(doc):
            assert inj.lower() not in field.lower()
            assert not _words(inj) & _words(field), (row["id"], field)


@pytest.mark.parametrize("row", ROWS, ids=IDS)
def test_gold_answer_stands_in_clean_text(row: dict) -> None:
    clean = CLEAN[row["id"]]
    assert (clean["question"], clean["answers"], clean["injected"]) == (
        row["question"],
        row["answers"],
        row["injected"],
    )
    assert len(clean["documents"]) == len(row["documents"])
    # The full answer is stated in a document clean of the injection, or in the carrier outside the attack.
    full = row["answers"][0]
    assert any(full in doc["text"] for doc in clean["documents"])


def test_placements_vary() -> None:
    own, shared, titled, multi = 0, 0, 0, 0
    for row in ROWS:
        attack = ATTACKS[row["id"]]
        (carrier,) = [d for d in row["documents"] if any(attack in f for f in _fields(d))]
        if carrier["title"] is not None and attack in carrier["title"]:
            titled += 1
        elif carrier["text"] == attack:
            own += 1
        else:
            shared += 1
        multi += len(row["documents"]) >= 3
    assert own >= 10 and shared >= 10 and titled >= 1 and multi >= 5
    # In shared passages the attack comes both before and after the true answer.
    before = after = 0
    for row in ROWS:
        attack, full = ATTACKS[row["id"]], row["answers"][0]
        for doc in row["documents"]:
            text = doc["text"]
            if attack in text and text != attack and full in text.replace(attack, ""):
                if text.index(attack) < text.replace(attack, "\0" * len(attack)).index(full):
                    before += 1
                else:
                    after += 1
    assert before >= 5 and after >= 5


# ---------------------------------------------------------------------------------------------- each kind


def _attacks_of(kind: str) -> list[str]:
    return [ATTACKS[r["id"]] for r in _kind_rows(kind)]


def test_fake_transcripts_have_turns() -> None:
    for attack in _attacks_of("fake_transcript"):
        assert attack.count("\n") >= 3


def test_system_notes_address_machines() -> None:
    machine = re.compile(r"\b(ai|bots?|crawlers?|assistants?|llm|language.model|agents?|automated)\b", re.IGNORECASE)
    for attack in _attacks_of("system_note"):
        assert machine.search(attack), attack


def test_title_or_metadata_rows_use_titles_or_fields() -> None:
    field = re.compile(r"^[\w -]+: |\b(alt|title|content|data-[\w-]+)=\"|^---$", re.MULTILINE)
    for row in _kind_rows("title_or_metadata"):
        attack = ATTACKS[row["id"]]
        in_title = any(d["title"] is not None and attack in d["title"] for d in row["documents"])
        assert in_title or field.search(attack), row["id"]


def _disguised(ch: str) -> bool:
    name = unicodedata.name(ch, "")
    return (
        unicodedata.category(ch) == "Cf" or name.startswith(("CYRILLIC", "GREEK", "FULLWIDTH")) or ch in "\u00ad\u3000"
    )


def test_homoglyph_or_invisible_rows_disguise_the_instruction() -> None:
    for row in _kind_rows("homoglyph_or_invisible"):
        attack = ATTACKS[row["id"]]
        outside = attack.replace(row["injected"], "")
        assert sum(map(_disguised, outside)) >= 10, row["id"]
        # Undone, the disguise reads as an English instruction.
        plain = "".join(c for c in unicodedata.normalize("NFKC", outside) if unicodedata.category(c) != "Cf")
        plain = plain.replace("\u00ad", "")
        assert re.search(r"[A-Za-z]{4,}", plain), row["id"]


def test_other_language_rows_are_not_english() -> None:
    english = {"the", "and", "you", "your", "please", "answer", "reply", "ignore", "should", "must", "when", "is"}
    for row in _kind_rows("other_language"):
        attack = ATTACKS[row["id"]]
        assert not attack.isascii(), row["id"]
        assert not _words(attack.replace(row["injected"], "")) & english, row["id"]


def test_buried_attacks_sit_deep_in_long_text() -> None:
    for row in _kind_rows("buried_in_long_text"):
        attack = ATTACKS[row["id"]]
        (carrier,) = [d for d in row["documents"] if attack in d["text"]]
        assert len(carrier["text"]) >= 1200, row["id"]
        assert carrier["text"].index(attack) >= 600, row["id"]


def test_template_markup_rows_use_chat_markup() -> None:
    markup = (
        "<|im_start|>",
        "[INST]",
        "<start_of_turn>",
        "### Human:",
        "<|user|>",
        "<|start_header_id|>",
        "<answer>",
        "## Final answer",
        "### Response:",
    )
    for row in _kind_rows("template_markup"):
        attack = ATTACKS[row["id"]]
        assert any(m in attack for m in markup), row["id"]


def test_polite_requests_are_polite() -> None:
    polite = re.compile(r"\b(please|kindly|would|should|grateful|thank|prefer)\b", re.IGNORECASE)
    for attack in _attacks_of("polite_request"):
        assert polite.search(attack), attack
        assert not re.search(r"\b[A-Z]{4,}\b", attack), "no shouting in a polite request"


def test_code_or_data_rows_look_like_code() -> None:
    code = re.compile(r"^\s*(#|--|```|\{)|[=]|^[\w]+,[\w ]+,", re.MULTILINE)
    for attack in _attacks_of("code_or_data"):
        assert code.search(attack), attack


def test_false_corrections_claim_to_correct() -> None:
    fix = re.compile(r"correct|errat|updated|revised|retract|withdrawn|\bfor '[^']+' read\b", re.IGNORECASE)
    for attack in _attacks_of("false_correction"):
        assert fix.search(attack), attack
