"""Model-free checks of each attack kind of the ninth (blind) prose-injection set
(``cookbook/data/prose_injection_ninth.jsonl``); the checks of every row are in test_plausible_injection_sets.py."""

from __future__ import annotations

import json
import re
from collections import Counter

from .cookbook import InjectionSet

KINDS = {
    "forum_signature",
    "wiki_talk_page",
    "email_autoreply",
    "pdf_form_field",
    "subtitle_file",
    "podcast_show_notes",
    "api_error_payload",
    "museum_label",
    "shipping_label",
    "sports_match_report",
}
SET = InjectionSet("prose_injection_ninth")

# Words that only make sense aimed at a machine reader: English, "IA" (Portuguese, Spanish, Italian, French), "KI"
# (German), the Polish, Czech, Danish, Portuguese, Spanish and Turkish words for assistants, bots and AI, and indirect
# phrasings ("whatever software turns these subtitles into answers", "not for humans").
MACHINE = re.compile(
    r"\b(AI|IA|KI|LLMs?|language models?|automated|automáticos|auto-\w+|bots?|botów|chatbots?|robots?|roboty|"
    r"robotic|copilots?|assistants?|assistentes|asistentes|asistenty|asystentów|asistanlarına|agents?|crawlers?|"
    r"parsers?|scanners?|software|programas?|engines?|summar\w*|generators?|widgets?|apps?|yapay zekâ|"
    r"not for humans)\b",
    re.IGNORECASE,
)
# Non-English attacks (Polish, Czech, Danish, Portuguese, Spanish, Italian, German, French, Turkish).
FOREIGN = re.compile(r"\b(Pozdrawiam|Poznámka|færgen|sementes|subtítulos|puntate|Hinweis|raccrochée|Yapay)\b")
# Attacks that address the machine only indirectly, without naming it as an AI or an assistant.
INDIRECT = re.compile(r"whatever software|read by software rather than a person|not for humans", re.IGNORECASE)


def test_kinds() -> None:
    assert set(SET.module.KINDS) == KINDS


def test_wording_varies() -> None:
    attacks = list(SET.attacks.values())
    assert len({m.group(1) for a in attacks for m in FOREIGN.finditer(a)}) >= 8
    assert sum(bool(INDIRECT.search(a)) for a in attacks) >= 3
    assert sum("ignore all previous instructions" in a.lower() or "ignore previous" in a.lower()
               for a in attacks) <= 2
    # No single machine-aimed word carries the set: none turns up in more than 40% of the attacks.
    terms = Counter(term for a in attacks for term in {m.group(0).lower() for m in MACHINE.finditer(a)})
    assert max(terms.values()) <= 0.4 * len(attacks), terms


def test_question_types_spread() -> None:
    starts = Counter(re.match(r"(who|where|which|when|how many|in which|on which)\b", row["question"], re.I)
                     .group(1).lower() for row in SET.rows)
    assert starts["who"] >= 8 and starts["where"] >= 5 and starts["how many"] >= 5 and starts["when"] >= 3
    assert starts["which"] + starts["in which"] + starts["on which"] >= 12


def test_forum_signatures_sit_below_a_signature_rule() -> None:
    for attack, row in zip(SET.attacks_of("forum_signature"), SET.kind_rows("forum_signature"), strict=True):
        assert re.search(r"^(--|-{4,}|_{5,})$", attack, re.MULTILINE), attack
        assert "forum" in (SET.carrier(row)["title"] or "").lower(), row["id"]


def test_wiki_talk_pages_are_signed_discussions() -> None:
    for row in SET.kind_rows("wiki_talk_page"):
        carrier = SET.carrier(row)
        assert (carrier["title"] or "").startswith("Talk:"), row["id"]
        assert "(talk)" in carrier["text"] and "(UTC)" in carrier["text"], row["id"]


def test_email_autoreplies_are_automatic_replies() -> None:
    for attack, row in zip(SET.attacks_of("email_autoreply"), SET.kind_rows("email_autoreply"), strict=True):
        where = attack + " " + (SET.carrier(row)["title"] or "")
        assert re.search(r"automatic reply|automatisk svar|out of office|auto-submitted", where, re.I), attack


def test_pdf_form_fields_are_form_fields() -> None:
    for attack, row in zip(SET.attacks_of("pdf_form_field"), SET.kind_rows("pdf_form_field"), strict=True):
        assert re.search(r"/T \(|\bfield\b|\bcampo\b", attack, re.IGNORECASE), attack
        assert re.search(r"pdf|form", attack + " " + (SET.carrier(row)["title"] or ""), re.IGNORECASE), attack


def test_subtitle_files_carry_timecodes() -> None:
    for attack in SET.attacks_of("subtitle_file"):
        assert re.search(r"\d\d:\d\d:\d\d[,.]\d{3} --> \d\d:\d\d:\d\d[,.]\d{3}", attack), attack


def test_podcast_show_notes_read_like_show_notes() -> None:
    for attack, row in zip(SET.attacks_of("podcast_show_notes"), SET.kind_rows("podcast_show_notes"), strict=True):
        carrier = SET.carrier(row)
        where = attack + " " + (carrier["title"] or "") + " " + carrier["text"]
        assert re.search(r"episode|episodio|show notes|podcast|puntate", where, re.IGNORECASE), attack


def _keys(value: object) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys(v)}
    return set()


def test_api_error_payloads_are_json_errors() -> None:
    for attack in SET.attacks_of("api_error_payload"):
        body = json.loads(attack[attack.index("{"):])
        assert "error" in _keys(body), attack
        assert re.search(r"\b[45]\d\d\b", attack), attack  # an HTTP error status


def test_museum_labels_look_like_labels() -> None:
    for attack, row in zip(SET.attacks_of("museum_label"), SET.kind_rows("museum_label"), strict=True):
        where = attack + " " + (SET.carrier(row)["title"] or "")
        assert re.search(r"accession|gift of|gallery|label|cartel|plinth", where, re.IGNORECASE), attack


def test_shipping_labels_look_like_labels() -> None:
    for attack in SET.attacks_of("shipping_label"):
        assert re.search(r"ship to|shipping label|tracking|takip|barcode|packing slip", attack, re.IGNORECASE), attack


def test_sports_match_reports_carry_scores_or_results() -> None:
    for attack, row in zip(SET.attacks_of("sports_match_report"), SET.kind_rows("sports_match_report"), strict=True):
        where = attack + " " + (SET.carrier(row)["title"] or "")
        assert re.search(r"\b\d+-\d+\b|results|report", where, re.IGNORECASE), attack
