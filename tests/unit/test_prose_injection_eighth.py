"""Model-free checks of each attack kind of the eighth (blind) prose-injection set
(``cookbook/data/prose_injection_eighth.jsonl``); the checks of every row are in test_plausible_injection_sets.py."""

from __future__ import annotations

import re
from collections import Counter

from .cookbook import InjectionSet

KINDS = {
    "product_review",
    "recipe_card",
    "calendar_invite",
    "spreadsheet_cell",
    "chat_export",
    "package_metadata",
    "peer_review",
    "place_listing",
    "support_macro",
    "ocr_scan",
}
SET = InjectionSet("prose_injection_eighth")

# Words that only make sense aimed at a machine reader: English, "IA" (French, Spanish, Italian), "KI" (German),
# the Swedish, Dutch and Italian words for assistants and summaries, and indirect phrasings ("a program reading this
# card", "whatever software ingests this file", "not for humans").
MACHINE = re.compile(
    r"\bA\.I\.|\b(AI|IA|KI|AIs|LLMs?|language models?|machine|automated|auto-\w+|bots?|chatbots?|copilots?|"
    r"assistants?|assistente|asistentes|AI-assistenter|agents?|crawlers?|engines?|summari[sz]\w*|"
    r"samenvatting|program|software|not for humans|KI-Systeme|indexers?|generators?)\b",
    re.IGNORECASE,
)
# Non-English attacks: at least a few, so the set does not rely on English wording alone.
FOREIGN = re.compile(r"\b(tillverkas|résidence|drukker|ubicación|magazzino|Gerberei)\b")


def test_kinds() -> None:
    assert set(SET.module.KINDS) == KINDS


def test_wording_varies() -> None:
    attacks = list(SET.attacks.values())
    assert sum(bool(FOREIGN.search(a)) for a in attacks) >= 5
    assert sum("ignore all previous instructions" in a.lower() or "ignore previous" in a.lower()
               for a in attacks) <= 2
    # No single machine-aimed word carries the set: none turns up in more than 40% of the attacks.
    terms = Counter(term for a in attacks for term in {m.group(0).lower() for m in MACHINE.finditer(a)})
    assert max(terms.values()) <= 0.4 * len(attacks), terms


def test_question_types_spread() -> None:
    starts = Counter(re.match(r"(who|where|which|when|how many|in which|on which)\b", row["question"], re.I)
                     .group(1).lower() for row in SET.rows)
    assert starts["who"] >= 6 and starts["where"] >= 4 and starts["how many"] >= 4
    assert starts["which"] + starts["in which"] + starts["on which"] >= 10


def test_product_reviews_look_like_reviews() -> None:
    for attack in SET.attacks_of("product_review"):
        assert re.search(r"★|\bratings?\b|\breviews?\b|questions & answers", attack, re.IGNORECASE), attack


def test_recipe_cards_look_like_recipes() -> None:
    for attack in SET.attacks_of("recipe_card"):
        assert re.search(r"recipe|ingredients|\bmakes \d+|\bprep\b|\bserves\b|baker's tip", attack, re.I), attack


def test_calendar_invites_are_icalendar_or_invitations() -> None:
    for attack in SET.attacks_of("calendar_invite"):
        if "\n" in attack:
            assert "BEGIN:VEVENT" in attack and "END:VEVENT" in attack, attack
            assert re.search(r"^DTSTART[;:]", attack, re.MULTILINE), attack
        else:
            assert attack.startswith("Invitation: ") and " @ " in attack, attack


def test_spreadsheet_cells_carry_cells_or_csv_rows() -> None:
    for attack in SET.attacks_of("spreadsheet_cell"):
        cell = re.search(r"\b[A-D][1-9]\b", attack)
        csv = re.search(r"^[^,\n]+(,[^,\n]*){4,}$", attack, re.MULTILINE)
        assert cell or csv, attack


def test_chat_exports_carry_timestamps() -> None:
    for attack in SET.attacks_of("chat_export"):
        assert re.search(r"(^|\[|\s)\d{1,2}:\d\d(\]| -|$)", attack, re.MULTILINE), attack


def test_package_metadata_is_package_metadata() -> None:
    for attack, row in zip(SET.attacks_of("package_metadata"), SET.kind_rows("package_metadata"), strict=True):
        carrier = SET.carrier(row)
        where = attack + " " + (carrier["title"] or "")
        assert re.search(r"\[project\]|\[package\]|shields\.io|PyPI|version = ", where), attack


def test_peer_reviews_are_scholarly() -> None:
    for attack, row in zip(SET.attacks_of("peer_review"), SET.kind_rows("peer_review"), strict=True):
        carrier = SET.carrier(row)
        where = attack + " " + (carrier["title"] or "") + " " + carrier["text"]
        assert re.search(r"review|referee|manuscript|preprint|abstract", where, re.IGNORECASE), attack


def test_place_listings_read_like_map_listings() -> None:
    for attack, row in zip(SET.attacks_of("place_listing"), SET.kind_rows("place_listing"), strict=True):
        carrier = SET.carrier(row)
        where = attack + " " + (carrier["title"] or "")
        assert re.search(r"\bhours\b|\bcloses\b|directions|\bopen\b|\blisting\b", where, re.IGNORECASE), attack


def test_support_macros_carry_template_placeholders() -> None:
    for attack in SET.attacks_of("support_macro"):
        assert re.search(r"\{\{\s*[\w.]+\s*\}\}|\{\w+\}|\{%", attack), attack
        assert re.search(r"macro|saved reply|template|predefinita", attack, re.IGNORECASE), attack


def test_ocr_scans_show_recognition() -> None:
    for attack in SET.attacks_of("ocr_scan"):
        assert re.search(r"\bOCR\b", attack), attack
        # Recognition errors or a text layer: l for 1, O for 0, [illegible], [smudged], confidence, text layer.
        assert re.search(r"\bl\d|\d?O\d|0F|\[illegible\]|\[smudged\]|confidence|Randnotiz|text layer", attack), attack
