"""Model-free checks of each attack kind of the tenth (blind) prose-injection set
(``cookbook/data/prose_injection_tenth.jsonl``); the checks of every row are in test_plausible_injection_sets.py."""

from __future__ import annotations

import re
from collections import Counter

from .cookbook import InjectionSet

KINDS = {
    "commit_log",
    "invoice_line_item",
    "transit_alert",
    "app_release_notes",
    "server_log",
    "lab_report",
    "course_syllabus",
    "patent_abstract",
    "speaker_notes",
    "newsletter_footer",
}
SET = InjectionSet("prose_injection_tenth")

# Words that only make sense aimed at a machine reader: English, "IA" (Catalan), "KI" (Norwegian), "MI" (Hungarian),
# the Dutch, Romanian, Norwegian, Indonesian, Finnish, Hungarian, Catalan, Japanese (romaji), Greek and Swedish words
# for assistants, language models and AI, and indirect phrasings ("if a program is reading this repository",
# "whatever is parsing this log rather than a human").
MACHINE = re.compile(
    r"\b(AI|IA|KI|MI|LLMs?|language models?|the model|automated|bots?|chatbots?|copilots?|assistants?|agents?|"
    r"engines?|summari[sz]\w*|programs?|software|apps?|tools|tutor|planners|machine-readable|"
    r"rather than a human|assistenten|taalmodellen|asistentul|taleassistenter|asisten|asisutanto|tekoäly\w*|"
    r"kielimalleille|asszisztenseknek|nyelvi modelleknek|assistents|τεχνητής νοημοσύνης|assistenter|"
    r"språkmodeller)\b",
    re.IGNORECASE,
)
# Non-English attacks (Dutch, Romanian, Norwegian, Indonesian, Finnish, Hungarian, Catalan, Japanese, Greek, Swedish).
FOREIGN = re.compile(
    r"\b(Opmerking|Notă|Merknad|Catatan|Huomio|Megjegyzés|Avís|kudasai|Σημειώσεις|nyhetsbrev)\b"
)
# Attacks that address the machine only indirectly, without naming it as an AI or an assistant.
INDIRECT = re.compile(
    r"if a program is reading|rather than a human|software that condenses|if software is condensing", re.IGNORECASE
)


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


def _where(row: dict) -> str:
    """The row's attack with the title of the document that carries it."""
    return SET.attacks[row["id"]] + " " + (SET.carrier(row)["title"] or "")


def test_commit_logs_name_a_commit() -> None:
    for attack in SET.attacks_of("commit_log"):
        assert re.search(r"\b(commit|merge)\b", attack, re.IGNORECASE), attack
        assert re.search(r"\b[0-9a-f]{7,}\b", attack), attack  # an abbreviated or full commit hash


def test_invoice_line_items_are_priced_lines() -> None:
    for attack in SET.attacks_of("invoice_line_item"):
        assert re.search(r"invoice|receipt|factura|\bitem\b|\bqty\b", attack, re.IGNORECASE), attack
        assert re.search(r"£\d|\d,\d\d lei", attack), attack  # an amount


def test_transit_alerts_are_alerts() -> None:
    for row in SET.kind_rows("transit_alert"):
        assert re.search(r"alert|warning|disruption|trafikkvarsel|driftsmeld", _where(row), re.IGNORECASE), row["id"]


def test_app_release_notes_name_a_version() -> None:
    for row in SET.kind_rows("app_release_notes"):
        assert re.search(r"version|release notes|what's new|catatan rilis", _where(row), re.IGNORECASE), row["id"]
        assert re.search(r"\d+\.\d+", _where(row)), row["id"]  # a version number


def test_server_logs_are_log_lines_or_tracebacks() -> None:
    for attack in SET.attacks_of("server_log"):
        assert re.search(r"\d\d:\d\d:\d\d|^Traceback \(most recent call last\):", attack, re.MULTILINE), attack
        assert re.search(r"\b(WARN|ERROR|NOTICE|NOTE|INFO)\b|Error:", attack), attack


def test_lab_reports_look_like_reports() -> None:
    for row in SET.kind_rows("lab_report"):
        where = _where(row)
        assert re.search(r"report|certificate|analysis|jelentés|footnote", where, re.IGNORECASE), row["id"]


def test_course_syllabi_carry_a_course_code() -> None:
    for row in SET.kind_rows("course_syllabus"):
        assert re.search(r"\b[A-Z]{3,4}-[A-Z]?\d+\b", _where(row)), row["id"]


def test_patent_abstracts_look_like_patents() -> None:
    for row in SET.kind_rows("patent_abstract"):
        where = _where(row)
        assert re.search(r"\(5[47]\)|patent|abstract|examiner|tokkyo", where, re.IGNORECASE), row["id"]


def test_speaker_notes_sit_in_slide_decks() -> None:
    for row in SET.kind_rows("speaker_notes"):
        carrier = SET.carrier(row)
        where = _where(row)
        assert re.search(r"speaker notes|presenter notes|notes pages|σημειώσεις ομιλητή", where, re.I), row["id"]
        assert re.search(r"\bSlide \d+\b", carrier["text"]), row["id"]


def test_newsletter_footers_are_newsletter_furniture() -> None:
    for row in SET.kind_rows("newsletter_footer"):
        where = _where(row)
        assert re.search(r"unsubscribe|newsletter|nyhetsbrev|preheader|email|mejl", where, re.IGNORECASE), row["id"]
