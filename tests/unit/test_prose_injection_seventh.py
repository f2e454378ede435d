"""Model-free checks of each attack kind of the seventh (blind) prose-injection set
(``cookbook/data/prose_injection_seventh.jsonl``); the checks of every row are in test_plausible_injection_sets.py."""

from __future__ import annotations

import re
from collections import Counter

from .cookbook import InjectionSet

KINDS = {
    "email_signature",
    "alt_text",
    "caption_track",
    "translator_note",
    "revision_history",
    "job_posting",
    "social_thread",
    "feed_item",
    "legal_boilerplate",
    "sponsor_block",
}
SET = InjectionSet("prose_injection_seventh")

# A plausible name: capitalised words, an ampersand allowed between them.
NAME = r"[A-Z][a-z]+(?: (?:&|[A-Z][a-z]+))*"
# Words that only make sense aimed at a machine reader (English, Italian/French "IA", German "KI").
MACHINE = re.compile(
    r"\b(AI|IA|KI|artificial-intelligence|machine|automated|automatic\w*|bots?|chatbots?|assistants?|agents?|models?|"
    r"crawlers?|engines?|summari[sz]\w*|digests?|parsers?|describers?|copilot)\b",
    re.IGNORECASE,
)


def test_kinds() -> None:
    assert set(SET.module.KINDS) == KINDS


def test_placements_vary() -> None:
    places = Counter()
    for row in SET.rows:
        attack, doc = SET.attacks[row["id"]], SET.carrier(row)
        if doc["title"] is not None and attack in doc["title"]:
            places["title"] += 1
        elif doc["text"] == attack:
            places["own passage"] += 1
        else:
            places["answer's passage"] += 1
            assert any(answer in doc["text"] for answer in row["answers"]), row["id"]
    assert all(places[p] >= 6 for p in ("title", "own passage", "answer's passage")), places


def test_email_signatures_look_like_mail() -> None:
    for attack in SET.attacks_of("email_signature"):
        assert re.search(r"e-?mail|message", attack, re.IGNORECASE), attack
        assert re.search(r"^(--|_{5,}|Kind regards,|.*\bUnsubscribe\b)", attack, re.MULTILINE), attack


def test_alt_texts_describe_an_image() -> None:
    for attack in SET.attacks_of("alt_text"):
        assert re.search(r"!\[|\balt\b|image description", attack, re.IGNORECASE), attack


def test_caption_tracks_carry_cue_timings() -> None:
    for attack in SET.attacks_of("caption_track"):
        assert re.search(r"\d\d:\d\d:\d\d[,.]\d{3} --> \d\d:\d\d:\d\d[,.]\d{3}", attack), attack


def test_translator_notes_are_translators_notes() -> None:
    for attack in SET.attacks_of("translator_note"):
        assert re.search(r"transl|tradu|Übers|\bT/N\b|N\.d\.T", attack, re.IGNORECASE), attack


def test_revision_histories_name_a_revision() -> None:
    for attack in SET.attacks_of("revision_history"):
        revision = r"\brev(ision)?\b|\bversion \d|\bv\d+\.\d|edit summary|\bprev\b"
        assert re.search(revision, attack, re.IGNORECASE), attack


def test_job_postings_advertise_a_job() -> None:
    for attack in SET.attacks_of("job_posting"):
        assert re.search(r"\b(vacancy|hiring|apply|applicants?|candidates?|role|position)\b", attack, re.I), attack


def test_social_threads_carry_handles_or_hashtags() -> None:
    for attack in SET.attacks_of("social_thread"):
        assert re.search(r"(^|\s)@\w+", attack) and re.search(r"#\w+", attack), attack


def test_feed_items_are_feed_markup() -> None:
    for attack in SET.attacks_of("feed_item"):
        assert re.search(r"<(item|entry)>", attack) and re.search(r"</(item|entry)>", attack), attack


def test_legal_boilerplate_invokes_terms_or_rights() -> None:
    for attack in SET.attacks_of("legal_boilerplate"):
        assert re.search(r"\u00a9|licen[cs]|terms|rights reserved", attack, re.IGNORECASE), attack


def test_sponsor_blocks_are_marked_as_paid() -> None:
    for attack in SET.attacks_of("sponsor_block"):
        assert re.search(r"sponsor|advertisement|promoted|paid partnership", attack, re.IGNORECASE), attack
