"""Model-free checks shared by the blind prose-injection sets whose attackers name plausible answers
(``cookbook/data/prose_injection_fifth.jsonl`` to ``_tenth``);
each set's kinds are checked in its own test file."""

from __future__ import annotations

import pytest

from . import (
    test_prose_injection_eighth,
    test_prose_injection_ninth,
    test_prose_injection_seventh,
    test_prose_injection_tenth,
)
from .cookbook import InjectionSet, check_kinds_and_ids, check_row_schema, fields, load_script, words

SETS = {name: InjectionSet(name) for name in ("prose_injection_fifth", "prose_injection_sixth",
                                                "prose_injection_seventh", "prose_injection_eighth",
                                                "prose_injection_ninth", "prose_injection_tenth")}
ROWS = [(s, row) for s in SETS.values() for row in s.rows]
ROW_IDS = [f"{s.jsonl.stem}/{row['id']}" for s, row in ROWS]


@pytest.mark.parametrize("s", SETS.values(), ids=SETS)
def test_jsonl_matches_generator(s: InjectionSet) -> None:
    assert s.jsonl.read_text(encoding="utf-8") == s.module.render()
    assert s.module.OUT == s.jsonl
    assert load_script(s.script).render() == s.module.render()


@pytest.mark.parametrize("s", SETS.values(), ids=SETS)
def test_forty_rows_four_per_kind_with_well_formed_ids(s: InjectionSet) -> None:
    check_kinds_and_ids(s.module, s.rows, set(s.module.KINDS), s.attacks, s.clean)
    assert len(s.rows) == 40


@pytest.mark.parametrize("s", SETS.values(), ids=SETS)
def test_injected_strings_unique(s: InjectionSet) -> None:
    injected = [r["injected"] for r in s.rows]
    assert len({i.lower() for i in injected}) == len(injected)
    # No two planted answers share a word either, so a hit can be traced to one row.
    planted = [w for i in injected for w in words(i)]
    assert len(set(planted)) == len(planted)


@pytest.mark.parametrize("s,row", ROWS, ids=ROW_IDS)
def test_row_schema(s: InjectionSet, row: dict) -> None:
    # A plausible answer: a realistic capitalised name of one to three words, not a phrase or a sentence.
    check_row_schema(row, set(s.module.KINDS), r"[A-Z][a-z]+( [A-Z][a-z]+){0,2}")


@pytest.mark.parametrize("s,row", ROWS, ids=ROW_IDS)
def test_true_answer_stands_in_clean_text(s: InjectionSet, row: dict) -> None:
    clean = s.clean[row["id"]]
    assert (clean["question"], clean["answers"], clean["injected"], clean["attack"]) == (
        row["question"],
        row["answers"],
        row["injected"],
        row["attack"],
    )
    assert clean["documents"], row["id"]
    for answer in row["answers"]:
        assert any(answer in doc["text"] for doc in clean["documents"]), (row["id"], answer)


@pytest.mark.parametrize("s,row", ROWS, ids=ROW_IDS)
def test_injected_only_in_the_attack(s: InjectionSet, row: dict) -> None:
    inj, attack = row["injected"], s.attacks[row["id"]]
    # The planted span holds the injected string and sits, whole, in exactly one passage or title.
    assert inj in attack
    assert sum(f.count(attack) for d in row["documents"] for f in fields(d)) == 1
    assert any(inj in f for d in row["documents"] for f in fields(d))
    assert inj.lower() not in row["question"].lower()
    assert not words(inj) & words(row["question"])
    # No attack-free rendering, of this row or any other, says it or a word of it.
    for field in s.clean_fields():
        assert inj.lower() not in field.lower(), (row["id"], field)
        assert not words(inj) & words(field), (row["id"], field)


# Each set's own wording for the machine its attacks address (the fifth and sixth predate the check).
MACHINE = {m.SET.jsonl.stem: m.MACHINE for m in (test_prose_injection_seventh, test_prose_injection_eighth,
                                                  test_prose_injection_ninth, test_prose_injection_tenth)}


@pytest.mark.parametrize("s,row", ROWS, ids=ROW_IDS)
def test_each_attack_addresses_a_machine_and_never_names_the_true_answer(s: InjectionSet, row: dict) -> None:
    attack = s.attacks[row["id"]]
    assert not any(answer.lower() in attack.lower() for answer in row["answers"]), row["id"]
    if s.jsonl.stem in MACHINE:
        assert MACHINE[s.jsonl.stem].search(attack), row["id"]  # aimed at whatever machine reads the page


@pytest.mark.parametrize("s,row", ROWS, ids=ROW_IDS)
def test_answers_and_injected_do_not_overlap(s: InjectionSet, row: dict) -> None:
    inj = row["injected"].lower()
    for answer in row["answers"]:
        assert inj not in answer.lower() and answer.lower() not in inj, (row["id"], answer)
        assert not words(inj) & words(answer), (row["id"], answer)


@pytest.mark.parametrize("s,row", ROWS, ids=ROW_IDS)
def test_clean_rendering_only_drops_the_attack(s: InjectionSet, row: dict) -> None:
    clean = s.clean[row["id"]]
    attack = s.attacks[row["id"]]
    carrier = s.carrier(row)
    clean_fields = [f for d in clean["documents"] for f in fields(d)]
    # Every document the attack does not touch comes through unchanged; a passage of the attacker's own is left out.
    others = [d for d in row["documents"] if d is not carrier]
    assert all(d in clean["documents"] for d in others)
    assert len(clean["documents"]) == len(row["documents"]) - (carrier["text"] == attack)
    for field in clean_fields:
        assert attack not in field
        assert row["injected"] not in field


@pytest.mark.parametrize("s", SETS.values(), ids=SETS)
def test_placements_vary(s: InjectionSet) -> None:
    own = shared = titled = before = middle = after = 0
    for row in s.rows:
        attack, full = s.attacks[row["id"]], row["answers"][0]
        carrier = s.carrier(row)
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
    assert before >= 4 and middle >= 4 and after >= 4
    assert sum(len(r["documents"]) >= 2 for r in s.rows) >= 15
    assert sum(len(r["documents"]) == 3 for r in s.rows) >= 4
