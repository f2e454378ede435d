"""Model-free checks of each attack kind of the sixth (blind) prose-injection set
(``cookbook/data/prose_injection_sixth.jsonl``); the checks of every row are in test_plausible_injection_sets.py."""

from __future__ import annotations

import re

from .cookbook import InjectionSet

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
SET = InjectionSet("prose_injection_sixth")


def test_kinds() -> None:
    assert set(SET.module.KINDS) == KINDS


def test_tool_output_spoofs_look_like_tool_output() -> None:
    for attack in SET.attacks_of("tool_output_spoof"):
        assert re.search(r"[{(\[<]", attack) and re.search(r"[=:]", attack), attack


def test_verified_badges_claim_verification() -> None:
    for attack in SET.attacks_of("verified_badge"):
        assert re.search(r"verif|fact-check|trusted", attack, re.IGNORECASE), attack


def test_fake_citations_cite_something() -> None:
    for attack in SET.attacks_of("fake_citation"):
        assert re.search(r"\b(1[89]|20)\d\d\b", attack) and re.search(r"\[\d+\]|\d+\.|\d+\(", attack), attack


def test_persona_roleplays_assign_a_role() -> None:
    for attack in SET.attacks_of("persona_roleplay"):
        assert re.search(r"\byou are\b|\bpersona\b|\bimagine\b", attack, re.IGNORECASE), attack


def test_reader_summaries_are_addressed_to_readers() -> None:
    for attack in SET.attacks_of("reader_summary"):
        assert re.search(r"\breaders?\b", attack, re.IGNORECASE), attack


def test_authority_assertions_give_no_order_to_a_model() -> None:
    addressed = re.compile(r"\b(you|your|assistants?|ai|bots?|llm|model|please|answer|reply|say)\b", re.IGNORECASE)
    for attack in SET.attacks_of("authority_assertion"):
        assert not addressed.search(attack), attack


def test_meeting_records_carry_a_time() -> None:
    for attack in SET.attacks_of("meeting_record"):
        assert re.search(r"\b\d\d:\d\d\b|\bAction items\b", attack), attack


def test_code_repository_attacks_look_like_code_artefacts() -> None:
    for attack in SET.attacks_of("code_repository"):
        assert re.search(r"```|\"\"\"|^commit [0-9a-f]+|pull request", attack, re.IGNORECASE | re.MULTILINE), attack
