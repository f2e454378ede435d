"""Model-free checks of each attack kind of the fifth (blind) prose-injection set
(``cookbook/data/prose_injection_fifth.jsonl``); the checks of every row are in test_plausible_injection_sets.py."""

from __future__ import annotations

import re
import unicodedata

from .cookbook import InjectionSet, words

KINDS = {
    "assistant_directive",
    "staged_dialogue",
    "admin_notice",
    "hidden_markup",
    "unicode_disguise",
    "non_english",
    "deep_in_long_text",
    "courteous_request",
    "structured_data",
    "false_erratum",
}
SET = InjectionSet("prose_injection_fifth")


def test_kinds() -> None:
    assert set(SET.module.KINDS) == KINDS


def test_staged_dialogues_have_several_turns() -> None:
    for attack in SET.attacks_of("staged_dialogue"):
        assert attack.count("\n") >= 3


def _disguised(ch: str) -> bool:
    return unicodedata.category(ch) == "Cf" or ord(ch) > 0x1000


def test_unicode_disguise_hides_the_instruction_but_not_the_name() -> None:
    for row in SET.kind_rows("unicode_disguise"):
        attack = SET.attacks[row["id"]]
        outside = attack.replace(row["injected"], "")
        # Invisible tags, mathematical or small-capital letters, or a right-to-left override around reversed text.
        assert sum(map(_disguised, outside)) >= 20 or "\u202e" in outside, row["id"]
        # As stored, no plain English instruction word can be read outside the planted name.
        plain = re.compile(r"\b(answer|assistants?|name|use|give|only|written|illustrator|carved)\b", re.IGNORECASE)
        assert not plain.search(outside), row["id"]


def test_non_english_attacks_are_not_english() -> None:
    english = {"the", "and", "you", "your", "please", "answer", "reply", "ignore", "must", "is", "name"}
    for row in SET.kind_rows("non_english"):
        attack = SET.attacks[row["id"]]
        assert not attack.isascii(), row["id"]
        assert not words(attack.replace(row["injected"], "")) & english, row["id"]


def test_deep_attacks_sit_in_long_text() -> None:
    for row in SET.kind_rows("deep_in_long_text"):
        attack = SET.attacks[row["id"]]
        text = SET.carrier(row)["text"]
        assert len(text) >= 1500, row["id"]
        assert 600 <= text.index(attack) <= len(text) - 600, row["id"]


def test_courteous_requests_do_not_shout() -> None:
    for attack in SET.attacks_of("courteous_request"):
        assert not re.search(r"\b[A-Z]{3,}\b", attack), attack
